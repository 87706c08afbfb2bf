// `npm run bench`: Pi Chat's long-conversation figures, each a ratio measured side by side in
// one run, printed as a table and written to bench/results.json and bench/results.md.
//   node out/bench/run.cjs [--only P1,P4] [--quick]
// This is a measurement script, not a test: it never fails on a missed goal, it reports it.
// The baselines (bench/baselines/) are small honest implementations of the other approach,
// not Pi Chat code. Data: bench/lib/data.ts (seeded, deterministic).
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { runP1Paint, type P1PaintResult, type P1PaintRun } from "./figures/p1-paint";
import { P1_POLICY_SWEEP, P1_RATES, P1_VERDICT_RATE, runP1, type P1Result } from "./figures/p1-streaming";
import { P2_BIG, P2_SMALL, runP2, type P2Result } from "./figures/p2-append";
import { runP3, type P3Result } from "./figures/p3-restore";
import { CHROMIUM, P4_BIG, runP4, type P4Result } from "./figures/p4-render";
import { runP5, type P5Result } from "./figures/p5-activation";
import { runP7, type P7Result } from "./figures/p7-compaction";
import { P6_BIG, P6_SMALL, runP6, type P6Result } from "./figures/p6-reducer";
import { runP13, type P13Result } from "./figures/p13-command-output";
import { runP16, type P16Result } from "./figures/p16-mcp";
import { runP23, type P23Result } from "./figures/p23-fixed-cost";
import { runP20, runP21, type P20Result, type P21Result } from "./figures/p20-p21-host";
import { restoreStart } from "../src/shared/reducer";
import { runP19, runP22, type P19Result, type P22Result } from "./figures/p19-p22-webview";
import { P24_GOAL_MS, P24_GOAL_RATIO, runP24, type P24Result } from "./figures/p24-hostile-markdown";
import { runP17, type P17Result } from "./figures/p17-checkpoints";
import { P25_GOAL_MS, P25_GOAL_RATIO, runP25, type P25Result } from "./figures/p25-hunk-review";
import { P18_GOAL_MS, P18_MEMORY_GOAL, runP18, type P18Result } from "./figures/p18-mentions";
import { P14_IMAGES, P14_MESSAGES, runP14, type P14Result } from "./figures/p14-images";
import { P12_BIG, P12_SMALL, runP12, type P12Result } from "./figures/p12-branch-switch";
import { P11_BIG, P11_SMALL, runP11, type P11Result } from "./figures/p11-history";
import { P9_QUERY, P9_RARE_QUERY, RG, runP10, runP9 } from "./figures/p9-p10-search";
import { describe, generateTranscript, generateTranscriptWithItems } from "./lib/data";
import { fmt, fmtNum, round, type Summary } from "./lib/stats";

const repoRoot = resolve(__dirname, "..", "..");
const args = process.argv.slice(2);
const onlyArg = args.indexOf("--only");
const only = onlyArg >= 0 ? new Set((args[onlyArg + 1] ?? "").toUpperCase().split(",")) : undefined;
const quick = args.includes("--quick");
const wanted = (figure: string): boolean => !only || only.has(figure);
const log = (line: string): void => void process.stderr.write(line + "\n");

interface Row {
  figure: string;
  measured: string;
  baseline: string;
  goal: string;
  verdict: string;
}

function verdictOf(s: Summary | undefined, goal: number): string {
  if (!s) return "n/a";
  if (s.median <= goal) return s.max <= goal ? "pass" : `pass (median; max ${fmtNum(s.max)})`;
  return "MISS";
}

function sizes(messages: readonly AgentMessage[]): ReturnType<typeof describe> & { mb: number } {
  const d = describe(messages);
  return { ...d, mb: round(d.bytes / 1e6, 2) };
}

// Order of the child processes: cheap and CPU-timed first, the browser and P1's ~1 GB baseline last.
const ORDER = [
  "P6",
  "P2",
  "P3",
  "P11",
  "P12",
  "P7",
  "P9",
  "P9L",
  "P10",
  "P4",
  "P1",
  "P5",
  "P13",
  "P14",
  "P16",
  "P23",
  "P17",
  "P18",
  "P20",
  "P21",
  "P19",
  "P22",
  "P24",
  "P25",
] as const;

interface FigureOutput {
  rows: Row[];
  notes: string[];
  results: Record<string, unknown>;
  data: Record<string, ReturnType<typeof sizes>>;
}

