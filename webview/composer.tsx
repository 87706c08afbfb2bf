// The composer: Enter sends, Shift+Enter is a new line, Escape while running stops the run.
// While Pi writes, the composer stays usable: Enter queues a follow-up (sent when the reply
// ends), Alt+Enter steers (sent after the current tool call); both show as chips above it.
// The draft lives in the webview's own state (vscode.setState) so it survives the view being
// hidden; it reaches the host only as the prompt that is sent.
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { PendingAttachment, QueuedInput } from "../src/shared/protocol";
import { ComposerImages, ImageInputNotice } from "./composer-images";
import { CloseIcon, FileIcon, ImageIcon, SendIcon, SteerIcon, StopIcon } from "./icons";
import { filesOf, MAX_PROMPT_IMAGES, prepareImage, type ComposerImage } from "./image-attach";
import { announce } from "./live-region";
import { memo } from "./memo";
import { rangeLabel } from "./parts";
import { QueueChips } from "./queue-chips";
import { loadUiState, post, saveUiState } from "./vscode";

const MAX_HEIGHT_PX = 220;

export const Composer = memo(function Composer(props: {
  running: boolean;
  attachments: readonly PendingAttachment[];
  editsAllowedForChat: boolean;
  /** Whether the model accepts images; undefined while not known. */
  imageInput: boolean | undefined;
  modelLabel: string;
  /** The chat is being written in another window: nothing can be sent from here. */
  readOnly?: boolean;
  /** Follow-ups and steering queued during the run, not delivered yet. */
  queue?: readonly QueuedInput[];
  /** A Stop kept the queue for the user to send or clear. */
  queueKept?: boolean;
  /** A sent `!cmd` that did not run: back in the box (a new `n` each time), unless something was typed since. */
  restore?: { readonly text: string; readonly n: number } | undefined;
}) {
  const [draft, setDraft] = useState(() => loadUiState().draft);
  const [images, setImages] = useState<ComposerImage[]>([]);
  const [imageNotes, setImageNotes] = useState<string[]>([]);
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);

  /** Pasted, dropped or picked files: each becomes a thumbnail, or a note saying why not. */
  const addFiles = async (files: readonly File[]) => {
    if (files.length === 0) return;
    if (props.imageInput === undefined) post({ type: "composer/checkImageInput" });
    const notes: string[] = [];
    const added: ComposerImage[] = [];
    for (const file of files) {
      const outcome = await prepareImage(file);
      if (outcome.ok) added.push(outcome.image);
      else notes.push(outcome.reason);
    }
    const attached = added.slice(0, Math.max(0, MAX_PROMPT_IMAGES - images.length));
    if (attached.length > 0) announce(`Attached ${attached.length === 1 ? "image" : `${attached.length} images:`} ${attached.map((i) => i.name).join(", ")}`);
    setImages((current) => {
      const room = MAX_PROMPT_IMAGES - current.length;
      if (added.length > room) notes.push(`At most ${MAX_PROMPT_IMAGES} images go with one message; ${added.length - Math.max(0, room)} were not attached.`);
      return [...current, ...added.slice(0, Math.max(0, room))];
    });
    setImageNotes(notes);
  };

  const changeDraft = (text: string) => {
    setDraft(text);
    saveUiState({ draft: text });
  };

  useEffect(() => {
    if (!props.restore || draft.trim() !== "") return;
    changeDraft(props.restore.text);
    input.current?.focus();
  }, [props.restore?.n]);

  const placeholder = props.readOnly
    ? "Open in another window: read-only here"
    : props.running
      ? "Pi is working… Enter queues a follow-up, Alt+Enter steers, Escape stops"
      : "Ask Pi about your code";

  // Grow with the text up to a limit (a CSSOM property: allowed under the CSP). An empty box's
  // height is its placeholder's (Chromium counts it in scrollHeight): the longer hint while Pi
  // works takes two or three lines in a narrow sidebar, and is measured again when that resizes.
  useLayoutEffect(() => {
    const fitHeight = () => {
      const el = input.current;
      if (!el) return;
      el.style.height = "auto";
      el.style.height = `${Math.min(el.scrollHeight, MAX_HEIGHT_PX)}px`;
    };
    fitHeight();
    window.addEventListener("resize", fitHeight);
    return () => window.removeEventListener("resize", fitHeight);
  }, [draft, placeholder]);

  const hasText = draft.trim() !== "";
  // With images, send only once it is known that the model sees them: never drop one silently.
  const imagesBlocked = images.length > 0 && props.imageInput !== true;
  const canSend = !props.readOnly && (hasText || images.length > 0) && !imagesBlocked;
  const clear = () => {
    changeDraft("");
    setImages([]);
    setImageNotes([]);
    input.current?.focus();
  };
  const send = (withImages = true) => {
    if (props.running || props.readOnly || (withImages ? !canSend : !hasText)) return;
    const sent = withImages ? images.map((i) => ({ mimeType: i.mimeType, data: i.data })) : [];
    post(sent.length > 0 ? { type: "chat/send", text: draft, images: sent } : { type: "chat/send", text: draft });
    clear();
  };
  /** While Pi writes: a follow-up (after the reply) or a steer (after the current tool call). */
  const queue = (kind: "followUp" | "steer") => {
    if (!props.running || !canSend) return;
    const sent = images.map((i) => ({ mimeType: i.mimeType, data: i.data }));
    post(sent.length > 0 ? { type: "queue/add", kind, text: draft, images: sent } : { type: "queue/add", kind, text: draft });
    clear();
  };

  return (
    <section
      class={`composer${dragging ? " dragging" : ""}`}
      aria-label="Message Pi"
      data-composer
      onDragOver={(e) => {
        if (!e.dataTransfer?.types.includes("Files")) return;
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        setDragging(false);
        const files = filesOf(e.dataTransfer);
        if (files.length === 0) return;
        e.preventDefault();
        void addFiles(files);
      }}
    >
      <QueueChips queue={props.queue ?? []} kept={props.queueKept === true} running={props.running} />
      <ComposerImages images={images} notes={imageNotes} onRemove={(id) => setImages((current) => current.filter((i) => i.id !== id))} />
      {images.length > 0 && props.imageInput === false && (
        <ImageInputNotice
          modelLabel={props.modelLabel}
          canSendText={hasText && !props.running && !props.readOnly}
          onSendText={() => send(false)}
          onRemove={() => setImages([])}
        />
      )}
      {props.attachments.length > 0 && (
        <ul class="attachments" aria-label="Attached files">
          {props.attachments.map((a, index) => {
            const label = a.range ? `${a.path} ${rangeLabel(a.range.startLine, a.range.endLine)}` : a.path;
            return (
              <li key={`${index}:${a.path}`} class="chip" title={label}>
                <FileIcon />
                <span class="chip-label">{a.path}</span>
                {a.range && <span class="chip-range">{rangeLabel(a.range.startLine, a.range.endLine)}</span>}
                <button type="button" class="chip-remove" aria-label={`Remove ${label}`} onClick={() => post({ type: "composer/removeAttachment", index })}>
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
          placeholder={placeholder}
          onInput={(e) => changeDraft(e.currentTarget.value)}
          onPaste={(e) => {
            const files = filesOf(e.clipboardData);
            if (files.length === 0) return; // plain text: the textarea handles it
            e.preventDefault();
            void addFiles(files);
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              if (props.running) queue(e.altKey ? "steer" : "followUp");
              else send();
            } else if (e.key === "Escape" && props.running) {
              e.preventDefault();
              post({ type: "chat/stop" });
            }
          }}
        />
        <div class="input-footer">
          <button
            type="button"
            class="icon-button attach-button"
            title="Attach images (PNG, JPEG, GIF, WebP)"
            aria-label="Attach images"
            onClick={() => picker.current?.click()}
          >
            <ImageIcon />
          </button>
          <input
            ref={picker}
            type="file"
            class="sr-only"
            tabIndex={-1}
            aria-hidden="true"
            accept="image/png,image/jpeg,image/gif,image/webp"
            multiple
            onChange={(e) => {
              const files = Array.from(e.currentTarget.files ?? []);
              e.currentTarget.value = "";
              void addFiles(files);
            }}
          />
          <span class="hint">
            {commandHint(draft) ??
              (images.length > 0 && props.imageInput === undefined
                ? "Checking whether the model accepts images…"
                : props.editsAllowedForChat
                  ? "Edits are allowed for this chat"
                  : "")}
          </span>
          {props.running ? (
            <>
              <button
                type="button"
                class="icon-button steer-button"
                title="Steer (Alt+Enter): sent after the current tool call, before Pi's next step"
                aria-label="Steer"
                disabled={!canSend}
                onClick={() => queue("steer")}
              >
                <SteerIcon />
              </button>
              <button
                type="button"
                class="icon-button queue-button"
                title="Queue a follow-up (Enter): sent when Pi finishes this reply"
                aria-label="Queue follow-up"
                disabled={!canSend}
                onClick={() => queue("followUp")}
              >
                <SendIcon />
              </button>
              <button type="button" class="button stop-button" title="Stop (Escape)" aria-label="Stop" onClick={() => post({ type: "chat/stop" })}>
                <StopIcon /> Stop
              </button>
            </>
          ) : (
            <button type="button" class="icon-button send-button" title="Send (Enter)" aria-label="Send" disabled={!canSend} onClick={() => send()}>
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
