// The bar above the chat: title, model (VS Code's quick pick chooses it), history, new chat.
// The history menu is a popover over the chat list; Escape or a click outside closes it.
import { useEffect, useRef, useState } from "preact/hooks";
import type { ContextMeter } from "../src/shared/context-meter";
import type { ChatSummary, ViewStatus } from "../src/shared/protocol";
import { ContextMeterButton } from "./context-meter";
import { ChevronDownIcon, HistoryIcon, PlusIcon, TrashIcon } from "./icons";
import { memo } from "./memo";
import { post } from "./vscode";

export const Toolbar = memo(function Toolbar(props: { title: string; chatId: string; status: ViewStatus; chats: readonly ChatSummary[]; meter?: ContextMeter | undefined; running?: boolean }) {
  const [historyOpen, setHistoryOpen] = useState(false);
  const historyButton = useRef<HTMLButtonElement>(null);
  const close = (refocus: boolean) => {
    setHistoryOpen(false);
    if (refocus) historyButton.current?.focus();
  };
  const label = props.status.modelLabel;
  return (
    <header class="toolbar">
      <div class="toolbar-title" title={props.title}>
        {props.title || "New chat"}
      </div>
      <ContextMeterButton meter={props.meter} running={props.running ?? false} />
      <button
        type="button"
        class="model-button"
        title="Change model"
        aria-label={label ? `Model ${label}. Change model` : "Select a model"}
        onClick={() => post({ type: "command", command: "selectModel" })}
      >
        <span class="model-label">{label || "Select model"}</span>
        <ChevronDownIcon />
      </button>
      <button
        type="button"
        ref={historyButton}
        class="icon-button"
        title="Chat history"
        aria-label="Chat history"
        aria-haspopup="true"
        aria-expanded={historyOpen}
        onClick={() => setHistoryOpen((open) => !open)}
      >
        <HistoryIcon />
      </button>
      <button type="button" class="icon-button" title="New chat" aria-label="New chat" onClick={() => post({ type: "newChat" })}>
        <PlusIcon />
      </button>
      {historyOpen && <History chats={props.chats} currentId={props.chatId} onClose={close} anchor={historyButton} />}
    </header>
  );
});

function History(props: { chats: readonly ChatSummary[]; currentId: string; onClose: (refocus: boolean) => void; anchor: { current: HTMLElement | null } }) {
  const panel = useRef<HTMLDivElement>(null);
  const [confirming, setConfirming] = useState<string | null>(null);

  useEffect(() => {
    panel.current?.querySelector<HTMLButtonElement>("button")?.focus();
    const onDown = (e: MouseEvent) => {
      const target = e.target as Node;
      if (!panel.current?.contains(target) && !props.anchor.current?.contains(target)) props.onClose(false);
    };
    document.addEventListener("mousedown", onDown);
    return () => document.removeEventListener("mousedown", onDown);
  }, []);

  const chats = [...props.chats].sort((a, b) => b.updatedAt - a.updatedAt);
  return (
    <div
      class="history"
      ref={panel}
      role="dialog"
      aria-label="Chat history"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.stopPropagation();
          props.onClose(true);
        }
      }}
    >
      {chats.length === 0 ? (
        <div class="history-empty">No saved chats yet</div>
      ) : (
        <ul class="history-list">
          {chats.map((chat) => {
            const current = chat.id === props.currentId;
            const title = chat.title || "Untitled chat";
            return (
              <li key={chat.id} class={current ? "current" : undefined}>
                <button
                  type="button"
                  class="history-item"
                  aria-current={current ? "true" : undefined}
                  onClick={() => {
                    if (!current) post({ type: "switchChat", chatId: chat.id });
                    props.onClose(false);
                  }}
                >
                  <span class="history-title">{title}</span>
                  <span class="history-date">{formatWhen(chat.updatedAt)}</span>
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
                      post({ type: "deleteChat", chatId: chat.id });
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