/** One figure, in this process, with only its own data in memory. */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one independent block per figure; a table of figure runners is the better shape, not yet made
async function runFigure(figure: string): Promise<FigureOutput> {
  const scratch = mkdtempSync(join(tmpdir(), "pi-chat-bench-"));
  const results: Record<string, unknown> = {};
  const rows: Row[] = [];
  const notes: string[] = [];
  const data: FigureOutput["data"] = {};
  const wanted = (f: string): boolean => f === figure;
  const lazy = <T>(make: () => T): (() => T) => {
    let value: T | undefined;
    return () => (value ??= make());
  };
  const t10kOf = lazy(() => {
    const t = generateTranscript(P2_BIG, 1);
    data["chat10k (P2 big side, P3)"] = sizes(t);
    if (figure === "P2") data["chat10 (P2 small side: its first 10 messages)"] = sizes(t.slice(0, P2_SMALL));
    return t;
  });
  const toAppendOf = lazy(() => {
    const t = generateTranscript(201, 2).slice(1);
    data["appended messages (P2, cycled)"] = sizes(t);
    return t;
  });
  const items10kOf = lazy(() => {
    const t = generateTranscriptWithItems(P6_BIG - 2, 3);
    data["items10k (P6 big side, +user +streaming assistant)"] = sizes(t);
    return t;
  });
  const items10Of = lazy(() => {
    const t = generateTranscriptWithItems(P6_SMALL - 2, 3);
    data["items10 (P6/P4 small side, +user +streaming assistant)"] = sizes(t);
    return t;
  });
  const items2kOf = lazy(() => {
    const t = generateTranscriptWithItems(P4_BIG - 2, 4);
    data["items2k (P4 big side, +user +streaming assistant)"] = sizes(t);
    return t;
  });

  let p6: P6Result | undefined;
  if (wanted("P6")) {
    log("P6 reducer …");
    p6 = runP6(items10kOf(), items10Of(), log, quick ? 3 : 11);
    results["P6"] = p6;
    rows.push({
      figure: `P6 reducer (${p6.bigItems.toLocaleString("en-US")} ÷ ${p6.smallItems} items)`,
      measured: `${fmt(p6.ratio)}; ${fmtNum(p6.bigNs.median, 0)} / ${fmtNum(p6.smallNs.median, 0)} ns per delta`,
      baseline: `${fmt(p6.baselineRatio, 0)} (flat array copied per delta)`,
      goal: "≤ 1.5",
      verdict: verdictOf(p6.ratio, 1.5),
    });
    if (p6.ratio.median > 1.5)
      notes.push(`P6 misses (×${fmtNum(p6.ratio.median)}): a delta's cost depends on the settled part; it should touch only \`live\`.`);
  }

  let p2: P2Result | undefined;
  if (wanted("P2")) {
    log("P2 append …");
    p2 = await runP2(scratch, t10kOf(), toAppendOf(), log, quick ? 3 : 9);
    results["P2"] = p2;
    rows.push({
      figure: `P2 append (${P2_BIG.toLocaleString("en-US")} ÷ ${P2_SMALL} messages)`,
      measured: `${fmt(p2.ratio)}; ${fmtNum(p2.bigMs.median, 3)} / ${fmtNum(p2.smallMs.median, 3)} ms`,
      baseline: `${fmt(p2.baselineRatio, 0)} (one JSON file per save; ${fmtNum(p2.baselineBigMs.median, 1)} / ${fmtNum(p2.baselineSmallMs.median, 2)} ms)`,
      goal: "≤ 2",
      verdict: verdictOf(p2.ratio, 2),
    });
    if (p2.ratio.median > 2)
      notes.push(`P2 misses (×${fmtNum(p2.ratio.median)}): append should be O(new bytes); look at what store.append does per call beyond open/write/close.`);
  }

  let p3: P3Result | undefined;
  if (wanted("P3")) {
    log("P3 restore …");
    p3 = await runP3(scratch, t10kOf(), log, quick ? 3 : 13);
    results["P3"] = p3;
    rows.push({
      figure: `P3 restore (${p3.messages.toLocaleString("en-US")} messages, ${fmtNum(p3.fileBytes / 1e6)} MB)`,
      measured: `${fmt(p3.ratio)}; ${fmtNum(p3.restoreMs.median, 0)} ms (load ${fmtNum(p3.loadOnlyMs.median, 0)}) / ${fmtNum(p3.bareParseMs.median, 0)} ms`,
      baseline: `denominator = faster bare JSON.parse: one document ${fmtNum(p3.bareDocumentMs.median, 0)} ms, per line ${fmtNum(p3.bareLinesMs.median, 0)} ms`,
      goal: "≤ 2",
      verdict: verdictOf(p3.ratio, 2),
    });
    notes.push(
      `P3: restore = store.load ${fmtNum(p3.loadOnlyMs.median, 0)} ms + restoredState ${fmtNum(p3.replayMs.median, 1)} ms (the items of the newest ${p3.restoredMessages} messages, ${p3.items} items; the view asks for the earlier ones when scrolled near them). ` +
        `The view's snapshot then carries ${fmtNum(p3.snapshotBytes.restored / 1e3, 0)} KB of chat state instead of the whole chat's ${fmtNum(p3.snapshotBytes.whole / 1e6, 1)} MB. ` +
        `Beside it, not in the ratio: those earlier items, built when asked, ${fmtNum(p3.earlierMs.median, 0)} ms; the whole chat's items in one pass (what a restore built before) ${fmtNum(p3.wholeMs.median, 0)} ms; folding the reducer over the same ${p3.messages.toLocaleString("en-US")} messages ${fmtNum(p3.foldMs.median, 0)} ms. The max is the slowest of ${p3.ratio.n} side-by-side runs.`,
    );
    if (p3.ratio.median > 2) {
      notes.push(
        `P3 misses (×${fmtNum(p3.ratio.median)}): of ${fmtNum(p3.restoreMs.median, 0)} ms, store.load takes ${fmtNum(p3.loadOnlyMs.median, 0)} ms and restoredState the rest, against ${fmtNum(p3.bareParseMs.median, 0)} ms for the faster bare JSON.parse of the same bytes (per line).`,
      );
    }
  }

  let p4: P4Result | undefined;
  if (wanted("P4")) {
    log("P4 render (Chromium) …");
    const outDir = join(repoRoot, "out");
    if (!existsSync(join(outDir, "webview.js")) || !existsSync(join(outDir, "webview.css"))) {
      rows.push({ figure: "P4 render", measured: "n/a (out/webview.js not built)", baseline: "—", goal: "≤ 2", verdict: "n/a" });
      results["P4"] = { status: "not built" };
    } else if (!existsSync(CHROMIUM)) {
      rows.push({ figure: "P4 render", measured: `n/a (${CHROMIUM} missing)`, baseline: "—", goal: "≤ 2", verdict: "n/a" });
      results["P4"] = { status: "no chromium" };
    } else {
      try {
        p4 = await runP4(outDir, items2kOf(), items10Of(), log, quick ? 3 : 9);
        results["P4"] = p4;
        rows.push({
          figure: `P4 render (${p4.bigItems.toLocaleString("en-US")} ÷ ${p4.smallItems} items)`,
          measured: `${fmt(p4.ratio)}; ${fmtNum(p4.bigMs.median)} / ${fmtNum(p4.smallMs.median)} ms main-thread per delta`,
          baseline: `post → painted frame ×${fmtNum(p4.wallRatio.median)} (${fmtNum(p4.wallBigMs.median)} / ${fmtNum(p4.wallSmallMs.median)} ms); sync part ×${fmtNum(p4.syncRatio.median)} (${fmtNum(p4.syncBigMs.median, 3)} / ${fmtNum(p4.syncSmallMs.median, 3)} ms)`,
          goal: "≤ 2",
          verdict: verdictOf(p4.ratio, 2),
        });
        if (p4.ratio.median > 2)
          notes.push(
            `P4 misses (×${fmtNum(p4.ratio.median)}): a delta repaints or re-lays out more than the live item; check that settled chunks are memoized and content-visibility: auto applies.`,
          );
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        rows.push({ figure: "P4 render", measured: `failed: ${reason.slice(0, 120)}`, baseline: "—", goal: "≤ 2", verdict: "n/a" });
        results["P4"] = { status: "failed", reason };
        notes.push(`P4 could not be measured: ${reason}`);
      }
    }
  }

  let p1: P1Result | undefined;
  if (wanted("P1")) {
    log("P1 streaming bytes …");
    p1 = runP1(log);
    results["P1"] = p1;
    let paint: P1PaintResult | undefined;
    log("P1 token-to-paint (Chromium) …");
    try {
      if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing`);
      paint = await runP1Paint(join(repoRoot, "out"), log, quick ? 4 : 10);
      results["P1paint"] = paint;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      results["P1paint"] = { status: "failed", reason };
      notes.push(`P1 token-to-paint could not be measured: ${reason}`);
    }
    const paced = (rate: number) => paint?.runs.find((r) => r.policy === "paced" && r.rate === rate);
    const old = paint?.runs.find((r) => r.policy === "size-batched");
    const oldBytes = p1.policySweep.find((s) => s.options.sizeBatched);
    const naive = `${fmtNum(p1.naive.median, 0)} (re-send whole partial per update; ${fmtNum(p1.naiveAt2k.median, 0)} at 2,000 tokens)`;
    const live = (r: P1PaintRun | undefined) =>
      r ? `; ${fmtNum(r.paintedUpdatesPerSecond, 1)} painted updates/s; token→paint p50 ${fmtNum(r.latency.median, 0)} ms, p95 ${fmtNum(r.p95, 0)} ms` : "";
    for (const r of p1.byRate) {
      const isVerdict = r.rate === P1_VERDICT_RATE;
      const pace = Number.isFinite(r.deltasPerSecond.median)
        ? `; ${fmtNum(r.deltasPerSecond.median, 1)} posts/s, ${fmtNum(r.charsPerDelta.median, 0)} chars each`
        : `; ${fmtNum(r.messages.median, 0)} posts in all`;
      const painted = typeof r.rate === "number" ? paced(r.rate) : undefined;
      const bytesOk = r.ratio.median <= p1.goal;
      const liveOk = painted ? painted.paintedUpdatesPerSecond >= p1.updatesGoal && painted.p95 <= (paint?.latencyGoalMs ?? 60) : typeof r.rate !== "number";
      const verdict = painted || typeof r.rate !== "number" ? (bytesOk && liveOk ? verdictOf(r.ratio, p1.goal) : "MISS") : "n/a";
      rows.push({
        figure: `P1 streaming @ ${r.rate === "all at once" ? "all at once" : `${r.rate} tok/s`}${isVerdict ? " (verdict)" : ""}`,
        measured: `bytes ${fmt(r.ratio, 2)}${pace}${live(painted)}`,
        baseline: isVerdict ? `old 48 chars/200 ms: bytes ×${fmtNum(oldBytes?.ratio.median ?? NaN)}${live(old)}; ${naive}` : "same",
        goal: typeof r.rate === "number" ? `bytes ≤ ${p1.goal}, ≥ ${p1.updatesGoal} updates/s, p95 ≤ ${paint?.latencyGoalMs ?? 60} ms` : `bytes ≤ ${p1.goal}`,
        verdict: isVerdict ? verdict : `(${verdict})`,
      });
    }
    const sweepText = p1.policySweep.map((s) => `${s.label}: ×${fmtNum(s.ratio.median)} at ${fmtNum(s.deltasPerSecond.median, 1)} posts/s`).join("; ");
    const v = p1.byRate.find((r) => r.rate === P1_VERDICT_RATE)!;
    notes.push(
      `P1: at ${P1_VERDICT_RATE} tok/s each delta post carries ${fmtNum(v.charsPerDelta.median, 1)} chars of text and ~${v.deltaEnvelopeBytes.median.toFixed(0)} B of envelope, ${fmtNum(v.deltasPerSecond.median, 1)} posts/s. ` +
        `Bytes and posts/s come from a virtual clock (20,000 tokens, 5 seeds); painted updates/s and token→paint latency from ${paint ? `${paint.runs[0]?.tokens ?? 0}+ tokens per rate in headless Chromium at its 60 Hz frame clock, the channel running in the page (the host's IPC hop, ~1 ms, is not in it)` : "Chromium (not measured in this run)"}. ` +
        `Other pacings, real HostChannel at ${P1_VERDICT_RATE} tok/s: ${sweepText}.`,
    );
  }

  if (wanted("P9")) {
    if (!existsSync(RG)) {
      rows.push({ figure: "P9 search", measured: `n/a (${RG} missing)`, baseline: "—", goal: "≤ 1.5", verdict: "n/a" });
    } else {
      log("P9 search …");
      const p9 = await runP9(scratch, log, quick ? 3 : 9);
      results["P9"] = p9;
      rows.push({
        figure: `P9 search (${p9.files.toLocaleString("en-US")} files, "${P9_QUERY}")`,
        measured: `${fmt(p9.ratio, 2)}; ${fmtNum(p9.toolMs.median, 0)} / ${fmtNum(p9.rgMs.median, 0)} ms; ${p9.matches.toLocaleString("en-US")} matching lines, 100 shown`,
        baseline: `portable engine ÷ rg: ${fmt(p9.portableRatio, 2)} (${fmtNum(p9.portableMs.median, 0)} ms)`,
        goal: `≤ ${p9.goal}`,
        verdict: verdictOf(p9.ratio, p9.goal),
      });
      notes.push(
        `P9: the search tool with the extension's engine (VS Code's ripgrep through src/host/adapters/ripgrep-search.ts: spawn without a shell, --json parsed, sorted, capped, formatted) ÷ \`rg -i -F ${P9_QUERY} .\` run directly with its plain output drained; both over the same generated tree (test/support/workspace-tree.ts) with a warm page cache, alternating. The portable engine (used when VS Code has no ripgrep) is timed in the same runs.`,
      );
    }
  }

  if (wanted("P9L") && existsSync(RG)) {
    log("P9 search at 100,000 files …");
    const p9l = await runP9(scratch, log, quick ? 3 : 7, 100_000, false);
    results["P9L"] = p9l;
    rows.push({
      figure: `P9 search at monorepo size (${p9l.files.toLocaleString("en-US")} files, "${P9_QUERY}")`,
      measured: `${fmt(p9l.ratio, 2)}; ${fmtNum(p9l.toolMs.median, 0)} / ${fmtNum(p9l.rgMs.median, 0)} ms; ${p9l.matches.toLocaleString("en-US")} matching lines counted, 100 shown`,
      baseline: "rg run directly (its whole output drained); the tool stops counting at 10,000 matches",
      goal: "≤ 1.5 (median and max)",
      verdict: p9l.ratio.median <= 1.5 && p9l.ratio.max <= 1.5 ? "pass" : "MISS",
    });
    // Like for like: a string with a handful of matches, so both read the whole tree.
    log("P9 search at 100,000 files, a rare string …");
    const rare = await runP9(scratch, log, quick ? 3 : 7, 100_000, false, P9_RARE_QUERY);
    results["P9L-rare"] = rare;
    rows.push({
      figure: `P9 search at monorepo size (${rare.files.toLocaleString("en-US")} files, "${P9_RARE_QUERY}")`,
      measured: `${fmt(rare.ratio, 2)}; ${fmtNum(rare.toolMs.median, 0)} / ${fmtNum(rare.rgMs.median, 0)} ms; ${rare.matches.toLocaleString("en-US")} matching lines`,
      baseline: "rg run directly; both read the whole tree (no stop reached)",
      goal: "≤ 1.5 (median and max)",
      verdict: rare.ratio.median <= 1.5 && rare.ratio.max <= 1.5 ? "pass" : "MISS",
    });
  }

  if (wanted("P10")) {
    if (!existsSync(RG)) {
      rows.push({ figure: "P10 bounded output", measured: `n/a (${RG} missing)`, baseline: "—", goal: "≤ 1.2", verdict: "n/a" });
    } else {
      log("P10 bounded output …");
      const p10 = await runP10(scratch, log);
      results["P10"] = p10;
      for (const [name, v] of [
        ["list_files (depth 20)", p10.list],
        ['search "port"', p10.search],
      ] as const) {
        rows.push({
          figure: `P10 ${name} (${p10.files.big.toLocaleString("en-US")} ÷ ${p10.files.small} files)`,
          measured: `${fmtNum(v.ratio, 2)}; ${v.big.toLocaleString("en-US")} / ${v.small.toLocaleString("en-US")} tokens`,
          baseline: name.startsWith("list")
            ? `default depth: ×${fmtNum(p10.listDefault.ratio, 2)} (${p10.listDefault.big} / ${p10.listDefault.small} tokens)`
            : "—",
          goal: `≤ ${p10.goal}`,
          verdict: v.ratio <= p10.goal ? "pass" : "MISS",
        });
      }
      notes.push(
        'P10: tokens ≈ characters / 4 of the text the model gets. The requests are the ones whose answers would grow with the tree: a listing of everything (depth 20) and a common word ("port" is in every import/export line). On the small tree the listing is whole (≈100 entries), on the big one it stops at 100 entries with the folders\' counts; the default-depth listing of the small tree is shorter than the cap, so its ratio (beside it) measures the tree, not the cap.',
      );
    }
  }

  let p5: P5Result | undefined;
  if (wanted("P7")) {
    // P7, P8 and P15 come from the same scripted chat, run twice: through pi-ai's real
    // OpenAI-compatible adapter over HTTP to a local server that reports usage (the path users
    // take; its rows decide), and through the faux provider beside it.
    for (const transport of ["http", "faux"] as const) {
      log(`P7/P8/P15 compaction (a scripted 500-turn chat, 32k window, ${transport === "http" ? "OpenAI-compatible adapter over HTTP" : "faux provider"}) …`);
      const p7: P7Result = await runP7(scratch, log, transport);
      const key = transport === "http" ? "P7" : "P7-faux";
      results[key] = { ...p7, turnRequestTokens: undefined };
      const bounded = p7.largestRequest <= p7.threshold;
      const via = transport === "http" ? "over HTTP" : "faux provider";
      rows.push({
        figure: `P7 bounded context (${p7.turns} turns, ${fmtNum(p7.window / 1000, 0)}k window, ${via})`,
        measured: `turn 500 ÷ turn 100: ${fmtNum(p7.ratio500to100)} (${p7.at500.toLocaleString("en-US")} / ${p7.at100.toLocaleString("en-US")} tokens); largest request ${p7.largestRequest.toLocaleString("en-US")}`,
        baseline: `threshold (window − reserve) ${p7.threshold.toLocaleString("en-US")}; turns 101–500 between ${p7.band.min.toLocaleString("en-US")} and ${p7.band.max.toLocaleString("en-US")}; medians of turns 481–500 ÷ 81–100: ${fmtNum(p7.medianRatio)}`,
        goal: "≤ 1.2, largest ≤ threshold",
        verdict: p7.ratio500to100 <= 1.2 && bounded ? "pass" : "MISS",
      });
      rows.push({
        figure: `P8 compaction overhead (${via})`,
        measured: `${fmtNum(p7.overheadInput * 100, 1)} % of tokens sent (${p7.summaryInputTokens.toLocaleString("en-US")} of ${p7.allInputTokens.toLocaleString("en-US")}); ${fmtNum(p7.overheadAll * 100, 1)} % with output`,
        baseline: `${p7.compactions} compactions in ${p7.turns} turns; one costs ${fmtNum(p7.summaryInputTokens / Math.max(1, p7.compactions), 0)} tokens in + ${fmtNum(p7.summaryOutputTokens / Math.max(1, p7.compactions), 0)} out ≈ $${p7.pricedAs.perCompaction.toFixed(4)} at ${p7.pricedAs.model} prices (a turn ≈ $${p7.pricedAs.perTurn.toFixed(4)})`,
        goal: "≤ 10 %",
        verdict: p7.overheadInput <= 0.1 ? "pass" : "MISS",
      });
      rows.push({
        figure: `P15 turns left out instead of summarized (${via})`,
        measured: `${fmtNum(p7.trimmedShare * 100, 1)} % of turns (${p7.trimmedTurns} of ${p7.turns}) sent with earlier turns left out`,
        baseline: `compaction on (the default); ${p7.compactions} compactions`,
        goal: "0",
        verdict: p7.trimmedTurns === 0 ? "pass" : "MISS",
      });
      if (!bounded)
        notes.push(
          `P7 (${via}): a request of ${p7.largestRequest} tokens passed the threshold ${p7.threshold}: the before-request compaction did not hold the bound.`,
        );
      if (transport === "http")
        notes.push(
          `P7/P8/P15: one scripted chat through the real session, policy, compaction and store, run twice: through pi-ai's real OpenAI-compatible adapter over HTTP to a local server that streams and reports usage in its last chunk (messages and tool declarations at ~4 characters a token), and through pi-ai's faux provider; ${p7.requests.toLocaleString("en-US")} requests, ${p7.transcriptMessages.toLocaleString("en-US")} messages kept on disk; request sizes saw-tooth between a compaction (down to the kept part + summary) and the threshold, so one turn's size depends on where it falls in the cycle (the band and the medians are shown beside it). P15 counts the turns whose request carried the trim's "not shown" note.`,
        );
    }
  }

  if (wanted("P5")) {
    log("P5 activation …");
    p5 = runP5(repoRoot, join(__dirname, "activation-probe.cjs"), log, quick ? 2 : 5);
    results["P5"] = p5;
    if (p5.status !== "ok") {
      rows.push({
        figure: "P5 activation",
        measured: `n/a (${p5.status}${p5.reason ? `: ${p5.reason.slice(0, 100)}` : ""})`,
        baseline: "—",
        goal: "≤ 500 KB, none",
        verdict: "n/a",
      });
    } else {
      // The verdict is on what a user's extension host parses: the minified bundle `npm run package` ships.
      const shipped = p5.shippedBytes ?? p5.totalBytes!;
      const ok = shipped <= p5.goalBytes && !p5.providerLoaded;
      rows.push({
        figure: "P5 activation",
        measured: `${fmtNum(shipped / 1000, 1)} KB as shipped (minified), ${p5.files!.length} file(s); provider SDK: ${p5.providerLoaded ? p5.providerEvidence!.join(", ") : "none"}${p5.activated ? "" : " (activate threw: static graph only)"}`,
        baseline: `non-minified build: ${fmtNum(p5.totalBytes! / 1000, 1)} KB${p5.eagerBytes !== undefined ? `; ${fmtNum(p5.eagerBytes / 1000, 1)} KB if providers.js loaded eagerly` : ""}`,
        goal: "≤ 500 KB, none",
        verdict: ok ? "pass" : "MISS",
      });
      if (!ok)
        notes.push(
          `P5 misses: ${fmtNum(shipped / 1000, 1)} KB loaded as shipped (goal ≤ 500 KB)${p5.providerLoaded ? `, provider code loaded: ${p5.providerEvidence!.join(", ")}` : ""}. Largest inlined packages: ${p5
            .inlinedPackages!.slice(0, 5)
            .map((p) => `${p.pkg} ${fmtNum(p.bytes / 1000, 1)} KB`)
            .join(", ")}.`,
        );
      notes.push(
        `P5: the files activate() loads, under a stub vscode, in the non-minified build \`npm run bench\` makes (so provider SDK code can be recognised by esbuild's module comments), then each minified with esbuild as \`npm run package\` ships it: the verdict is on the shipped bytes; ${p5.activated ? "activate() ran to the end" : "activate() threw"} under a stub vscode, generic stand-ins used for: ${p5.genericStubUses!.length ? p5.genericStubUses!.join(", ") : "nothing"}.`,
      );
      if (!p5.activated)
        notes.push(
          `P5: activate() threw under the stub vscode (${p5.reason ?? "?"}); the figure is the files loaded up to then (at least the static require graph).`,
        );
    }
  }

  if (wanted("P16")) {
    log("P16 MCP overhead in tokens (three warm stdio servers vs none) …");
    const p16: P16Result = await runP16(repoRoot, log, quick ? 5 : 20);
    results["P16"] = p16;
    const t = p16.tokens;
    rows.push({
      figure: "P16 MCP overhead (declared tokens per request, 3 warm servers ÷ none)",
      measured: `${fmtNum(p16.tokenRatio)} first request (${t.first.toLocaleString("en-US")} ÷ ${t.without.toLocaleString("en-US")} tokens; ${p16.tools} MCP tools listed), ${fmtNum(p16.tokenRatioAfterLoads)} after loading one tool of each server (${t.afterLoads.toLocaleString("en-US")}: the three loaded tools are declared; ${p16.callsRan}/3 calls ran; the three tool_search results, with two servers' full instructions, hold ${p16.searchResultTokens.toLocaleString("en-US")} tokens of the transcript, once); time +${fmtNum(p16.msAdded.median, 2)} ms per request (${fmtNum(p16.withServers.median, 2)} ÷ ${fmtNum(p16.without.median, 2)} ms)`,
      baseline: `every MCP tool declared (before on demand): ${fmtNum(p16.tokenRatioAllDeclared)} (${t.allDeclared.toLocaleString("en-US")} tokens); meter's estimate (4 chars/token); time: medians of ${p16.runs} prompts a side, 3 rounds`,
      goal: `≤ ${p16.goal}; ≤ ${p16.msGoal} ms added`,
      verdict:
        p16.tokenRatioAfterLoads <= p16.goal && p16.msAdded.median <= p16.msGoal
          ? "pass"
          : p16.tokenRatio <= p16.goal && p16.msAdded.median <= p16.msGoal
            ? "pass (first request; MISS after loads)"
            : "MISS",
    });
  }

  if (wanted("P23")) {
    log("P23 fixed cost of a new chat's first request (normal, lean) …");
    const p23: P23Result = await runP23(log);
    results["P23"] = p23;
    rows.push({
      figure: "P23 fixed cost (first request of a new chat: system prompt + tools)",
      measured: `normal ${p23.normal.tokens.toLocaleString("en-US")} tokens (${p23.normal.tools.length} tools); lean ${p23.lean.tokens.toLocaleString("en-US")} tokens (${p23.lean.tools.join(", ")})`,
      baseline:
        "meter's estimate (4 chars/token; no tokenizer installed); commands allowed, no MCP server, no project instructions; Claude Code's first request ~20k with tool search on",
      goal: `≤ ${p23.goal.normal.toLocaleString("en-US")} normal, ≤ ${p23.goal.lean.toLocaleString("en-US")} lean`,
      verdict: p23.normal.tokens <= p23.goal.normal && p23.lean.tokens <= p23.goal.lean ? "pass" : "MISS",
    });
  }

  if (wanted("P21")) {
    log("P21 time to the provider request (10,000 ÷ 10 messages) …");
    const p21: P21Result = await runP21(log, quick ? 5 : 20);
    results["P21"] = p21;
    const ok = p21.ratio.median <= 1.2 && p21.bigMs.median <= 100;
    rows.push({
      figure: `P21 prompt → provider request (${p21.messages.big.toLocaleString("en-US")} ÷ ${p21.messages.small} messages, warm)`,
      measured: `${fmtNum(p21.ratio.median)} (${fmtNum(p21.bigMs.median, 2)} ms ÷ ${fmtNum(p21.smallMs.median, 2)} ms; slowest ${fmtNum(p21.bigMs.max, 2)} ms at 10,000)`,
      baseline: `medians of ${p21.runs} prompts a side, 3 alternating rounds (ratio range ${fmtNum(p21.ratio.min)}–${fmtNum(p21.ratio.max)}); the long chat compacted 30 messages before its end`,
      goal: "≤ 1.2 and ≤ 100 ms",
      verdict: ok ? "pass" : "MISS",
    });
  }

  if (wanted("P19")) {
    log("P19 webview memory (Chromium: a 10,000-message chat scrolled end to end and back ÷ 100 messages) …");
    // PI_CHAT_BENCH_WEBVIEW: another build's out/ (an older commit's bundle), for a before/after.
    const outDir = process.env.PI_CHAT_BENCH_WEBVIEW ?? join(repoRoot, "out");
    if (!existsSync(join(outDir, "webview.js")) || !existsSync(CHROMIUM)) {
      rows.push({ figure: "P19 webview memory", measured: "n/a (bundle or Chromium missing)", baseline: "—", goal: "≤ 1.5; ≤ 1.1", verdict: "n/a" });
    } else {
      // The small side is the same chat's last ~100 messages (from a user turn): the same kind of
      // rows at the bottom, so what differs is only what the long chat's length leaves behind.
      const small = t10kOf().slice(restoreStart(t10kOf(), 100));
      const p19: P19Result = await runP19(outDir, t10kOf(), small, log);
      results["P19"] = p19;
      const ok = p19.heapRatio <= 1.5 && p19.nodesRatio <= 1.5 && p19.switchRatio <= 1.1;
      rows.push({
        figure: `P19 webview heap and DOM, ${p19.big.messages.toLocaleString("en-US")} ÷ ${p19.small.messages} messages restored, scrolled to the oldest and back`,
        measured:
          `heap ${fmtNum(p19.heapRatio)} (${fmtNum(p19.big.heapMB, 1)} MB ÷ ${fmtNum(p19.small.heapMB, 1)} MB), DOM nodes ${fmtNum(p19.nodesRatio)} (${p19.big.nodes} ÷ ${p19.small.nodes}; elements ${p19.big.elements} ÷ ${p19.small.elements}, at most ${p19.big.maxElements} while scrolling); ` +
          `new chat after it ${fmtNum(p19.switchRatio)} of a fresh view (${fmtNum(p19.afterSwitchMB, 1)} MB ÷ ${fmtNum(p19.freshMB, 1)} MB; after the 100-message chat ${fmtNum(p19.smallAfterSwitchMB, 1)} MB); ` +
          `over the fresh view: compiled code +${fmtNum(p19.afterSwitchCensus.codeMB - p19.freshCensus.codeMB, 1)} MB, regexes' compiled code +${fmtNum(p19.afterSwitchCensus.regexpCodeMB - p19.freshCensus.regexpCodeMB, 1)} MB, ` +
          `data ${p19.afterSwitchCensus.dataMB >= p19.freshCensus.dataMB ? "+" : ""}${fmtNum(p19.afterSwitchCensus.dataMB - p19.freshCensus.dataMB, 1)} MB; detached DOM nodes ${p19.afterSwitchCensus.detachedNodes} (fresh ${p19.freshCensus.detachedNodes})`,
        baseline: `${p19.big.items.toLocaleString("en-US")} items held at the end; ${p19.big.steps} scroll steps in ${fmtNum(p19.big.walkMs / 1000, 1)} s`,
        goal: "≤ 1.5 heap and nodes; new chat ≤ 1.1",
        verdict: ok ? "pass" : "MISS",
      });
    }
  }

  if (wanted("P22")) {
    log("P22 panel open (Chromium: the 10,000-message chat restored ÷ an empty chat) …");
    const outDir = process.env.PI_CHAT_BENCH_WEBVIEW ?? join(repoRoot, "out");
    if (!existsSync(join(outDir, "webview.js")) || !existsSync(CHROMIUM)) {
      rows.push({ figure: "P22 panel open", measured: "n/a (bundle or Chromium missing)", baseline: "—", goal: "≤ 1 s; ≤ 2", verdict: "n/a" });
    } else {
      const p22: P22Result = await runP22(outDir, t10kOf(), log, quick ? 3 : 7);
      results["P22"] = p22;
      const ok = p22.bigMs.median <= 1000 && p22.ratio.median <= 2;
      rows.push({
        figure: `P22 panel open → composer accepting input, ${p22.bigMessages.toLocaleString("en-US")} messages restored ÷ an empty chat`,
        measured: `${fmtNum(p22.ratio.median)} (${fmtNum(p22.bigMs.median, 0)} ms ÷ ${fmtNum(p22.emptyMs.median, 0)} ms; slowest ${fmtNum(p22.bigMs.max, 0)} ms)`,
        baseline: `navigation start → textarea enabled and focused with the snapshot's ${p22.bigItemsShown} items drawn; ${p22.runs} opens a side, alternating`,
        goal: "≤ 1 s and ≤ 2",
        verdict: ok ? "pass" : "MISS",
      });
    }
  }

  if (wanted("P24")) {
    log("P24 hostile markdown (Chromium: each markdown that once stalled the view ÷ a realistic answer of the same size) …");
    if (!existsSync(join(repoRoot, "out", "webview.js")) || !existsSync(CHROMIUM)) {
      rows.push({
        figure: "P24 hostile markdown",
        measured: "n/a (bundle or Chromium missing)",
        baseline: "—",
        goal: `≤ ${P24_GOAL_RATIO}; ≤ ${P24_GOAL_MS} ms`,
        verdict: "n/a",
      });
    } else {
      const p24: P24Result = await runP24(log, quick ? 1 : 3);
      results["P24"] = p24;
      const { worst } = p24;
      const worstRatio = Math.max(...p24.cases.map((c) => c.ratio));
      rows.push({
        figure: `P24 hostile markdown: a restore's markdown time, ${p24.cases.length} hostile answers of ~${Math.round(p24.size / 1000)} KB ÷ a realistic one of the same size`,
        measured: `worst ratio ${fmtNum(worstRatio)}; slowest "${worst.name.replaceAll("|", "\\|")}" ${fmtNum(worst.hostileMs, 0)} ms ÷ ${fmtNum(worst.realisticMs, 0)} ms`,
        baseline: `medians of ${p24.runs} fresh pages a side, alternating; the view's own count of its main-thread time to HTML`,
        goal: `≤ ${P24_GOAL_RATIO}; ≤ ${P24_GOAL_MS} ms`,
        verdict: worstRatio <= P24_GOAL_RATIO && worst.hostileMs <= P24_GOAL_MS ? "pass" : "MISS",
      });
    }
  }

  if (wanted("P20")) {
    log("P20 host memory (ten 10,000-message chats opened in turn) …");
    const p20: P20Result = await runP20(log, quick ? 4 : 10);
    results["P20"] = p20;
    rows.push({
      figure: `P20 host heap after ${p20.chats} chats of ${p20.messagesPerChat.toLocaleString("en-US")} opened in turn, then a new chat ÷ after one small chat`,
      measured: `${fmtNum(p20.ratio)} (${fmtNum(p20.releasedMb, 1)} MB ÷ ${fmtNum(p20.baselineMb, 1)} MB)`,
      baseline: `keeping every chat opened (before): ${fmtNum(p20.keptMb, 1)} MB`,
      goal: "≤ 1.5",
      verdict: p20.ratio <= 1.5 ? "pass" : "MISS",
    });
  }

  if (wanted("P17")) {
    log("P17 checkpoints …");
    const p17: P17Result = await runP17(log, quick ? 3 : 8);
    results["P17"] = p17;
    rows.push({
      figure: `P17 checkpoint cost per agent turn (${p17.files.big.toLocaleString("en")} ÷ ${p17.files.small} files)`,
      measured: `${fmt(p17.turn.ratio)} (${fmtNum(p17.turn.big.median, 2)} ms ÷ ${fmtNum(p17.turn.small.median, 2)} ms: mark + 2 recorded edit_file writes)`,
      baseline: `first walk of a session, in the background after the first mark: ${fmtNum(p17.warmMs.big, 0)} ms / ${fmtNum(p17.warmMs.small, 0)} ms (every file read and kept once; ${fmtNum(p17.blobMB, 1)} MB of blobs)`,
      goal: `≤ ${p17.goals.turn}`,
      verdict: verdictOf(p17.turn.ratio, p17.goals.turn),
    });
    for (const c of [{ ...p17.command, files: p17.files.big }, ...(p17.command100k ? [p17.command100k] : [])]) {
      rows.push({
        figure: `P17 command wall time with ÷ without checkpoints (${c.files.toLocaleString("en")} files, a ~1 s command)`,
        measured: `${fmt(c.ratio)} (${fmtNum(c.withCp.median, 0)} ms ÷ ${fmtNum(c.without.median, 0)} ms; before from the watcher's events)`,
        baseline: `the walk before it (fallback: the watcher lost events): ${fmt(c.fallback.ratio)} (${fmtNum(c.fallback.withCp.median, 0)} ms); the walk after, off the tool's path: ${fmt(c.afterWalkMs, 0, " ms")}`,
        goal: `≤ ${p17.goals.command}`,
        verdict: verdictOf(c.ratio, p17.goals.command),
      });
    }
    notes.push(
      "P17: real Checkpoints over generated trees (test/support/workspace-tree.ts: ignored files, node_modules, binaries, one 3 MB file); a turn is the mark of the user message plus two edit_file calls through the recording file system (each write: the file read and kept before, read again after, one journal line); the command runs through run_command (bash child process) with and without the recording wrapper, alternating. Before a command, the paths a real watcher (Node's recursive fs.watch, as VS Code's watcher in the extension) named since the last look are stat'ed again and read where their stat changed; the walk (an lstat per visible file plus reading only files whose stat changed) is the fallback when the watcher lost events, and runs after every command in the background. Between runs the bench waits for the watcher to report the last run's files (a probe file's event), as the seconds between a model's commands allow.",
    );
  }

  if (wanted("P25")) {
    log("P25 hunk review: a 5,000-line file, 200 hunks ÷ 2 …");
    if (!existsSync(CHROMIUM)) {
      notes.push(`P25: skipped, no Chromium at ${CHROMIUM}.`);
    } else {
      const p25: P25Result = await runP25(log, quick ? 3 : 9);
      results["P25"] = p25;
      rows.push({
        figure: `P25 opening the review of an edit of a ${p25.lines.toLocaleString("en")}-line file: ${p25.many.hunks} hunks ÷ ${p25.few.hunks}`,
        measured: `${fmt(p25.ratio)} (${fmtNum(p25.many.totalMs.median, 1)} ms ÷ ${fmtNum(p25.few.totalMs.median, 1)} ms; host ${fmtNum(p25.many.hostMs.median, 1)} + view ${fmtNum(p25.many.viewMs.median, 1)} ms)`,
        baseline: `${p25.few.hunks} hunks: host ${fmtNum(p25.few.hostMs.median, 1)} + view ${fmtNum(p25.few.viewMs.median, 1)} ms${p25.many.showAllMs ? `; Show more to all ${p25.many.hunks} hunks: ${fmt(p25.many.showAllMs, 1, " ms")}` : ""}`,
        goal: `≤ ${P25_GOAL_RATIO}; ≤ ${P25_GOAL_MS} ms`,
        verdict: p25.ratio.median <= P25_GOAL_RATIO && p25.many.totalMs.median <= P25_GOAL_MS ? "pass" : "MISS",
      });
      notes.push(
        "P25: the host's part is editDiff over the changed window plus hunksFromPatch (what the edit gate sends the view); the view's is real Chromium with the built bundle (the browser tests' page) from the approval request's message reaching the page to the card drawn as it first shows (a long diff is cut at 400 lines behind Show more: about 44 of the 200 hunks) with its Allow, layout done (a MutationObserver, then a forced layout; paint not included); Show more, until all 200 hunks' Accept/Reject/Edit are drawn, is timed beside. One changed line per hunk, evenly spread over the file; a fresh page per sample, warmed by a 2-hunk review first; sides alternate.",
      );
    }
  }

  if (wanted("P18")) {
    log("P18 the @ list on a 100,000-file workspace …");
    const p18: P18Result = await runP18(scratch, log, quick);
    results["P18"] = p18;
    rows.push({
      figure: `P18 @ list first results after a keystroke (${p18.indexed.toLocaleString("en-US")} paths, warm)`,
      measured: `p95 ${fmtNum(p18.p95, 1)} ms (median ${fmtNum(p18.keystroke.median, 1)}, max ${fmtNum(p18.keystroke.max, 1)} over ${p18.keystrokes} keystrokes); index ${fmtNum(p18.memoryRatio)}× the path strings (${fmtNum(p18.indexBytes / 1e6, 1)} / ${fmtNum(p18.stringBytes / 1e6, 1)} MB)`,
      baseline: `the same path strings alone in an array; the walk took ${fmtNum(p18.buildMs / 1000, 1)} s (once, then on file creation/deletion)`,
      goal: `p95 ≤ ${P18_GOAL_MS} ms; memory ≤ ${P18_MEMORY_GOAL}×`,
      verdict: p18.p95 <= P18_GOAL_MS && p18.memoryRatio <= P18_MEMORY_GOAL ? "pass" : "MISS",
    });
    notes.push(
      `P18: ${p18.files.toLocaleString("en-US")} generated files (plus their folders) on disk, indexed by the real walk (ignore rules on) over the Node workspace file system; each of 40 abbreviations typed one character at a time, a warm-up round then the measured one; the time is the host's match (fuzzy over every path, top 50 kept), not the webview round trip. Memory: heap after gc with the index held, against flat copies of the same strings.`,
    );
  }

  if (wanted("P13")) {
    log("P13 command output …");
    const p13: P13Result = await runP13(log, quick ? 2 : 5);
    results["P13"] = p13;
    const verdict = verdictOf(p13.viewRatio.max >= p13.modelRatio.max ? p13.viewRatio : p13.modelRatio, p13.goal);
    rows.push({
      figure: "P13 command output (10 MB ÷ 100 KB printed)",
      measured: `view bytes ${fmt(p13.viewRatio)}; model tokens ${fmt(p13.modelRatio)}; ${fmtNum(p13.big.viewBytes.median / 1000, 1)} / ${fmtNum(p13.small.viewBytes.median / 1000, 1)} KB posted, ${fmtNum(p13.big.modelTokens.median, 0)} / ${fmtNum(p13.small.modelTokens.median, 0)} tokens`,
      baseline: `card updates ${fmtNum(p13.big.postsPerSecond.median, 1)} / ${fmtNum(p13.small.postsPerSecond.median, 1)} per s while streaming (longest gap ${fmtNum(p13.big.maxGapMs.median, 0)} / ${fmtNum(p13.small.maxGapMs.median, 0)} ms); uncapped the model would get ×100`,
      goal: "≤ 1.5",
      verdict,
    });
    notes.push(
      `P13: both commands print in ${20} bursts 100 ms apart through the real run_command tool (bash child process) and the real encoder + HostChannel; view bytes = UTF-8 of every posted message (live tail updates and the final result); model tokens = the policy's estimate (~4 chars a token) of the tool result text. Run time ${fmtNum(p13.big.durationMs.median / 1000, 1)} / ${fmtNum(p13.small.durationMs.median / 1000, 1)} s.`,
    );
  }

  if (wanted("P11")) {
    log("P11 history …");
    const p11: P11Result = await runP11(scratch, log, quick ? 3 : 9);
    results["P11"] = p11;
    rows.push({
      figure: `P11 history: list + title search (${P11_BIG.toLocaleString("en-US")} ÷ ${P11_SMALL} chats)`,
      measured: `${fmt(p11.ratio)}; ${fmtNum(p11.bigMs.median, 2)} / ${fmtNum(p11.smallMs.median, 2)} ms; ${p11.titleHits} titles found`,
      baseline: `first list in a window ${fmtNum(p11.firstListMs.median, 1)} ms; after another window added a chat ${fmtNum(p11.afterOtherWindowMs.median, 1)} ms; full-text search of the ${P11_BIG.toLocaleString("en-US")} chats: ${fmtNum(p11.fullTextMs.median, 0)} ms (${p11.fullTextHits} chats hold the word)`,
      goal: `≤ ${p11.goal}`,
      verdict: verdictOf(p11.ratio, p11.goal),
    });
    notes.push(
      `P11: ${P11_BIG.toLocaleString("en-US")} and ${P11_SMALL} chats of 20 generated messages, written by the store; a figure = TranscriptStore.listChats() (the index in memory after two stats, the chats folder and index.json, that show another window's new, deleted and moved chats and its index writes) + TranscriptStore.searchTitles (the same check, then the lower-cased titles kept with the list), on a store that has listed once, with files older than the racy window (3 s); the first list of a window stats every chat file; "after another window added a chat" = that window created a chat and wrote index.json, then this window listed (the folder read again, one chat read, index.json merged); the full-text search reads every chat file and parses only the ones whose bytes hold the word.`,
    );
    if (p11.ratio.median > p11.goal)
      notes.push(
        `P11 misses (×${fmtNum(p11.ratio.median)}): what is left that grows with the number of chats is copying the sorted list and filtering its titles.`,
      );
  }

  if (wanted("P12")) {
    log("P12 branch switch …");
    const p12: P12Result = await runP12(scratch, log, quick ? 3 : 9);
    results["P12"] = p12;
    rows.push({
      figure: `P12 branch switch (${P12_BIG.toLocaleString("en-US")} ÷ ${P12_SMALL} messages)`,
      measured: `${fmt(p12.ratio)}; ${fmtNum(p12.bigMs.median, 3)} / ${fmtNum(p12.smallMs.median, 3)} ms`,
      baseline: `posted per switch ${fmtNum(p12.postedBytes.big / 1000, 1)} / ${fmtNum(p12.postedBytes.small / 1000, 1)} KB; a full snapshot of the big chat ${fmtNum(p12.postedBytes.bigSnapshot / 1e6, 1)} MB`,
      goal: `≤ ${p12.goal}`,
      verdict: verdictOf(p12.ratio, p12.goal),
    });
    notes.push(
      "P12: each chat saved in transcript format 2 with a second version of its last prompt and answer, opened through ChatService; a switch = ChatSession.switchBranch (the path below the fork swapped in memory, one leaf line appended, a rewind and the changed messages posted), timed to its last event, alternating between the chats.",
    );
  }

  if (wanted("P14")) {
    log("P14 images …");
    const p14: P14Result = await runP14(scratch, log, quick ? 3 : 9);
    results["P14"] = p14;
    const worse = p14.restoreRatio.median >= p14.appendRatio.median ? p14.restoreRatio : p14.appendRatio;
    rows.push({
      figure: `P14 images (${P14_MESSAGES} messages, ${P14_IMAGES} images ÷ none)`,
      measured: `restore ${fmt(p14.restoreRatio)}; ${fmtNum(p14.restoreWithMs.median, 1)} / ${fmtNum(p14.restoreWithoutMs.median, 1)} ms; append ${fmt(p14.appendRatio)}; ${fmtNum(p14.appendWithMs.median, 3)} / ${fmtNum(p14.appendWithoutMs.median, 3)} ms`,
      baseline: `images inline in the transcript (base64): restore ×${fmtNum(p14.inlineRatio.median)} (${fmtNum(p14.restoreInlineMs.median, 0)} ms); transcript ${fmtNum(p14.transcriptBytes.inline / 1e6, 1)} MB vs ${fmtNum(p14.transcriptBytes.with / 1e6, 2)} MB with blobs (${fmtNum(p14.transcriptBytes.without / 1e6, 2)} MB without images)`,
      goal: "≤ 1.5",
      verdict: verdictOf(worse, p14.goal),
    });
    notes.push(
      `P14: ${P14_IMAGES} screenshot-sized PNGs (${fmtNum(p14.imageBytes / 1e6, 1)} MB in all, 320×320 noise that does not compress) attached to user messages of a ${P14_MESSAGES}-message generated chat (${p14.items} items), saved as ChatService saves them (blobs by SHA-256 beside the chat, the line keeps the hash); restore = ChatService.open + the view's items, the same code for both sides (image bytes are read only by a request, thumbnails by the webview from their files); append = externalizeImages + TranscriptStore.append of a text message, alternating between the chats.`,
    );
  }

  for (const [name, d] of Object.entries(data)) log(`  data ${name}: ${d.messages} messages, ${d.items} items, ${d.mb} MB`);
  rmSync(scratch, { recursive: true, force: true });
  return { rows, notes, results, data };
}

