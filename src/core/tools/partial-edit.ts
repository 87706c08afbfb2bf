// Part of an approved edit: the proposal narrowed to the hunks the user accepted on the card. The
// narrowed proposal is written like any other (applyEdit: same file check, one write, so one undo
// step and one checkpoint), its details are the diff of what is written, and its summary — the
// tool result the model reads — names the rejected hunks and shows them, so the model never takes
// its whole edit for written; a hunk the user edited before accepting is written as the user's
// text, and the summary gives the model those lines as they now are.
import { applyAcceptedHunks, hunkNames } from "../../shared/partial-patch";
import { hunksFromPatch } from "../../shared/diff-hunks";
import { unifiedDiffText } from "../../shared/structured-diff";
import { editDetails, summarize, type EditProposal } from "./edit-file";

/** The rejected hunks (and each edited one) as the model reads them: enough to redo them, not a whole file. */
const MAX_REJECTED_DIFF_CHARS = 8000;

function capped(text: string): string {
  return text.length > MAX_REJECTED_DIFF_CHARS ? `${text.slice(0, MAX_REJECTED_DIFF_CHARS)}\n… (cut)` : text;
}

/**
 * The proposal with only the hunks not in `rejected` (0-based, checked in range by the caller).
 * Throws HunkMismatchError if the proposal's hunks do not describe its texts (nothing is written then).
 */
export function narrowProposal(
  proposal: EditProposal,
  rejected: readonly number[],
  reason?: string,
  edited: ReadonlyMap<number, string> = new Map(),
): EditProposal {
  const hunks = hunksFromPatch(proposal.details.hunks);
  const rejectedSet = new Set(rejected);
  const proposedRaw = new TextDecoder().decode(proposal.newBytes).slice(proposal.bom ? 1 : 0);
  const newRaw = applyAcceptedHunks(proposal.oldText, proposedRaw, hunks, rejectedSet, edited);
  const details = editDetails(proposal.path, proposal.oldText, newRaw);
  const accepted = hunks.map((_, i) => i).filter((i) => !rejectedSet.has(i));
  const why = reason?.trim() ? ` The user's reason: "${reason.trim()}".` : "";
  const rejectedDiff = capped(unifiedDiffText(hunks.filter((_, i) => rejectedSet.has(i))));
  const written = summarize(proposal.path, details.additions, details.deletions, details.firstChangedLine, 1, []);
  const parts = [written];
  if (rejected.length > 0) {
    parts.push(
      `The user accepted only part of this edit: ${hunkNames(accepted)} of ${hunks.length} written; ` +
        `${hunkNames(rejected)} rejected and NOT written (the file keeps its old lines there).${why} ` +
        `Rejected, as you proposed it:\n${rejectedDiff}`,
    );
  }
  // The user's own text in place of a hunk: the model reads what those lines are now.
  for (const [index, text] of [...edited].sort((a, b) => a[0] - b[0])) {
    if (rejectedSet.has(index)) continue;
    parts.push(`The user edited hunk ${index + 1} before it was written: those lines are now the user's text, not yours:\n<lines>\n${capped(text)}\n</lines>`);
  }
  if (rejected.length === 0 && why !== "") parts.push(why.trim());
  const summary = parts.join(" ");
  return Object.freeze({
    ...proposal,
    newBytes: new TextEncoder().encode((proposal.bom ? "\uFEFF" : "") + newRaw),
    details,
    summary,
  });
}
