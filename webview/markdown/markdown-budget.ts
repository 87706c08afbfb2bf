// What `marked` may be given. Model output is untrusted, and marked is not built for hostile
// input: 2,000 × ">" or 3,000 × "* " overflow its stack (the view went blank, on every start,
// because the message is saved), and some short texts take seconds — "a_" × 20,000 (40 KB) was
// a minute — because emphasis, links and HTML are matched by scanning forward from every
// delimiter. Text over any budget is shown as plain text with a note, never parsed.
//
// Two steps. First one pass over the lines, linear in the text's length (`checkMarkdownBudget`):
// its length, how deep quotes and lists nest (marked's block lexer recurses per level), table
// cells. Then, after marked's block lexer has cut the text into what its inline lexer will see
// one at a time (paragraphs, headings, list item text, table cells: `checkInlineWork`), the work
// the inline lexer would do: it grows with the delimiters of a piece times the piece's length.
// Guessing those pieces from lines was bypassed (a line with `|` counted as a table row though no
// table followed: 93 KB of emphasis over such lines parsed for 8 s, on every restore); the block
// lexer's own pieces cannot be. A real answer stays far inside every limit (the browser tests
// render realistic answers as markdown).

/** Longest text parsed as markdown. Beyond it the answer is shown as plain text. */
export const MAX_MARKDOWN_CHARS = 100_000;
/** Containers (quotes, list items) opened on one line, or indentation columns / 4. */
export const MAX_NESTING = 16;
/** Emphasis, link, code and HTML delimiters in one paragraph (the work grows with their square). */
export const MAX_DELIMITERS_PER_PARAGRAPH = 1_000;
/**
 * Delimiters × characters, summed over the pieces marked inline-lexes: what it costs. Measured in
 * V8 (Node 20) at 2–90 ns a unit for the worst delimiters; a realistic answer of 95 KB (code,
 * lists, tables, links) comes to about 360,000, and the pieces that took seconds to millions each.
 */
export const MAX_INLINE_WORK = 1_000_000;
/** Table cells in one row. */
export const MAX_CELLS_PER_ROW = 100;

export type BudgetVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const OK: BudgetVerdict = { ok: true };
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** `>` and list markers at the start of a line, each with its spaces. */
const CONTAINER = /^ {0,3}(?:>|[*+-](?=\s|$)|\d{1,9}[.)](?=\s|$))[ \t]?/;

function leadingColumns(line: string): number {
  let columns = 0;
  for (const ch of line) {
    if (ch === " ") columns += 1;
    else if (ch === "\t") columns += 4 - (columns % 4);
    else break;
  }
  return columns;
}

/** Containers opened at the start of `line` (">" and list markers), plus its indentation in steps of 4. */
function nestingOf(line: string): number {
  let depth = 0;
  let rest = line;
  for (;;) {
    const match = CONTAINER.exec(rest);
    if (!match || match[0].length === 0) break;
    depth++;
    rest = rest.slice(match[0].length);
    if (depth > MAX_NESTING) return depth;
  }
  return depth + Math.floor(leadingColumns(rest) / 4);
}

/** Where marked's inline lexer may start a scan forward: emphasis, strikethrough, code, links, HTML, entities. */
const DELIMITERS = /[*_~`[\]<>!&]/g;

/** Whether `text` may be given to marked's block lexer, and if not, why (said to the user in plain words). */
export function checkMarkdownBudget(text: string): BudgetVerdict {
  if (text.length > MAX_MARKDOWN_CHARS) {
    return { ok: false, reason: `it is longer than ${MAX_MARKDOWN_CHARS.toLocaleString("en-US")} characters` };
  }
  let fence: string | undefined;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;

    const fenceMatch = FENCE.exec(line);
    if (fence !== undefined) {
      // Inside a fenced code block nothing is parsed: only its closing fence matters.
      if (fenceMatch && fenceMatch[1]![0] === fence[0] && fenceMatch[1]!.length >= fence.length) fence = undefined;
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1];
      continue;
    }
    if (line.trim() === "") continue;
    if (nestingOf(line) > MAX_NESTING) return { ok: false, reason: `it nests quotes, lists or indentation more than ${MAX_NESTING} levels deep` };
    let pipes = 0;
    for (let i = line.indexOf("|"); i !== -1; i = line.indexOf("|", i + 1)) pipes++;
    if (pipes > MAX_CELLS_PER_ROW) return { ok: false, reason: `a table row has more than ${MAX_CELLS_PER_ROW} cells` };
  }
  return OK;
}

// A regex, not charCodeAt: marked builds a paragraph by appending lines, and indexing such a
// string character by character was 100 times slower.
const delimitersIn = (piece: string): number => piece.match(DELIMITERS)?.length ?? 0;

/** The inline lexer's work on one piece, in the units of MAX_INLINE_WORK: its delimiters × its length. */
export function inlineWorkOf(piece: string): number {
  return delimitersIn(piece) * piece.length;
}

/**
 * Whether marked's inline lexer may be run over `pieces` (the sources its block lexer queued),
 * and if not, why. Linear in their length.
 */
export function checkInlineWork(pieces: readonly string[]): BudgetVerdict {
  let work = 0;
  for (const piece of pieces) {
    const delimiters = delimitersIn(piece);
    if (delimiters > MAX_DELIMITERS_PER_PARAGRAPH) {
      return { ok: false, reason: `a paragraph has more than ${MAX_DELIMITERS_PER_PARAGRAPH.toLocaleString("en-US")} formatting characters` };
    }
    work += delimiters * piece.length;
    if (work > MAX_INLINE_WORK) return { ok: false, reason: "it has more formatting than can be laid out quickly" };
  }
  return OK;
}
