// The unified diff of an edit, computed on the part of the file that changed.
//
// `structuredPatch` over two whole files splits both into lines and runs Myers' diff over all of
// them: about 2.6 s for a 20 MB file on this machine, the extension host frozen meanwhile. An edit
// changes one region, so the lines before the first difference and after the last one are equal
// by construction: they are cut off (a string compare, no allocation per line), the diff runs on
// the changed lines plus their context, and the hunk line numbers are shifted back. The result is
// the same patch the whole-file diff gives (tested against it). Inside that window, changes spread
// over the file (a rewrite touching 200 places) are diffed region by region: Myers' cost is the
// length diffed × the number of differences, so one pass over the whole window cost ~50 ms for 200
// changes in 5,000 lines, the regions ~7 ms together.
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

  const oldWindow = oldText.slice(start, oldEnd);
  const newWindow = newText.slice(start, newEnd);
  const hunks: StructuredPatchHunk[] = [];
  let patch: StructuredPatch | undefined;
  // Each changed region on its own: Myers over the whole window costs its length × the number of
  // changed lines (200 changes spread over 5,000 lines: ~45 ms), each region only its own.
  for (const region of changedRegions(oldWindow, newWindow, context)) {
    patch = structuredPatch(
      `a/${path}`,
      `b/${path}`,
      oldWindow.slice(region.oldFrom, region.oldTo),
      newWindow.slice(region.newFrom, region.newTo),
      undefined,
      undefined,
      { context },
    );
    // A window that stops before the end of the file ends with "\n": no "\ No newline" marker can
    // come from the cut itself, only from the real end of the file.
    for (const h of patch.hunks) {
      hunks.push({
        oldStart: h.oldStart + shift + region.oldLine,
        oldLines: h.oldLines,
        newStart: h.newStart + shift + region.newLine,
        newLines: h.newLines,
        lines: [...h.lines],
      });
    }
  }
  const whole: StructuredPatch = { ...(patch ?? structuredPatch(`a/${path}`, `b/${path}`, "", "", undefined, undefined, { context })), hunks };
  // The hunks were copied out of each region's patch above; formatting reads them, changes nothing.
  return { diff: formatPatch(whole, FILE_HEADERS_ONLY), hunks };
}

/** A part of the window diffed on its own: character offsets in each text, and the line each starts at. */
interface Region {
  oldFrom: number;
  oldTo: number;
  newFrom: number;
  newTo: number;
  oldLine: number;
  newLine: number;
}

/** How far past a difference the lines are searched for where both texts agree again; beyond it, the rest is one region. */
const RESYNC_SEARCH_LINES = 64;

/**
 * The window cut into regions at runs of equal lines long enough (2 × context + 1) that no hunk
 * spans them: the diff of each region, with its line numbers shifted, is then the window's. A
 * difference ends where the texts agree again for such a run, found within RESYNC_SEARCH_LINES
 * (the nearest first); when none is, the rest of the window is one region, as before.
 */
function changedRegions(oldWindow: string, newWindow: string, context: number): Region[] {
  const whole: Region = { oldFrom: 0, oldTo: oldWindow.length, newFrom: 0, newTo: newWindow.length, oldLine: 0, newLine: 0 };
  if (context < 1) return [whole];
  const a = oldWindow.split("\n");
  const b = newWindow.split("\n");
  const run = 2 * context + 1;
  // The last piece of a split has no "\n" after it: it equals only another last piece.
  const same = (i: number, j: number): boolean => a[i] === b[j] && (i === a.length - 1) === (j === b.length - 1);
  // Equal for `run` lines from (i, j), or equal up to both ends together.
  const agree = (i: number, j: number): boolean => {
    for (let k = 0; k < run; k++) {
      if (i + k === a.length && j + k === b.length) return true;
      if (i + k >= a.length || j + k >= b.length || !same(i + k, j + k)) return false;
    }
    return true;
  };
  // Changed spans (line indices), nearby ones merged.
  const spans: { i0: number; i1: number; j0: number; j1: number }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && same(i, j)) {
      i++;
      j++;
      continue;
    }
    let resync: [number, number] | undefined;
    for (let step = 1; step <= RESYNC_SEARCH_LINES && !resync; step++) {
      for (let da = 0; da <= step; da++) {
        const db = step - da;
        if (i + da <= a.length && j + db <= b.length && agree(i + da, j + db)) {
          resync = [i + da, j + db];
          break;
        }
      }
    }
    if (!resync) return spans.length === 0 ? [whole] : [...toRegions(spans, a, b, context), rest(spans, a, b, context, whole)];
    const last = spans.at(-1);
    if (last && i - last.i1 < run) {
      last.i1 = resync[0];
      last.j1 = resync[1];
    } else spans.push({ i0: i, i1: resync[0], j0: j, j1: resync[1] });
    [i, j] = resync;
  }
  return spans.length === 0 ? [whole] : toRegions(spans, a, b, context);
}

/** Offsets of each line's start in lines split at "\n" (one past the end for the index after the last). */
function lineStarts(lines: readonly string[]): number[] {
  const starts = [0];
  for (const line of lines) starts.push(starts.at(-1)! + line.length + 1);
  return starts;
}

function toRegions(
  spans: readonly { i0: number; i1: number; j0: number; j1: number }[],
  a: readonly string[],
  b: readonly string[],
  context: number,
): Region[] {
  const oldStarts = lineStarts(a);
  const newStarts = lineStarts(b);
  // The last "line" of a split has no "\n" after it: its end is the text's end.
  const oldAt = (line: number) => Math.min(oldStarts[line]!, oldStarts.at(-1)! - 1);
  const newAt = (line: number) => Math.min(newStarts[line]!, newStarts.at(-1)! - 1);
  return spans.map((span) => {
    const before = Math.min(context, span.i0, span.j0);
    const after = Math.min(context, a.length - span.i1, b.length - span.j1);
    const oldLine = span.i0 - before;
    const newLine = span.j0 - before;
    return { oldFrom: oldAt(oldLine), oldTo: oldAt(span.i1 + after), newFrom: newAt(newLine), newTo: newAt(span.j1 + after), oldLine, newLine };
  });
}

/** From the end of the last span's region to the window's end: one region. */
function rest(
  spans: readonly { i0: number; i1: number; j0: number; j1: number }[],
  a: readonly string[],
  b: readonly string[],
  context: number,
  whole: Region,
): Region {
  const last = spans.at(-1)!;
  const after = Math.min(context, a.length - last.i1, b.length - last.j1);
  const end = toRegions([last], a, b, context)[0]!;
  return { ...whole, oldFrom: end.oldTo, newFrom: end.newTo, oldLine: last.i1 + after, newLine: last.j1 + after };
}
