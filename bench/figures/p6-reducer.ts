// P6 reducer: the shared reducer's time per streamed delta with 10,000 items in the chat ÷ with 10.
// Each side: the restored chat, then message/start of an assistant + message/blockStart, then deltas of
// one token each. Short blocks (250 deltas, ~0.2 ms) alternate between the sides, 40 per side per
// run, so a preemption on a loaded machine spoils single blocks, not a side; per run the median block.
// Beside it the same ratio for a flat-array reducer (bench/baselines/flat-reducer.ts).
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { chatItems, reduce, stateFromTranscript, type ChatState } from "../../src/shared/reducer";
import { flatDelta, type FlatState } from "../baselines/flat-reducer";
import { markdownTokens, Rng } from "../lib/random";
import { gc, median, now, summarize, type Summary } from "../lib/stats";
import { pendingAnswer } from "../lib/pending-answer";

export const P6_BIG = 10_000;
export const P6_SMALL = 10;

export interface P6Result {
  ratio: Summary;
  bigNs: Summary;
  smallNs: Summary;
  baselineRatio: Summary;
  bigItems: number;
  smallItems: number;
  deltasPerBlock: number;
  blocksPerRun: number;
  goal: number;
}

function streamingStart(messages: readonly AgentMessage[]): ChatState {
  let s = stateFromTranscript(messages);
  s = reduce(s, { type: "message/start", message: { role: "user", content: "go on", timestamp: 0 } });
  s = reduce(s, { type: "message/end", message: { role: "user", content: "go on", timestamp: 0 } });
  s = reduce(s, { type: "chat/runState", running: true });
  s = reduce(s, { type: "message/start", message: pendingAnswer(0) });
  return reduce(s, { type: "message/blockStart", index: 0, block: "text" });
}

export function runP6(
  bigChat: readonly AgentMessage[],
  smallChat: readonly AgentMessage[],
  log: (line: string) => void,
  runs = 11,
  deltasPerBlock = 250,
  blocksPerRun = 40,
): P6Result {
  const tokens = markdownTokens(new Rng(6), deltasPerBlock);
  const bigStart = streamingStart(bigChat);
  const smallStart = streamingStart(smallChat);
  const bigItems = chatItems(bigStart).length;
  const smallItems = chatItems(smallStart).length;

  const block = (start: ChatState): number => {
    let s = start;
    const t0 = now();
    for (let i = 0; i < tokens.length; i++) s = reduce(s, { type: "message/delta", index: 0, text: tokens[i]! });
    const t1 = now();
    if (s.live.length === 0) throw new Error("P6: nothing reduced");
    return ((t1 - t0) / tokens.length) * 1e6;
  };
  const flatBlock = (start: FlatState): number => {
    let s = start;
    const t0 = now();
    for (let i = 0; i < tokens.length; i++) s = flatDelta(s, 0, tokens[i]!);
    return ((now() - t0) / tokens.length) * 1e6;
  };
  const flatBig: FlatState = { items: chatItems(bigStart) };
  const flatSmall: FlatState = { items: chatItems(smallStart) };
  // Warm-up (JIT) on both sides.
  for (let i = 0; i < 3; i++) {
    block(bigStart);
    block(smallStart);
  }

  const ratios: number[] = [];
  const bigNs: number[] = [];
  const smallNs: number[] = [];
  const flatRatios: number[] = [];
  for (let run = 0; run < runs; run++) {
    gc();
    const b: number[] = [];
    const s: number[] = [];
    for (let i = 0; i < blocksPerRun; i++) {
      if (i % 10 === 0) gc();
      if (i % 2 === 0) {
        b.push(block(bigStart));
        s.push(block(smallStart));
      } else {
        s.push(block(smallStart));
        b.push(block(bigStart));
      }
    }
    ratios.push(median(b) / median(s));
    bigNs.push(median(b));
    smallNs.push(median(s));
    const fb: number[] = [];
    const fs: number[] = [];
    for (let i = 0; i < 8; i++) {
      if (i % 2 === 0) {
        fb.push(flatBlock(flatBig));
        fs.push(flatBlock(flatSmall));
      } else {
        fs.push(flatBlock(flatSmall));
        fb.push(flatBlock(flatBig));
      }
    }
    flatRatios.push(median(fb) / median(fs));
    log(
      `  P6 run ${run + 1}/${runs}: ${median(b).toFixed(0)} / ${median(s).toFixed(0)} ns per delta = ${(median(b) / median(s)).toFixed(2)}; flat array ${median(fb).toFixed(0)} / ${median(fs).toFixed(0)} ns`,
    );
  }
  return {
    ratio: summarize(ratios),
    bigNs: summarize(bigNs),
    smallNs: summarize(smallNs),
    baselineRatio: summarize(flatRatios),
    bigItems,
    smallItems,
    deltasPerBlock,
    blocksPerRun,
    goal: 1.5,
  };
}
