// An edit's diff as the view draws it: hunks whose lines are already split and marked, so the
// webview never parses diff text. The host builds them once (diff-hunks.ts, with the `diff`
// library); this module holds only the shapes and what both sides derive from them, so the
// webview bundle needs no diff library.
//
// A hunk's lines are kept as the `diff` library gives them (structuredPatch, parsePatch): each
// starts with "+", "-" or " ", and "\ No newline at end of file" follows the line it is about.
// A saved edit holds exactly these, so a restored chat's cards reuse them as read from the file
// instead of building an object per line (a 10,000-message chat has thousands of edit lines).

export type DiffLineKind = "add" | "del" | "context";

/** A hunk's line as drawn. */
export interface DiffLine {
  kind: DiffLineKind;
  /** The line without its mark and its line ending. */
  text: string;
  /** The file ends after this line without a newline (unified diff's "\ No newline at end of file"). */
  noNewline?: true;
}

export interface DiffHunk {
  /**
   * 1-based first old line of the hunk and how many old lines it spans; with none (oldLines 0), the
   * line the new ones go before. The same for the new side. (The diff library's own convention.)
   */
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** "+added", "-removed", " context", and "\ …" after a line the file ends on without a newline. */
  lines: string[];
}

// Char codes: a long chat's cards read every line.
const PLUS = 43;
const MINUS = 45;
const SPACE = 32;
const BACKSLASH = 92;
const CR = 13;

/** The lines of a hunk as drawn. A trailing "\r" is a line ending, never part of the text; other lines are not diff lines. */
export function diffLines(hunk: DiffHunk): DiffLine[] {
  const out: DiffLine[] = [];
  for (const line of hunk.lines) {
    const first = line.charCodeAt(0);
    if (first === BACKSLASH) {
      const last = out[out.length - 1];
      if (last) last.noNewline = true;
      continue;
    }
    const end = line.charCodeAt(line.length - 1) === CR ? line.length - 1 : line.length;
    const text = end > 1 ? line.slice(1, end) : "";
    // An empty line is how some tools write a context " " once trailing spaces are trimmed.
    if (first === PLUS) out.push({ kind: "add", text });
    else if (first === MINUS) out.push({ kind: "del", text });
    else if (first === SPACE || end === 0) out.push({ kind: "context", text });
  }
  return out;
}

/** What an edit card shows of a change: its hunks, or for a secret file (.env*) only how many lines changed. */
export type StructuredDiff = { kind: "hunks"; hunks: DiffHunk[] } | { kind: "secret"; changedLines: number };

/** What the view and the transcript show instead of a secret file's diff. */
export function secretDiffSummary(changedLines: number): string {
  return `secret file: ${changedLines} line${changedLines === 1 ? "" : "s"} changed`;
}

/** "@@ -1,3 +1,4 @@" as unified diff writes it: an empty range names the line before it. */
export function hunkHeader(hunk: DiffHunk): string {
  const side = (start: number, lines: number) => `${lines === 0 ? start - 1 : start},${lines}`;
  return `@@ -${side(hunk.oldStart, hunk.oldLines)} +${side(hunk.newStart, hunk.newLines)} @@`;
}

const SIGN: Record<DiffLineKind, string> = { add: "+", del: "-", context: " " };

/** Unified diff text drawn back from hunks (a Markdown export), without file headers. */
export function unifiedDiffText(hunks: readonly DiffHunk[]): string {
  const out: string[] = [];
  for (const hunk of hunks) {
    out.push(hunkHeader(hunk));
    for (const line of diffLines(hunk)) {
      out.push(SIGN[line.kind] + line.text);
      if (line.noNewline) out.push("\\ No newline at end of file");
    }
  }
  return out.join("\n");
}
