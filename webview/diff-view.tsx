// A unified diff drawn as lines: numbered by the new file (removed lines by the old), added and
// removed lines marked for screen readers too, long diffs cut with a "Show more" button.
import { useState } from "preact/hooks";

const DIFF_LINES_SHOWN = 400;

type DiffLine = { kind: "add" | "del" | "ctx" | "hunk" | "meta"; text: string; line?: number };

/** Parses a unified diff into display lines, numbering added/context lines by the new file and removed ones by the old. */
export function parseUnifiedDiff(diff: string): DiffLine[] {
  const out: DiffLine[] = [];
  let oldLine = 0;
  let newLine = 0;
  let inHunk = false;
  for (const text of diff.replace(/\n$/, "").split("\n")) {
    const hunk = text.match(/^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/);
    if (hunk) {
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      inHunk = true;
      out.push({ kind: "hunk", text });
    } else if (!inHunk || text.startsWith("\\")) {
      // File headers (Index:, ===, ---, +++) carry nothing the card does not already say.
      if (!inHunk && /^(Index: |={3,}|--- |\+\+\+ |diff )/.test(text)) continue;
      out.push({ kind: "meta", text });
    } else if (text.startsWith("+")) {
      out.push({ kind: "add", text: text.slice(1), line: newLine++ });
    } else if (text.startsWith("-")) {
      out.push({ kind: "del", text: text.slice(1), line: oldLine++ });
    } else {
      out.push({ kind: "ctx", text: text.slice(1), line: newLine++ });
      oldLine++;
    }
  }
  return out;
}

const SIGN: Record<DiffLine["kind"], string> = { add: "+", del: "-", ctx: " ", hunk: "", meta: "" };

export function DiffView({ diff }: { diff: string }) {
  const [all, setAll] = useState(false);
  const lines = parseUnifiedDiff(diff);
  const shown = all ? lines : lines.slice(0, DIFF_LINES_SHOWN);
  const added = lines.filter((l) => l.kind === "add").length;
  const removed = lines.filter((l) => l.kind === "del").length;
  return (
    // biome-ignore lint/a11y/useSemanticElements: the lines of one diff, named by its counts; not a form, so no fieldset.
    <div class="diff" role="group" aria-label={`Diff: ${added} lines added, ${removed} removed`}>
      <div class="diff-lines">
        {shown.map((l, i) => (
          <div key={i} class={`diff-line diff-${l.kind}`}>
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
