// An edit's hunks drawn as lines: numbered by the new file (removed lines by the old), added and
// removed lines marked for screen readers too, long diffs cut with a "Show more" button. The host
// sends the hunks already built (src/shared/diff-hunks.ts): nothing here reads diff text. An edit
// waiting for approval puts its per-hunk Accept / Reject in each hunk's header (hunk-review.tsx).
import type { ComponentChild } from "preact";
import { useMemo, useState } from "preact/hooks";
import { diffLines, hunkHeader, type DiffHunk } from "../../src/shared/structured-diff";

const DIFF_LINES_SHOWN = 400;

/** `hunk`: the index of the hunk the line belongs to. */
type DrawnLine = { kind: "add" | "del" | "ctx" | "hunk" | "meta"; text: string; line?: number; hunk: number };

/** The lines to draw: a header per hunk, added/context lines numbered by the new file, removed ones by the old. */
function drawnLines(hunks: readonly DiffHunk[]): DrawnLine[] {
  const out: DrawnLine[] = [];
  hunks.forEach((hunk, h) => {
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    out.push({ kind: "hunk", text: hunkHeader(hunk), hunk: h });
    for (const l of diffLines(hunk)) {
      if (l.kind === "add") out.push({ kind: "add", text: l.text, line: newLine++, hunk: h });
      else if (l.kind === "del") out.push({ kind: "del", text: l.text, line: oldLine++, hunk: h });
      else {
        out.push({ kind: "ctx", text: l.text, line: newLine++, hunk: h });
        oldLine++;
      }
      if (l.noNewline) out.push({ kind: "meta", text: "\\ No newline at end of file", hunk: h });
    }
  });
  return out;
}

const SIGN: Record<DrawnLine["kind"], string> = { add: "+", del: "-", ctx: " ", hunk: "", meta: "" };

export interface DiffViewProps {
  hunks: readonly DiffHunk[];
  /** Hunks drawn as rejected (struck through): not written, or not to be. */
  rejected?: ReadonlySet<number>;
  /** What goes at the end of each hunk's header line (an edit waiting: its Accept / Reject). */
  hunkControls?: (index: number) => ComponentChild;
}

export function DiffView({ hunks, rejected, hunkControls }: DiffViewProps) {
  const [all, setAll] = useState(false);
  const lines = useMemo(() => drawnLines(hunks), [hunks]);
  const shown = all ? lines : lines.slice(0, DIFF_LINES_SHOWN);
  const added = lines.filter((l) => l.kind === "add").length;
  const removed = lines.filter((l) => l.kind === "del").length;
  return (
    // biome-ignore lint/a11y/useSemanticElements: the lines of one diff, named by its counts; not a form, so no fieldset.
    <div class="diff" role="group" aria-label={`Diff: ${added} lines added, ${removed} removed`}>
      <div class="diff-lines">
        {shown.map((l, i) => (
          <div key={i} class={`diff-line diff-${l.kind}${rejected?.has(l.hunk) ? " diff-rejected" : ""}`} data-hunk={l.kind === "hunk" ? l.hunk : undefined}>
            <span class="diff-num" aria-hidden="true">
              {l.line ?? ""}
            </span>
            <span class="diff-sign" aria-hidden="true">
              {SIGN[l.kind]}
            </span>
            <span class="diff-text">
              {l.kind === "add" ? <span class="sr-only">added: </span> : l.kind === "del" ? <span class="sr-only">removed: </span> : null}
              {l.text}
            </span>
            {l.kind === "hunk" && hunkControls?.(l.hunk)}
          </div>
        ))}
      </div>
      {shown.length < lines.length && (
        <button type="button" class="text-button diff-more" onClick={() => setAll(true)}>
          Show {lines.length - shown.length} more lines
        </button>
      )}
    </div>
  );
}
