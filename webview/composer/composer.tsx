// The composer: Enter sends, Shift+Enter is a new line, Escape while running stops the run.
// While Pi writes, the composer stays usable: Enter queues a follow-up (sent when the reply
// ends), Alt+Enter steers (sent after the current tool call); both show as chips above it.
// The draft lives in the webview's own state (vscode.setState) so it survives the view being
// hidden; it reaches the host only as the prompt that is sent. Files dropped from VS Code's
// explorer or tabs become `@` mentions (the host checks they are in the workspace); a pasted path
// that exists is offered as one; Enter on `/template args` first puts the expanded template in
// the box, to read and edit, and the next Enter sends it. This file is the layout and the wiring;
// the parts are beside it: the draft (use-draft.ts, mention-tokens.ts), the keys
// (composer-keys.ts), the `@` / `/` list (use-popup.ts, composer-popup.tsx), sending
// (use-send.ts), drops and pastes (use-drop-paste.ts), images (use-images.ts), chips and buttons.
import { useEffect, useRef } from "preact/hooks";
import type { PendingAttachment, QueuedInput } from "../../src/shared/protocol";
import type { PathMentions } from "../client";
import { memo } from "../memo";
import { announce } from "../live-region";
import { post } from "../vscode-api";
import { AttachmentChips, MentionChips, MentionOffer } from "./chips";
import { footerHint, keyAction, placeholderFor, type ComposerKeyAction } from "./composer-keys";
import { ComposerImages, ImageInputNotice, ImagePicker } from "./composer-images";
import { ComposerPopup } from "./composer-popup";
import { removeMention, takeOption, wholeTokenAt } from "./mention-tokens";
import { QueueChips } from "./queue-chips";
import { RunButtons } from "./run-buttons";
import { ModeSwitch } from "./mode-switch";
import type { ChatMode } from "../../src/shared/app-messages";
import { useDraft, useFitHeight } from "./use-draft";
import { useImages } from "./use-images";
import { useDropPaste } from "./use-drop-paste";
import { LISTBOX_ID, optionId, usePopup, type CommandList, type MentionResults } from "./use-popup";
import { useSend } from "./use-send";

