// P25 hunk review (issue 44): opening the review of an edit of a 5,000-line file with 200 hunks ÷
// with 2 hunks. Opening is the host computing the hunks (editDiff over the changed window, then
// hunksFromPatch: what the edit gate sends) plus the view drawing the card in real Chromium with
// the built bundle (the browser tests' page, test/browser/harness.ts): from the approval request's
// message reaching the page (posted in the page, the clock read just before) to the card holding its drawn
// lines (the first 400 lines: the view cuts a long diff behind *Show more*) and its Allow, with the
// layout done (the DOM observed, then a forced layout); beside it, *Show more* until every hunk's
// controls are drawn. Each sample is a fresh
// page that first draws a 2-hunk review of another edit (the bundle's code warm); sides alternate.
import { editDiff } from "../../src/core/tools/edit-diff";
import { hunksFromPatch, withStructuredDiff } from "../../src/shared/diff-hunks";
import type { StructuredDiff } from "../../src/shared/structured-diff";
import { ChatPage, shared } from "../../test/browser/harness";
import { Script, toolCall } from "../../test/browser/script";
import { summarize, type Summary } from "../lib/stats";

export const P25_LINES = 5_000;
export const P25_GOAL_RATIO = 2;
export const P25_GOAL_MS = 300;
/** The diff view's first cut (webview/cards/diff-view.tsx): more behind *Show more*. */
const DIFF_LINES_SHOWN = 400;

export interface P25Side {
  hunks: number;
  hostMs: Summary;
  viewMs: Summary;
  totalMs: Summary;
  /** *Show more* on a cut card: until every hunk's controls are drawn. */
  showAllMs?: Summary;
}

export interface P25Result {
  many: P25Side;
  few: P25Side;
  ratio: Summary;
  lines: number;
}

const FILE = Array.from({ length: P25_LINES }, (_, i) => `export const value${i} = ${i}; // line ${i + 1}`);

/** The file with `count` lines changed, evenly spread (far enough apart to be separate hunks). */
function edited(count: number): string {
  const step = Math.floor(P25_LINES / count);
  const changed = new Set(Array.from({ length: count }, (_, k) => k * step + Math.floor(step / 2)));
  return FILE.map((line, i) => (changed.has(i) ? `${line} // changed` : line)).join("\n");
}

function hostHunks(oldText: string, newText: string): { diff: StructuredDiff; ms: number } {
  const t = performance.now();
  const hunks = hunksFromPatch(editDiff("src/big.ts", oldText, newText, 3).hunks);
  return { diff: { kind: "hunks", hunks }, ms: performance.now() - t };
}

/**
 * The view's milliseconds from the request's message to the drawn card of `diff`, in a fresh page;
 * `allMs`: then *Show more* to every hunk's controls drawn, when the card was cut.
 */
