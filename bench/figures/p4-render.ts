// P4 render: in real Chromium (Debian's /usr/bin/chromium, headless, via playwright-core) with the
// built webview bundle (out/webview.js + out/webview.css): time from posting one streamed delta to
// the end of the frame that paints it, with 2,000 items in the chat ÷ with 10.
//
// The page is served from a local node:http server on 127.0.0.1 with a CSP like the host's (only
// nonce'd scripts, styles/fonts/images from the server). It defines acquireVsCodeApi, sets
// body[data-test="1"] (so the bundle exposes window.__piChatTest) and, once the bundle said
// `view/ready`, gets a `view/snapshot` (seq 1) of a restored chat and then events with seq = last + 1. Every
// message comes from the real HostChannel (so deltas arrive in whatever wire form the host posts,
// e.g. DeltaFrames), one post per delta: HostChannel.flush() after each.
//
// What is timed, per delta: the renderer's main-thread time to apply and paint it — CDP
// Performance.getMetrics `TaskDuration` (every task of the page's main thread: the message
// handler, the reducer, Preact's render, style, layout, paint, and Preact's effects after the frame)
// summed over a batch of deltas, each followed by the frames it causes, ÷ the number of deltas.
// Why not the wall time to the painted frame: headless Chromium paints at a fixed ~60 Hz frame clock,
// so "post → rAF → after the frame" is ~16.7 ms whatever the work (it is reported too, as a check
// that every delta is painted within the next frame at both sizes). Also reported: the synchronous
// part (message → reducer → Preact render → forced style + layout), timed in the page (cross-origin
// isolated, so performance.now() has 5 µs resolution). Raster runs off the main thread and is not in it.
// The two pages (10 and 2,000 items) live side by side in one browser; blocks alternate.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { readFileSync, existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { HostChannel } from "../../src/shared/host-channel";
import type { ChatEvent, HostPost } from "../../src/shared/protocol";
import { chatItems, stateFromTranscript } from "../../src/shared/reducer";
import { webviewHtml } from "../../src/shared/webview-page";
import { VirtualClock } from "../lib/clock";
import { markdownTokens, Rng } from "../lib/random";
import { median, summarize, type Summary } from "../lib/stats";
import { pendingAnswer } from "../lib/pending-answer";
import { CHROMIUM_LAUNCH_ARGS } from "../../test/support/chromium-args";

export const P4_BIG = 2_000;
export const P4_SMALL = 10;
export const CHROMIUM = "/usr/bin/chromium";

export interface P4Result {
  /** Main-thread time (all renderer tasks: reducer, Preact, style, layout, paint, effects) per delta, big ÷ small. */
  ratio: Summary;
  bigMs: Summary;
  smallMs: Summary;
  styleLayoutBigMs: Summary;
  styleLayoutSmallMs: Summary;
  /** Wall time post → painted frame; bounded below by the ~16.7 ms frame clock of headless Chromium. */
  wallRatio: Summary;
  wallBigMs: Summary;
  wallSmallMs: Summary;
  syncRatio: Summary;
  syncBigMs: Summary;
  syncSmallMs: Summary;
  bigItems: number;
  smallItems: number;
  snapshotMs: { big: number; small: number };
  samplesPerRun: number;
  chromium: string;
  goal: number;
}

const TYPES: Record<string, string> = {
  ".js": "text/javascript",
  ".css": "text/css",
  ".ttf": "font/ttf",
  ".woff2": "font/woff2",
  ".svg": "image/svg+xml",
  ".map": "application/json",
};

