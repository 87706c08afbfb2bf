// "Also restore files?" after Edit or Retry of a message whose checkpoint has files Pi changed
// since (the host sends `checkpoint/offer` only then). The same preview as *Restore files to
// here*: what will be put back, deleted or brought back, each openable as a diff, and what is
// skipped and why; then one of three choices. The keyboard lands on the first choice; Escape is
// Cancel. Cancel of an edit puts the edited text back in its box.
import { useEffect, useRef } from "preact/hooks";
import type { FilesOffer } from "../src/shared/protocol";
import { reopenEdit } from "./branch-controls";
import { focusComposer } from "./focus";
import { post } from "./vscode-api";

const DID = { modified: "modified by Pi", created: "created by Pi", deleted: "deleted by Pi" } as const;
const WILL = { modified: "put back", created: "deleted", deleted: "brought back" } as const;

export function FilesOfferPanel({ offer }: { offer: FilesOffer }) {
  const first = useRef<HTMLButtonElement>(null);
  // A new offer takes the keyboard: the question is what happens next.
  useEffect(() => first.current?.focus(), [offer.id]);
  const verb = offer.action === "edit" ? "send the edited message" : "retry";
  const answer = (choice: "restore" | "keep" | "cancel") => {
    post({ type: "checkpoint/answer", id: offer.id, choice });
    if (choice === "cancel" && offer.edit) reopenEdit(offer.messageIndex, offer.edit.text, offer.edit.removeImages ?? []);
    else if (choice === "cancel") focusComposer();
  };
  const n = offer.files.length;
  const titleId = `files-offer-title-${offer.id}`;
  return (
    <section
      class="files-offer"
      role="dialog"
      aria-labelledby={titleId}
      onKeyDown={(e) => {
        if (e.key !== "Escape") return;
        e.preventDefault();
        e.stopPropagation();
        answer("cancel");
      }}
    >
      <h2 id={titleId} class="files-offer-title">
        Also restore files?
      </h2>
      <p class="files-offer-text">
        Pi changed {n} file{n === 1 ? "" : "s"} since message {offer.messageNumber} ("{offer.messageText}"). Restore {n === 1 ? "it" : "them"} to how{" "}
        {n === 1 ? "it was" : "they were"} before that message, then {verb}?
      </p>
      <div class="files-offer-actions">
        <button type="button" ref={first} class="button primary" onClick={() => answer("restore")}>
          {offer.action === "edit" ? "Restore files and send" : "Restore files and retry"}
        </button>
        <button type="button" class="button secondary" onClick={() => answer("keep")}>
          {offer.action === "edit" ? "Keep files and send" : "Keep files and retry"}
        </button>
        <button type="button" class="button secondary" onClick={() => answer("cancel")}>
          Cancel
        </button>
      </div>
      <ul class="files-offer-list" aria-label="Files that will change">
        {offer.files.map((f) => (
          <li key={f.path}>
            <button
              type="button"
              class="link-button"
              title="Open the diff: the file at the checkpoint beside the file now"
              onClick={() => post({ type: "checkpoint/openDiff", id: offer.id, path: f.path })}
            >
              {f.path}
            </button>
            <span class="muted">
              {" "}
              {DID[f.piDid]}, will be {WILL[f.piDid]}
            </span>
          </li>
        ))}
      </ul>
      {offer.skipped.length > 0 && (
        <ul class="files-offer-list skipped" aria-label="Files that will be skipped">
          {offer.skipped.map((s) => (
            <li key={s.path}>
              <span class="files-offer-path">{s.path}</span>
              <span class="muted"> skipped: {s.reason}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
