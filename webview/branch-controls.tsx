// Edit, Retry and the `‹ 2 / 3 ›` branch switcher on the chat's messages. Which items fork comes
// from the chat state (`branch/forks`, set by the host); it reaches the memoized items through a
// context, so a switch re-renders just the items that show a switcher.
import { createContext, type ComponentChildren } from "preact";
import { useContext, useEffect, useRef, useState } from "preact/hooks";
import type { AssistantItem, ChatItem, UserItem } from "../src/shared/chat-items";
import type { ForkMark } from "../src/shared/protocol";
import { announce } from "./live-region";
import { CheckIcon, ChevronLeftIcon, ChevronRightIcon, CloseIcon, CopyIcon, EditIcon, RestoreFilesIcon, RetryIcon } from "./icons";
import { post } from "./vscode-api";
import { ImageBaseContext, imageUrl } from "./composer/composer-images";

export interface BranchView {
  /** Forks by the message index of the item that shows them. */
  forks: ReadonlyMap<number, ForkMark>;
  running: boolean;
  /** The answer cut at the token limit that *Continue* goes on with: the chat's last turn, while nothing runs. */
  continuable?: string;
}

export const BranchContext = createContext<BranchView>({ forks: new Map(), running: false });

/** The id of the chat's last answer when the server cut it at its token limit (only notices after it), else undefined. */
export function answerToContinue(chat: { settled: readonly (readonly ChatItem[])[]; live: readonly ChatItem[]; running: boolean }): string | undefined {
  if (chat.running) return undefined;
  const chunks = [...chat.settled, chat.live];
  for (let c = chunks.length - 1; c >= 0; c--) {
    const chunk = chunks[c]!;
    for (let i = chunk.length - 1; i >= 0; i--) {
      const item = chunk[i]!;
      if (item.kind === "notice") continue;
      return item.kind === "assistant" && item.stopReason === "length" ? item.id : undefined;
    }
  }
  return undefined;
}

type Reopen = (messageIndex: number, text: string, removeImages: readonly number[]) => void;
const reopeners = new Set<Reopen>();

/** Cancel on "also restore files?" after an edit: the prompt's box opens again with the edited text. */
export function reopenEdit(messageIndex: number, text: string, removeImages: readonly number[]): void {
  for (const reopen of reopeners) reopen(messageIndex, text, removeImages);
}

/** Message index of an item whose id is `m<index>`. */
export function messageIndexOf(itemId: string): number {
  return Number(itemId.slice(1));
}

export function forksByItem(forks: readonly ForkMark[] | undefined): ReadonlyMap<number, ForkMark> {
  return new Map((forks ?? []).map((f) => [f.showAt, f]));
}

function ForkSwitcher({ fork, what }: { fork: ForkMark; what: string }) {
  const { running } = useContext(BranchContext);
  const go = (to: number) => post({ type: "branch/switch", messageIndex: fork.messageIndex, to });
  return (
    // biome-ignore lint/a11y/useSemanticElements: two buttons and their position, named as one control; not a form, so no fieldset.
    <span class="fork-switcher" role="group" data-focus-scope="fork" aria-label={`${what} ${fork.index + 1} of ${fork.count}`}>
      <button
        type="button"
        class="icon-button"
        aria-label={`Previous ${what}`}
        title={`Previous ${what}`}
        disabled={running || fork.index === 0}
        onClick={() => go(fork.index - 1)}
      >
        <ChevronLeftIcon />
      </button>
      <span class="fork-position" aria-hidden="true">
        {fork.index + 1} / {fork.count}
      </span>
      <button
        type="button"
        class="icon-button"
        aria-label={`Next ${what}`}
        title={`Next ${what}`}
        disabled={running || fork.index >= fork.count - 1}
        onClick={() => go(fork.index + 1)}
      >
        <ChevronRightIcon />
      </button>
    </span>
  );
}

