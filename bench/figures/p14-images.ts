// P14 images do not weigh on the chat. One generated 500-message chat, saved three ways in one
// storage folder:
//   - "with images": 50 of its user messages carry a screenshot-sized PNG each (about 300 KB of
//     noise that does not compress, 15 MB in all), saved the way ChatService saves them
//     (externalizeImages → ImageBlobStore: the bytes in images/<chat>/<sha256>.png, the line
//     keeps the hash);
//   - "without": the same messages, no images;
//   - beside it, "inline": the same images kept in the transcript lines as base64 (what a store
//     without blobs does), to show what the blobs save.
// Restore = what the extension does when you open the chat: ChatService.open (TranscriptStore
// load, the session, stateFromTranscript) and the view's items. The image bytes are not read at
// restore: the view loads each thumbnail from its file, a request reads them back.
// Append = saving one more message as ChatService does (externalizeImages, a no-op without
// images, then TranscriptStore.append), alternating between the chats.
// Each run opens each side 15 times, interleaved (the order rotates), and takes each side's
// median; a GC runs before each sample.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ChatService } from "../../src/core/chat-service";
import { externalizeImages } from "../../src/core/images/stored-images";
import { createNodeWorkspaceFs } from "../../src/core/tools";
import { createNodeTranscriptStorage, TranscriptStore } from "../../src/core/transcript";
import { ImageBlobStore } from "../../src/core/transcript/image-blobs";
import { chatItems } from "../../src/shared/reducer";
import { makeNoisePng } from "../../test/support/png";
import { generateTranscript } from "../lib/data";
import { gc, median, now, summarize, type Summary } from "../lib/stats";

export const P14_MESSAGES = 500;
export const P14_IMAGES = 50;

export interface P14Result {
  restoreRatio: Summary;
  restoreWithMs: Summary;
  restoreWithoutMs: Summary;
  inlineRatio: Summary;
  restoreInlineMs: Summary;
  appendRatio: Summary;
  appendWithMs: Summary;
  appendWithoutMs: Summary;
  imageBytes: number;
  transcriptBytes: { with: number; without: number; inline: number };
  items: number;
  goal: number;
}

function withImage(message: AgentMessage, png: Buffer): AgentMessage {
  if (message.role !== "user") return message;
  const text = typeof message.content === "string" ? message.content : message.content.map((c) => (c.type === "text" ? c.text : "")).join("");
  return {
    ...message,
    content: [
      { type: "text", text },
      { type: "image", data: png.toString("base64"), mimeType: "image/png" },
    ],
  };
}