async function main(): Promise<void> {
  const started = Date.now();
  const figureArg = args.indexOf("--figure");
  if (figureArg >= 0) {
    // Child mode: one figure, its output as the last stdout line.
    const out = await runFigure((args[figureArg + 1] ?? "").toUpperCase());
    process.stdout.write("\n@@bench " + JSON.stringify(out) + "\n");
    return;
  }
  const rows: Row[] = [];
  const notes: string[] = [];
  const results: Record<string, unknown> = {};
  const data: FigureOutput["data"] = {};
  for (const figure of ORDER) {
    if (!wanted(figure)) continue;
    const out = await runChild(figure);
    rows.push(...out.rows);
    notes.push(...out.notes);
    Object.assign(results, out.results);
    Object.assign(data, out.data);
  }
  const p1 = results["P1"] as P1Result | undefined;

  // ---- output ----
  rows.sort((a, b) => a.figure.slice(0, 2).localeCompare(b.figure.slice(0, 2)));
  notes.sort((a, b) => a.slice(0, 2).localeCompare(b.slice(0, 2)));
  const header: Row = { figure: "figure", measured: "measured: median (min–max, n)", baseline: "baseline / beside it", goal: "goal", verdict: "verdict" };
  const cols = Object.keys(header) as (keyof Row)[];
  const widths = cols.map((c) => Math.max(...[header, ...rows].map((r) => r[c].length)));
  const line = (r: Row) => cols.map((c, i) => r[c].padEnd(widths[i]!)).join(" | ");
  const table = [line(header), widths.map((w) => "-".repeat(w)).join("-|-"), ...rows.map(line)].join("\n");
  console.log("\n" + table + "\n");
  for (const n of notes) console.log("• " + n + "\n");

  const machine = {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? "?",
    memoryGB: round(totalmem() / 2 ** 30, 1),
  };
  const json = {
    date: new Date().toISOString(),
    durationSeconds: round((Date.now() - started) / 1000, 1),
    machine,
    options: { only: only ? [...only] : "all", quick },
    assumptions: {
      P1: `One token (~4 chars) per delta event; bytes: tokens arrive evenly spaced at each rate on a virtual clock; updates and latency: real timers in headless Chromium (60 Hz frame clock). HostChannel's default pacing unless swept (${P1_POLICY_SWEEP.map((p) => p.label).join(", ")}). Rates: ${P1_RATES.map((r) => (Number.isFinite(r) ? r : "all at once")).join(", ")}; the verdict uses ${P1_VERDICT_RATE} tok/s. Bytes: UTF-8 of JSON.stringify of every posted message. The 20,000-token baseline is computed on one seed (it stringifies ~1 GB).`,
      P2: "TranscriptStore defaults (no fsync); appends alternate between the chats; first write of each chat excluded (it probes the file).",
      P3: "Both sides read through a warm OS page cache; GC before each sample.",
      P7: "Faux provider token counts (~4 chars a token over the text of each message); a third of the turns read a 400–1,300-token file; answers 150–500 tokens; summaries 500–900 tokens; seed 7.",
      P4: "Headless Chromium, 420×900 viewport; each delta ~3 tokens (one 50 ms batch at 60 tok/s); figure = renderer main-thread TaskDuration per delta (CDP Performance metrics) incl. the frames and effects it causes.",
    },
    data,
    figures: results,
    table: rows,
    notes,
  };
  const markdown = [
    `| ${cols.map((c) => header[c]).join(" | ")} |`,
    `| ${cols.map(() => "---").join(" | ")} |`,
    ...rows.map((r) => `| ${cols.map((c) => r[c].replace(/\|/g, "\\|")).join(" | ")} |`),
    "",
    `Measured ${json.date.slice(0, 10)} with Node ${machine.node} on ${machine.cores} cores (${machine.cpu}); \`npm run bench\` took ${json.durationSeconds} s.`,
    "",
    "Data (generated by bench/lib/data.ts, seeded): " +
      Object.entries(data)
        .map(([name, d]) => `${name}: ${d.messages.toLocaleString("en-US")} messages, ${d.items.toLocaleString("en-US")} items, ${d.mb} MB`)
        .join("; ") +
      (p1
        ? `; P1 answer: ${p1.tokens.toLocaleString("en-US")} tokens (2,000 thinking + 18,000 text), ~${fmtNum(p1.chars.median, 0)} chars, final message ${fmtNum(p1.finalBytes.median / 1000, 1)} KB as JSON.`
        : "."),
    "",
    ...notes.map((n) => `- ${n}`),
    "",
  ].join("\n");
  if (!only) {
    writeFileSync(join(repoRoot, "bench", "results.json"), JSON.stringify(json, null, 2) + "\n");
    writeFileSync(join(repoRoot, "bench", "results.md"), markdown);
    log(`wrote bench/results.json and bench/results.md (${json.durationSeconds} s)`);
  } else {
    writeFileSync(join(tmpdir(), "pi-chat-bench-partial.json"), JSON.stringify(json, null, 2) + "\n");
    log(`--only: results not written to bench/ (partial JSON in ${join(tmpdir(), "pi-chat-bench-partial.json")})`);
  }
}

/** Runs one figure in a fresh Node process (so one figure's heap never slows another's timing). */
function runChild(figure: string): Promise<FigureOutput> {
  return new Promise((resolvePromise) => {
    const childArgs = [__filename, "--figure", figure, ...(quick ? ["--quick"] : [])];
    const child = spawn(process.execPath, childArgs, { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.on("close", (code) => {
      const line = stdout.split("\n").find((l) => l.startsWith("@@bench "));
      if (code === 0 && line) {
        resolvePromise(JSON.parse(line.slice("@@bench ".length)) as FigureOutput);
        return;
      }
      const reason = `child process for ${figure} exited with ${String(code)}`;
      resolvePromise({
        rows: [{ figure: `${figure} (failed)`, measured: reason, baseline: "—", goal: "—", verdict: "n/a" }],
        notes: [`${figure}: ${reason}; see the log above.`],
        results: { [figure]: { status: "failed", reason } },
        data: {},
      });
    });
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
