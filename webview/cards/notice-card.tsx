// A note or an error in the chat: its text, what to do, buttons that do it (Retry, Set API Key…),
// a restore's Redo changes, and what the server said.
import type { FixCommandId } from "../../src/shared/app-messages";
import type { NoticeItem } from "../../src/shared/chat-items";
import { ErrorIcon, InfoIcon } from "../icons";
import { post } from "../vscode-api";

const FIX_COMMAND_LABELS: Record<FixCommandId, string> = {
  setApiKey: "Set API Key",
  selectModel: "Choose Model",
  selectChatModel: "Choose Provider/Model",
  useLocalModel: "Use a Local Model",
  openSettings: "Open Settings",
  retry: "Retry",
  compact: "Compact Chat",
  newChatFromSummary: "New Chat from Summary",
  mcpSignIn: "Sign In",
  signIn: "Sign In Again",
};

/** A notice's button: Retry continues the chat; the others run their Pi Chat command. */
function runFix(command: FixCommandId): void {
  if (command === "retry") post({ type: "chat/continue" });
  else post({ type: "workbench/runCommand", command });
}

/** A restore's note keeps its *Redo changes* (the notification's goes away); once used, it says so. */
function RestoreRedo({ item, redo }: { item: NoticeItem; redo: NonNullable<NoticeItem["redo"]> }) {
  const index = /^m(\d+)$/.exec(item.id);
  if (redo.state === "done") return <div class="notice-fix">Changes redone (see below).</div>;
  if (!index) return null;
  return (
    <div class="notice-actions">
      <button type="button" class="button secondary" onClick={() => post({ type: "checkpoint/redo", messageIndex: Number(index[1]) })}>
        Redo changes
      </button>
    </div>
  );
}

export function NoticeCard({ item }: { item: NoticeItem }) {
  const Icon = item.level === "error" ? ErrorIcon : InfoIcon;
  const actions = [...new Set([...(item.fixCommand ? [item.fixCommand] : []), ...(item.moreFixCommands ?? [])])];
  return (
    <div class={`item notice notice-${item.level}`} data-item={item.id} role="note" aria-label={item.level === "error" ? "Error" : "Note"}>
      <Icon class={item.level === "error" ? "bad" : "muted"} />
      <div>
        <div class="notice-text">{item.text}</div>
        {item.fix !== undefined && <div class="notice-fix">{item.fix}</div>}
        {actions.length > 0 && (
          <div class="notice-actions">
            {actions.map((command, index) => (
              <button key={command} type="button" class={`button ${index === 0 ? "primary" : "secondary"}`} onClick={() => runFix(command)}>
                {FIX_COMMAND_LABELS[command]}
              </button>
            ))}
          </div>
        )}
        {item.redo !== undefined && <RestoreRedo item={item} redo={item.redo} />}
        {item.detail !== undefined && (
          <details class="notice-detail">
            {/* An error's detail is the provider's words; a note's, its own (a plan's edited text, the comments on it). */}
            <summary>{item.level === "error" ? "What the server said" : "Details"}</summary>
            <div class="error-text">{item.detail}</div>
          </details>
        )}
      </div>
    </div>
  );
}
