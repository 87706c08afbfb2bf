// The chat history, opened by VS Code's History action in the view title: a dialog (WAI-ARIA
// dialog pattern) over the chat. Focus stays inside while it is open (Tab wraps). On a chat:
// Up/Down, Home/End and typing a title's first letters move between chats, Enter opens it, F2
// renames it in place (Enter keeps, Escape cancels), Delete deletes it (Undo in the notice that
// follows); Up from the first chat, or Ctrl/Cmd+F, goes to the search box, Down from there to the
// first chat. The search asks the host (titles at once, then message text: the webview reads no
// file) and lists what it finds, with the words around a match in the text. Escape closes the
// dialog and puts the focus back in the composer; a click outside closes it too.
import { useEffect, useRef, useState } from "preact/hooks";
import type { ChatSummary } from "../src/shared/protocol";
import { focusComposer } from "./focus";
import { announce } from "./live-region";
import { EditIcon, MarkdownIcon, TerminalIcon, TrashIcon } from "./icons";
import { post } from "./vscode-api";
import { clockTime } from "./format";

const TYPE_AHEAD_RESET_MS = 700;
/** Typing pauses this long before the host is asked. */
const SEARCH_DELAY_MS = 150;
export const MAX_TITLE_CHARS = 200;

/** What the host found for a query: chats in the order to show, a snippet where the text matched. */
export interface HistorySearch {
  readonly query: string;
  readonly hits: readonly { readonly chatId: string; readonly snippet?: string }[];
  /** False while the message text is still being searched. */
  readonly complete: boolean;
}

