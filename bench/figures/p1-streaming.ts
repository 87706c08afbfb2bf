// P1 streaming bytes: everything the host posts to the webview while one long answer streams,
// ÷ the bytes of the final message. Pi Chat's path: AgentEvents → AgentEventEncoder → HostChannel
// (real code, its default pacing unless a sweep says otherwise) on a virtual clock, one token per
// delta event arriving every 1/rate seconds. Bytes are UTF-8 bytes of JSON.stringify of each posted
// value (HostMessage objects and DeltaFrames alike), as postMessage carries them. Beside it, the
// policy the channel had before (hold until 48 characters or 200 ms), in today's wire format.
// How live it looks (updates painted a second, token-to-paint latency) is measured in Chromium by
// p1-paint.ts.
import { AgentEventEncoder } from "../../src/shared/event-encoder";
import { HostChannel, type HostChannelOptions } from "../../src/shared/host-channel";
import { DeltaFrameReader, type HostPost } from "../../src/shared/protocol";
import { ResendPartialChannel } from "../baselines/resend-partial";
import { SizeBatchedChannel } from "../baselines/size-batched-channel";
import { VirtualClock } from "../lib/clock";
import { streamEvents, streamedAnswer, type StreamedAnswer } from "../lib/data";
import { summarize, type Summary } from "../lib/stats";

export const P1_THINKING_TOKENS = 2_000;
export const P1_TEXT_TOKENS = 18_000;
export const P1_RATES = [30, 60, 120, Infinity] as const;
export const P1_VERDICT_RATE = 60;
const SEEDS = [11, 12, 13, 14, 15];

type Policy = Omit<HostChannelOptions, "schedule" | "now"> & { sizeBatched?: true };
/** Other pacings, run at the verdict rate (real HostChannel with these options, or the old policy). */
export const P1_POLICY_SWEEP: { label: string; options: Policy }[] = [
  { label: "default (33 ms)", options: {} },
  { label: "frameIntervalMs 16", options: { frameIntervalMs: 16 } },
  { label: "frameIntervalMs 25", options: { frameIntervalMs: 25 } },
  { label: "frameIntervalMs 50", options: { frameIntervalMs: 50 } },
  { label: "frameIntervalMs 100", options: { frameIntervalMs: 100 } },
  { label: "frameIntervalMs 0 (every token)", options: { frameIntervalMs: 0 } },
  { label: "old: 48 chars or 200 ms", options: { sizeBatched: true } },
];

const utf8 = (s: string): number => Buffer.byteLength(s, "utf8");

export interface PiChatStreamBytes {
  bytes: number;
  messages: number;
  deltaMessages: number;
  /** UTF-8 bytes of the delta messages, envelope included. */
  deltaBytes: number;
  /** UTF-8 bytes of the delta texts as JSON strings (quotes and escapes included). */
  deltaPayloadBytes: number;
  /** Virtual ms from the first to the last delta post. */
  streamMs: number;
}

/** Decodes posted deltas in order (frames, or a `chat/event` message carrying a delta). */
function deltaTexts(): (message: HostPost) => string | undefined {
  const reader = new DeltaFrameReader();
  return (message) => {
    const frame = reader.read(message);
    if (frame) return frame.text;
    if (typeof message === "object" && !Array.isArray(message) && message.type === "chat/event" && message.event.type === "message/delta")
      return message.event.text;
    return undefined;
  };
}

export function piChatBytes(answer: StreamedAnswer, tokensPerSecond: number, policy: Policy = {}): PiChatStreamBytes {
  const clock = new VirtualClock();
  const encoder = new AgentEventEncoder();
  const result: PiChatStreamBytes = { bytes: 0, messages: 0, deltaMessages: 0, deltaBytes: 0, deltaPayloadBytes: 0, streamMs: 0 };
  let firstDeltaAt: number | undefined;
  const deltaText = deltaTexts();
  const post = (message: HostPost) => {
    const bytes = utf8(JSON.stringify(message));
    result.bytes += bytes;
    result.messages++;
    const text = deltaText(message);
    if (text !== undefined) {
      firstDeltaAt ??= clock.now;
      result.streamMs = clock.now - firstDeltaAt;
      result.deltaMessages++;
      result.deltaBytes += bytes;
      result.deltaPayloadBytes += utf8(JSON.stringify(text));
    }
  };
  const now = () => clock.now;
  const channel = policy.sizeBatched ? new SizeBatchedChannel(post, clock.schedule, now) : new HostChannel(post, { ...policy, schedule: clock.schedule, now });
  let tokens = 0;
  for (const step of streamEvents(answer)) {
    if (step.token) {
      tokens++;
      clock.advanceTo(Number.isFinite(tokensPerSecond) ? (tokens * 1000) / tokensPerSecond : 0);
    }
    for (const event of encoder.encode(step.event)) channel.sendEvent(event);
  }
  clock.advanceTo(Infinity);
  channel.flush();
  return result;
}

