// An edit waiting for approval, hunk by hunk: each hunk's header has Accept and Reject (toggle
// buttons, every hunk accepted to begin with), a rejected hunk is struck through, and the card's
// Allow writes only the accepted ones ("Allow 2 of 3 hunks"); Deny rejects them all. Each choice
// is announced. The host checks the rejected indices against the edit it is waiting on
// (src/host/approvals/edit-approvals.ts) and the model is told which hunks were not written.
import { useState } from "preact/hooks";
import { MAX_EDIT_HUNKS } from "../../src/shared/partial-patch";
import type { DiffHunk } from "../../src/shared/structured-diff";
import { announce } from "../live-region";
import { ApprovalForm } from "./approval";
import { DiffView } from "./diff-view";

/** What Allow will write, in words: for the announcement after each choice. */
function allowWrites(rejected: number, count: number): string {
  if (rejected === 0) return `Allow writes all ${count} hunks.`;
  if (rejected === count) return "Every hunk is rejected: Deny, or accept a hunk.";
  return `Allow writes ${count - rejected} of ${count} hunks.`;
}

function HunkChoice(props: { index: number; count: number; rejected: boolean; onChoose: (index: number, reject: boolean) => void }) {
  const n = props.index + 1;
  return (
    // biome-ignore lint/a11y/useSemanticElements: two toggle buttons in a diff line; a fieldset would break the line's layout.
    <span class="hunk-choice" role="group" aria-label={`Hunk ${n} of ${props.count}`}>
      <button
        type="button"
        class="text-button hunk-accept"
        aria-pressed={!props.rejected}
        aria-label={`Accept hunk ${n}`}
        onClick={() => props.onChoose(props.index, false)}
      >
        Accept
      </button>
      <button
        type="button"
        class="text-button hunk-reject"
        aria-pressed={props.rejected}
        aria-label={`Reject hunk ${n}`}
        onClick={() => props.onChoose(props.index, true)}
      >
        Reject
      </button>
    </span>
  );
}

/** The diff and the decision of an edit waiting for approval; per-hunk choices when it has more than one hunk. */
export function PendingEditReview({ toolCallId, hunks }: { toolCallId: string; hunks: readonly DiffHunk[] }) {
  const [rejected, setRejected] = useState<ReadonlySet<number>>(new Set());
  const count = hunks.length;
  const byHunk = count > 1 && count <= MAX_EDIT_HUNKS;
  const choose = (index: number, reject: boolean) => {
    if (rejected.has(index) === reject) return;
    const next = new Set(rejected);
    if (reject) next.add(index);
    else next.delete(index);
    setRejected(next);
    announce(`Hunk ${index + 1} ${reject ? "rejected" : "accepted"}. ${allowWrites(next.size, count)}`);
  };
  return (
    <>
      <DiffView
        hunks={hunks}
        rejected={rejected}
        {...(byHunk ? { hunkControls: (i: number) => <HunkChoice index={i} count={count} rejected={rejected.has(i)} onChoose={choose} /> } : {})}
      />
      <ApprovalForm toolCallId={toolCallId} cardId={toolCallId} {...(byHunk ? { hunks: { count, rejected: [...rejected].sort((a, b) => a - b) } } : {})} />
    </>
  );
}