/** Cross-origin isolation: performance.now() gets 5 µs resolution instead of 100 µs. */
const ISOLATED = { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" };

function page(nonce: string, origin: string, extraScripts: readonly string[]): string {
  return webviewHtml({
    cspSource: origin,
    nonce,
    styles: [`${origin}/webview.css`],
    inlineScript: BENCH_VSCODE_API,
    scripts: [`${origin}/webview.js`, ...extraScripts.map((name) => `${origin}/${name}`)],
    bodyAttributes: `data-test="1"`,
    title: "Pi Chat bench",
  });
}

/** A stand-in for acquireVsCodeApi that records what the webview posts. */
const BENCH_VSCODE_API = `
(() => {
  const outbox = [];
  let state;
  window.__benchOutbox = outbox;
  window.acquireVsCodeApi = () => ({
    postMessage: (m) => outbox.push(m),
    getState: () => state,
    setState: (s) => { state = s; },
  });
})();
`;

/** Serves the webview page (and flat files of `outDir`); `extraScripts` are loaded after the bundle. */
export function serve(outDir: string, extraScripts: readonly string[] = []): Promise<{ server: Server; origin: string; cspViolations: () => number }> {
  const nonce = randomBytes(18)
    .toString("base64")
    .replace(/[^A-Za-z0-9]/g, "");
  return new Promise((resolve) => {
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      if (url.pathname === "/") {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", ...ISOLATED });
        res.end(page(nonce, origin, extraScripts));
        return;
      }
      if (url.pathname === "/favicon.ico") {
        res.writeHead(204).end();
        return;
      }
      const name = url.pathname.slice(1);
      const ext = name.slice(name.lastIndexOf("."));
      // Only flat files of out/ (the bundle and its assets).
      if (!/^[A-Za-z0-9._-]+$/.test(name) || !TYPES[ext] || !existsSync(join(outDir, name))) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { "content-type": TYPES[ext]!, ...ISOLATED });
      res.end(readFileSync(join(outDir, name)));
    });
    server.listen(0, "127.0.0.1", () => {
      resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, cspViolations: () => 0 });
    });
  });
}

type Page = import("playwright-core").Page;

interface Side {
  name: "small" | "big";
  page: Page;
  cdp: import("playwright-core").CDPSession;
  /** The real HostChannel makes every message the page gets, in the wire form the host posts. */
  channel: HostChannel;
  wire: HostPost[];
  items: number;
  snapshotMs: number;
}

