// Where an edit's oldText is in a file: exactly, or after forgiving the differences model output
// typically has (pi's edit tool is the reference: packages/coding-agent/src/core/tools/edit-diff.ts).
//
// Unlike pi, matching never rewrites the file in normalized form: the normalized text keeps, for
// each of its characters, the range of the original it came from, so a fuzzy match is mapped back
// to the original bytes and only that region is replaced. Every line outside it keeps its trailing
// spaces, its quotes, its line ending.

/** A transformed text and, per UTF-16 unit of it, the original range [start, end) it came from. */
export interface MappedText {
  readonly text: string;
  readonly start: Int32Array;
  readonly end: Int32Array;
}

/** How each piece of the original (a code point with its combining marks, or a CRLF) is rewritten. */
type PieceTransform = (piece: string) => string;

const COMBINING_MARK = /\p{M}/u;
/** Whitespace that is not a line break: what "trailing whitespace" at a line end means. */
const INLINE_WHITESPACE = /[^\S\r\n]/;

/** Curly and low single quotes, as models and word processors write them. */
const SINGLE_QUOTES = /[\u2018\u2019\u201A\u201B]/g;
const DOUBLE_QUOTES = /[\u201C\u201D\u201E\u201F]/g;
/** Hyphen, non-breaking hyphen, figure dash, en and em dash, horizontal bar, minus sign. */
const DASHES = /[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g;
/** No-break, en/em/thin/hair and similar spaces, narrow no-break, medium mathematical, ideographic. */
const SPECIAL_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

/** The fuzzy classes: NFKC, then quotes, dashes and special spaces to their ASCII forms. */
export const fuzzyPiece: PieceTransform = (piece) =>
  piece.normalize("NFKC").replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, '"').replace(DASHES, "-").replace(SPECIAL_SPACES, " ");

const exactPiece: PieceTransform = (piece) => piece;

/** Whitespace test per UTF-16 unit, without a regex for the ASCII ones (the common case). */
function isSpaceUnit(code: number, unit: string): boolean {
  if (code < 0x80) return code === 32 || (code >= 9 && code <= 13);
  return /\s/.test(unit);
}

/**
 * Rewrite `original` piece by piece, keeping where each output character came from. CRLF always
 * becomes "\n" (oldText written with "\n" matches a CRLF file). With `dropTrailingWhitespace`,
 * whitespace before a line break or the end is left out.
 *
 * Runs of ASCII (no "\r", no combining mark after them) are copied as slices with their positions
 * written straight into typed arrays: a string and three array entries per character made a 5 MB
 * file take about 9 s here, with the extension host frozen.
 */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the fast path and the general path of one mapping side by side; map-text.test.ts holds it equal to the reference
export function mapText(original: string, transform: PieceTransform, dropTrailingWhitespace: boolean, asciiUnchanged = true): MappedText {
  const length = original.length;
  let capacity = length + 16;
  let starts = new Int32Array(capacity);
  let ends = new Int32Array(capacity);
  const parts: string[] = [];
  let count = 0;
  const reserve = (extra: number) => {
    if (count + extra <= capacity) return;
    capacity = Math.max(capacity * 2, count + extra);
    const grownStarts = new Int32Array(capacity);
    const grownEnds = new Int32Array(capacity);
    grownStarts.set(starts.subarray(0, count));
    grownEnds.set(ends.subarray(0, count));
    starts = grownStarts;
    ends = grownEnds;
  };
  let i = 0;
  while (i < length) {
    if (asciiUnchanged) {
      let j = i;
      while (j < length) {
        const c = original.charCodeAt(j);
        if (c >= 0x80 || c === 13) break;
        j++;
      }
      // A combining mark after the run belongs to the run's last character: that one is a piece.
      if (j < length && j > i && original.charCodeAt(j) >= 0x300 && COMBINING_MARK.test(original[j] ?? "")) j--;
      if (j > i) {
        reserve(j - i);
        for (let k = i; k < j; k++) {
          starts[count] = k;
          ends[count] = k + 1;
          count++;
        }
        parts.push(original.slice(i, j));
        i = j;
        continue;
      }
    }
    const code = original.charCodeAt(i);
    if (code === 13 && original.charCodeAt(i + 1) === 10) {
      reserve(1);
      parts.push("\n");
      starts[count] = i;
      ends[count] = i + 2;
      count++;
      i += 2;
      continue;
    }
    const cp = original.codePointAt(i) ?? code;
    let pieceEnd = i + (cp > 0xffff ? 2 : 1);
    // A base character and the combining marks after it normalize together (e + U+0301 = é).
    while (pieceEnd < length && original.charCodeAt(pieceEnd) >= 0x300 && COMBINING_MARK.test(original[pieceEnd] ?? "")) pieceEnd++;
    const out = asciiUnchanged && code < 0x80 && pieceEnd === i + 1 ? original[i]! : transform(original.slice(i, pieceEnd));
    reserve(out.length);
    for (let k = 0; k < out.length; k++) {
      starts[count] = i;
      ends[count] = pieceEnd;
      count++;
    }
    parts.push(out);
    i = pieceEnd;
  }
  const text = parts.join("");
  if (dropTrailingWhitespace) {
    const kept = new Uint8Array(count);
    let atLineEnd = true;
    let keep = 0;
    for (let k = count - 1; k >= 0; k--) {
      const c = text.charCodeAt(k);
      if (c === 10) atLineEnd = true;
      else if (atLineEnd && isSpaceUnit(c, text[k]!)) continue;
      else atLineEnd = false;
      kept[k] = 1;
      keep++;
    }
    if (keep !== count) {
      const pieces: string[] = [];
      const start = new Int32Array(keep);
      const end = new Int32Array(keep);
      let n = 0;
      let runStart = -1;
      for (let k = 0; k <= count; k++) {
        if (k < count && kept[k] === 1) {
          if (runStart === -1) runStart = k;
          start[n] = starts[k]!;
          end[n] = ends[k]!;
          n++;
        } else if (runStart !== -1) {
          pieces.push(text.slice(runStart, k));
          runStart = -1;
        }
      }
      return { text: pieces.join(""), start, end };
    }
  }
  return { text, start: starts.slice(0, count), end: ends.slice(0, count) };
}

