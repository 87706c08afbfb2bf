// The chips above the composer's box: files attached with Ask About File (removed by the host) and
// the `@` mentions taken (removing one takes its token out of the text); and the offer under the
// box to mention a pasted path that exists.
import type { PendingAttachment } from "../../src/shared/protocol";
import { mentionToken, type MentionRef } from "../../src/shared/mentions";
import { rangeLabel } from "../cards/file-link";
import { CloseIcon, FileIcon } from "../icons";
import { post } from "../vscode-api";
import type { TakenMention } from "./mention-tokens";

export function AttachmentChips({ attachments }: { attachments: readonly PendingAttachment[] }) {
  if (attachments.length === 0) return null;
  return (
    <ul class="attachments" aria-label="Attached files">
      {attachments.map((a, index) => {
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
  );
}

export function MentionChips({ mentions, onRemove }: { mentions: readonly TakenMention[]; onRemove: (m: TakenMention) => void }) {
  if (mentions.length === 0) return null;
  return (
    <ul class="attachments mentions" aria-label="Mentioned">
      {mentions.map((m) => (
        <li key={m.token} class="chip mention-chip" title={m.token}>
          {m.ref.kind === "file" || m.ref.kind === "folder" ? <FileIcon /> : null}
          <span class="chip-label">{m.token}</span>
          <button type="button" class="chip-remove" aria-label={`Remove ${m.token}`} onClick={() => onRemove(m)}>
            <CloseIcon />
          </button>
        </li>
      ))}
    </ul>
  );
}

/** A pasted path that exists: Mention it, or keep the text as pasted. */
export function MentionOffer({ offer, onTake, onKeep }: { offer: { readonly ref: MentionRef } | undefined; onTake: () => void; onKeep: () => void }) {
  if (!offer) return null;
  return (
    <fieldset class="mention-offer" aria-label="Pasted path">
      <span class="mention-offer-text">
        Mention <code>{mentionToken(offer.ref).slice(1)}</code>?
      </span>
      <button type="button" class="button" onClick={onTake}>
        Mention it
      </button>
      <button type="button" class="icon-button" aria-label="Keep the pasted text" title="Keep the pasted text" onClick={onKeep}>
        <CloseIcon />
      </button>
    </fieldset>
  );
}
