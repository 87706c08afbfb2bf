// Fuzzy matching of workspace paths for the composer's `@` list, in the spirit of VS Code's quick
// open: the query's characters in order, anywhere in the path, scored higher at the start of a
// path segment (`srvcfg` → `server/config.ts`), at camel humps (`fiFi` → `findFiles.ts`), in a
// run, and in the file name. Pure and allocation-light: the host runs it on every keystroke over
// up to MAX_WALK_ENTRIES paths, and P18 holds it to 100 ms at 100,000.

/** How many results a query returns: the list shows a screenful, the rest is one keystroke away. */
export const MAX_FUZZY_RESULTS = 50;

export interface FuzzyMatch {
  /** Index of the candidate in the list searched. */
  readonly index: number;
  readonly score: number;
  /** Positions of the matched characters in the candidate, ascending (for highlighting). */
  readonly positions: number[];
}

// Bonuses, on the scale of one matched character (1).
const SEGMENT_START = 12; // after "/" or at the start
const WORD_START = 8; // after "_", "-", ".", " "
const CAMEL_HUMP = 7; // an upper-case letter after a lower-case one, a digit after a letter
const CONSECUTIVE = 6; // the character right after the previous match
const IN_FILE_NAME = 1; // inside the last segment
const GAP = 1; // per candidate character skipped between two matches (capped)
const MAX_GAP_PENALTY = 6;

function lower(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code;
}

function isUpper(code: number): boolean {
  return code >= 65 && code <= 90;
}

function isLowerOrDigit(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 48 && code <= 57);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** The bonus for a match at position `j` of `text`, from the character before it. */
function boundaryBonus(text: string, j: number): number {
  if (j === 0) return SEGMENT_START;
  const before = text.charCodeAt(j - 1);
  if (before === 47 /* / */ || before === 92 /* \ */) return SEGMENT_START;
  if (before === 95 /* _ */ || before === 45 /* - */ || before === 46 /* . */ || before === 32 /* space */) return WORD_START;
  const here = text.charCodeAt(j);
  if (isUpper(here) && isLowerOrDigit(before)) return CAMEL_HUMP;
  if (isDigit(here) && !isDigit(before)) return CAMEL_HUMP;
  return 0;
}

/** A query ready to match: lower-cased once (a keystroke matches it against every path). */
export interface FuzzyQuery {
  readonly codes: Uint16Array;
  readonly length: number;
}

export function prepareQuery(query: string): FuzzyQuery {
  // Spaces do not separate anything in a path query: VS Code ignores them too.
  const q = query.replace(/\s+/g, "");
  const codes = new Uint16Array(q.length);
  for (let i = 0; i < q.length; i++) codes[i] = lower(q.charCodeAt(i));
  return { codes, length: q.length };
}

/** Whether every query character occurs in `text` in order (case-insensitive): the cheap filter. */
export function isSubsequence(query: FuzzyQuery, text: string): boolean {
  let i = 0;
  const n = query.length;
  if (n === 0) return true;
  for (let j = 0; j < text.length; j++) {
    if (lower(text.charCodeAt(j)) === query.codes[i] && ++i === n) return true;
  }
  return false;
}

// Scratch rows of the scoring table, reused between calls (paths are short; grown when needed).
let rowBest = new Float64Array(256);
let rowEnd = new Float64Array(256);
let trace = new Int32Array(256 * 8);

/**
 * The best score of `query` in `text` and where it matched, or undefined when it does not match.
 * A small dynamic programme over (query character, text position): `end[i][j]` is the best score
 * with query character i matched at j; a match right after the previous one earns CONSECUTIVE,
 * a gap costs GAP per skipped character.
 */
export function fuzzyScore(query: FuzzyQuery, text: string): { score: number; positions: number[] } | undefined {
  if (query.length === 0) return { score: 0, positions: [] };
  if (query.length > text.length || !isSubsequence(query, text)) return undefined;
  return score(query, text, true);
}