/** Every start of `needle` in `haystack`, overlapping ones included (each is a place the edit could go). */
export function occurrences(haystack: string, needle: string, limit = Number.POSITIVE_INFINITY): number[] {
  const out: number[] = [];
  if (needle.length === 0) return out;
  for (let i = haystack.indexOf(needle); i !== -1 && out.length < limit; i = haystack.indexOf(needle, i + 1)) out.push(i);
  return out;
}

/** The original range of a match at [at, at + length) of a mapped text. */
export function originalRange(mapped: MappedText, at: number, length: number): { start: number; end: number } {
  return { start: mapped.start[at] ?? 0, end: mapped.end[at + length - 1] ?? 0 };
}

/** The file's text in the forms matching needs, each computed once per file and only if needed. */
export class MatchableText {
  private exactMapped: MappedText | undefined;
  private fuzzyMapped: MappedText | undefined;
  constructor(readonly raw: string) {}

  get exact(): MappedText {
    return (this.exactMapped ??= mapText(this.raw, exactPiece, false));
  }

  get fuzzy(): MappedText {
    return (this.fuzzyMapped ??= mapText(this.raw, fuzzyPiece, true));
  }
}

export type MatchResult =
  | { readonly kind: "exact" | "fuzzy"; readonly start: number; readonly end: number }
  | { readonly kind: "none" }
  | { readonly kind: "ambiguous"; readonly count: number; readonly fuzzy: boolean };

/**
 * Find `oldText` in the file. An exact match (line endings aside) first; without one, the fuzzy
 * match. Uniqueness is judged after normalizing, as pi does: an exact match whose normalized form
 * occurs more than once is ambiguous too (the model may have meant the other one).
 */
export function findMatch(file: MatchableText, oldText: string): MatchResult {
  const exactNeedle = oldText.replace(/\r\n/g, "\n");
  const exact = occurrences(file.exact.text, exactNeedle, 2);
  if (exact.length > 1) return { kind: "ambiguous", count: occurrences(file.exact.text, exactNeedle).length, fuzzy: false };
  const fuzzyNeedle = mapText(oldText, fuzzyPiece, true).text;
  const fuzzy = fuzzyNeedle.length === 0 ? [] : occurrences(file.fuzzy.text, fuzzyNeedle, 2);
  if (fuzzy.length > 1) return { kind: "ambiguous", count: occurrences(file.fuzzy.text, fuzzyNeedle).length, fuzzy: true };
  if (exact.length === 1) {
    const at = exact[0]!;
    return { kind: "exact", ...originalRange(file.exact, at, exactNeedle.length) };
  }
  if (fuzzy.length === 1) {
    const at = fuzzy[0]!;
    const range = originalRange(file.fuzzy, at, fuzzyNeedle.length);
    // Matched up to a line end: the trailing whitespace normalizing dropped belongs to the match,
    // so the replaced line does not keep stray spaces after the new text.
    const next = file.fuzzy.text[at + fuzzyNeedle.length];
    let end = range.end;
    if (next === undefined || next === "\n") while (end < file.raw.length && INLINE_WHITESPACE.test(file.raw[end]!)) end++;
    return { kind: "fuzzy", start: range.start, end };
  }
  return { kind: "none" };
}

// ---- explaining a miss ----

