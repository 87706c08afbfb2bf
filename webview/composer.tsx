// The composer: Enter sends, Shift+Enter is a new line, Escape while running stops the run.
// The draft lives in the webview's own state (vscode.setState) so it survives the view being
// hidden; it reaches the host only as the prompt that is sent.
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { PendingAttachment } from "../src/shared/protocol";
import { CloseIcon, FileIcon, SendIcon, StopIcon } from "./icons";
import { memo } from "./memo";
import { rangeLabel } from "./parts";
import { loadUiState, post, saveUiState } from "./vscode";

const MAX_HEIGHT_PX = 220;

export const Composer = memo(function Composer(props: {
  running: boolean;
  attachments: readonly PendingAttachment[];
  editsAllowedForChat: boolean;
  /** The chat is being written in another window: nothing can be sent from here. */
  readOnly?: boolean;
}) {
  const [draft, setDraft] = useState(() => loadUiState().draft);
  const input = useRef<HTMLTextAreaElement>(null);

  const changeDraft = (text: string) => {
    setDraft(text);
    saveUiState({ draft: text });
  };

  // Grow with the text up to a limit (a CSSOM property: allowed under the CSP).
  useLayoutEffect(() => {
    const el = input.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, MAX_HEIGHT_PX)}px`;
  }, [draft]);

  const canSend = !props.running && !props.readOnly && draft.trim() !== "";
  const send = () => {
    if (!canSend) return;
    post({ type: "prompt", text: draft });
    changeDraft("");
    input.current?.focus();
  };

  return (
    <section class="composer" aria-label="Message Pi">
      {props.attachments.length > 0 && (
        <ul class="attachments" aria-label="Attached files">
          {props.attachments.map((a, index) => {
            const label = a.range ? `${a.path} ${rangeLabel(a.range.startLine, a.range.endLine)}` : a.path;
            return (
              <li key={`${index}:${a.path}`} class="chip" title={label}>
                <FileIcon />
                <span class="chip-label">{a.path}</span>
                {a.range && <span class="chip-range">{rangeLabel(a.range.startLine, a.range.endLine)}</span>}
                <button type="button" class="chip-remove" aria-label={`Remove ${label}`} onClick={() => post({ type: "removeAttachment", index })}>
                  <CloseIcon />
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <div class="input-box">
        <textarea
          ref={input}
          class="input"
          data-composer-input
          rows={1}
          value={draft}
          aria-label="Message to Pi"
          readOnly={props.readOnly === true}
          placeholder={props.readOnly ? "Open in another window: read-only here" : props.running ? "Pi is working… (Escape to stop)" : "Ask Pi about your code"}
          onInput={(e) => changeDraft(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              send();
            } else if (e.key === "Escape" && props.running) {
              e.preventDefault();
              post({ type: "stop" });
            }
          }}
        />
        <div class="input-footer">
          <span class="hint">{commandHint(draft) ?? (props.editsAllowedForChat ? "Edits are allowed for this chat" : "")}</span>
          {props.running ? (
            <button type="button" class="button stop-button" title="Stop (Escape)" aria-label="Stop" onClick={() => post({ type: "stop" })}>
              <StopIcon /> Stop
            </button>
          ) : (
            <button type="button" class="icon-button send-button" title="Send (Enter)" aria-label="Send" disabled={!canSend} onClick={send}>
              <SendIcon />
            </button>
          )}
        </div>
      </div>
    </section>
  );
});

/** What Enter will do with a `!cmd` / `!!cmd` draft (the host decides; this only says it). */
function commandHint(draft: string): string | undefined {
  const text = draft.trimStart();
  if (text.startsWith("!!") && text.slice(2).trim() !== "") return "Runs in the workspace now; the output is not sent to Pi";
  if (text.startsWith("!") && text.slice(1).trim() !== "") return "Runs in the workspace now; Pi sees the output with your next message";
  return undefined;
}
