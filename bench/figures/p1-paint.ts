// P1, how live a streamed answer looks: in real Chromium (Debian's /usr/bin/chromium, headless,
// at its normal ~60 Hz frame clock) with the built webview bundle, tokens handed to the host's
// channel on real timers at 30, 60 and 120 tokens/s. For each token: the time from its hand-over
// to the end of the frame that painted it (token-to-paint latency); for the stream: frames a
// second whose DOM changed (view updates). The host side runs in the page (bench/page/p1-driver.ts):
// the same HostChannel the extension uses, posting with window.postMessage. Beside it, in the
// same browser and run, the old policy (hold until 48 characters or 200 ms) at 60 tokens/s.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { P1PageRun } from "../page/p1-driver";
import { markdownTokens, Rng } from "../lib/random";
import { summarize, type Summary } from "../lib/stats";
import { CHROMIUM, serve } from "./p4-render";
import { CHROMIUM_LAUNCH_ARGS } from "../../test/support/chromium-args";

export const P1_PAINT_RATES = [30, 60, 120] as const;

export interface P1PaintRun {
  rate: number;
  policy: "paced" | "size-batched";
  latency: Summary;
  p95: number;
  paintedUpdatesPerSecond: number;
  postsPerSecond: number;
  tokens: number;
}

export interface P1PaintResult {
  runs: P1PaintRun[];
  latencyGoalMs: number;
  updatesGoal: number;
  chromium: string;
}

function quantile(sorted: readonly number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export async function runP1Paint(outDir: string, log: (line: string) => void, seconds = 10): Promise<P1PaintResult> {
  if (!existsSync(join(outDir, "bench-p1-driver.js"))) throw new Error("out/bench-p1-driver.js not built (node scripts/build.mjs --bench)");
  const { chromium } = (await import("playwright-core")) as typeof import("playwright-core");
  const { server, origin } = await serve(outDir, ["bench-p1-driver.js"]);
  // No frame-rate flags: the figure is about what a 60 Hz screen shows.
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_LAUNCH_ARGS, "--disable-renderer-backgrounding", "--disable-background-timer-throttling"],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 420, height: 900 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(origin + "/");
    await page.waitForFunction(() => typeof window.__p1 === "object" && typeof window.__piChatTest === "object", null, { timeout: 15_000 });
    const configs: { rate: number; policy: P1PaintRun["policy"] }[] = [
      ...P1_PAINT_RATES.map((rate) => ({ rate, policy: "paced" as const })),
      { rate: 60, policy: "size-batched" },
    ];
    // Warm-up (JIT, fonts, first layout), not counted.
    await page.evaluate((tokens) => window.__p1!.run({ tokens, rate: 60, policy: "paced" }), markdownTokens(new Rng(1), 60));
    const runs: P1PaintRun[] = [];
    for (const [i, config] of configs.entries()) {
      const tokens = markdownTokens(new Rng(100 + i), Math.round(config.rate * seconds));
      const r: P1PageRun = await page.evaluate((args) => window.__p1!.run(args), { tokens, ...config });
      if (errors.length) throw new Error(`page errors: ${errors.join("; ")}`);
      const sorted = [...r.latencies].sort((a, b) => a - b);
      const run: P1PaintRun = {
        ...config,
        latency: { ...summarize(r.latencies), samples: [] },
        p95: quantile(sorted, 0.95),
        paintedUpdatesPerSecond: r.paintedUpdatesPerSecond,
        postsPerSecond: r.postsPerSecond,
        tokens: tokens.length,
      };
      log(
        `  P1 paint ${config.policy} @ ${config.rate} tok/s: p50 ${run.latency.median.toFixed(1)} ms, p95 ${run.p95.toFixed(1)} ms, ${run.paintedUpdatesPerSecond.toFixed(1)} painted updates/s, ${run.postsPerSecond.toFixed(1)} posts/s`,
      );
      runs.push(run);
    }
    return { runs, latencyGoalMs: 60, updatesGoal: 20, chromium: CHROMIUM };
  } finally {
    await browser.close();
    server.close();
  }
}
