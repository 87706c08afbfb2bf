// What `marked` may be given. Model output is untrusted, and marked is not built for hostile
// input: 2,000 × ">" or 3,000 × "* " overflow its stack (the view went blank, on every start,
// because the message is saved), and some short texts take seconds — "a_" × 20,000 (40 KB) was
// a minute — because emphasis, links and HTML are matched by scanning forward from every
// delimiter. Text over any budget is shown as plain text with a note, never parsed.
//
// The checks are one pass over the text, linear in its length, and deliberately rough: a real
// answer stays far inside every limit (the browser tests render realistic answers as markdown).

/** Longest text parsed as markdown. Beyond it the answer is shown as plain text. */
export const MAX_MARKDOWN_CHARS = 100_000;
/** Containers (quotes, list items) opened on one line, or indentation columns / 4. */
export const MAX_NESTING = 16;
/** Emphasis, link, code and HTML delimiters in one paragraph (the work grows with their square). */
export const MAX_DELIMITERS_PER_PARAGRAPH = 1_000;
/** Table cells in one row. */
export const MAX_CELLS_PER_ROW = 100;

export type BudgetVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const OK: BudgetVerdict = { ok: true };
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** `>` and list markers at the start of a line, each with its spaces. */
const CONTAINER = /^ {0,3}(?:>|[*+-](?=\s|$)|\d{1,9}[.)](?=\s|$))[ \t]?/;

const OWN_INLINE_CONTEXT = /^\s*(?:[*+-]|\d{1,9}[.)])\s|^ {0,3}#{1,6}\s|\|/;

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

function isDelimiter(code: number): boolean {
  // * _ ~ ` [ ] < > ! &
  return code === 42 || code === 95 || code === 126 || code === 96 || code === 91 || code === 93 || code === 60 || code === 62 || code === 33 || code === 38;
}

/** Whether `text` may be given to marked, and if not, why (said to the user in plain words). */
export function checkMarkdownBudget(text: string): BudgetVerdict {
  if (text.length > MAX_MARKDOWN_CHARS) {
    return { ok: false, reason: `it is longer than ${MAX_MARKDOWN_CHARS.toLocaleString("en-US")} characters` };
  }
  let fence: string | undefined;
  let delimiters = 0;
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
      delimiters = 0;
      continue;
    }
    if (line.trim() === "") {
      delimiters = 0; // a blank line ends the paragraph
      continue;
    }
    // A list item, a heading or a table row is inline-parsed on its own: its delimiters start afresh.
    if (OWN_INLINE_CONTEXT.test(line)) delimiters = 0;
    if (nestingOf(line) > MAX_NESTING) return { ok: false, reason: `it nests quotes, lists or indentation more than ${MAX_NESTING} levels deep` };
    let pipes = 0;
    for (let i = 0; i < line.length; i++) {
      const code = line.charCodeAt(i);
      if (code === 124) pipes++;
      else if (isDelimiter(code)) delimiters++;
    }
    if (pipes > MAX_CELLS_PER_ROW) return { ok: false, reason: `a table row has more than ${MAX_CELLS_PER_ROW} cells` };
    if (delimiters > MAX_DELIMITERS_PER_PARAGRAPH) {
      return { ok: false, reason: `a paragraph has more than ${MAX_DELIMITERS_PER_PARAGRAPH.toLocaleString("en-US")} formatting characters` };
    }
  }
  return OK;
}
