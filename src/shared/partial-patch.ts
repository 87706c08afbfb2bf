// Part of an edit: the file as it would be with only some of the proposal's hunks applied (the
// user accepted hunks 1 and 3 on the card, rejected hunk 2). Pure, so it is tested on its own;
// the gate builds the narrowed proposal from it (src/core/tools/partial-edit.ts).
//
// The texts keep their own line endings (a CRLF file stays CRLF): the hunks were computed on the
// same texts with "\n" endings, which has the same lines. Each hunk is placed by its own start on
// each side, never by a running offset, so a rejected hunk cannot shift the ones after it; and
// every hunk is checked against both texts, so hunks that do not describe them write nothing.
import type { DiffHunk } from "./structured-diff";

/** The hunks do not describe the two texts (a damaged or foreign hunk): nothing may be written from them. */
export class HunkMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HunkMismatchError";
  }
}

/** The lines of a text, each with its line ending ("\n" or "\r\n"); the last one may have none. "" has no lines. */
export function linesWithEndings(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", start)) {
    out.push(text.slice(start, i + 1));
    start = i + 1;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/** A file line without its line ending, as a hunk's line holds it after the mark. */
function bare(line: string): string {
  return line.replace(/\r?\n$/, "");
}

/** What a hunk says one side of the file holds there: context and removed lines (old), context and added lines (new). */
function side(hunk: DiffHunk, which: "old" | "new"): string[] {
  const other = which === "old" ? "+" : "-";
  return hunk.lines.filter((l) => !l.startsWith("\\") && !l.startsWith(other)).map((l) => l.slice(1).replace(/\r$/, ""));
}

/** Throws unless `lines[from…]` is exactly what the hunk says that side holds. */
function checkSide(hunk: DiffHunk, index: number, which: "old" | "new", lines: readonly string[], from: number, count: number): void {
  const expected = side(hunk, which);
  const ok = from >= 0 && from + count <= lines.length && expected.length === count && expected.every((text, k) => text === bare(lines[from + k] ?? ""));
  if (!ok) throw new HunkMismatchError(`Hunk ${index + 1} does not match the ${which} text.`);
}

/** Index of a hunk's first line on one side: its start, 1-based (an empty range names the line it goes before). */
function firstIndex(start: number, count: number): number {
  // The diff library gives an empty range at the start of an empty file as 0 or 1 depending on the side.
  return count === 0 ? Math.max(0, start - 1) : start - 1;
}

/**
 * The user's text for a hunk's lines (the new side: its context and added lines, "\n" between
 * them) in the file's line endings: those of the lines it replaces, and a final line ending when
 * they had one.
 */
function editedLines(text: string, replaced: readonly string[]): string[] {
  const ending = replaced.some((l) => l.endsWith("\r\n")) ? "\r\n" : "\n";
  const last = replaced[replaced.length - 1];
  const endsWithBreak = last === undefined || last.endsWith("\n");
  const body = text.replace(/\r\n/g, "\n").replace(/\n$/, "");
  const lines = body === "" ? [] : body.split("\n");
  return lines.map((line, i) => (i < lines.length - 1 || endsWithBreak ? line + ending : line));
}

/**
 * `oldText` with the hunks of `oldText → newText` applied except those in `rejected` (0-based
 * indices into `hunks`); a hunk in `edited` is written as the user's text instead of its new side.
 * All accepted gives `newText`, all rejected gives `oldText`. Throws HunkMismatchError when the
 * hunks do not describe the two texts, are out of order or overlap.
 */
export function applyAcceptedHunks(
  oldText: string,
  newText: string,
  hunks: readonly DiffHunk[],
  rejected: ReadonlySet<number>,
  edited: ReadonlyMap<number, string> = new Map(),
): string {
  const oldLines = linesWithEndings(oldText);
  const newLines = linesWithEndings(newText);
  const out: string[] = [];
  let oldCursor = 0;
  let newCursor = 0;
  hunks.forEach((hunk, i) => {
    const oldFrom = firstIndex(hunk.oldStart, hunk.oldLines);
    const newFrom = firstIndex(hunk.newStart, hunk.newLines);
    // Between two hunks both texts hold the same lines: as many on each side, and in order.
    if (oldFrom < oldCursor || newFrom < newCursor || oldFrom - oldCursor !== newFrom - newCursor) {
      throw new HunkMismatchError(`Hunk ${i + 1} is out of order or overlaps the one before.`);
    }
    checkSide(hunk, i, "old", oldLines, oldFrom, hunk.oldLines);
    checkSide(hunk, i, "new", newLines, newFrom, hunk.newLines);
    out.push(...oldLines.slice(oldCursor, oldFrom));
    const proposed = newLines.slice(newFrom, newFrom + hunk.newLines);
    const userText = edited.get(i);
    if (rejected.has(i)) out.push(...oldLines.slice(oldFrom, oldFrom + hunk.oldLines));
    else
      out.push(
        ...(userText === undefined ? proposed : editedLines(userText, proposed.length > 0 ? proposed : oldLines.slice(oldFrom, oldFrom + hunk.oldLines))),
      );
    oldCursor = oldFrom + hunk.oldLines;
    newCursor = newFrom + hunk.newLines;
  });
  if (oldLines.length - oldCursor !== newLines.length - newCursor) throw new HunkMismatchError("The hunks leave the ends of the texts different.");
  out.push(...oldLines.slice(oldCursor));
  return out.join("");
}

/** "hunk 2", "hunks 1 and 3", "hunks 1, 2 and 4" (1-based, in order) for the card and the model. */
export function hunkNames(indices: Iterable<number>): string {
  const sorted = [...new Set(indices)].sort((a, b) => a - b).map((i) => String(i + 1));
  if (sorted.length <= 1) return `hunk ${sorted[0] ?? ""}`.trim();
  return `hunks ${sorted.slice(0, -1).join(", ")} and ${sorted[sorted.length - 1]}`;
}

/**
 * The rejected hunks of a decision, checked against the edit it is for: integers in range, no
 * repeats, sorted. Undefined when the list does not fit the edit (the decision is then dropped:
 * a message from the view is untrusted, and a decision the user did not make must never be applied).
 */
export function checkedRejectedHunks(rejected: readonly unknown[], hunkCount: number): number[] | undefined {
  const seen = new Set<number>();
  for (const value of rejected) {
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value >= hunkCount || seen.has(value)) return undefined;
    seen.add(value);
  }
  return [...seen].sort((a, b) => a - b);
}

/** The most hunks a card offers one by one (and a decision may name): far beyond what anyone reviews by hand. */
export const MAX_EDIT_HUNKS = 10_000;

/** The longest text the user may put in place of one hunk: a hunk is a few lines, this is a whole file's worth. */
export const MAX_EDITED_HUNK_CHARS = 200_000;

/** The lines a hunk writes, as the user edits them: its context and added lines, one a line. */
export function hunkNewText(hunk: DiffHunk): string {
  return hunk.lines
    .filter((l) => l.startsWith(" ") || l.startsWith("+") || l === "")
    .map((l) => l.slice(1).replace(/\r$/, ""))
    .join("\n");
}