async function openSide(browser: import("playwright-core").Browser, origin: string, name: Side["name"], messages: readonly AgentMessage[]): Promise<Side> {
  const context = await browser.newContext({ viewport: { width: 420, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("response", (r) => {
    if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`);
  });
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  await page.goto(origin + "/");
  await page.waitForFunction(() => (window as unknown as { __benchOutbox: { type: string }[] }).__benchOutbox.some((m) => m.type === "view/ready"), null, {
    timeout: 15_000,
  });
  const hasHook = await page.evaluate(() => typeof window.__piChatTest === "object");
  if (!hasHook) throw new Error("P4: the bundle did not expose window.__piChatTest (body data-test=1)");
  const state = stateFromTranscript(messages);
  const items = chatItems(state).length;
  const wire: HostPost[] = [];
  const channel = new HostChannel((m) => wire.push(m), { schedule: new VirtualClock().schedule });
  channel.send({
    type: "view/snapshot",
    chatId: `bench-${name}`,
    title: "Benchmark chat",
    state,
    status: { modelLabel: "anthropic/claude-sonnet-4-5", storage: "workspace", canContinue: false, editsAllowedForChat: false },
    chats: [],
    attachments: [],
  });
  const snapshot: unknown[] = wire.splice(0);
  const snapshotMs = await page.evaluate(
    async ({ snapshot, items }) => {
      const t0 = performance.now();
      for (const m of snapshot) window.postMessage(m, "*");
      while (window.__piChatTest!.itemCount() !== items) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      return performance.now() - t0;
    },
    { snapshot, items },
  );
  const cdp = await context.newCDPSession(page);
  await cdp.send("Performance.enable");
  const side: Side = { name, page, cdp, channel, wire, items, snapshotMs };
  // A new turn whose answer streams: the user message, then the assistant's start and its text block.
  const user = { role: "user" as const, content: "Go on, explain the rest.", timestamp: 1 };
  await post(side, [
    { type: "chat/runState", running: true },
    { type: "message/start", message: user },
    { type: "message/end", message: user },
    { type: "message/start", message: pendingAnswer(2) },
    { type: "message/blockStart", index: 0, block: "text" },
  ]);
  if (errors.length) throw new Error(`P4: page errors: ${errors.join("; ")}`);
  const visible = await page.evaluate(() => document.visibilityState);
  if (visible !== "visible") throw new Error(`P4: page ${name} is ${visible}; rAF would be throttled`);
  if (!(await page.evaluate(() => crossOriginIsolated))) throw new Error("P4: page not cross-origin isolated (coarse timers)");
  side.items = await page.evaluate(() => window.__piChatTest!.itemCount());
  return side;
}

/** The wire messages (and the seq the page must reach) for `events`, from the real HostChannel. */
function wireFor(side: Side, events: ChatEvent[]): { message: HostPost; seq: number }[] {
  const out: { message: HostPost; seq: number }[] = [];
  for (const event of events) {
    side.channel.sendEvent(event);
    side.channel.flush();
    for (const message of side.wire.splice(0)) out.push({ message, seq: side.channel.lastSeq });
  }
  return out;
}

async function post(side: Side, events: ChatEvent[]): Promise<void> {
  const messages: unknown[] = wireFor(side, events).map((m) => m.message);
  await side.page.evaluate(async (messages) => {
    for (const m of messages) window.postMessage(m, "*");
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  }, messages);
  const last = await side.page.evaluate(() => window.__piChatTest!.lastSeq());
  if (last !== side.channel.lastSeq) throw new Error(`P4: ${side.name} page is at seq ${last}, expected ${side.channel.lastSeq} (resync?)`);
}

interface Sample {
  /** Main-thread time per delta (CDP Performance.getMetrics TaskDuration, all tasks of the page's renderer). */
  taskMs: number;
  /** Of that: style recalculation + layout. */
  styleLayoutMs: number;
  /** Per-sample wall times: post → end of the frame that shows it (bounded below by the frame clock). */
  wall: number[];
  /** Per-sample: message → reducer → Preact render → forced style + layout, no frame. */
  sync: number[];
}

type Metrics = Record<string, number>;

async function metrics(side: Side): Promise<Metrics> {
  const { metrics } = (await side.cdp.send("Performance.getMetrics")) as { metrics: { name: string; value: number }[] };
  return Object.fromEntries(metrics.map((m) => [m.name, m.value]));
}

/**
 * Posts 2 × texts.length deltas to one page, each followed by the frames it causes (and Preact's
 * effects after them). Returns the main-thread time per delta over the batch, and per-sample times.
 */
async function measure(side: Side, texts: readonly string[]): Promise<Sample> {
  // Two deltas per sample (one timed to the painted frame, one timed synchronously), each one post.
  const wirePairs = texts.map((text) =>
    wireFor(side, [
      { type: "message/delta", index: 0, text },
      { type: "message/delta", index: 0, text },
    ]),
  );
  if (wirePairs.some((p) => p.length !== 2)) throw new Error("P4: HostChannel did not post one message per flushed delta");
  // (typed loosely for page.evaluate's serializer; the values are the HostChannel's posts)
  const pairs = wirePairs as unknown as [{ message: unknown; seq: number }, { message: unknown; seq: number }][];
  const before = await metrics(side);
  const result = await side.page.evaluate(async (pairs) => {
    const wall: number[] = [];
    const sync: number[] = [];
    const hook = window.__piChatTest!;
    const channel = new MessageChannel();
    const frameDone = () =>
      new Promise<void>((resolve) =>
        requestAnimationFrame(() => {
          channel.port1.onmessage = () => resolve();
          channel.port2.postMessage(0);
        }),
      );
    // Preact runs effects in a timeout after the next frame; let them and the frame they cause finish.
    const settle = async () => {
      await new Promise((r) => setTimeout(r, 0));
      await frameDone();
    };
    for (const [m1, m2] of pairs) {
      const t0 = performance.now();
      window.postMessage(m1!.message, "*");
      await frameDone();
      const t1 = performance.now();
      if (hook.lastSeq() !== m1!.seq) throw new Error(`delta ${m1!.seq} not applied within the frame (at ${hook.lastSeq()})`);
      wall.push(t1 - t0);
      await settle();
      // A listener added after the app's runs after its handler and Preact's microtask render.
      const syncMs = await new Promise<number>((resolve) => {
        let s0 = 0;
        const after = () => {
          if (hook.lastSeq() !== m2!.seq) return;
          window.removeEventListener("message", after);
          void document.body.offsetHeight; // forces style + layout of what the render changed
          resolve(performance.now() - s0);
        };
        window.addEventListener("message", after);
        s0 = performance.now();
        window.postMessage(m2!.message, "*");
      });
      sync.push(syncMs);
      await frameDone();
      await settle();
    }
    return { wall, sync };
  }, pairs);
  const after = await metrics(side);
  const last = await side.page.evaluate(() => window.__piChatTest!.lastSeq());
  if (last !== side.channel.lastSeq) throw new Error(`P4: ${side.name} page is at seq ${last}, expected ${side.channel.lastSeq}`);
  const deltas = texts.length * 2;
  const d = (name: string) => (((after[name] ?? 0) - (before[name] ?? 0)) * 1000) / deltas;
  return { taskMs: d("TaskDuration"), styleLayoutMs: d("RecalcStyleDuration") + d("LayoutDuration"), ...result };
}

export async function runP4(
  outDir: string,
  bigChat: readonly AgentMessage[],
  smallChat: readonly AgentMessage[],
  log: (line: string) => void,
  runs = 9,
  samplesPerRun = 15,
): Promise<P4Result> {
  const { chromium } = (await import("playwright-core")) as typeof import("playwright-core");
  const { server, origin } = await serve(outDir);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      ...CHROMIUM_LAUNCH_ARGS,
      "--disable-frame-rate-limit",
      "--disable-gpu-vsync",
      "--disable-renderer-backgrounding",
      "--disable-background-timer-throttling",
      "--disable-backgrounding-occluded-windows",
    ],
  });
  try {
    const small = await openSide(browser, origin, "small", smallChat);
    const big = await openSide(browser, origin, "big", bigChat);
    log(`  P4 snapshot rendered: ${small.items} items in ${small.snapshotMs.toFixed(0)} ms, ${big.items} items in ${big.snapshotMs.toFixed(0)} ms`);
    // ~3 tokens per delta: what one 50 ms batch carries at 60 tokens/s.
    const tokens = markdownTokens(new Rng(4), (runs + 1) * samplesPerRun * 3);
    const deltas: string[] = [];
    for (let i = 0; i + 3 <= tokens.length; i += 3) deltas.push(tokens.slice(i, i + 3).join(""));
    const batch = (run: number) => deltas.slice(run * samplesPerRun, (run + 1) * samplesPerRun);
    // Warm-up: the same text on both sides.
    await measure(small, batch(0));
    await measure(big, batch(0));

    const ratios: number[] = [];
    const wallRatios: number[] = [];
    const syncRatios: number[] = [];
    const acc = {
      taskBig: [] as number[],
      taskSmall: [] as number[],
      slBig: [] as number[],
      slSmall: [] as number[],
      wallBig: [] as number[],
      wallSmall: [] as number[],
      syncBig: [] as number[],
      syncSmall: [] as number[],
    };
    for (let run = 1; run <= runs; run++) {
      const order = run % 2 === 0 ? [small, big] : [big, small];
      const r: Record<string, Sample> = {};
      for (const side of order) r[side.name] = await measure(side, batch(run));
      const b = r["big"]!;
      const s = r["small"]!;
      ratios.push(b.taskMs / s.taskMs);
      wallRatios.push(median(b.wall) / median(s.wall));
      syncRatios.push(median(b.sync) / median(s.sync));
      acc.taskBig.push(b.taskMs);
      acc.taskSmall.push(s.taskMs);
      acc.slBig.push(b.styleLayoutMs);
      acc.slSmall.push(s.styleLayoutMs);
      acc.wallBig.push(median(b.wall));
      acc.wallSmall.push(median(s.wall));
      acc.syncBig.push(median(b.sync));
      acc.syncSmall.push(median(s.sync));
      log(
        `  P4 run ${run}/${runs}: main thread ${b.taskMs.toFixed(2)} / ${s.taskMs.toFixed(2)} ms per delta = ${(b.taskMs / s.taskMs).toFixed(2)} ` +
          `(style+layout ${b.styleLayoutMs.toFixed(2)} / ${s.styleLayoutMs.toFixed(2)}); to painted frame ${median(b.wall).toFixed(2)} / ${median(s.wall).toFixed(2)} ms; sync ${median(b.sync).toFixed(3)} / ${median(s.sync).toFixed(3)} ms`,
      );
    }
    return {
      ratio: summarize(ratios),
      bigMs: summarize(acc.taskBig),
      smallMs: summarize(acc.taskSmall),
      styleLayoutBigMs: summarize(acc.slBig),
      styleLayoutSmallMs: summarize(acc.slSmall),
      wallRatio: summarize(wallRatios),
      wallBigMs: summarize(acc.wallBig),
      wallSmallMs: summarize(acc.wallSmall),
      syncRatio: summarize(syncRatios),
      syncBigMs: summarize(acc.syncBig),
      syncSmallMs: summarize(acc.syncSmall),
      bigItems: big.items,
      smallItems: small.items,
      snapshotMs: { big: big.snapshotMs, small: small.snapshotMs },
      samplesPerRun,
      chromium: browser.version(),
      goal: 2,
    };
  } finally {
    await browser.close();
    server.close();
  }
}