export function History(props: {
  chats: readonly ChatSummary[];
  currentId: string;
  /** The chat deleted last, while Undo can bring it back. */
  deleted?: { readonly chatId: string; readonly title: string } | undefined;
  search?: HistorySearch | undefined;
  onClose: () => void;
}) {
  const panel = useRef<HTMLDivElement>(null);
  const searchBox = useRef<HTMLInputElement>(null);
  const typed = useRef({ text: "", at: 0 });
  const [query, setQuery] = useState("");
  const [renaming, setRenaming] = useState<string | null>(null);
  /** Row index of the chat that had the focus, to put it back on a neighbour when that chat goes. */
  const lastRow = useRef(0);
  const searchTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const close = (refocus: boolean) => {
    props.onClose();
    if (refocus) focusComposer();
  };

  const chatButtons = () => Array.from(panel.current?.querySelectorAll<HTMLButtonElement>("button.history-item") ?? []);

  useEffect(() => {
    const items = chatButtons();
    (items.find((b) => b.getAttribute("aria-current") === "true") ?? items[0] ?? panel.current)?.focus();
    const onDown = (e: MouseEvent) => {
      if (!panel.current?.contains(e.target as Node)) props.onClose();
    };
    document.addEventListener("mousedown", onDown);
    return () => {
      document.removeEventListener("mousedown", onDown);
      clearTimeout(searchTimer.current);
    };
  }, []);

  // A chat deleted, restored or renamed redraws the list: a focus left on nothing goes back to the
  // row where it was (the next chat after a delete).
  useEffect(() => {
    if (renaming !== null || panel.current?.contains(document.activeElement)) return;
    const items = chatButtons();
    (items[Math.min(lastRow.current, items.length - 1)] ?? searchBox.current ?? panel.current)?.focus();
  });

  const onSearchInput = (value: string) => {
    setQuery(value);
    clearTimeout(searchTimer.current);
    if (value.trim() === "") return;
    searchTimer.current = setTimeout(() => post({ type: "history/search", query: value.trim() }), SEARCH_DELAY_MS);
  };

  const trimmed = query.trim();
  const results = trimmed !== "" && props.search?.query === trimmed ? props.search : undefined;
  const byId = new Map(props.chats.map((c) => [c.id, c]));
  const rows: { chat: ChatSummary; snippet?: string }[] =
    trimmed === ""
      ? [...props.chats].sort((a, b) => b.updatedAt - a.updatedAt).map((chat) => ({ chat }))
      : (results?.hits ?? []).flatMap((hit) => {
          const chat = byId.get(hit.chatId);
          return chat ? [{ chat, ...(hit.snippet ? { snippet: hit.snippet } : {}) }] : [];
        });

  const startRename = (chatId: string) => setRenaming(chatId);
  const finishRename = (chatId: string, value: string | null) => {
    setRenaming(null);
    const title = byId.get(chatId)?.title;
    if (value !== null && value.trim() !== title) post({ type: "history/rename", chatId, title: value.trim().slice(0, MAX_TITLE_CHARS) });
    // Back on the chat's row once the input is gone.
    requestAnimationFrame(() =>
      chatButtons()
        .find((b) => b.dataset.chatId === chatId)
        ?.focus(),
    );
  };
  const remove = (chatId: string) => post({ type: "chat/delete", chatId });

  // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the history dialog's keys, one case each (docs/accessibility.md lists them)
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      if (renaming !== null) return; // the rename box handles its own Escape
      close(true);
      return;
    }
    if (e.key === "Tab") {
      // Focus stays in the dialog: Tab from the last control goes to the first, and back.
      const focusables = Array.from(panel.current?.querySelectorAll<HTMLElement>("input, button:not(:disabled)") ?? []);
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
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "f") {
      e.preventDefault();
      searchBox.current?.focus();
      searchBox.current?.select();
      return;
    }
    if (renaming !== null) return;
    const items = chatButtons();
    const inSearch = document.activeElement === searchBox.current;
    if (inSearch) {
      if (e.key === "ArrowDown" && items[0]) {
        e.preventDefault();
        items[0].focus();
      }
      return;
    }
    if (items.length === 0) return;
    const row = (document.activeElement as HTMLElement | null)?.closest("li");
    const index = items.findIndex((b) => b.closest("li") === row);
    const chatId = items[index]?.dataset.chatId;
    let next: HTMLElement | undefined;
    if (e.key === "ArrowDown") next = items[index < 0 ? 0 : Math.min(index + 1, items.length - 1)];
    else if (e.key === "ArrowUp") next = index <= 0 ? (searchBox.current ?? undefined) : items[index - 1];
    else if (e.key === "Home") next = items[0];
    else if (e.key === "End") next = items[items.length - 1];
    else if (e.key === "F2" && chatId) {
      e.preventDefault();
      startRename(chatId);
      return;
    } else if ((e.key === "Delete" || (e.key === "Backspace" && e.metaKey)) && chatId) {
      e.preventDefault();
      lastRow.current = index;
      remove(chatId);
      return;
    } else if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey && e.key !== " ") {
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

  // Said through the view's live region: a status inserted with its text is often not read.
  const deletedId = props.deleted?.chatId;
  useEffect(() => {
    if (props.deleted) announce(`Chat “${props.deleted.title}” deleted. Undo brings it back.`);
  }, [deletedId]);
  const searching = trimmed !== "" && !results?.complete;
  return (
    <div class="history" ref={panel} role="dialog" aria-modal="true" aria-label="Chat history" tabIndex={-1} onKeyDown={onKeyDown}>
      {props.deleted && (
        <div class="history-deleted">
          <span class="history-deleted-text">Chat “{props.deleted.title}” deleted</span>
          <button
            type="button"
            class="text-button"
            onClick={() => {
              if (props.deleted) post({ type: "history/undoDelete", chatId: props.deleted.chatId });
              // The notice goes when the chat is back: keep the focus in the dialog.
              (chatButtons()[0] ?? panel.current)?.focus();
            }}
          >
            Undo
          </button>
        </div>
      )}
      <input
        ref={searchBox}
        type="search"
        class="history-search"
        placeholder="Search titles and messages"
        aria-label="Search chats: titles and message text"
        aria-controls="history-list"
        maxLength={500}
        value={query}
        onInput={(e) => onSearchInput((e.currentTarget as HTMLInputElement).value)}
      />
      <div class="history-search-state" role="status">
        {searching ? "Searching…" : trimmed !== "" ? `${rows.length} chat${rows.length === 1 ? "" : "s"} found` : ""}
      </div>
      {rows.length === 0 ? (
        <div class="history-empty">{trimmed !== "" ? (searching ? "" : "No chat has these words") : "No saved chats yet"}</div>
      ) : (
        <ul class="history-list" id="history-list" aria-label={trimmed === "" ? "Chats, most recent first" : "Chats found"}>
          {rows.map(({ chat, snippet }, rowIndex) => {
            const current = chat.id === props.currentId;
            const title = chat.title || "Untitled chat";
            return (
              <li key={chat.id} class={current ? "current" : undefined}>
                {renaming === chat.id ? (
                  <RenameBox title={title} onDone={(value) => finishRename(chat.id, value)} />
                ) : (
                  <button
                    type="button"
                    class="history-item"
                    data-title={title}
                    data-chat-id={chat.id}
                    aria-current={current ? "true" : undefined}
                    aria-keyshortcuts="Enter F2 Delete"
                    onFocus={() => (lastRow.current = rowIndex)}
                    onClick={() => {
                      if (!current) post({ type: "chat/switch", chatId: chat.id });
                      close(true);
                    }}
                  >
                    <span class="history-title">{title}</span>
                    <span class="history-date">{formatWhen(chat.updatedAt)}</span>
                    {snippet && <span class="history-snippet">{snippet}</span>}
                  </button>
                )}
                <span class="history-actions">
                  <button type="button" class="icon-button" title="Rename (F2)" aria-label={`Rename chat ${title}`} onClick={() => startRename(chat.id)}>
                    <EditIcon />
                  </button>
                  <button
                    type="button"
                    class="icon-button"
                    title="Export to Markdown"
                    aria-label={`Export chat ${title} to Markdown`}
                    onClick={() => post({ type: "history/export", chatId: chat.id })}
                  >
                    <MarkdownIcon />
                  </button>
                  <button
                    type="button"
                    class="icon-button"
                    title="Continue in pi CLI"
                    aria-label={`Continue chat ${title} in the pi CLI`}
                    onClick={() => post({ type: "history/continueInPi", chatId: chat.id })}
                  >
                    <TerminalIcon />
                  </button>
                  <button
                    type="button"
                    class="icon-button"
                    title="Delete (Delete)"
                    aria-label={`Delete chat ${title}`}
                    onClick={() => {
                      lastRow.current = rowIndex;
                      remove(chat.id);
                    }}
                  >
                    <TrashIcon />
                  </button>
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

/** The title as a text box: Enter or leaving it keeps it (empty: back to the first prompt), Escape cancels. */
function RenameBox(props: { title: string; onDone: (value: string | null) => void }) {
  const input = useRef<HTMLInputElement>(null);
  const done = useRef(false);
  const finish = (value: string | null) => {
    if (done.current) return;
    done.current = true;
    props.onDone(value);
  };
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  return (
    <input
      ref={input}
      class="history-rename"
      aria-label={`New title for ${props.title}`}
      title="Enter keeps it, Escape cancels, empty goes back to the first prompt"
      defaultValue={props.title}
      maxLength={MAX_TITLE_CHARS}
      onKeyDown={(e) => {
        if (e.key === "Enter") {
          e.preventDefault();
          finish(e.currentTarget.value);
        } else if (e.key === "Escape") {
          e.preventDefault();
          e.stopPropagation();
          finish(null);
        }
      }}
      // As VS Code's own inline rename: leaving the box keeps what was typed.
      onBlur={(e) => finish(e.currentTarget.value)}
    />
  );
}

function formatWhen(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return "";
  const date = new Date(ms);
  const now = new Date();
  if (date.toDateString() === now.toDateString()) return clockTime(ms);
  return date.toLocaleDateString(undefined, { month: "short", day: "numeric", ...(date.getFullYear() !== now.getFullYear() ? { year: "numeric" } : {}) });
}