export async function runP14(dir: string, log: (line: string) => void, runs = 9, restoresPerRun = 15, appendsPerRun = 40): Promise<P14Result> {
  const root = join(dir, "p14");
  const ws = join(dir, "p14-ws");
  mkdirSync(ws, { recursive: true });
  const plain = generateTranscript(P14_MESSAGES, 14);
  const users = plain.flatMap((m, i) => (m.role === "user" ? [i] : []));
  if (users.length < P14_IMAGES) throw new Error(`P14: only ${users.length} user messages in ${P14_MESSAGES}`);
  // Spread over the chat: every k-th user message gets its own screenshot.
  const step = users.length / P14_IMAGES;
  const carriers = new Set(Array.from({ length: P14_IMAGES }, (_, k) => users[Math.floor(k * step)]!));
  let imageBytes = 0;
  let seed = 0;
  const withImages = plain.map((m, i) => {
    if (!carriers.has(i)) return m;
    const png = makeNoisePng(320, 320, ++seed);
    imageBytes += png.length;
    return withImage(m, png);
  });

  const storage = createNodeTranscriptStorage(root);
  const blobs = new ImageBlobStore(root);
  const writer = new TranscriptStore<AgentMessage>(storage, { indexFlushDelayMs: 0 });
  const saved: AgentMessage[] = [];
  for (const m of withImages) saved.push(await externalizeImages(m, (bytes, mimeType) => blobs.put("with", bytes, mimeType)));
  await writer.createChat({ id: "with", messages: saved });
  await writer.createChat({ id: "without", messages: plain });
  await writer.createChat({ id: "inline", messages: withImages });
  await writer.close();
  const fileSize = (id: string) => statSync(join(root, "chats", `${id}.jsonl`)).size;
  const transcriptBytes = { with: fileSize("with"), without: fileSize("without"), inline: fileSize("inline") };
  const blobCount = readdirSync(join(root, "images", "with")).length;
  if (blobCount !== P14_IMAGES) throw new Error(`P14: ${blobCount} blobs written, expected ${P14_IMAGES}`);

  const service = () =>
    new ChatService({
      store: new TranscriptStore<AgentMessage>(storage, { indexFlushDelayMs: 0 }),
      images: new ImageBlobStore(root),
      fs: createNodeWorkspaceFs(ws),
      workspaceRoot: ws,
      resolveModel: () => Promise.reject(new Error("P14 sends nothing")),
      approver: async () => ({ decision: "deny" }),
      approvalMode: () => "ask",
    });
  let items = 0;
  const restore = async (id: string): Promise<number> => {
    const s = service();
    const t0 = now();
    const opened = await s.open(id);
    if (!opened.ok) throw new Error(`P14: ${id} did not open: ${opened.reason}`);
    items = chatItems(opened.session.viewState).length;
    const t1 = now();
    await s.dispose();
    return t1 - t0;
  };
  for (const id of ["with", "without", "inline"]) await restore(id);

  const appender = new TranscriptStore<AgentMessage>(storage, { indexFlushDelayMs: 0 });
  const appendBlobs = new ImageBlobStore(root);
  const toAppend = generateTranscript(201, 2).slice(1);
  const append = async (id: string, message: AgentMessage): Promise<number> => {
    const t0 = now();
    await appender.append(id, await externalizeImages(message, (bytes, mimeType) => appendBlobs.put(id, bytes, mimeType)));
    return now() - t0;
  };
  // The first write to each chat probes the file (header, last byte): not the steady state.
  await append("with", toAppend[0]!);
  await append("without", toAppend[1]!);

  const ratios: number[] = [];
  const withMs: number[] = [];
  const withoutMs: number[] = [];
  const inlineRatios: number[] = [];
  const inlineMs: number[] = [];
  const appendRatios: number[] = [];
  const appendWith: number[] = [];
  const appendWithout: number[] = [];
  let k = 2;
  for (let run = 0; run < runs; run++) {
    // Each side opened `restoresPerRun` times, interleaved, order rotating; a run's figure is each side's median.
    const samples: Record<string, number[]> = { with: [], without: [], inline: [] };
    const sides = ["with", "without", "inline"];
    for (let r = 0; r < restoresPerRun; r++) {
      for (let i = 0; i < sides.length; i++) {
        const id = sides[(i + r + run) % sides.length]!;
        gc();
        samples[id]!.push(await restore(id));
      }
    }
    const t: Record<string, number> = { with: median(samples.with!), without: median(samples.without!), inline: median(samples.inline!) };
    ratios.push(t.with! / t.without!);
    withMs.push(t.with!);
    withoutMs.push(t.without!);
    inlineRatios.push(t.inline! / t.without!);
    inlineMs.push(t.inline!);

    gc();
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < appendsPerRun; i++) {
      const message = toAppend[k++ % toAppend.length]!;
      if (i % 2 === 0) {
        a.push(await append("with", message));
        b.push(await append("without", message));
      } else {
        b.push(await append("without", message));
        a.push(await append("with", message));
      }
    }
    appendRatios.push(median(a) / median(b));
    appendWith.push(median(a));
    appendWithout.push(median(b));
    log(
      `  P14 run ${run + 1}/${runs}: restore ${t.with!.toFixed(1)} / ${t.without!.toFixed(1)} ms = ${(t.with! / t.without!).toFixed(2)} (inline ${t.inline!.toFixed(1)} ms); append ${median(a).toFixed(3)} / ${median(b).toFixed(3)} ms`,
    );
  }
  return {
    restoreRatio: summarize(ratios),
    restoreWithMs: summarize(withMs),
    restoreWithoutMs: summarize(withoutMs),
    inlineRatio: summarize(inlineRatios),
    restoreInlineMs: summarize(inlineMs),
    appendRatio: summarize(appendRatios),
    appendWithMs: summarize(appendWith),
    appendWithoutMs: summarize(appendWithout),
    imageBytes,
    transcriptBytes,
    items,
    goal: 1.5,
  };
}