export function naiveBytes(answer: StreamedAnswer): number {
  let bytes = 0;
  const channel = new ResendPartialChannel((message) => (bytes += utf8(JSON.stringify(message))));
  for (const step of streamEvents(answer)) channel.send(step.event);
  return bytes;
}

export interface P1RateResult {
  rate: number | "all at once";
  ratio: Summary;
  messages: Summary;
  /** Bytes of a delta message besides its text. */
  deltaEnvelopeBytes: Summary;
  /** Characters of text per delta message. */
  charsPerDelta: Summary;
  /** Delta posts per second of streaming (how often the view can repaint). */
  deltasPerSecond: Summary;
}

export interface P1Result {
  finalBytes: Summary;
  tokens: number;
  chars: Summary;
  byRate: P1RateResult[];
  naive: Summary;
  naiveAt2k: Summary;
  policySweep: (Omit<P1RateResult, "rate"> & { label: string; options: Policy })[];
  verdictRatio: Summary;
  /** Bytes posted ÷ the final message: at most this. */
  goal: number;
  /** Delta posts a second at the verdict rate: at least this. */
  updatesGoal: number;
}

function collect(): { ratio: number[]; messages: number[]; envelope: number[]; chars: number[]; perSecond: number[] } {
  return { ratio: [], messages: [], envelope: [], chars: [], perSecond: [] };
}

function add(into: ReturnType<typeof collect>, r: PiChatStreamBytes, finalBytes: number, chars: number): void {
  into.ratio.push(r.bytes / finalBytes);
  into.messages.push(r.messages);
  into.envelope.push((r.deltaBytes - r.deltaPayloadBytes) / Math.max(1, r.deltaMessages));
  into.chars.push(chars / Math.max(1, r.deltaMessages));
  into.perSecond.push(r.streamMs > 0 ? (r.deltaMessages * 1000) / r.streamMs : NaN);
}

function summaries(c: ReturnType<typeof collect>): Omit<P1RateResult, "rate"> {
  return {
    ratio: summarize(c.ratio),
    messages: summarize(c.messages),
    deltaEnvelopeBytes: summarize(c.envelope),
    charsPerDelta: summarize(c.chars),
    deltasPerSecond: summarize(c.perSecond.filter(Number.isFinite)),
  };
}

export function runP1(log: (line: string) => void): P1Result {
  const finals: number[] = [];
  const chars: number[] = [];
  const perRate = new Map<number, ReturnType<typeof collect>>();
  const sweep = P1_POLICY_SWEEP.map(() => collect());
  const naive: number[] = [];
  const naive2k: number[] = [];
  for (const seed of SEEDS) {
    const answer = streamedAnswer(seed, P1_THINKING_TOKENS, P1_TEXT_TOKENS);
    const finalBytes = utf8(JSON.stringify(answer.final));
    const answerChars = answer.thinking.join("").length + answer.text.join("").length;
    finals.push(finalBytes);
    chars.push(answerChars);
    for (const rate of P1_RATES) {
      const entry = perRate.get(rate) ?? collect();
      add(entry, piChatBytes(answer, rate), finalBytes, answerChars);
      perRate.set(rate, entry);
    }
    P1_POLICY_SWEEP.forEach((p, i) => add(sweep[i]!, piChatBytes(answer, P1_VERDICT_RATE, p.options), finalBytes, answerChars));
    // The baseline stringifies ~1 GB per 20,000-token answer (~10 s): once, on the first seed.
    if (naive.length === 0) naive.push(naiveBytes(answer) / finalBytes);
    const small = streamedAnswer(seed, P1_THINKING_TOKENS / 10, P1_TEXT_TOKENS / 10);
    naive2k.push(naiveBytes(small) / utf8(JSON.stringify(small.final)));
    log(`  P1 seed ${seed}: final ${finalBytes} B, Pi Chat at ${P1_VERDICT_RATE} tok/s ×${(perRate.get(P1_VERDICT_RATE)!.ratio.at(-1) as number).toFixed(2)}`);
  }
  const byRate = P1_RATES.map((rate) => ({ rate: Number.isFinite(rate) ? rate : ("all at once" as const), ...summaries(perRate.get(rate)!) }));
  return {
    finalBytes: summarize(finals),
    tokens: P1_THINKING_TOKENS + P1_TEXT_TOKENS,
    chars: summarize(chars),
    byRate,
    naive: summarize(naive),
    naiveAt2k: summarize(naive2k),
    policySweep: P1_POLICY_SWEEP.map((p, i) => ({ label: p.label, options: p.options, ...summaries(sweep[i]!) })),
    verdictRatio: byRate.find((r) => r.rate === P1_VERDICT_RATE)!.ratio,
    goal: 2,
    updatesGoal: 20,
  };
}
