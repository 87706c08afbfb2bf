// P3 restore: time to load a 10,000-message chat from disk (TranscriptStore.load over the node
// storage: read, line split, strict UTF-8 decode, JSON.parse per line, record checks, title) and
// build the ChatItems a restore shows (restoredState: the newest ~200 messages, by the same
// reducer functions the live view uses; the earlier ones are built when the view scrolls near
// them, timed beside it as `earlierMs`, not in the ratio), ÷ the floor,
// a bare JSON.parse of the same bytes, taken as the faster (per run) of two ways to do it:
//   - "document": the same records as one JSON document ("[" + the same lines joined by "," + "]",
//     one byte longer), readFile as a string + one JSON.parse;
//   - "lines": readFile of the .jsonl itself, each line decoded and JSON.parse'd, nothing else.
// (The one big document is the slower, ~3×: a single non-ASCII character anywhere makes V8 hold
// the whole 21 MB text as a two-byte string, ~1.7× slower to parse on its own, plus decoding and
// allocating one huge string; the per-line strings are mostly one-byte.)
// All read through the OS page cache; a GC runs before each sample; the order rotates.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { createNodeTranscriptStorage, TranscriptStore } from "../../src/core/transcript";
import { chatItems, earlierItems, restoredState, stateFromTranscript } from "../../src/shared/reducer";
import { gc, now, summarize, type Summary } from "../lib/stats";
import { replayWithReducer } from "../../test/support/replay";

export interface P3Result {
  ratio: Summary;
  restoreMs: Summary;
  /** The floor: per run, the faster of the two bare parses. */
  bareParseMs: Summary;
  bareDocumentMs: Summary;
  bareLinesMs: Summary;
  /** Of the restore: just store.load (no reducer). */
  loadOnlyMs: Summary;
  /** Of the restore: restoredState, the items of the newest messages. */
  replayMs: Summary;
  /** Beside it (not in the ratio): the items of the earlier messages, built when the view scrolls near them (earlierItems). */
  earlierMs: Summary;
  /** Beside it (not in the ratio): the items of the whole chat in one pass, what a restore built before (stateFromTranscript). */
  wholeMs: Summary;
  /** Messages whose items a restore builds. */
  restoredMessages: number;
  /** JSON bytes of the chat state a restore posts to the view (its snapshot), and of the whole chat's. */
  snapshotBytes: { restored: number; whole: number };
  /** Beside it (not in the ratio): folding the reducer over the same messages, as restore did before. */
  foldMs: Summary;
  fileBytes: number;
  messages: number;
  items: number;
  goal: number;
}

export async function runP3(dir: string, transcript: readonly AgentMessage[], log: (line: string) => void, runs = 9): Promise<P3Result> {
  const root = join(dir, "restore");
  const storage = createNodeTranscriptStorage(root);
  const writer = new TranscriptStore<AgentMessage>(storage);
  await writer.createChat({ id: "big", messages: transcript });
  await writer.close();
  const jsonl = await fs.readFile(join(root, "chats", "big.jsonl"), "utf8");
  const lines = jsonl.split("\n").filter((l) => l !== "");
  const arrayFile = join(dir, "restore-same-bytes.json");
  await fs.writeFile(arrayFile, "[" + lines.join(",") + "]");

  let items = 0;
  let restoredMessages = 0;
  const restore = async (): Promise<[number, number]> => {
    const t0 = now();
    const store = new TranscriptStore<AgentMessage>(storage);
    const loaded = await store.load("big");
    const t1 = now();
    if (!loaded.ok) throw new Error(`P3: load failed: ${loaded.reason}`);
    const state = restoredState(loaded.messages);
    const t2 = now();
    items = chatItems(state).length;
    restoredMessages = state.messageCount - (state.earlier ?? 0);
    // Nothing of a restore is kept past it: every step starts from the same heap (a restore that
    // ran beside the previous run's copy of the chat paid for marking that copy in its collections).
    return [t2 - t0, t1 - t0];
  };
  const bareDocument = async (): Promise<number> => {
    const t0 = now();
    const parsed = JSON.parse(await fs.readFile(arrayFile, "utf8")) as unknown[];
    const t1 = now();
    if (parsed.length !== lines.length) throw new Error("P3: bare parse mismatch");
    return t1 - t0;
  };
  const jsonlFile = join(root, "chats", "big.jsonl");
  const bareLines = async (): Promise<number> => {
    const t0 = now();
    const bytes = await fs.readFile(jsonlFile);
    const parsed: unknown[] = [];
    let start = 0;
    while (start < bytes.length) {
      let end = bytes.indexOf(10, start);
      if (end === -1) end = bytes.length;
      if (end > start) parsed.push(JSON.parse(bytes.toString("utf8", start, end)));
      start = end + 1;
    }
    const t1 = now();
    if (parsed.length !== lines.length) throw new Error("P3: bare parse mismatch");
    return t1 - t0;
  };
  await restore();
  await bareDocument();
  await bareLines();

  const ratios: number[] = [];
  const restoreMs: number[] = [];
  const loadMs: number[] = [];
  const bareMs: number[] = [];
  const docMs: number[] = [];
  const lineMs: number[] = [];
  const foldMs: number[] = [];
  const earlierMs: number[] = [];
  const wholeMs: number[] = [];
  const cut = restoredState(transcript).earlier ?? 0;
  for (let run = 0; run < runs; run++) {
    let r: [number, number] = [0, 0];
    let d = 0;
    let l = 0;
    const steps = [async () => void (r = await restore()), async () => void (d = await bareDocument()), async () => void (l = await bareLines())];
    for (let i = 0; i < steps.length; i++) {
      gc();
      await steps[(i + run) % steps.length]!();
    }
    gc();
    const f0 = now();
    replayWithReducer(transcript);
    foldMs.push(now() - f0);
    gc();
    const e0 = now();
    earlierItems(transcript, cut);
    earlierMs.push(now() - e0);
    gc();
    const w0 = now();
    stateFromTranscript(transcript);
    wholeMs.push(now() - w0);
    const b = Math.min(d, l);
    ratios.push(r[0] / b);
    restoreMs.push(r[0]);
    loadMs.push(r[1]);
    bareMs.push(b);
    docMs.push(d);
    lineMs.push(l);
    log(
      `  P3 run ${run + 1}/${runs}: restore ${r[0].toFixed(1)} ms (load ${r[1].toFixed(1)}) / bare parse ${b.toFixed(1)} ms (document ${d.toFixed(1)}, lines ${l.toFixed(1)}) = ${(r[0] / b).toFixed(2)}`,
    );
  }
  return {
    ratio: summarize(ratios),
    restoreMs: summarize(restoreMs),
    bareParseMs: summarize(bareMs),
    bareDocumentMs: summarize(docMs),
    bareLinesMs: summarize(lineMs),
    loadOnlyMs: summarize(loadMs),
    replayMs: summarize(restoreMs.map((r, i) => r - loadMs[i]!)),
    foldMs: summarize(foldMs),
    earlierMs: summarize(earlierMs),
    wholeMs: summarize(wholeMs),
    restoredMessages,
    snapshotBytes: {
      restored: Buffer.byteLength(JSON.stringify(restoredState(transcript))),
      whole: Buffer.byteLength(JSON.stringify(stateFromTranscript(transcript))),
    },
    fileBytes: Buffer.byteLength(jsonl),
    messages: transcript.length,
    items,
    goal: 2,
  };
}