export const Composer = memo(function Composer(props: {
  running: boolean;
  attachments: readonly PendingAttachment[];
  editsAllowedForChat: boolean;
  /** Whether the model accepts images; undefined while not known. */
  imageInput: boolean | undefined;
  modelLabel: string;
  /** The chat's mode (plan: reading and discovery only). */
  mode?: ChatMode;
  /** The chat is being written in another window: nothing can be sent from here. */
  readOnly?: boolean;
  /** Follow-ups and steering queued during the run, not delivered yet. */
  queue?: readonly QueuedInput[];
  /** A Stop kept the queue for the user to send or clear. */
  queueKept?: boolean;
  /** A sent `!cmd` that did not run: back in the box (a new `n` each time), unless something was typed since. */
  restore?: { readonly text: string; readonly n: number; readonly expanded?: string } | undefined;
  /** The host's `@` list for the newest query. */
  mentionResults?: MentionResults | undefined;
  /** The `/` list. */
  commandList?: CommandList | undefined;
  /** The host's answer about dropped or pasted paths. */
  pathMentions?: PathMentions | undefined;
  /** The host's expansion of a `/template args` draft. */
  expanded?: { readonly requestId: number; readonly name?: string; readonly text?: string } | undefined;
}) {
  const readOnly = props.readOnly === true;
  const input = useRef<HTMLTextAreaElement>(null);
  const draft = useDraft(input, (text) => paths.textChanged(text));
  const list = usePopup(props.mentionResults, props.commandList, readOnly);
  const images = useImages(props.imageInput);
  const paths = useDropPaste(props.pathMentions, draft, images.add, readOnly);
  const clear = () => {
    draft.change("", []);
    list.hide();
    images.clear();
    paths.clear();
    draft.expanded.current = false;
    input.current?.focus();
  };
  const { send, queue, canSend, hasText } = useSend({ ...props, input, draft, images: images.images, readOnly, clear });

  /** Replaces the typed `@query` / `/query` with the option taken. */
  const take = (index: number) => {
    const el = input.current;
    const chosen = list.options[index];
    if (!el || !list.popup || !chosen) return;
    const option = chosen.kind === "mention" ? { kind: "mention" as const, ref: chosen.option.ref } : { kind: "command" as const, name: chosen.command.name };
    const taken = takeOption(el.selectionStart ?? draft.text.length, list.popup.start, option, draft.mentions);
    list.close();
    draft.apply(taken.edit, taken.mentions);
  };

  const caretTouches = (el: HTMLTextAreaElement, forward: boolean) =>
    el.selectionStart === el.selectionEnd ? wholeTokenAt(draft.text, el.selectionStart ?? 0, draft.mentions, forward) : undefined;
  const keyActions = (el: HTMLTextAreaElement): Record<ComposerKeyAction, () => void> => ({
    closeList: () => list.dismiss(draft.text),
    nextOption: () => list.move(1),
    previousOption: () => list.move(-1),
    take: () => take(list.activeIndex),
    deleteMentionBefore: () => draft.apply(caretTouches(el, false)!),
    deleteMentionAfter: () => draft.apply(caretTouches(el, true)!),
    send: () => send(),
    followUp: () => queue("followUp"),
    steer: () => queue("steer"),
    stop: () => post({ type: "chat/stop" }),
  });
  const onKeyDown = (e: KeyboardEvent & { currentTarget: HTMLTextAreaElement }) => {
    const el = e.currentTarget;
    const key = { key: e.key, shift: e.shiftKey, alt: e.altKey, ctrl: e.ctrlKey, meta: e.metaKey, composing: e.isComposing };
    const state = { listOpen: list.listOpen, hasOptions: list.options.length > 0, running: props.running };
    const action = keyAction(key, { ...state, mentionBefore: caretTouches(el, false) !== undefined, mentionAfter: caretTouches(el, true) !== undefined });
    if (action === null) return;
    e.preventDefault();
    keyActions(el)[action]();
  };

  useEffect(() => {
    if (!props.restore || draft.text.trim() !== "") return;
    draft.change(props.restore.text);
    // The host expanded a template the box had not shown (the `/` list was older than the file):
    // the user reads it now, and Enter sends it as it reads.
    if (props.restore.expanded !== undefined) {
      draft.expanded.current = true;
      announce(`Expanded /${props.restore.expanded}: read or edit it, then Enter sends it.`);
    }
    input.current?.focus();
  }, [props.restore?.n]);

  const placeholder = placeholderFor(readOnly, props.running);
  useFitHeight(input, draft.text, placeholder);

  return (
    <section
      class={`composer${paths.dragging ? " dragging" : ""}`}
      aria-label="Message Pi"
      data-composer
      onDragOver={paths.onDragOver}
      onDragLeave={paths.onDragLeave}
      onDrop={paths.onDrop}
    >
      <QueueChips queue={props.queue ?? []} kept={props.queueKept === true} running={props.running} />
      <ComposerImages images={images.images} notes={images.notes} onRemove={images.remove} />
      {images.images.length > 0 && props.imageInput === false && (
        <ImageInputNotice
          modelLabel={props.modelLabel}
          canSendText={hasText && !props.running && !readOnly}
          onSendText={() => send(false)}
          onRemove={images.removeAll}
        />
      )}
      <AttachmentChips attachments={props.attachments} />
      <MentionChips
        mentions={draft.mentions}
        onRemove={(m) => {
          const edit = removeMention(draft.text, m.token);
          if (edit) draft.apply(edit);
        }}
      />
      <ComposerPopup list={list} onTake={take} />
      <div class="input-box">
        <textarea
          ref={input}
          class="input"
          data-composer-input
          rows={1}
          value={draft.text}
          aria-label="Message to Pi"
          aria-autocomplete="list"
          aria-controls={list.listOpen ? LISTBOX_ID : undefined}
          aria-activedescendant={list.listOpen && list.options.length > 0 ? optionId(list.activeIndex) : undefined}
          readOnly={readOnly}
          placeholder={placeholder}
          onInput={(e) => {
            draft.change(e.currentTarget.value);
            list.update(e.currentTarget.value, e.currentTarget.selectionStart ?? e.currentTarget.value.length);
          }}
          onClick={(e) => list.update(e.currentTarget.value, e.currentTarget.selectionStart ?? 0)}
          onBlur={list.hide}
          onPaste={paths.onPaste}
          onKeyDown={onKeyDown}
        />
        <MentionOffer
          offer={paths.offer}
          onTake={() => paths.takeOffer(input.current?.value ?? draft.text)}
          onKeep={() => {
            paths.dropOffer();
            input.current?.focus();
          }}
        />
        {paths.dropNotes.length > 0 && (
          <p class="composer-note" role="status">
            {paths.dropNotes.join(" ")}
          </p>
        )}
        <div class="input-footer">
          <ImagePicker onFiles={(files) => void images.add(files)} />
          <ModeSwitch mode={props.mode ?? "act"} readOnly={readOnly} />
          <span class="hint">{footerHint(draft.text, images.images.length > 0 && props.imageInput === undefined, props.editsAllowedForChat)}</span>
          <RunButtons running={props.running} canSend={canSend} onSend={() => send()} onQueue={queue} onStop={() => post({ type: "chat/stop" })} />
        </div>
      </div>
    </section>
  );
});
