// P19 webview memory and P22 panel open, in real Chromium with the built bundle (out/webview.js,
// out/webview.css), served as P4 serves it (bench/figures/p4-render.ts).
//
// P19: a chat restored as the host restores it (`restoredState`: the newest ~200 messages' items),
// scrolled from the newest message to the oldest — the view asks for the earlier messages when it
// comes near them and this harness answers as the host does (`items/earlier` with
// `earlierItems`) — and back to the newest, two viewport heights per frame. Then a GC (CDP
// HeapProfiler.collectGarbage, twice) and the JS heap (Runtime.getHeapUsage usedSize) and the DOM
// (CDP Performance metric `Nodes`: every node the renderer holds, text nodes and nodes not yet
// collected included; and the elements in the document). The 10,000-message side ÷ the
// 100-message side, each in its own browser context. Then a new chat (a snapshot of an empty
// chat, as New Chat sends), a GC, and the heap ÷ a fresh view's (a page that only ever showed an
// empty chat).
//
// P22: from navigation start (performance.timeOrigin) to the composer accepting input: the
// textarea is there, enabled, not read-only, takes the focus, and the snapshot's chat is drawn
// (its items counted by the bundle, the newest one in the DOM). The page's stand-in for VS Code
// answers `view/ready` with the snapshot at once, as the host's view provider does, so no
// harness round trip is in it. The largest chat (10,000 messages, restored) ÷ an empty chat.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { HostChannel } from "../../src/shared/host-channel";
import type { ChatEvent, HostMessageBody, HostPost } from "../../src/shared/protocol";
import { chatItems, earlierItems, emptyChatState, restoredState, type ChatState } from "../../src/shared/reducer";
import { CHROMIUM_LAUNCH_ARGS } from "../../test/support/chromium-args";
import { VirtualClock } from "../lib/clock";
import { heapCensus, type HeapCensus } from "../lib/heap-census";
import { median, summarize, type Summary } from "../lib/stats";
import { CHROMIUM, serve } from "./p4-render";

type Browser = import("playwright-core").Browser;
type Page = import("playwright-core").Page;
type CDPSession = import("playwright-core").CDPSession;

export interface P19Side {
  messages: number;
  /** Items the view held at the end (every one, once the earlier ones came). */
  items: number;
  heapMB: number;
  /** CDP `Nodes`: all DOM nodes the renderer holds. */
  nodes: number;
  elements: number;
  /** The most elements in the document at any step of the walk. */
  maxElements: number;
  steps: number;
  walkMs: number;
}

export interface P19Result {
  big: P19Side;
  small: P19Side;
  heapRatio: number;
  nodesRatio: number;
  elementsRatio: number;
  /** After switching the big side to a new chat and a GC, ÷ a fresh view. */
  afterSwitchMB: number;
  /** The same after the 100-message side: what any chat shown leaves (the highlighter's module, once loaded, stays). */
  smallAfterSwitchMB: number;
  freshMB: number;
  switchRatio: number;
  /** The heap after New Chat (big side) and a fresh view's, by kind: what the difference is made of. */
  afterSwitchCensus: HeapCensus;
  freshCensus: HeapCensus;
  chromium: string;
}

export interface P22Result {
  bigMs: Summary;
  emptyMs: Summary;
  ratio: Summary;
  bigMessages: number;
  bigItemsShown: number;
  runs: number;
}

const STATUS = { modelLabel: "anthropic/claude-sonnet-4-5", storage: "workspace" as const, canContinue: false, editsAllowedForChat: false };

/** The wire posts of a snapshot of `state`, as the host's HostChannel sends them. */
function snapshotPosts(chatId: string, state: ChatState): HostPost[] {
  const wire: HostPost[] = [];
  const channel = new HostChannel((m) => wire.push(m), { schedule: new VirtualClock().schedule });
  channel.send({ type: "view/snapshot", chatId, title: "Benchmark chat", state, status: STATUS, chats: [], attachments: [] });
  channel.flush();
  return wire;
}

async function launch(): Promise<Browser> {
  const { chromium } = (await import("playwright-core")) as typeof import("playwright-core");
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_LAUNCH_ARGS, "--disable-renderer-backgrounding", "--disable-background-timer-throttling"],
  });
}

interface Opened {
  page: Page;
  cdp: CDPSession;
  channel: HostChannel;
  wire: HostPost[];
  errors: string[];
  close(): Promise<void>;
}

