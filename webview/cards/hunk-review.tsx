// An edit waiting for approval, hunk by hunk: each hunk's header has Accept and Reject (toggle
// buttons, every hunk accepted to begin with), a rejected hunk is struck through, and the card's
// Allow writes only the accepted ones ("Allow 2 of 3 hunks"); Deny rejects them all. Each choice
// is announced. The host keeps the one record of the choices, which the editor's lenses share
// (src/host/approvals/edit-approvals.ts), and the model is told which hunks were not written.
import { useMemo, useState } from "preact/hooks";
import { MAX_EDIT_HUNKS } from "../../src/shared/partial-patch";
import type { DiffHunk } from "../../src/shared/structured-diff";
import { announce } from "../live-region";
import { post } from "../vscode-api";
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

/**
 * The diff and the decision of an edit waiting for approval; per-hunk choices when it has more than
 * one hunk. The host keeps what is rejected (`rejected`, the same record the editor's lenses show):
 * a choice here is posted, and the card redraws from the host's answer.
 */
export function PendingEditReview({ toolCallId, hunks, rejected }: { toolCallId: string; hunks: readonly DiffHunk[]; rejected: readonly number[] }) {
  const count = hunks.length;
  const byHunk = count > 1 && count <= MAX_EDIT_HUNKS;
  // A choice shows at once, before the host's answer: Alt+A pressed right after it sends what the
  // card shows, which is what the host's record holds once it handled the choice (messages go in order).
  const [chosen, setChosen] = useState<{ from: readonly number[]; rejected: readonly number[] } | null>(null);
  const shown = chosen !== null && chosen.from === rejected ? chosen.rejected : rejected;
  const rejectedSet = useMemo(() => new Set(shown), [shown]);
  const choose = (index: number, reject: boolean) => {
    if (rejectedSet.has(index) === reject) return;
    const next = new Set(rejectedSet);
    if (reject) next.add(index);
    else next.delete(index);
    setChosen({ from: rejected, rejected: [...next].sort((a, b) => a - b) });
    post({ type: "approval/hunk", toolCallId, hunk: index, accept: !reject });
    announce(`Hunk ${index + 1} ${reject ? "rejected" : "accepted"}. ${allowWrites(next.size, count)}`);
  };
  return (
    <>
      <DiffView
        hunks={hunks}
        rejected={rejectedSet}
        {...(byHunk ? { hunkControls: (i: number) => <HunkChoice index={i} count={count} rejected={rejectedSet.has(i)} onChoose={choose} /> } : {})}
      />
      <ApprovalForm toolCallId={toolCallId} cardId={toolCallId} {...(byHunk ? { hunks: { count, rejected: shown } } : {})} />
    </>
  );
}
