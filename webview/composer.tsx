// The composer: Enter sends, Shift+Enter is a new line, Escape while running stops the run.
// While Pi writes, the composer stays usable: Enter queues a follow-up (sent when the reply
// ends), Alt+Enter steers (sent after the current tool call); both show as chips above it.
// The draft lives in the webview's own state (vscode.setState) so it survives the view being
// hidden; it reaches the host only as the prompt that is sent. Files dropped from VS Code's
// explorer or tabs become `@` mentions (the host checks they are in the workspace); a pasted path
// that exists is offered as one; Enter on `/template args` first puts the expanded template in
// the box, to read and edit, and the next Enter sends it.
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { PendingAttachment, QueuedInput } from "../src/shared/protocol";
import type { PathMentions } from "./client";
import { carriesResources, droppedUris, looksLikePath } from "./dropped-paths";
import { fuzzyFilter } from "../src/shared/fuzzy";
import { isChatAction, mentionToken, type MentionOption, type MentionRef, type SlashCommand } from "../src/shared/mentions";
import { ComposerImages, ImageInputNotice } from "./composer-images";
import { CloseIcon, FileIcon, ImageIcon, SendIcon, SteerIcon, StopIcon } from "./icons";
import { filesOf, MAX_PROMPT_IMAGES, prepareImage, type ComposerImage } from "./image-attach";
import { followLatest } from "./follow-latest";
import { announce } from "./live-region";
import { memo } from "./memo";
import { rangeLabel } from "./cards/file-link";
import { QueueChips } from "./queue-chips";
import { loadUiState, post, saveUiState } from "./vscode-api";

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
  restore?: { readonly text: string; readonly n: number; readonly expanded?: string } | undefined;
  /** The host's `@` list for the newest query. */
  mentionResults?:
    | { readonly requestId: number; readonly options: readonly MentionOption[]; readonly indexing: boolean; readonly truncated: boolean }
    | undefined;
  /** The `/` list. */
  commandList?: { readonly commands: readonly SlashCommand[]; readonly notes: readonly string[] } | undefined;
  /** The host's answer about dropped or pasted paths. */
  pathMentions?: PathMentions | undefined;
  /** The host's expansion of a `/template args` draft. */
  expanded?: { readonly requestId: number; readonly name?: string; readonly text?: string } | undefined;
}) {
  const [draft, setDraft] = useState(() => loadUiState().draft);
  // `@` mentions taken: each is its token in the text and what it names; one whose token left the text is gone.
  const [mentions, setMentions] = useState<TakenMention[]>(() => loadUiState().mentions ?? []);
  const [popup, setPopup] = useState<Popup | undefined>(undefined);
  const [active, setActive] = useState(0);
  /** The text at which Escape closed the list: it stays closed until the text changes. */
  const dismissed = useRef<string | undefined>(undefined);
  const requestId = useRef(0);
  const [images, setImages] = useState<ComposerImage[]>([]);
  const [imageNotes, setImageNotes] = useState<string[]>([]);
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  /** Numbers the drop, paste and expansion requests (apart from the `@` list's). */
  const hostRequest = useRef(0);
  const pendingDrop = useRef<number | undefined>(undefined);
  const pendingPaste = useRef<{ requestId: number; text: string; at: number } | undefined>(undefined);
  const pendingExpand = useRef<{ requestId: number; draft: string; kind: "send" | "followUp" | "steer"; withImages: boolean } | undefined>(undefined);
  /** The draft is a template the box expanded: it is sent as it reads (never run as a command). */
  const expandedDraft = useRef(false);
  /** Why dropped items were not mentioned. */
  const [dropNotes, setDropNotes] = useState<readonly string[]>([]);
  /** A pasted path that exists: the offer to mention it. */
  const [offer, setOffer] = useState<{ ref: MentionRef; text: string; at: number } | undefined>(undefined);

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

  const liveMentions = (text: string, list: readonly TakenMention[] = mentions) => list.filter((m) => text.includes(m.token));

  const changeDraft = (text: string, list: readonly TakenMention[] = mentions) => {
    const live = liveMentions(text, list);
    if (text.trim() === "") expandedDraft.current = false;
    // The offer is about text that is still there.
    if (offer && !text.includes(offer.text)) setOffer(undefined);
    setDraft(text);
    if (live.length !== mentions.length || list !== mentions) setMentions(live);
    saveUiState({ draft: text, mentions: live });
  };

  /** Opens, moves or closes the `@` / `/` list for the text before the caret. */
  const updatePopup = (text: string, caret: number) => {
    if (dismissed.current === text) return;
    dismissed.current = undefined;
    const next = popupAt(text, caret);
    if (!next) {
      setPopup(undefined);
      return;
    }
    if (next.mode === "mention") post({ type: "mention/query", requestId: ++requestId.current, query: next.query });
    else if (popup?.mode !== "command") post({ type: "composer/listCommands" });
    setPopup({ ...next, requestId: requestId.current });
    if (popup?.query !== next.query || popup.mode !== next.mode) setActive(0);
  };

  const options: readonly ListOption[] = !popup
    ? []
    : popup.mode === "mention"
      ? props.mentionResults && props.mentionResults.requestId === popup.requestId
        ? props.mentionResults.options.map((o) => ({ kind: "mention" as const, option: o }))
        : []
      : fuzzyFilter(
          popup.query,
          (props.commandList?.commands ?? []).map((c) => c.name),
          50,
        ).map((m) => ({
          kind: "command" as const,
          command: props.commandList!.commands[m.index]!,
          positions: m.positions,
        }));
  const listOpen = popup !== undefined && !props.readOnly;

  /** Replaces the typed `@query` / `/query` with what was taken (one undoable edit: execCommand keeps the undo stack). */
  const take = (index: number) => {
    const el = input.current;
    const chosen = options[index];
    if (!el || !popup || !chosen) return;
    const caret = el.selectionStart ?? draft.length;
    const insert = chosen.kind === "mention" ? `${mentionToken(chosen.option.ref)} ` : `/${chosen.command.name} `;
    const taken =
      chosen.kind === "mention"
        ? [...mentions.filter((m) => m.token !== mentionToken(chosen.option.ref)), { token: mentionToken(chosen.option.ref), ref: chosen.option.ref }]
        : mentions;
    el.focus();
    el.setSelectionRange(popup.start, caret);
    setPopup(undefined);
    dismissed.current = undefined;
    if (!document.execCommand("insertText", false, insert)) {
      const text = draft.slice(0, popup.start) + insert + draft.slice(caret);
      changeDraft(text, taken);
      el.value = text;
      el.setSelectionRange(popup.start + insert.length, popup.start + insert.length);
      return;
    }
    const text = el.value;
    changeDraft(text, taken);
  };

  /** Backspace after a mention's token (Delete before it) removes the whole token, undoably. */
  const deleteMention = (forward: boolean): boolean => {
    const el = input.current;
    if (!el || el.selectionStart !== el.selectionEnd) return false;
    const caret = el.selectionStart ?? 0;
    for (const m of mentions) {
      const start = forward ? caret : caret - m.token.length;
      if (start < 0 || draft.slice(start, start + m.token.length) !== m.token) continue;
      el.setSelectionRange(start, start + m.token.length);
      if (!document.execCommand("delete")) {
        changeDraft(draft.slice(0, start) + draft.slice(start + m.token.length));
        el.value = draft.slice(0, start) + draft.slice(start + m.token.length);
        el.setSelectionRange(start, start);
      }
      return true;
    }
    return false;
  };

  /** A chip's remove button: the token leaves the text as one undoable edit. */
  const removeMention = (m: TakenMention) => {
    const el = input.current;
    const at = draft.indexOf(m.token);
    if (!el || at < 0) return;
    el.focus();
    const end = draft[at + m.token.length] === " " ? at + m.token.length + 1 : at + m.token.length;
    el.setSelectionRange(at, end);
    if (!document.execCommand("delete")) {
      const text = draft.slice(0, at) + draft.slice(end);
      el.value = text;
      changeDraft(text);
    }
  };

  /**
   * Puts mention tokens into the text, replacing `range` (else the selection), as one undoable
   * edit, and takes them as chips.
   */
  const insertMentions = (refs: readonly MentionRef[], range?: { start: number; end: number }) => {
    const el = input.current;
    if (!el || refs.length === 0) return;
    const start = range?.start ?? el.selectionStart ?? el.value.length;
    const end = range?.end ?? el.selectionEnd ?? start;
    const before = el.value.slice(0, start);
    const after = el.value.slice(end);
    const tokens = refs.map((r) => mentionToken(r));
    const insert = `${before === "" || /\s$/.test(before) ? "" : " "}${tokens.join(" ")}${/^\s/.test(after) ? "" : " "}`;
    const taken = [...mentions.filter((m) => !tokens.includes(m.token)), ...refs.map((ref) => ({ token: mentionToken(ref), ref }))];
    el.focus();
    el.setSelectionRange(start, end);
    if (!document.execCommand("insertText", false, insert)) {
      el.value = before + insert + after;
      el.setSelectionRange(start + insert.length, start + insert.length);
    }
    changeDraft(el.value, taken);
    announce(`Mentioned ${tokens.join(", ")}`);
  };

  // The host's answer about dropped files (mentions them) or a pasted path (offers to).
  useEffect(() => {
    const answer = props.pathMentions;
    if (!answer) return;
    if (answer.origin === "drop" && answer.requestId === pendingDrop.current) {
      pendingDrop.current = undefined;
      insertMentions(answer.refs);
      setDropNotes(answer.refused.length > 0 ? [`Not mentioned: ${answer.refused.join("; ")}.`] : []);
    } else if (answer.origin === "paste" && answer.requestId === pendingPaste.current?.requestId) {
      const pasted = pendingPaste.current;
      pendingPaste.current = undefined;
      const ref = answer.refs[0];
      if (ref && answer.refs.length === 1 && draft.includes(pasted.text)) {
        setOffer({ ref, text: pasted.text, at: pasted.at });
        announce(`${mentionToken(ref).slice(1)} is in the workspace: press Tab to reach Mention it.`);
      }
    }
  }, [props.pathMentions]);

  /** Takes the offer: the pasted text (where it still is) becomes the mention. */
  const takeOffer = () => {
    if (!offer) return;
    const el = input.current;
    const text = el?.value ?? draft;
    const at = text.slice(offer.at, offer.at + offer.text.length) === offer.text ? offer.at : text.indexOf(offer.text);
    setOffer(undefined);
    insertMentions([offer.ref], at >= 0 ? { start: at, end: at + offer.text.length } : undefined);
  };

  // The host expanded a `/template args` draft: the box shows it, to read and edit; Enter sends it.
  useEffect(() => {
    const answer = props.expanded;
    const pending = pendingExpand.current;
    if (!answer || !pending || answer.requestId !== pending.requestId) return;
    pendingExpand.current = undefined;
    const el = input.current;
    if (!el || el.value !== pending.draft) return; // typed on meanwhile: that text wins
    if (answer.text === undefined) {
      // Not a template: sent as typed (the host runs the chat's actions and skills).
      deliver(pending.kind, pending.withImages);
      return;
    }
    el.focus();
    el.select();
    if (!document.execCommand("insertText", false, answer.text)) el.value = answer.text;
    expandedDraft.current = true;
    changeDraft(el.value);
    el.setSelectionRange(el.value.length, el.value.length);
    announce(`Expanded /${answer.name ?? "template"}: read or edit it, then Enter sends it.`);
  }, [props.expanded]);

  useEffect(() => {
    document.getElementById(optionId(active))?.scrollIntoView({ block: "nearest" });
  }, [active, listOpen]);

  useEffect(() => {
    if (!props.restore || draft.trim() !== "") return;
    changeDraft(props.restore.text);
    // The host expanded a template the box had not shown (the `/` list was older than the file):
    // the user reads it now, and Enter sends it as it reads.
    if (props.restore.expanded !== undefined) {
      expandedDraft.current = true;
      announce(`Expanded /${props.restore.expanded}: read or edit it, then Enter sends it.`);
    }
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
    changeDraft("", []);
    setPopup(undefined);
    setImages([]);
    setImageNotes([]);
    setDropNotes([]);
    setOffer(undefined);
    expandedDraft.current = false;
    input.current?.focus();
  };
  /**
   * A draft `/name args` naming a prompt template (or any name, before the list is known) is
   * expanded first: the host answers and the box shows the text (see the effect above).
   */
  const expandFirst = (kind: "send" | "followUp" | "steer", withImages = true): boolean => {
    if (expandedDraft.current || pendingExpand.current) return pendingExpand.current !== undefined;
    const name = /^\/([\w.-]+)(?:\s|$)/.exec(draft.trim())?.[1];
    if (name === undefined) return false;
    const known = props.commandList?.commands.find((c) => c.name === name);
    if (props.commandList ? known?.kind !== "template" : isChatAction(name)) return false;
    pendingExpand.current = { requestId: ++hostRequest.current, draft, kind, withImages };
    post({ type: "composer/expandTemplate", requestId: pendingExpand.current.requestId, text: draft });
    return true;
  };
  const send = (withImages = true) => {
    if (props.running || props.readOnly || (withImages ? !canSend : !hasText)) return;
    // Every path, Send text only included, expands a template first: nothing skips the step the user reads.
    if (expandFirst("send", withImages)) return;
    deliver("send", withImages);
  };
  /** While Pi writes: a follow-up (after the reply) or a steer (after the current tool call). */
  const queue = (kind: "followUp" | "steer") => {
    if (!props.running || !canSend) return;
    if (expandFirst(kind)) return;
    deliver(kind);
  };
  /** Sends the draft now, as it reads. */
  const deliver = (kind: "send" | "followUp" | "steer", withImages = true) => {
    const text = input.current?.value ?? draft;
    const sent = withImages ? images.map((i) => ({ mimeType: i.mimeType, data: i.data })) : [];
    const refs = liveMentions(text).map((m) => m.ref);
    const extra = {
      ...(sent.length > 0 ? { images: sent } : {}),
      ...(refs.length > 0 ? { mentions: refs } : {}),
      ...(expandedDraft.current ? { verbatim: true } : {}),
    };
    if (kind === "send") post({ type: "chat/send", text, ...extra });
    else post({ type: "queue/add", kind, text, ...extra });
    // What was sent, and what Pi then asks, come into sight even if the user had scrolled up.
    followLatest();
    clear();
  };

  return (
    <section
      class={`composer${dragging ? " dragging" : ""}`}
      aria-label="Message Pi"
      data-composer
      onDragOver={(e) => {
        if (!e.dataTransfer?.types.includes("Files") && !carriesResources(e.dataTransfer)) return;
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        setDragging(false);
        // Files from VS Code's explorer or tabs (names only, no File objects): mentions, once the
        // host has checked them. A drop with files (from the system's file manager) stays images.
        const uris = props.readOnly || e.dataTransfer?.types.includes("Files") ? [] : droppedUris(e.dataTransfer);
        if (uris.length > 0) {
          e.preventDefault();
          pendingDrop.current = ++hostRequest.current;
          post({ type: "mention/paths", requestId: pendingDrop.current, origin: "drop", items: uris });
          return;
        }
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
      {mentions.length > 0 && (
        <ul class="attachments mentions" aria-label="Mentioned">
          {mentions.map((m) => (
            <li key={m.token} class="chip mention-chip" title={m.token}>
              {m.ref.kind === "file" || m.ref.kind === "folder" ? <FileIcon /> : null}
              <span class="chip-label">{m.token}</span>
              <button type="button" class="chip-remove" aria-label={`Remove ${m.token}`} onClick={() => removeMention(m)}>
                <CloseIcon />
              </button>
            </li>
          ))}
        </ul>
      )}
      {listOpen && (
        <div class="composer-popup">
          <div id={LISTBOX_ID} role="listbox" aria-label={popup.mode === "mention" ? "Mention a file, folder or context" : "Commands and prompt templates"}>
            {options.map((o, i) => (
              <div
                key={o.kind === "mention" ? mentionToken(o.option.ref) : o.command.name}
                id={optionId(i)}
                role="option"
                // Not in the tab order: the focus stays in the textarea (aria-activedescendant).
                tabIndex={-1}
                aria-selected={i === active}
                class={`composer-option${i === active ? " active" : ""}`}
                onMouseDown={(e) => {
                  e.preventDefault(); // keep the focus (and the caret) in the textarea
                  take(i);
                }}
                onMouseMove={() => setActive(i)}
              >
                {o.kind === "mention" ? (
                  <>
                    <span class="option-label">
                      {o.option.ref.kind === "file" || o.option.ref.kind === "folder" ? "" : "@"}
                      <Highlighted text={o.option.label} positions={o.option.positions ?? []} />
                      {o.option.ref.kind === "folder" ? "/" : ""}
                    </span>
                    {o.option.detail && <span class="option-detail">{o.option.detail}</span>}
                  </>
                ) : (
                  <>
                    <span class="option-label">
                      /<Highlighted text={o.command.name} positions={o.positions} />
                      {o.command.argumentHint && <span class="option-hint"> {o.command.argumentHint}</span>}
                    </span>
                    <span class="option-detail">{o.command.description}</span>
                  </>
                )}
              </div>
            ))}
          </div>
          <div class="composer-popup-status" role="status">
            {options.length === 0
              ? popup.mode === "mention" && (!props.mentionResults || props.mentionResults.requestId !== popup.requestId || props.mentionResults.indexing)
                ? "Looking through the workspace…"
                : "No matches"
              : popup.mode === "mention" && props.mentionResults?.truncated
                ? "The workspace is larger than the list can hold: some paths are missing"
                : `${options.length} ${options.length === 1 ? "match" : "matches"}`}
          </div>
        </div>
      )}
      <div class="input-box">
        <textarea
          ref={input}
          class="input"
          data-composer-input
          rows={1}
          value={draft}
          aria-label="Message to Pi"
          aria-autocomplete="list"
          aria-controls={listOpen ? LISTBOX_ID : undefined}
          aria-activedescendant={listOpen && options.length > 0 ? optionId(Math.min(active, options.length - 1)) : undefined}
          readOnly={props.readOnly === true}
          placeholder={placeholder}
          onInput={(e) => {
            changeDraft(e.currentTarget.value);
            updatePopup(e.currentTarget.value, e.currentTarget.selectionStart ?? e.currentTarget.value.length);
          }}
          onClick={(e) => updatePopup(e.currentTarget.value, e.currentTarget.selectionStart ?? 0)}
          onBlur={() => setPopup(undefined)}
          onPaste={(e) => {
            const files = filesOf(e.clipboardData);
            if (files.length === 0) {
              // Plain text: the textarea pastes it as it is; a path that exists is offered as a mention.
              const text = e.clipboardData?.getData("text/plain") ?? "";
              setOffer(undefined);
              if (!props.readOnly && looksLikePath(text)) {
                pendingPaste.current = { requestId: ++hostRequest.current, text, at: e.currentTarget.selectionStart ?? 0 };
                post({ type: "mention/paths", requestId: pendingPaste.current.requestId, origin: "paste", items: [text.trim()] });
              }
              return;
            }
            e.preventDefault();
            void addFiles(files);
          }}
          onKeyDown={(e) => {
            if (listOpen && !e.isComposing) {
              if (e.key === "Escape") {
                // Closes the list only: the text stays, and a running reply is not stopped.
                e.preventDefault();
                dismissed.current = draft;
                setPopup(undefined);
                return;
              }
              if (options.length > 0 && (e.key === "ArrowDown" || e.key === "ArrowUp")) {
                e.preventDefault();
                setActive((a) => (Math.min(a, options.length - 1) + (e.key === "ArrowDown" ? 1 : options.length - 1)) % options.length);
                return;
              }
              if (options.length > 0 && (e.key === "Enter" || e.key === "Tab") && !e.shiftKey) {
                e.preventDefault();
                take(Math.min(active, options.length - 1));
                return;
              }
            }
            if ((e.key === "Backspace" || e.key === "Delete") && !e.altKey && !e.ctrlKey && !e.metaKey && deleteMention(e.key === "Delete")) {
              e.preventDefault();
              return;
            }
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
        {offer && (
          <fieldset class="mention-offer" aria-label="Pasted path">
            <span class="mention-offer-text">
              Mention <code>{mentionToken(offer.ref).slice(1)}</code>?
            </span>
            <button type="button" class="button" onClick={takeOffer}>
              Mention it
            </button>
            <button
              type="button"
              class="icon-button"
              aria-label="Keep the pasted text"
              title="Keep the pasted text"
              onClick={() => {
                setOffer(undefined);
                input.current?.focus();
              }}
            >
              <CloseIcon />
            </button>
          </fieldset>
        )}
        {dropNotes.length > 0 && (
          <p class="composer-note" role="status">
            {dropNotes.join(" ")}
          </p>
        )}
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

type TakenMention = { token: string; ref: MentionRef };
type Popup = { mode: "mention" | "command"; start: number; query: string; requestId: number };
type ListOption = { kind: "mention"; option: MentionOption } | { kind: "command"; command: SlashCommand; positions: readonly number[] };

const LISTBOX_ID = "composer-listbox";
const optionId = (i: number) => `composer-option-${i}`;

/**
 * The list the caret is in: `/name` as the whole text so far (a command), or `@query` after a
 * space or at the start (a mention); else none.
 */
function popupAt(text: string, caret: number): Omit<Popup, "requestId"> | undefined {
  const before = text.slice(0, caret);
  const command = /^\/([\w.:-]*)$/.exec(before);
  if (command) return { mode: "command", start: 0, query: command[1]! };
  const mention = /(?:^|\s)@([^\s@]{0,200})$/.exec(before);
  if (mention) return { mode: "mention", start: caret - mention[1]!.length - 1, query: mention[1]! };
  return undefined;
}

/** `text` with the matched characters in bold. */
function Highlighted({ text, positions }: { text: string; positions: readonly number[] }) {
  if (positions.length === 0) return <>{text.replace(/[\u0000-\u001f\u007f]/g, "⏎")}</>;
  const marks = new Set(positions);
  const parts: preact.JSX.Element[] = [];
  let run = "";
  let bold = false;
  const flush = (key: number) => {
    if (run !== "") parts.push(bold ? <b key={key}>{run}</b> : <span key={key}>{run}</span>);
    run = "";
  };
  for (let i = 0; i < text.length; i++) {
    const isMark = marks.has(i);
    if (isMark !== bold) {
      flush(i);
      bold = isMark;
    }
    run += /[\u0000-\u001f\u007f]/.test(text[i]!) ? "⏎" : text[i];
  }
  flush(text.length);
  return <>{parts}</>;
}