async function open(browser: Browser, origin: string): Promise<Opened> {
  const context = await browser.newContext({ viewport: { width: 420, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("crash", () => errors.push("the page crashed"));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => (window as unknown as { __benchOutbox: { type: string }[] }).__benchOutbox.some((m) => m.type === "view/ready"), null, {
    timeout: 15_000,
  });
  const cdp = await context.newCDPSession(page);
  await cdp.send("Performance.enable");
  const wire: HostPost[] = [];
  const channel = new HostChannel((m) => wire.push(m), { schedule: new VirtualClock().schedule });
  return {
    page,
    cdp,
    channel,
    wire,
    errors,
    async close() {
      if (errors.length > 0) throw new Error(`page errors: ${errors.join("; ")}`);
      await context.close();
    },
  };
}

async function send(side: Opened, bodies: readonly HostMessageBody[]): Promise<void> {
  for (const body of bodies) side.channel.send(body);
  side.channel.flush();
  const posts = side.wire.splice(0);
  await side.page.evaluate((list) => {
    for (const m of list) window.postMessage(m, "*");
  }, posts as unknown[]);
  // Applied and drawn: the client's last seq, then two frames.
  await side.page.waitForFunction((seq) => window.__piChatTest?.lastSeq() === seq, side.channel.lastSeq);
  await side.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

async function gcAndMeasure(side: Opened): Promise<{ heapMB: number; nodes: number; elements: number }> {
  for (let i = 0; i < 3; i++) await side.cdp.send("HeapProfiler.collectGarbage");
  const heap = (await side.cdp.send("Runtime.getHeapUsage")) as { usedSize: number };
  const metrics = (await side.cdp.send("Performance.getMetrics")) as { metrics: { name: string; value: number }[] };
  const nodes = metrics.metrics.find((m) => m.name === "Nodes")?.value ?? Number.NaN;
  const elements = await side.page.evaluate(() => document.getElementsByTagName("*").length);
  return { heapMB: heap.usedSize / 1e6, nodes, elements };
}

/** Scrolls two viewport heights per frame toward `dir` until the end; returns early when the view asks for earlier messages. */
async function scrollStep(opened: Opened, dir: 1 | -1): Promise<{ asked: boolean; end: boolean; steps: number; maxElements: number }> {
  return opened.page.evaluate(async (d) => {
    const box = document.querySelector<HTMLElement>(".scroller")!;
    const outbox = (window as unknown as { __benchOutbox: { type: string }[] }).__benchOutbox;
    const asksBefore = outbox.filter((m) => m.type === "chat/loadEarlier").length;
    let steps = 0;
    let still = 0;
    let maxElements = 0;
    for (;;) {
      const before = box.scrollTop;
      box.scrollTop += d * box.clientHeight * 2;
      await new Promise((r) => requestAnimationFrame(r));
      steps++;
      maxElements = Math.max(maxElements, document.getElementsByTagName("*").length);
      if (outbox.filter((m) => m.type === "chat/loadEarlier").length > asksBefore) return { asked: true, end: false, steps, maxElements };
      still = Math.abs(box.scrollTop - before) < 1 ? still + 1 : 0;
      if (still >= 4) return { asked: false, end: true, steps, maxElements };
    }
  }, dir);
}

async function walkSide(browser: Browser, origin: string, messages: readonly AgentMessage[]): Promise<{ side: P19Side; opened: Opened }> {
  const opened = await open(browser, origin);
  const state = restoredState(messages);
  await send(opened, [{ type: "view/snapshot", chatId: "big", title: "Benchmark chat", state, status: STATUS, chats: [], attachments: [] }]);
  const t0 = performance.now();
  let steps = 0;
  let maxElements = 0;
  let earlier = state.earlier;
  // Newest → oldest, answering the view's ask for the earlier messages as the host does.
  for (;;) {
    const r = await scrollStep(opened, -1).catch((e: unknown) => {
      throw new Error(`${String(e).slice(0, 200)}; page: ${opened.errors.join("; ")}`);
    });
    steps += r.steps;
    maxElements = Math.max(maxElements, r.maxElements);
    if (r.asked && earlier !== undefined) {
      const event: ChatEvent = { type: "items/earlier", count: earlier, items: earlierItems(messages, earlier) };
      earlier = undefined;
      await send(opened, [{ type: "chat/event", event }]);
      continue;
    }
    if (r.end) break;
  }
  // … and back to the newest.
  const down = await scrollStep(opened, 1);
  steps += down.steps;
  maxElements = Math.max(maxElements, down.maxElements);
  const walkMs = performance.now() - t0;
  const items = await opened.page.evaluate(() => window.__piChatTest!.itemCount());
  const m = await gcAndMeasure(opened);
  return { side: { messages: messages.length, items, heapMB: m.heapMB, nodes: m.nodes, elements: m.elements, maxElements, steps, walkMs }, opened };
}

export async function runP19(outDir: string, big: readonly AgentMessage[], small: readonly AgentMessage[], log: (line: string) => void): Promise<P19Result> {
  const { server, origin } = await serve(outDir);
  const browser = await launch();
  try {
    const s = await walkSide(browser, origin, small);
    await send(s.opened, [{ type: "view/snapshot", chatId: "new", title: "New chat", state: emptyChatState, status: STATUS, chats: [], attachments: [] }]);
    const smallAfter = await gcAndMeasure(s.opened);
    await s.opened.close();
    log(`  P19 ${s.side.messages} messages: ${s.side.heapMB.toFixed(1)} MB heap, ${s.side.nodes} nodes, ${s.side.elements} elements`);
    const b = await walkSide(browser, origin, big);
    log(
      `  P19 ${b.side.messages} messages: ${b.side.heapMB.toFixed(1)} MB heap, ${b.side.nodes} nodes, ${b.side.elements} elements (${b.side.items} items, ${b.side.steps} steps)`,
    );
    // New Chat: an empty chat's snapshot, then GC.
    await send(b.opened, [{ type: "view/snapshot", chatId: "new", title: "New chat", state: emptyChatState, status: STATUS, chats: [], attachments: [] }]);
    const after = await gcAndMeasure(b.opened);
    // After the figure's reading (the snapshot runs a GC of its own).
    const afterSwitchCensus = await heapCensus(b.opened.cdp);
    await b.opened.close();
    const fresh = await open(browser, origin);
    await send(fresh, [{ type: "view/snapshot", chatId: "new", title: "New chat", state: emptyChatState, status: STATUS, chats: [], attachments: [] }]);
    const freshM = await gcAndMeasure(fresh);
    const freshCensus = await heapCensus(fresh.cdp);
    await fresh.close();
    return {
      big: b.side,
      small: s.side,
      heapRatio: b.side.heapMB / s.side.heapMB,
      nodesRatio: b.side.nodes / s.side.nodes,
      elementsRatio: b.side.elements / s.side.elements,
      afterSwitchMB: after.heapMB,
      smallAfterSwitchMB: smallAfter.heapMB,
      freshMB: freshM.heapMB,
      switchRatio: after.heapMB / freshM.heapMB,
      afterSwitchCensus,
      freshCensus,
      chromium: browser.version(),
    };
  } finally {
    await browser.close();
    server.close();
  }
}

/**
 * One panel open: a new page whose VS Code stand-in answers `view/ready` with `posts` at once;
 * the time from navigation start to the composer accepting input with the chat drawn.
 */
async function openOnce(browser: Browser, origin: string, posts: readonly HostPost[], items: number, lastId: string | undefined): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 420, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  await page.addInitScript(
    ({ posts, items, lastId }) => {
      const w = window as unknown as { acquireVsCodeApi?: () => { postMessage(m: unknown): void }; __p22?: number };
      // Wraps the page's stand-in (set by its inline script) so view/ready is answered at once.
      let real: (() => { postMessage(m: unknown): void }) | undefined;
      Object.defineProperty(w, "acquireVsCodeApi", {
        configurable: true,
        get: () => () => {
          const api = real!();
          const post = api.postMessage.bind(api);
          api.postMessage = (m: unknown) => {
            post(m);
            if ((m as { type?: string }).type === "view/ready") for (const p of posts) window.postMessage(p, "*");
          };
          return api;
        },
        set: (f) => {
          real = f;
        },
      });
      const check = () => {
        const input = document.querySelector<HTMLTextAreaElement>("[data-composer-input]");
        const drawn = lastId === undefined || document.querySelector(`[data-item="${lastId}"]`) !== null;
        if (input && !input.disabled && !input.readOnly && drawn && window.__piChatTest?.itemCount() === items) {
          input.focus();
          if (document.activeElement === input) {
            w.__p22 = performance.now();
            return;
          }
        }
        requestAnimationFrame(check);
      };
      requestAnimationFrame(check);
    },
    { posts: posts as unknown[], items, lastId },
  );
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => (window as unknown as { __p22?: number }).__p22 !== undefined, null, { timeout: 30_000, polling: 20 });
  const ms = await page.evaluate(() => (window as unknown as { __p22: number }).__p22);
  await context.close();
  return ms;
}

export async function runP22(outDir: string, big: readonly AgentMessage[], log: (line: string) => void, runs = 7): Promise<P22Result> {
  const { server, origin } = await serve(outDir);
  const browser = await launch();
  try {
    const state = restoredState(big);
    const shown = chatItems(state);
    const bigPosts = snapshotPosts("big", state);
    const emptyPosts = snapshotPosts("empty", emptyChatState);
    const lastId = shown.at(-1)?.id;
    // One warm-up of each (the browser's first page pays for its own start).
    await openOnce(browser, origin, emptyPosts, 0, undefined);
    await openOnce(browser, origin, bigPosts, shown.length, lastId);
    const bigMs: number[] = [];
    const emptyMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const order = i % 2 === 0 ? ["empty", "big"] : ["big", "empty"];
      for (const which of order) {
        if (which === "big") bigMs.push(await openOnce(browser, origin, bigPosts, shown.length, lastId));
        else emptyMs.push(await openOnce(browser, origin, emptyPosts, 0, undefined));
      }
    }
    const ratios = bigMs.map((b, i) => b / emptyMs[i]!);
    log(`  P22 ${big.length} messages: ${median(bigMs).toFixed(0)} ms, empty ${median(emptyMs).toFixed(0)} ms`);
    return { bigMs: summarize(bigMs), emptyMs: summarize(emptyMs), ratio: summarize(ratios), bigMessages: big.length, bigItemsShown: shown.length, runs };
  } finally {
    await browser.close();
    server.close();
  }
}
