// Pi's answer: its thinking and text blocks (the last one streamed while Pi writes, the others
// from the rendered cache), why it stopped, and the answer's actions (copy, fork, retry).
import type { AssistantItem } from "../../src/shared/chat-items";
import { useContext } from "preact/hooks";
import { post } from "../vscode-api";
import { AnswerActions, BranchContext, ForkOnly } from "../branch-controls";
import { Spinner } from "../icons";
import { FinalMarkdown } from "../markdown/rendered-cache";
import { StreamingMarkdown } from "../markdown/streaming-markdown";
import { MessageHeading } from "./message-heading";
import { Thinking } from "./thinking";

export function AssistantCard({ item }: { item: AssistantItem }) {
  const last = item.blocks[item.blocks.length - 1];
  // A message that only called tools: its tool cards say everything. A failed request that wrote
  // nothing likewise: the error notice after it is the one card about it (what, why, what to do).
  if (
    !item.isStreaming &&
    item.blocks.every((b) => b.type === "text" && b.text.trim() === "") &&
    item.stopReason !== "aborted" &&
    item.stopReason !== "length"
  ) {
    return <ForkOnly item={item} />;
  }
  return (
    <article
      class={`item assistant${item.isStreaming ? " streaming" : ""}`}
      data-item={item.id}
      aria-labelledby={`heading-${item.id}`}
      aria-busy={item.isStreaming ? "true" : undefined}
    >
      <MessageHeading id={item.id} level={3} who="Pi" timestamp={item.timestamp} />
      {item.blocks.map((block) =>
        block.type === "thinking" ? (
          <Thinking key={block.index} id={`${item.id}:${block.index}`} block={block} active={item.isStreaming && block === last} />
        ) : item.isStreaming && block === last ? (
          <StreamingMarkdown key={block.index} text={block.text} />
        ) : (
          <FinalMarkdown key={block.index} block={block} />
        ),
      )}
      {item.isStreaming && item.blocks.length === 0 && (
        <div class="waiting">
          <Spinner /> Thinking…
        </div>
      )}
      {/* What failed, why and what to do are in the notice that follows (every provider error gets one). */}
      {item.stopReason === "error" && <div class="stopped">Cut off by the error below</div>}
      {item.stopReason === "aborted" && <div class="stopped">Stopped</div>}
      {item.stopReason === "length" && <CutAtTokenLimit item={item} />}
      <AnswerActions item={item} />
    </article>
  );
}

/**
 * An answer the server cut at its output token limit: said plainly, so it is not taken for a whole
 * answer, with *Continue* while it is the chat's last turn (the model is told it was cut and goes on).
 */
function CutAtTokenLimit({ item }: { item: AssistantItem }) {
  const { continuable } = useContext(BranchContext);
  const noteId = `cut-${item.id}`;
  return (
    <div class="stopped cut-at-limit">
      <span id={noteId}>Cut off at the token limit: this answer is not finished.</span>
      {continuable === item.id && (
        <button
          type="button"
          class="button primary"
          aria-label="Continue this answer"
          aria-describedby={noteId}
          onClick={() => post({ type: "chat/continue" })}
        >
          Continue
        </button>
      )}
    </div>
  );
}
