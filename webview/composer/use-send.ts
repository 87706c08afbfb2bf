// Sending the draft: Send while idle, a follow-up or a steer while Pi writes. A draft `/name args`
// naming a prompt template (or any name, before the `/` list is known) is expanded by the host
// first and shown in the box, to read and edit; the next Enter sends it as it reads. Every path,
// Send text only included, goes through that step: nothing skips what the user reads.
import { isChatAction } from "../../src/shared/mentions";
import { followLatest } from "../follow-latest";
import { announce } from "../live-region";
import { post } from "../vscode-api";
import type { ComposerImage } from "./image-attach";
import type { Draft } from "./use-draft";
import { useHostRequest } from "./use-host-request";
import type { CommandList } from "./use-popup";

export type SendKind = "send" | "followUp" | "steer";
type Expansion = { readonly requestId: number; readonly name?: string; readonly text?: string };

export function useSend(opts: {
  input: { readonly current: HTMLTextAreaElement | null };
  draft: Draft;
  images: readonly ComposerImage[];
  imageInput: boolean | undefined;
  running: boolean;
  readOnly: boolean;
  commandList?: CommandList | undefined;
  expanded?: Expansion | undefined;
  /** Empties the box once the draft went. */
  clear: () => void;
}) {
  const { draft, images, running, readOnly } = opts;
  const hasText = draft.text.trim() !== "";
  // With images, send only once it is known that the model sees them: never drop one silently.
  const imagesBlocked = images.length > 0 && opts.imageInput !== true;
  const canSend = !readOnly && (hasText || images.length > 0) && !imagesBlocked;

  // The host expanded a `/template args` draft: the box shows it, to read and edit; Enter sends it.
  const expansion = useHostRequest<Expansion, { draft: string; kind: SendKind; withImages: boolean }>(opts.expanded, (answer, pending) => {
    const el = opts.input.current;
    if (!el || el.value !== pending.draft) return; // typed on meanwhile: that text wins
    if (answer.text === undefined) {
      // Not a template: sent as typed (the host runs the chat's actions and skills).
      deliver(pending.kind, pending.withImages);
      return;
    }
    draft.expanded.current = true;
    draft.apply({ start: 0, end: el.value.length, insert: answer.text });
    el.setSelectionRange(el.value.length, el.value.length);
    announce(`Expanded /${answer.name ?? "template"}: read or edit it, then Enter sends it.`);
  });

  /** Asks the host to expand a draft naming a template; true while that answer is awaited. */
  const expandFirst = (kind: SendKind, withImages = true): boolean => {
    if (draft.expanded.current || expansion.waiting()) return expansion.waiting();
    const name = /^\/([\w.-]+)(?:\s|$)/.exec(draft.text.trim())?.[1];
    if (name === undefined) return false;
    const known = opts.commandList?.commands.find((c) => c.name === name);
    if (opts.commandList ? known?.kind !== "template" : isChatAction(name)) return false;
    post({ type: "composer/expandTemplate", requestId: expansion.ask({ draft: draft.text, kind, withImages }), text: draft.text });
    return true;
  };

  /** Sends the draft now, as it reads. */
  const deliver = (kind: SendKind, withImages = true) => {
    const text = opts.input.current?.value ?? draft.text;
    const sent = withImages ? images.map((i) => ({ mimeType: i.mimeType, data: i.data })) : [];
    const refs = draft.live(text).map((m) => m.ref);
    const extra = {
      ...(sent.length > 0 ? { images: sent } : {}),
      ...(refs.length > 0 ? { mentions: refs } : {}),
      ...(draft.expanded.current ? { verbatim: true } : {}),
    };
    if (kind === "send") post({ type: "chat/send", text, ...extra });
    else post({ type: "queue/add", kind, text, ...extra });
    // What was sent, and what Pi then asks, come into sight even if the user had scrolled up.
    followLatest();
    opts.clear();
  };

  return {
    hasText,
    canSend,
    /** Send (Enter while idle); without images for the notice's Send text only. */
    send(withImages = true) {
      if (running || readOnly || (withImages ? !canSend : !hasText)) return;
      if (expandFirst("send", withImages)) return;
      deliver("send", withImages);
    },
    /** While Pi writes: a follow-up (after the reply) or a steer (after the current tool call). */
    queue(kind: "followUp" | "steer") {
      if (!running || !canSend) return;
      if (expandFirst(kind)) return;
      deliver(kind);
    },
  };
}
