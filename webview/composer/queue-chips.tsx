// What the user queued while Pi was writing: one chip per follow-up or steer, above the composer,
// each removable until Pi takes it. After Stop the queue stays, with Send now / Clear.
import type { QueuedInput } from "../../src/shared/protocol";
import { queueRemovedByUser } from "../announce";
import { CloseIcon } from "../icons";
import { memo } from "../memo";
import { post } from "../vscode-api";

const KIND_LABEL: Record<QueuedInput["kind"], string> = { followUp: "Follow-up", steer: "Steer" };
const KIND_HINT: Record<QueuedInput["kind"], string> = {
  followUp: "Sent when Pi finishes this reply",
  steer: "Sent after the current tool call, before Pi's next step",
};

/** "2 files, 1 image": what travels with a queued message besides its text. */
function extras(item: QueuedInput): string {
  const parts: string[] = [];
  if (item.attachments.length > 0) parts.push(`${item.attachments.length} file${item.attachments.length === 1 ? "" : "s"}`);
  if (item.imageCount > 0) parts.push(`${item.imageCount} image${item.imageCount === 1 ? "" : "s"}`);
  return parts.join(", ");
}

export const QueueChips = memo(function QueueChips(props: { queue: readonly QueuedInput[]; kept: boolean; running: boolean }) {
  if (props.queue.length === 0) return null;
  const count = props.queue.length;
  return (
    <section class="queue" aria-label="Queued messages" data-focus-scope="queue">
      {props.kept && !props.running && (
        <div class="queue-kept" role="status">
          <span class="grow">Stopped. {count === 1 ? "Your queued message was" : `Your ${count} queued messages were`} not sent.</span>
          <button type="button" class="button primary" onClick={() => post({ type: "queue/sendNow" })}>
            Send now
          </button>
          <button
            type="button"
            class="button secondary"
            onClick={() => {
              for (const item of props.queue) queueRemovedByUser.add(item.id);
              post({ type: "queue/clear" });
            }}
          >
            Clear
          </button>
        </div>
      )}
      <ul class="queue-list">
        {props.queue.map((item) => {
          const more = extras(item);
          const label = `${KIND_LABEL[item.kind]}: ${item.text}${more ? ` (${more})` : ""}`;
          return (
            <li key={item.id} class={`chip queue-chip queue-${item.kind}`} data-queue-id={item.id} title={`${KIND_HINT[item.kind]}\n${item.text}`}>
              <span class="queue-kind">{KIND_LABEL[item.kind]}</span>
              <span class="chip-label">{item.text === "" ? "(images only)" : item.text}</span>
              {more && <span class="chip-range">{more}</span>}
              <button
                type="button"
                class="chip-remove"
                aria-label={`Remove ${label}`}
                onClick={() => {
                  queueRemovedByUser.add(item.id);
                  post({ type: "queue/remove", id: item.id });
                }}
              >
                <CloseIcon />
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
});
