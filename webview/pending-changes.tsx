// The changed-files list: the files Pi (or a command it ran) changed since the last prompt (or
// since the checkpoint picked in its "Since" list), with changes still pending Keep or Undo. Each row: the file (opens it at its first pending change,
// where the editor's lenses decide hunk by hunk), lines added and removed, whose change, how
// many the user changed since, and Keep / Undo for the file; Keep all / Undo all above. Up and
// Down move between the rows' files. Each decision's outcome is announced; the host says it.
import { useEffect } from "preact/hooks";
import { checkpointLabel } from "../src/shared/checkpoint-label";
import type { PendingFileSummary } from "../src/shared/protocol";
import type { PendingChangesState } from "./client";
import { announce } from "./live-region";
import { post } from "./vscode-api";

const BY = { pi: "Pi", command: "a command", both: "Pi and a command" } as const;
const KIND = { modified: "", created: "created, ", deleted: "deleted, " } as const;

function counts(f: PendingFileSummary): string {
  return `+${f.added} −${f.removed}`;
}

function spoken(f: PendingFileSummary): string {
  return `${f.path}: ${f.added} lines added, ${f.removed} removed by ${BY[f.by]}`;
}

/** Up/Down between the files of the list (the buttons on a row are reached with Tab). */
function moveBetweenRows(e: KeyboardEvent): void {
  if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
  const list = (e.currentTarget as HTMLElement).querySelectorAll<HTMLButtonElement>(".pending-file-open");
  const items = [...list];
  const at = items.indexOf(document.activeElement as HTMLButtonElement);
  if (at === -1) return;
  const next = items[e.key === "ArrowDown" ? Math.min(items.length - 1, at + 1) : Math.max(0, at - 1)];
  e.preventDefault();
  next?.focus();
}

/** The checkpoint the list counts from: a native select (keyboard and screen readers know it), newest first. */
function SincePicker({ state }: { state: PendingChangesState }) {
  const { checkpoints, since } = state;
  if (checkpoints.length < 2 && !since) return null;
  const selected = since?.markId ?? checkpoints[0]?.markId;
  return (
    <label class="pending-since">
      Since{" "}
      <select
        class="pending-since-select"
        value={selected}
        title="Review everything Pi and its commands changed since the message you pick"
        onChange={(e) => post({ type: "pending/since", markId: (e.currentTarget as HTMLSelectElement).value })}
      >
        {checkpoints.map((c, i) => (
          <option key={c.markId} value={c.markId}>
            {i === 0 ? `your last message (${checkpointLabel(c)})` : checkpointLabel(c)}
          </option>
        ))}
      </select>
    </label>
  );
}

export function PendingChangesPanel({ state }: { state: PendingChangesState | undefined }) {
  // Said once per message that carries an outcome (also when the list is empty after it).
  useEffect(() => {
    if (state?.said) announce(state.said);
  }, [state?.n]);
  const files = state?.files ?? [];
  // Empty since the last prompt: nothing to show; empty since a picked checkpoint: said, with the picker to go back.
  if (!state || (files.length === 0 && !state.since)) return null;
  const sinceWords = state.since ? checkpointLabel(state.since) : "your last message";
  const added = files.reduce((n, f) => n + f.added, 0);
  const removed = files.reduce((n, f) => n + f.removed, 0);
  return (
    <section class="pending-changes" aria-labelledby="pending-changes-title">
      <div class="pending-changes-head">
        <h2 id="pending-changes-title" class="pending-changes-title">
          {files.length === 1 ? "1 file changed" : `${files.length} files changed`}{" "}
          <span class="pending-counts" aria-hidden="true">
            <span class="added">+{added}</span> <span class="removed">−{removed}</span>
          </span>
          <span class="sr-only">
            : {added} lines added, {removed} removed
          </span>
        </h2>
        <SincePicker state={state} />
        {files.length > 0 && (
          <>
            <button type="button" class="button primary" onClick={() => post({ type: "pending/decide", action: "keep" })}>
              Keep all
            </button>
            <button type="button" class="button secondary" onClick={() => post({ type: "pending/decide", action: "undo" })}>
              Undo all
            </button>
          </>
        )}
      </div>
      {files.length === 0 && <p class="muted pending-none">No changes of Pi's are pending since {sinceWords}.</p>}
      <ul class="pending-changes-list" aria-label={`Files changed since ${sinceWords}`} onKeyDown={moveBetweenRows}>
        {files.map((f) => (
          <li key={f.path} class="pending-file">
            <button
              type="button"
              class="link-button pending-file-open"
              aria-label={`${spoken(f)}. Open it to keep or undo each change`}
              onClick={() => post({ type: "pending/open", path: f.path })}
            >
              {f.path}
            </button>
            <span class="pending-counts" aria-hidden="true">
              <span class="added">+{f.added}</span> <span class="removed">−{f.removed}</span>
            </span>
            <span class="muted">
              {" "}
              {KIND[f.kind]}
              {BY[f.by]}
              {f.changedByYou > 0 ? `, ${f.changedByYou === 1 ? "1 change" : `${f.changedByYou} changes`} changed by you since` : ""}
            </span>
            <span class="pending-file-actions">
              <button
                type="button"
                class="button secondary"
                aria-label={`Keep ${f.path}`}
                title={`Keep ${counts(f)}`}
                onClick={() => post({ type: "pending/decide", action: "keep", path: f.path })}
              >
                Keep
              </button>
              <button
                type="button"
                class="button secondary"
                aria-label={`Undo ${f.path}`}
                title="Put back what was there before Pi's write (your own changes stay)"
                onClick={() => post({ type: "pending/decide", action: "undo", path: f.path })}
              >
                Undo
              </button>
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