/** The table itself, for a text known to hold the query; positions only when asked (the top few). */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the matcher's dynamic program in one loop nest, on the @ list's hot path (bench P18)
function score(query: FuzzyQuery, text: string, wantPositions: boolean): { score: number; positions: number[] } | undefined {
  const m = query.length;
  const n = text.length;
  if (rowBest.length < n + 1) {
    rowBest = new Float64Array(n + 1);
    rowEnd = new Float64Array(n + 1);
  }
  if (trace.length < m * n) trace = new Int32Array(m * n);
  const nameStart = text.lastIndexOf("/") + 1;
  const NONE = Number.NEGATIVE_INFINITY;
  // prevEnd[j]: best score with the previous query character matched exactly at j.
  let prevEnd = rowEnd;
  let curEnd = rowBest;
  for (let j = 0; j < n; j++) prevEnd[j] = NONE;
  for (let i = 0; i < m; i++) {
    const code = query.codes[i];
    // Over the earlier positions k < j - 1 (a gap): the penalty min(MAX, GAP·d) makes the best
    // predecessor max(runA − GAP·(j − 1), runB − MAX), with runA = max(prevEnd[k] + GAP·k) and
    // runB = max(prevEnd[k]): two running maxima, so a row costs O(n).
    let runA = NONE;
    let runAAt = -1;
    let runB = NONE;
    let runBAt = -1;
    for (let j = 0; j < n; j++) {
      curEnd[j] = NONE;
      if (i > 0 && j >= 2) {
        const k = j - 2;
        const at = prevEnd[k]!;
        if (at > NONE) {
          if (at + GAP * k > runA) {
            runA = at + GAP * k;
            runAAt = k;
          }
          if (at > runB) {
            runB = at;
            runBAt = k;
          }
        }
      }
      if (lower(text.charCodeAt(j)) !== code) continue;
      const bonus = 1 + boundaryBonus(text, j) + (j >= nameStart ? IN_FILE_NAME : 0);
      if (i === 0) {
        // A first match late in the path costs a little: `cfg` prefers `config.ts` to `a/b/config.ts`.
        curEnd[j] = bonus - Math.min(MAX_GAP_PENALTY, j * 0.1);
        continue;
      }
      let best = NONE;
      let from = -1;
      if (j > 0 && prevEnd[j - 1]! > NONE) {
        best = prevEnd[j - 1]! + bonus + CONSECUTIVE;
        from = j - 1;
      }
      if (runAAt >= 0) {
        const viaA = runA - GAP * (j - 1) + bonus;
        if (viaA > best) {
          best = viaA;
          from = runAAt;
        }
      }
      if (runBAt >= 0) {
        const viaB = runB - MAX_GAP_PENALTY + bonus;
        if (viaB > best) {
          best = viaB;
          from = runBAt;
        }
      }
      curEnd[j] = best;
      trace[i * n + j] = from;
    }
    const swap = prevEnd;
    prevEnd = curEnd;
    curEnd = swap;
  }
  let best = NONE;
  let at = -1;
  for (let j = 0; j < n; j++) {
    if (prevEnd[j]! > best) {
      best = prevEnd[j]!;
      at = j;
    }
  }
  const score = best;
  if (at < 0 || score === NONE) return undefined;
  if (!wantPositions) return { score, positions: [] };
  const positions = new Array<number>(m);
  for (let i = m - 1; i >= 0; i--) {
    positions[i] = at;
    if (i > 0) at = trace[i * n + at]!;
  }
  return { score, positions };
}

/**
 * The best `limit` candidates for `query`, best first; ties go to the shorter, then the
 * alphabetically first path. An empty query keeps the list's order (the caller's choice).
 * `within`: only these candidate indices (the matches of a shorter query this one extends: a
 * keystroke only narrows); `matched` receives every index that matched, for the next keystroke.
 */
export function fuzzyFilter(
  query: string,
  candidates: readonly string[],
  limit = MAX_FUZZY_RESULTS,
  options: { within?: ArrayLike<number>; matched?: number[] } = {},
): FuzzyMatch[] {
  const prepared = prepareQuery(query);
  const top: { index: number; score: number }[] = [];
  const count = options.within ? options.within.length : candidates.length;
  const matched = options.matched;
  for (let k = 0; k < count; k++) {
    const index = options.within ? options.within[k]! : k;
    const text = candidates[index]!;
    if (prepared.length > text.length || !isSubsequence(prepared, text)) continue;
    matched?.push(index);
    if (prepared.length === 0) {
      if (top.length < limit) top.push({ index, score: 0 });
      continue;
    }
    const found = score(prepared, text, false);
    if (!found) continue;
    if (top.length === limit && !better(found.score, text, top[limit - 1]!, candidates)) continue;
    // Insert in order (limit is small): the worst drops off the end.
    let at = top.length;
    while (at > 0 && better(found.score, text, top[at - 1]!, candidates)) at--;
    top.splice(at, 0, { index, score: found.score });
    if (top.length > limit) top.pop();
  }
  // Positions only for what is shown.
  return top.map((t) => ({
    index: t.index,
    score: t.score,
    positions: prepared.length === 0 ? [] : (score(prepared, candidates[t.index]!, true)?.positions ?? []),
  }));
}

function better(score: number, text: string, than: { index: number; score: number }, candidates: readonly string[]): boolean {
  if (score !== than.score) return score > than.score;
  const other = candidates[than.index]!;
  if (text.length !== other.length) return text.length < other.length;
  return text < other;
}
