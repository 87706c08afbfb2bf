// In-page driver for P1's token-to-paint figure (bundled to out/bench-p1-driver.js, loaded after
// out/webview.js on the bench page). It plays the host: a real HostChannel (or the old
// size-batched policy) posts to the webview with window.postMessage, fed one token at a time on
// real timers at a given rate. It records when each token was handed to the channel and, after
// every painted frame, which seq the webview had committed to the DOM by then. Both clocks are
// the page's performance.now(), so no cross-process clock is involved. (The real host is another
// process; its IPC hop, about a millisecond, is not in this figure.)
import { HostChannel } from "../../src/shared/host-channel";
import type { ChatEvent, HostMessageBody, HostPost } from "../../src/shared/protocol";
import { emptyChatState } from "../../src/shared/reducer";
import { SizeBatchedChannel } from "../baselines/size-batched-channel";

export interface P1PageRun {
  /** ms from a token's hand-over to the channel to the end of the frame that painted it. */
  latencies: number[];
  /** Frames whose DOM changed during the stream, per second. */
  paintedUpdatesPerSecond: number;
  /** Posts per second during the stream. */
  postsPerSecond: number;
  streamMs: number;
}

interface Channel {
  readonly lastSeq: number;
  sendEvent(event: ChatEvent): void;
  send(body: HostMessageBody): void;
  flush(): void;
}

const schedule = (callback: () => void, ms: number): (() => void) => {
  const timer = setTimeout(callback, ms);
  return () => clearTimeout(timer);
};
const now = () => performance.now();

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

async function run(options: { tokens: string[]; rate: number; policy: "paced" | "size-batched" }): Promise<P1PageRun> {
  const hook = window.__piChatTest!;
  const posts: { seq: number; tokensIn: number }[] = [];
  let sent = 0;
  let channel: Channel;
  const post = (message: HostPost) => {
    posts.push({ seq: channel.lastSeq, tokensIn: sent });
    window.postMessage(message, "*");
  };
  channel = options.policy === "paced" ? new HostChannel(post, { schedule, now }) : new SizeBatchedChannel(post, schedule, now);
  channel.send({
    type: "view/snapshot",
    chatId: `p1-${options.policy}-${options.rate}`,
    title: "P1",
    state: emptyChatState,
    status: { modelLabel: "bench/model", storage: "workspace", canContinue: false, editsAllowedForChat: false },
    chats: [],
    attachments: [],
  });
  const user = { role: "user" as const, content: "Explain it.", timestamp: 1 };
  for (const event of [
    { type: "chat/runState", running: true },
    { type: "message/start", message: user },
    { type: "message/end", message: user },
    {
      type: "message/start",
      message: { role: "assistant", content: [], api: "bench", provider: "bench", model: "bench", usage, stopReason: "stop", timestamp: 2 },
    },
    { type: "message/blockStart", index: 0, block: "text" },
  ] as ChatEvent[])
    channel.sendEvent(event);
  await new Promise<void>((resolve) => {
    const wait = () => (hook.renderedSeq() >= channel.lastSeq ? resolve() : setTimeout(wait, 10));
    wait();
  });

  // After every frame: which seq was on screen. rAF runs before the paint; a message posted from
  // it is handled after the frame.
  const frames: { at: number; seq: number }[] = [];
  let watching = true;
  const afterFrame = new MessageChannel();
  afterFrame.port1.onmessage = () => {
    frames.push({ at: performance.now(), seq: hook.renderedSeq() });
    if (watching) requestAnimationFrame(() => afterFrame.port2.postMessage(0));
  };
  requestAnimationFrame(() => afterFrame.port2.postMessage(0));

  const tokenAt: number[] = [];
  const setUpPosts = posts.length;
  const interval = 1000 / options.rate;
  const start = performance.now() + 50;
  for (let i = 0; i < options.tokens.length; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    tokenAt.push(performance.now());
    sent = i + 1;
    channel.sendEvent({ type: "message/delta", index: 0, text: options.tokens[i]! });
  }
  const lastTokenAt = performance.now();
  const streamPosts = posts.length - setUpPosts;
  // Let the held tail go out and be painted.
  await new Promise((r) => setTimeout(r, 400));
  channel.flush();
  await new Promise((r) => setTimeout(r, 100));
  watching = false;
  await new Promise((r) => setTimeout(r, 50));

  const latencies: number[] = [];
  let p = 0;
  let f = 0;
  for (let i = 0; i < tokenAt.length; i++) {
    while (p < posts.length && posts[p]!.tokensIn <= i) p++;
    const carrier = posts[p];
    if (!carrier) throw new Error(`token ${i} was never posted`);
    while (f < frames.length && (frames[f]!.seq < carrier.seq || frames[f]!.at < tokenAt[i]!)) f++;
    const frame = frames[f];
    if (!frame) throw new Error(`token ${i} (seq ${carrier.seq}) was never painted`);
    latencies.push(frame.at - tokenAt[i]!);
  }
  const streamMs = lastTokenAt - tokenAt[0]!;
  const during = frames.filter((fr) => fr.at >= tokenAt[0]! && fr.at <= lastTokenAt);
  let changes = 0;
  for (let i = 1; i < during.length; i++) if (during[i]!.seq !== during[i - 1]!.seq) changes++;
  return { latencies, paintedUpdatesPerSecond: (changes * 1000) / streamMs, postsPerSecond: (streamPosts * 1000) / streamMs, streamMs };
}

declare global {
  interface Window {
    __p1?: { run: typeof run };
  }
}

window.__p1 = { run };
