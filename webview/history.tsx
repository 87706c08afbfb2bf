// The chat history, opened by VS Code's History action in the view title: a dialog (WAI-ARIA
// dialog pattern) over the chat. Focus stays inside while it is open (Tab wraps); Up/Down,
// Home/End and typing a title's first letters move between chats; Escape closes it and puts
// the focus back in the composer (what opened it is outside the webview); a click outside
// closes it too. Choosing a chat switches to it and focuses the composer.
import { useEffect, useRef, useState } from "preact/hooks";
import type { ChatSummary } from "../src/shared/protocol";
import { focusComposer } from "./focus";
import { TrashIcon } from "./icons";
import { post } from "./vscode";

const TYPE_AHEAD_RESET_MS = 700;

export function History(props: { chats: readonly ChatSummary[]; currentId: string; onClose: () => void }) {
  const panel = useRef<HTMLDivElement>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const typed = useRef({ text: "", at: 0 });

  const close = (refocus: boolean) => {
    props.onClose();
    if (refocus) focusComposer();
  };

  useEffect(() => {
    const items = chatButtons();
    (items.find((b) => b.getAttribute("aria-current") === "true") ?? items[0] ?? panel.current)?.focus();
    const onDown = (e: MouseEvent) => {
      if (!panel.current?.contains(e.target as Node)) props.onClose();
    };
    document.addEventListener("mousedown", onDown);
    return () => document.removeEventListener("mousedown", onDown);
  }, []);

  const chatButtons = () => Array.from(panel.current?.querySelectorAll<HTMLButtonElement>("button.history-item") ?? []);

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      close(true);
      return;
    }
    if (e.key === "Tab") {
      // Focus stays in the dialog: Tab from the last control goes to the first, and back.
      const focusables = Array.from(panel.current?.querySelectorAll<HTMLElement>("button:not(:disabled)") ?? []);
      const first = focusables[0];
      const last = focusables[focusables.length - 1];
      if (!first || !last) return e.preventDefault();
      if (e.shiftKey && document.activeElement === first) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && document.activeElement === last) {
        e.preventDefault();
        first.focus();
      }
      return;
    }
    const items = chatButtons();
    if (items.length === 0) return;
    const row = (document.activeElement as HTMLElement | null)?.closest("li");
    const index = items.findIndex((b) => b.closest("li") === row);
    let next: HTMLButtonElement | undefined;
    if (e.key === "ArrowDown") next = items[index < 0 ? 0 : Math.min(index + 1, items.length - 1)];
    else if (e.key === "ArrowUp") next = items[index < 0 ? 0 : Math.max(index - 1, 0)];
    else if (e.key === "Home") next = items[0];
    else if (e.key === "End") next = items[items.length - 1];
    else if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey && e.key !== " ") {
      // Type-ahead: the next chat whose title starts with what was typed.
      // The same letter again moves on to the next chat starting with it.
      const now = Date.now();
      const text = (now - typed.current.at > TYPE_AHEAD_RESET_MS ? "" : typed.current.text) + e.key.toLowerCase();
      typed.current = { text, at: now };
      const prefix = /^(.)\1*$/.test(text) ? text.charAt(0) : text;
      const from = prefix.length === 1 ? index + 1 : Math.max(index, 0);
      const ordered = [...items.slice(from), ...items.slice(0, from)];
      next = ordered.find((b) => (b.dataset.title ?? "").toLowerCase().startsWith(prefix));
    } else return;
    e.preventDefault();
    next?.focus();
  };

  const chats = [...props.chats].sort((a, b) => b.updatedAt - a.updatedAt);
  return (
    <div class="history" ref={panel} role="dialog" aria-modal="true" aria-label="Chat history" tabIndex={-1} onKeyDown={onKeyDown}>
      {chats.length === 0 ? (
        <div class="history-empty">No saved chats yet</div>
      ) : (
        <ul class="history-list" aria-label="Chats, most recent first">
          {chats.map((chat) => {
            const current = chat.id === props.currentId;
            const title = chat.title || "Untitled chat";
            const when = formatWhen(chat.updatedAt);
            return (
              <li key={chat.id} class={current ? "current" : undefined}>
                <button
                  type="button"
                  class="history-item"
                  data-title={title}
                  aria-current={current ? "true" : undefined}
                  onClick={() => {
                    if (!current) post({ type: "chat/switch", chatId: chat.id });
                    close(true);
                  }}
                >
                  <span class="history-title">{title}</span>
                  <span class="history-date">{when}</span>
                </button>
                <button
                  type="button"
                  class={`icon-button${confirming === chat.id ? " confirm" : ""}`}
                  title={confirming === chat.id ? "Click again to delete" : "Delete chat"}
                  aria-label={confirming === chat.id ? `Confirm: delete chat ${title}` : `Delete chat ${title}`}
                  onBlur={() => setConfirming((c) => (c === chat.id ? null : c))}
                  onClick={() => {
                    if (confirming === chat.id) {
                      setConfirming(null);
                      post({ type: "chat/delete", chatId: chat.id });
                    } else {
                      setConfirming(chat.id);
                    }
                  }}
                >
                  {confirming === chat.id ? <span class="confirm-text">Delete?</span> : <TrashIcon />}
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

function formatWhen(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return "";
  const date = new Date(ms);
  const now = new Date();
  if (date.toDateString() === now.toDateString()) return date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  return date.toLocaleDateString(undefined, { month: "short", day: "numeric", ...(date.getFullYear() !== now.getFullYear() ? { year: "numeric" } : {}) });
}