async function viewMs(diff: StructuredDiff, warm: StructuredDiff): Promise<{ openMs: number; allMs?: number }> {
  const chat = await ChatPage.open();
  try {
    const request = (id: string, d: StructuredDiff) =>
      new Script()
        .start()
        .user("Change the values.")
        .assistant([toolCall(id, "edit_file", { path: "src/big.ts" })])
        .toolStart(id, "edit_file", { path: "src/big.ts" })
        .raw({ type: "approval/request", toolCallId: id, toolName: "edit_file", path: "src/big.ts", diff: d })
        .take();
    await chat.snapshot();
    await chat.events(request("warm", warm));
    const events = request("measured", diff);
    await chat.events(events.slice(0, -1));
    const hunks = diff.kind === "hunks" ? diff.hunks : [];
    // What the card draws at first: a header per hunk and its lines, cut at the view's 400 lines.
    const drawn = Math.min(
      DIFF_LINES_SHOWN,
      hunks.reduce((n, h) => n + 1 + h.lines.length, 0),
    );
    // The request posted in the page itself, the clock read just before: no harness round trip in it.
    chat.seq += 1;
    const message: unknown = JSON.parse(JSON.stringify({ type: "chat/event", v: 1, seq: chat.seq, event: withStructuredDiff(events.at(-1)!) }));
    const { start, end } = await chat.page.evaluate(
      ({ n, message }: { n: number; message: unknown }) =>
        new Promise<{ start: number; end: number }>((resolve, reject) => {
          if (document.querySelector('[data-item="measured"] button[data-decision="allow"]')) {
            reject(new Error("P25: the card was drawn before its request"));
            return;
          }
          let start = 0;
          const observer = new MutationObserver(() => {
            const card = document.querySelector('[data-item="measured"]');
            if (!card?.querySelector('button[data-decision="allow"]') || card.querySelectorAll(".diff-line").length < n) return;
            void document.body.offsetHeight; // the layout of the drawn card
            observer.disconnect();
            resolve({ start, end: performance.now() });
          });
          observer.observe(document.body, { childList: true, subtree: true });
          start = performance.now();
          window.postMessage(message, "*");
        }),
      { n: drawn, message },
    );
    await chat.settle();
    // Show more: every hunk with its controls (only when the card was cut).
    const allMs = await chat.page.evaluate((count) => {
      const more = document.querySelector<HTMLButtonElement>('[data-item="measured"] .diff-more');
      if (!more) return undefined;
      return new Promise<number>((resolve) => {
        const t = performance.now();
        const observer = new MutationObserver(() => {
          if (document.querySelectorAll('[data-item="measured"] .hunk-choice').length < count) return;
          void document.body.offsetHeight;
          observer.disconnect();
          resolve(performance.now() - t);
        });
        observer.observe(document.body, { childList: true, subtree: true });
        more.click();
      });
    }, hunks.length);
    return { openMs: end - start, ...(allMs !== undefined ? { allMs } : {}) };
  } finally {
    await chat.close();
  }
}

export async function runP25(log: (line: string) => void, runs: number): Promise<P25Result> {
  const oldText = FILE.join("\n");
  const manyText = edited(200);
  const fewText = edited(2);
  const warm = hostHunks(oldText, fewText).diff;
  const sides = {
    many: { text: manyText, host: [] as number[], view: [] as number[], all: [] as number[], hunks: 0 },
    few: { text: fewText, host: [] as number[], view: [] as number[], all: [] as number[], hunks: 0 },
  };
  const ratios: number[] = [];
  try {
    for (let run = 0; run <= runs; run++) {
      const totals: Record<string, number> = {};
      for (const name of run % 2 === 0 ? (["many", "few"] as const) : (["few", "many"] as const)) {
        const side = sides[name];
        const { diff, ms } = hostHunks(oldText, side.text);
        side.hunks = diff.kind === "hunks" ? diff.hunks.length : 0;
        const view = await viewMs(diff, warm);
        totals[name] = ms + view.openMs;
        if (run === 0) continue; // warm-up
        side.host.push(ms);
        side.view.push(view.openMs);
        if (view.allMs !== undefined) side.all.push(view.allMs);
      }
      if (run > 0) ratios.push(totals["many"]! / totals["few"]!);
    }
  } finally {
    await (await shared()).close();
  }
  const sideOf = (s: (typeof sides)["many"]): P25Side => ({
    hunks: s.hunks,
    hostMs: summarize(s.host),
    viewMs: summarize(s.view),
    totalMs: summarize(s.host.map((h, i) => h + s.view[i]!)),
    ...(s.all.length > 0 ? { showAllMs: summarize(s.all) } : {}),
  });
  const result = { many: sideOf(sides.many), few: sideOf(sides.few), ratio: summarize(ratios), lines: P25_LINES };
  log(`P25: ${result.many.hunks} hunks ${result.many.totalMs.median.toFixed(1)} ms ÷ ${result.few.hunks} hunks ${result.few.totalMs.median.toFixed(1)} ms`);
  return result;
}