/** A prompt: its body (`children`), Edit (sends the changed text as a new branch) and its switcher. */
export function UserMessage({ item, children }: { item: UserItem; children: ComponentChildren }) {
  const { forks, running } = useContext(BranchContext);
  const index = messageIndexOf(item.id);
  const fork = forks.get(index);
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(item.text);
  /** Images the edited prompt goes without (by their index in the message). */
  const [removed, setRemoved] = useState<readonly number[]>([]);
  const imageBase = useContext(ImageBaseContext);
  const input = useRef<HTMLTextAreaElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  // Cancel (Escape or the button) puts the keyboard back on Edit, where it came from.
  const cancelled = useRef(false);
  useEffect(() => {
    if (editing) {
      input.current?.focus();
      input.current?.select();
    } else if (cancelled.current) {
      cancelled.current = false;
      editButton.current?.focus();
    }
  }, [editing]);
  const cancel = () => {
    cancelled.current = true;
    setEditing(false);
  };
  useEffect(() => {
    const reopen: Reopen = (at, edited, removeImages) => {
      if (at !== index) return;
      setText(edited);
      setRemoved([...removeImages]);
      setEditing(true);
    };
    reopeners.add(reopen);
    return () => void reopeners.delete(reopen);
  }, [index]);

  if (editing) {
    const send = () => {
      if (text.trim() === "" || running) return;
      post({ type: "branch/editPrompt", messageIndex: index, text, ...(removed.length > 0 ? { removeImages: [...removed].sort((a, b) => a - b) } : {}) });
      setEditing(false);
    };
    const toggle = (i: number) => setRemoved((r) => (r.includes(i) ? r.filter((x) => x !== i) : [...r, i]));
    const images = item.images ?? [];
    return (
      <div class="edit-prompt">
        <textarea
          ref={input}
          class="input edit-input"
          value={text}
          rows={Math.min(8, text.split("\n").length + 1)}
          aria-label="Edit your message"
          onInput={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              send();
            } else if (e.key === "Escape") {
              e.preventDefault();
              e.stopPropagation();
              cancel();
            }
          }}
        />
        {images.length > 0 && (
          // A sent image can be taken out here (one a provider refused, say): the new branch goes without it.
          <ul class="message-images edit-images" aria-label="Images of this message">
            {images.map((image, i) => {
              const out = removed.includes(i);
              return (
                <li key={`${i}:${image.blob}`} class={`image-thumb${out ? " removed" : ""}`}>
                  {imageBase ? (
                    <img src={imageUrl(imageBase, image)} alt={`Attachment ${i + 1} of ${images.length}`} />
                  ) : (
                    <span class="image-missing">Image {i + 1}</span>
                  )}
                  {/* A toggle: pressed, the new branch goes without it; pressed again, it stays. */}
                  <button
                    type="button"
                    class="chip-remove image-remove"
                    aria-label={`Remove image ${i + 1}`}
                    title={out ? `Image ${i + 1} is left out: click to keep it` : `Leave image ${i + 1} out of the edited message`}
                    aria-pressed={out}
                    onClick={() => toggle(i)}
                  >
                    <CloseIcon />
                  </button>
                </li>
              );
            })}
          </ul>
        )}
        <div class="edit-actions">
          <span class="hint">Sending starts a new branch; the old one stays.</span>
          <button type="button" class="button secondary" onClick={cancel}>
            Cancel
          </button>
          <button type="button" class="button primary" disabled={running || text.trim() === ""} onClick={send}>
            Send
          </button>
        </div>
      </div>
    );
  }
  return (
    <>
      {children}
      <div class="message-actions">
        {fork && <ForkSwitcher fork={fork} what="version of this message" />}
        <button
          type="button"
          ref={editButton}
          class="icon-button"
          title="Edit and send again"
          aria-label="Edit this message"
          disabled={running}
          onClick={() => {
            setText(item.text);
            setRemoved([]);
            setEditing(true);
          }}
        >
          <EditIcon />
        </button>
        <button
          type="button"
          class="icon-button"
          title="Restore files to here: put back the files Pi changed since this message (you see the list first)"
          aria-label="Restore files to before this message"
          disabled={running}
          onClick={() => post({ type: "checkpoint/restore", messageIndex: messageIndexOf(item.id) })}
        >
          <RestoreFilesIcon />
        </button>
      </div>
    </>
  );
}

/** Under a finished answer: Retry (writes it again from the prompt before it) and its switcher. */
export function AnswerActions({ item }: { item: AssistantItem }) {
  const { forks, running } = useContext(BranchContext);
  if (item.isStreaming) return null;
  const index = messageIndexOf(item.id);
  const fork = forks.get(index);
  return (
    <div class="message-actions">
      {fork && <ForkSwitcher fork={fork} what="answer" />}
      <CopyAnswer item={item} />
      <button
        type="button"
        class="icon-button"
        title="Retry: write this answer again"
        aria-label="Retry this answer"
        disabled={running}
        onClick={() => post({ type: "branch/retry", messageIndex: index })}
      >
        <RetryIcon />
      </button>
    </div>
  );
}

/** How long a copy button says "Copied" before it says "Copy answer" again. */
const COPIED_MS = 1500;

/** Copies the whole answer as the model wrote it (Markdown, code fences and all; no thinking). */
function CopyAnswer({ item }: { item: AssistantItem }) {
  const [outcome, setOutcome] = useState<"Copied" | "Copy failed" | undefined>(undefined);
  useEffect(() => {
    if (!outcome) return;
    const timer = setTimeout(() => setOutcome(undefined), COPIED_MS);
    return () => clearTimeout(timer);
  }, [outcome]);
  const text = item.blocks
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("\n\n");
  if (text.trim() === "") return null;
  const copy = () => {
    void navigator.clipboard?.writeText(text).then(
      () => {
        setOutcome("Copied");
        announce("Copied");
      },
      () => {
        setOutcome("Copy failed");
        announce("Copy failed");
      },
    );
  };
  return (
    <button type="button" class="icon-button" title="Copy this answer (as Markdown)" aria-label={outcome ?? "Copy answer"} onClick={copy}>
      {outcome === "Copied" ? <CheckIcon /> : <CopyIcon />}
    </button>
  );
}

/** The switcher of an answer whose first message only called tools (it has no card of its own). */
export function ForkOnly({ item }: { item: AssistantItem }) {
  const { forks } = useContext(BranchContext);
  const fork = forks.get(messageIndexOf(item.id));
  if (!fork) return null;
  return (
    <div class="message-actions standalone" data-item={item.id}>
      <ForkSwitcher fork={fork} what="answer" />
    </div>
  );
}
