// The unified diff of an edit, computed on the part of the file that changed.
//
// `structuredPatch` over two whole files splits both into lines and runs Myers' diff over all of
// them: about 2.6 s for a 20 MB file on this machine, the extension host frozen meanwhile. An edit
// changes one region, so the lines before the first difference and after the last one are equal
// by construction: they are cut off (a string compare, no allocation per line), the diff runs on
// the changed lines plus their context, and the hunk line numbers are shifted back. The result is
// the same patch the whole-file diff gives (tested against it).
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch, type StructuredPatch, type StructuredPatchHunk } from "diff";

export interface EditDiff {
  /** Unified diff with ---/+++ headers (a/path, b/path). */
  diff: string;
  hunks: StructuredPatchHunk[];
}

/** Offset where the line holding `offset` starts, after walking back `lines` more lines. */
function lineStartBefore(text: string, offset: number, lines: number): number {
  let start = offset;
  for (let i = 0; i <= lines; i++) {
    if (start <= 0) return 0;
    const newline = text.lastIndexOf("\n", start - 1);
    if (newline === -1) return 0;
    if (i === lines) return newline + 1;
    start = newline;
  }
  return start;
}

/** Offset just after the line end at or after `offset`, walking `lines` more lines on; text.length at the end. */
function lineEndAfter(text: string, offset: number, lines: number): number {
  let end = offset;
  for (let i = 0; i <= lines; i++) {
    const newline = text.indexOf("\n", end);
    if (newline === -1) return text.length;
    end = newline + 1;
  }
  return end;
}

/**
 * The largest n in [0, max] for which `same(n)` holds, `same` being monotone (a common prefix or
 * suffix of length n). A binary search over native string compares: a character loop in JS over
 * 20 MB took about a second.
 */
function longestCommon(max: number, same: (n: number) => boolean): number {
  let low = 0;
  let high = max;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (same(mid)) low = mid;
    else high = mid - 1;
  }
  return low;
}

function countNewlines(text: string, end: number): number {
  let count = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < end; i = text.indexOf("\n", i + 1)) count++;
  return count;
}

/** The diff of `oldText` → `newText` (both with "\n" line endings), `context` lines around each change. */
export function editDiff(path: string, oldText: string, newText: string, context: number): EditDiff {
  const shortest = Math.min(oldText.length, newText.length);
  const prefix = longestCommon(shortest, (n) => oldText.slice(0, n) === newText.slice(0, n));
  const suffix = longestCommon(shortest - prefix, (n) => oldText.slice(oldText.length - n) === newText.slice(newText.length - n));

  // The window: whole lines, from `context` lines before the first difference to `context` lines
  // after the last one. The same number of characters is cut from the end of both texts (the
  // common suffix), so the cut lands on the same line boundary in both.
  const start = lineStartBefore(oldText, prefix, context);
  const oldEnd = lineEndAfter(oldText, oldText.length - suffix, context);
  const tail = oldText.length - oldEnd;
  const newEnd = newText.length - tail;
  const shift = countNewlines(oldText, start);

  const patch: StructuredPatch = structuredPatch(`a/${path}`, `b/${path}`, oldText.slice(start, oldEnd), newText.slice(start, newEnd), undefined, undefined, {
    context,
  });
  // A window that stops before the end of the file ends with "\n": no "\ No newline" marker can
  // come from the cut itself, only from the real end of the file.
  for (const hunk of patch.hunks) {
    hunk.oldStart += shift;
    hunk.newStart += shift;
  }
  const hunks = patch.hunks.map((h) => ({ oldStart: h.oldStart, oldLines: h.oldLines, newStart: h.newStart, newLines: h.newLines, lines: [...h.lines] }));
  return { diff: formatPatch(patch, FILE_HEADERS_ONLY), hunks };
}
