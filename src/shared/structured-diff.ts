// An edit's diff as the view draws it: hunks of typed lines, so the webview never parses diff text.
// The host builds them once (diff-hunks.ts, with the `diff` library); this module holds only the
// shapes and what both sides derive from them, so the webview bundle needs no diff library.

export type DiffLineKind = "add" | "del" | "context";

export interface DiffLine {
  kind: DiffLineKind;
  /** The line without its line ending. */
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
  lines: DiffLine[];
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
    for (const line of hunk.lines) {
      out.push(SIGN[line.kind] + line.text);
      if (line.noNewline) out.push("\\ No newline at end of file");
    }
  }
  return out.join("\n");
}
