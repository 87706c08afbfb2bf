// P2 append: time to save one message to a 10,000-message chat ÷ to a 10-message chat, with the
// real TranscriptStore over createNodeTranscriptStorage (append-only JSONL, default options: no
// fsync). Beside it the same ratio for the one-JSON-file baseline. Saves to the big and the small
// chat alternate (and which goes first alternates), so machine noise hits both sides alike.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { join } from "node:path";
import { createNodeTranscriptStorage, TranscriptStore } from "../../src/core/transcript";
import { JsonFileChatStore } from "../baselines/json-file-store";
import { median, now, summarize, type Summary } from "../lib/stats";

export const P2_BIG = 10_000;
export const P2_SMALL = 10;

export interface P2Result {
  ratio: Summary;
  bigMs: Summary;
  smallMs: Summary;
  baselineRatio: Summary;
  baselineBigMs: Summary;
  baselineSmallMs: Summary;
  runs: number;
  savesPerRun: number;
  baselineSavesPerRun: number;
  goal: number;
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const t0 = now();
  await fn();
  return now() - t0;
}

/** `transcript`: at least P2_BIG messages; `toAppend`: the messages saved (cycled, the same on both sides). */
export async function runP2(
  dir: string,
  transcript: readonly AgentMessage[],
  toAppend: readonly AgentMessage[],
  log: (line: string) => void,
  runs = 9,
  savesPerRun = 40,
  baselineSavesPerRun = 4,
): Promise<P2Result> {
  const big = transcript.slice(0, P2_BIG);
  const store = new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(join(dir, "store")));
  await store.createChat({ id: "big", messages: big });
  const baselineBig = new JsonFileChatStore(join(dir, "baseline-big.json"), big);
  await baselineBig.save(toAppend[0]!);

  const ratios: number[] = [];
  const bigMs: number[] = [];
  const smallMs: number[] = [];
  const bRatios: number[] = [];
  const bBigMs: number[] = [];
  const bSmallMs: number[] = [];
  let k = 0;
  for (let run = 0; run < runs; run++) {
    // A fresh 10-message chat each run, so it stays "10 messages" (the big one grows by < 1%).
    const smallId = `small-${run}`;
    await store.createChat({ id: smallId, messages: big.slice(0, P2_SMALL) });
    // First writes probe the file (header, last byte); not part of the steady state measured.
    await store.append("big", toAppend[k++ % toAppend.length]!);
    await store.append(smallId, toAppend[k++ % toAppend.length]!);
    const b: number[] = [];
    const s: number[] = [];
    for (let i = 0; i < savesPerRun; i++) {
      const message = toAppend[k++ % toAppend.length]!;
      if (i % 2 === 0) {
        b.push(await timed(async () => void (await store.append("big", message))));
        s.push(await timed(async () => void (await store.append(smallId, message))));
      } else {
        s.push(await timed(async () => void (await store.append(smallId, message))));
        b.push(await timed(async () => void (await store.append("big", message))));
      }
    }
    ratios.push(median(b) / median(s));
    bigMs.push(median(b));
    smallMs.push(median(s));

    const baselineSmall = new JsonFileChatStore(join(dir, `baseline-small-${run}.json`), big.slice(0, P2_SMALL));
    await baselineSmall.save(toAppend[0]!);
    const bb: number[] = [];
    const bs: number[] = [];
    for (let i = 0; i < baselineSavesPerRun; i++) {
      const message = toAppend[k++ % toAppend.length]!;
      bb.push(await timed(() => baselineBig.save(message)));
      bs.push(await timed(() => baselineSmall.save(message)));
    }
    bRatios.push(median(bb) / median(bs));
    bBigMs.push(median(bb));
    bSmallMs.push(median(bs));
    log(
      `  P2 run ${run + 1}/${runs}: store ${median(b).toFixed(3)} / ${median(s).toFixed(3)} ms = ${(median(b) / median(s)).toFixed(2)}; one JSON file ${median(bb).toFixed(1)} / ${median(bs).toFixed(2)} ms`,
    );
  }
  await store.close();
  return {
    ratio: summarize(ratios),
    bigMs: summarize(bigMs),
    smallMs: summarize(smallMs),
    baselineRatio: summarize(bRatios),
    baselineBigMs: summarize(bBigMs),
    baselineSmallMs: summarize(bSmallMs),
    runs,
    savesPerRun,
    baselineSavesPerRun,
    goal: 2,
  };
}