/** The differences a miss is tested for, in order, each with what to tell the model. */
const LOOSE_CHECKS: readonly { readonly why: string; readonly transform: PieceTransform; readonly dropWhitespace: boolean }[] = [
  {
    why: "the same text if whitespace is ignored (indentation, spaces or line breaks differ)",
    transform: (p) => fuzzyPiece(p).replace(/\s/g, ""),
    dropWhitespace: true,
  },
  {
    why: "the same text except for the kind of quotes (' \" `)",
    transform: (p) => fuzzyPiece(p).replace(/['"`]/g, '"'),
    dropWhitespace: true,
  },
  {
    why: "the same text if whitespace and the kind of quotes are ignored",
    transform: (p) => fuzzyPiece(p).replace(/\s/g, "").replace(/['"`]/g, '"'),
    dropWhitespace: true,
  },
];

/** Lines of context quoted in a hint, and the longest line shown in full. */
const HINT_MAX_LINES = 12;
const HINT_MAX_LINE_CHARS = 200;
/** Similar lines suggested when nothing near-identical exists, and how similar they must be. */
const SIMILAR_LINES = 3;
const SIMILARITY_THRESHOLD = 0.5;
/** Above this many lines the similarity scan is skipped: a hint must not cost more than the edit. */
const SIMILARITY_MAX_FILE_LINES = 200_000;

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** 1-based line of an offset. */
function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

function shorten(line: string): string {
  const clean = line.replace(/\r$/, "");
  return clean.length > HINT_MAX_LINE_CHARS ? `${clean.slice(0, HINT_MAX_LINE_CHARS)}…` : clean;
}

function quoteLines(lines: readonly string[], first: number, last: number): string {
  const shown: string[] = [];
  for (let n = first; n <= Math.min(last, first + HINT_MAX_LINES - 1); n++) shown.push(`${n}: ${shorten(lines[n - 1] ?? "")}`);
  if (last > first + HINT_MAX_LINES - 1) shown.push(`… (${last - first - HINT_MAX_LINES + 1} more lines)`);
  return shown.join("\n");
}

function bigrams(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i < text.length - 1; i++) {
    const pair = text.slice(i, i + 2);
    out.set(pair, (out.get(pair) ?? 0) + 1);
  }
  return out;
}

/**
 * How much of a wanted line (as character pairs) a candidate line holds, lowered when the candidate
 * is much longer: 1 for the same text, near 0 for unrelated text.
 */
function similarity(a: Map<string, number>, aSize: number, b: string): number {
  const bSize = b.length - 1;
  if (aSize <= 0 || bSize <= 0) return 0;
  let shared = 0;
  const seen = new Map<string, number>();
  for (let i = 0; i < bSize; i++) {
    const pair = b.slice(i, i + 2);
    const used = seen.get(pair) ?? 0;
    if (used < (a.get(pair) ?? 0)) {
      shared++;
      seen.set(pair, used + 1);
    }
  }
  return (shared / aSize) * Math.sqrt(Math.min(1, (2 * aSize) / bSize));
}

/**
 * A few sentences for the model when `oldText` is nowhere in the file: where the file has the same
 * text but for whitespace or quotes, or else its most similar lines, with line numbers.
 */
export function explainMiss(raw: string, oldText: string): string {
  const lines = raw.split("\n");
  const starts = lineStarts(raw);
  for (const check of LOOSE_CHECKS) {
    const needle = mapText(oldText, check.transform, check.dropWhitespace, false).text;
    if (needle.length === 0) continue;
    const mapped = mapText(raw, check.transform, check.dropWhitespace, false);
    const at = mapped.text.indexOf(needle);
    if (at === -1) continue;
    const { start, end } = originalRange(mapped, at, needle.length);
    const first = lineAt(starts, start);
    const last = lineAt(starts, Math.max(start, end - 1));
    const where = first === last ? `Line ${first}` : `Lines ${first}-${last}`;
    return `${where} of the file ${first === last ? "has" : "have"} ${check.why}:\n${quoteLines(lines, first, last)}\nCopy oldText from the file exactly.`;
  }
  if (lines.length > SIMILARITY_MAX_FILE_LINES) return "Read the file again and copy oldText from it exactly.";
  const wanted = [
    ...new Set(
      oldText
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l.length >= 3),
    ),
  ].slice(0, 10);
  if (wanted.length === 0) return "Read the file again and copy oldText from it exactly.";
  const grams = wanted.map((w) => ({ grams: bigrams(w), size: w.length - 1 }));
  const scored: { line: number; score: number }[] = [];
  for (let n = 0; n < lines.length; n++) {
    const candidate = (lines[n] ?? "").trim();
    if (candidate.length < 2 || candidate.length > 1000) continue;
    let best = 0;
    for (const g of grams) best = Math.max(best, similarity(g.grams, g.size, candidate));
    if (best >= SIMILARITY_THRESHOLD) scored.push({ line: n + 1, score: best });
  }
  scored.sort((a, b) => b.score - a.score || a.line - b.line);
  const top = scored.slice(0, SIMILAR_LINES).sort((a, b) => a.line - b.line);
  if (top.length === 0) return "No line of the file resembles it; read the file again (is it the right file?).";
  return `The most similar lines of the file:\n${top.map((t) => `${t.line}: ${shorten(lines[t.line - 1] ?? "")}`).join("\n")}\nRead the file around them and copy oldText from it exactly.`;
}
