// What a drop or a paste on the composer becomes. Files from the system (or pasted image data) are
// images. Paths become `@` mentions once the host has checked them: files dropped from VS Code's
// explorer or tabs are mentioned (or a note says why not), and a pasted path that exists is offered
// as one, for as long as the pasted text is still in the box.
import { useState } from "preact/hooks";
import { mentionToken, type MentionRef } from "../../src/shared/mentions";
import type { PathMentions } from "../client";
import { announce } from "../live-region";
import { post } from "../vscode-api";
import { carriesResources, droppedUris, looksLikePath } from "./dropped-paths";
import { filesOf } from "./image-attach";
import { pastedAt } from "./mention-tokens";
import type { Draft } from "./use-draft";
import { useHostRequest } from "./use-host-request";

type Pasted = { readonly text: string; readonly at: number };

export function useDropPaste(answer: PathMentions | undefined, draft: Draft, addImages: (files: readonly File[]) => Promise<void>, readOnly: boolean) {
  const [dragging, setDragging] = useState(false);
  /** Why dropped items were not mentioned. */
  const [dropNotes, setDropNotes] = useState<readonly string[]>([]);
  /** A pasted path that exists: the offer to mention it. */
  const [offer, setOffer] = useState<(Pasted & { readonly ref: MentionRef }) | undefined>(undefined);

  const drop = useHostRequest<PathMentions, null>(answer, (dropped) => {
    draft.mention(dropped.refs);
    setDropNotes(dropped.refused.length > 0 ? [`Not mentioned: ${dropped.refused.join("; ")}.`] : []);
  });
  const paste = useHostRequest<PathMentions, Pasted>(answer, (found, pasted) => {
    const ref = found.refs[0];
    if (ref && found.refs.length === 1 && draft.text.includes(pasted.text)) {
      setOffer({ ref, ...pasted });
      announce(`${mentionToken(ref).slice(1)} is in the workspace: press Tab to reach Mention it.`);
    }
  });

  return {
    dragging,
    dropNotes,
    offer,
    onDragOver(e: DragEvent) {
      if (!e.dataTransfer?.types.includes("Files") && !carriesResources(e.dataTransfer)) return;
      e.preventDefault();
      setDragging(true);
    },
    onDragLeave: () => setDragging(false),
    onDrop(e: DragEvent) {
      setDragging(false);
      // Files from VS Code's explorer or tabs (names only, no File objects): mentions, once the
      // host has checked them. A drop with files (from the system's file manager) stays images.
      const uris = readOnly || e.dataTransfer?.types.includes("Files") ? [] : droppedUris(e.dataTransfer);
      if (uris.length > 0) {
        e.preventDefault();
        post({ type: "mention/paths", requestId: drop.ask(null), origin: "drop", items: uris });
        return;
      }
      const files = filesOf(e.dataTransfer);
      if (files.length === 0) return;
      e.preventDefault();
      void addImages(files);
    },
    onPaste(e: ClipboardEvent & { currentTarget: HTMLTextAreaElement }) {
      const files = filesOf(e.clipboardData);
      if (files.length > 0) {
        e.preventDefault();
        void addImages(files);
        return;
      }
      // Plain text: the textarea pastes it as it is; a path that exists is offered as a mention.
      const text = e.clipboardData?.getData("text/plain") ?? "";
      setOffer(undefined);
      if (!readOnly && looksLikePath(text)) {
        post({ type: "mention/paths", requestId: paste.ask({ text, at: e.currentTarget.selectionStart ?? 0 }), origin: "paste", items: [text.trim()] });
      }
    },
    /** Takes the offer: the pasted text (where it still is) becomes the mention. */
    takeOffer(current: string) {
      if (!offer) return;
      const at = pastedAt(current, offer);
      setOffer(undefined);
      draft.mention([offer.ref], at >= 0 ? { start: at, end: at + offer.text.length } : undefined);
    },
    dropOffer: () => setOffer(undefined),
    /** The offer is about text that is still there. */
    textChanged(text: string) {
      if (offer && !text.includes(offer.text)) setOffer(undefined);
    },
    clear() {
      setDropNotes([]);
      setOffer(undefined);
    },
  };
}
