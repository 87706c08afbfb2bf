// P20 and P21, the extension host's side of a long chat (issue 30), with the real ChatService over
// the node transcript storage and pi-agent-core's Agent; the provider is pi-ai's faux provider and
// a request "leaves the host" when its stream function is called (context built, compaction
// checked, converted, payload ready).
//
// P21 time to the provider request: from prompt() (what Enter calls) to that moment, warm, in a
//   restored chat of 10,000 generated messages ÷ one of 10. A chat that long has been compacted
//   (a compaction summary 30 messages before its end, keeping 10): what the model gets is bounded,
//   and the figure says whether the host's work is too.
// P20 host memory: ten chats of 10,000 messages opened in turn as the view opens them (open the
//   next, let go of the one left), then a new chat: heap after a GC ÷ after opening one small chat.
//   Beside it, the same walk without letting go (what the host kept before).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { CompactionSummaryMessage } from "../../src/core/messages";
import { chatWorld } from "../../test/support/chat-world";
import { createScriptedModel, reply } from "../../test/support/scripted-model";
import { generateTranscript, transcriptFileText } from "../lib/data";
import { gc, summarize, type Summary } from "../lib/stats";

export interface P21Result {
  ratio: Summary;
  bigMs: Summary;
  smallMs: Summary;
  messages: { big: number; small: number };
  runs: number;
}

export interface P20Result {
  ratio: number;
  baselineMb: number;
  releasedMb: number;
  keptMb: number;
  chats: number;
  messagesPerChat: number;
}

/** A long chat as it would be after a compaction near its end. */
function compactedChat(count: number, seed: number): AgentMessage[] {
  const messages = generateTranscript(count, seed);
  const at = Math.max(1, messages.length - 30);
  const summary: CompactionSummaryMessage = {
    role: "compactionSummary",
    summary: "## Goal\nKeep the server's configuration in one place.\n## Progress\nRead and edited src/config.ts; tests pass.",
    keptMessageCount: 10,
    summarizedMessageCount: at - 11,
    tokensBefore: 150_000,
    tokensAfter: 9_000,
    readFiles: ["src/config.ts"],
    modifiedFiles: ["src/config.ts"],
    trigger: "threshold",
    timestamp: (messages[at - 1]?.timestamp ?? 0) + 1,
  };
  messages.splice(at, 0, summary);
  return messages;
}

function writeChat(storageDir: string, chatId: string, messages: readonly AgentMessage[]): void {
  mkdirSync(join(storageDir, "chats"), { recursive: true });
  writeFileSync(join(storageDir, "chats", `${chatId}.jsonl`), transcriptFileText(chatId, messages));
}

function benchModel() {
  return createScriptedModel({ model: { id: "bench-model", contextWindow: 200_000, maxTokens: 16_000 } });
}

export async function runP21(log: (line: string) => void, runs: number): Promise<P21Result> {
  const model = benchModel();
  let sentAt = 0;
  let requests = 0;
  const inner = model.binding.streamFn;
  const streamFn: typeof inner = (...args) => {
    requests++;
    sentAt ||= performance.now();
    return inner(...args);
  };
  const world = chatWorld({ resolveModel: async () => ({ ...model.binding, streamFn }) });
  try {
    const big = compactedChat(10_000, 21);
    const small = generateTranscript(10, 22);
    writeChat(world.storageDir, "p21-big", big);
    writeChat(world.storageDir, "p21-small", small);
    const sessionOf = async (id: string) => {
      const opened = await world.service.open(id);
      if (!opened.ok) throw new Error(`P21: cannot open ${id}: ${opened.reason}`);
      return opened.session;
    };
    const bigSession = await sessionOf("p21-big");
    const smallSession = await sessionOf("p21-small");
    const timeOne = async (session: Awaited<ReturnType<typeof sessionOf>>, i: number): Promise<number> => {
      model.push(reply.text("ok"));
      sentAt = 0;
      const before = requests;
      const start = performance.now();
      await session.prompt(`prompt ${i}`);
      if (requests !== before + 1) throw new Error(`P21: ${requests - before} requests for one prompt (a compaction ran?)`);
      return sentAt - start;
    };
    // Warm-up: bundles, JIT, the first meter and context of each chat.
    await timeOne(bigSession, -1);
    await timeOne(smallSession, -1);
    const bigMs: number[] = [];
    const smallMs: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < 3; round++) {
      const b: number[] = [];
      const s: number[] = [];
      // Alternating, so a slow moment of the machine falls on both.
      for (let i = 0; i < runs; i++) {
        b.push(await timeOne(bigSession, round * runs + i));
        s.push(await timeOne(smallSession, round * runs + i));
      }
      bigMs.push(...b);
      smallMs.push(...s);
      ratios.push(summarize(b).median / summarize(s).median);
      log(`P21 round ${round + 1}: ${summarize(b).median.toFixed(2)} ms at 10,000 ÷ ${summarize(s).median.toFixed(2)} ms at 10`);
    }
    return { ratio: summarize(ratios), bigMs: summarize(bigMs), smallMs: summarize(smallMs), messages: { big: big.length, small: small.length }, runs };
  } finally {
    await world.cleanup();
  }
}

export async function runP20(log: (line: string) => void, chats = 10, messagesPerChat = 10_000): Promise<P20Result> {
  const model = benchModel();
  const heapMb = async (): Promise<number> => {
    // Let the promise chains of the last open and release settle, then collect.
    await new Promise((resolve) => setTimeout(resolve, 100));
    gc();
    gc();
    return process.memoryUsage().heapUsed / 1e6;
  };
  const walk = async (release: boolean): Promise<{ baseline: number; after: number }> => {
    const world = chatWorld({ resolveModel: async () => model.binding });
    try {
      writeChat(world.storageDir, "p20-small", generateTranscript(10, 30));
      for (let c = 0; c < chats; c++) writeChat(world.storageDir, `p20-chat-${c}`, generateTranscript(messagesPerChat, 31 + c));
      // As the view does: open the next chat, then let go of the one left. Only ids are held here: a
      // variable naming a session would keep it alive in this function, not in the product.
      let currentId = "";
      const switchTo = async (id: string | undefined): Promise<void> => {
        const nextId = id ?? world.service.newChat().id;
        if (id !== undefined) {
          const opened = await world.service.open(id);
          if (!opened.ok) throw new Error(`P20: cannot open ${id}: ${opened.reason}`);
        }
        const leftId = currentId;
        currentId = nextId;
        if (release && leftId !== "") await world.service.release(leftId, () => currentId !== leftId);
      };
      await switchTo("p20-small");
      const baseline = await heapMb();
      for (let c = 0; c < chats; c++) await switchTo(`p20-chat-${c}`);
      await switchTo(undefined);
      const after = await heapMb();
      log(
        `P20 ${release ? "letting go" : "keeping"}: ${baseline.toFixed(1)} MB after one small chat, ${after.toFixed(1)} MB after ${chats} chats of ${messagesPerChat.toLocaleString("en-US")}`,
      );
      return { baseline, after };
    } finally {
      await world.cleanup();
    }
  };
  const released = await walk(true);
  const kept = await walk(false);
  return {
    ratio: released.after / released.baseline,
    baselineMb: released.baseline,
    releasedMb: released.after,
    keptMb: kept.after,
    chats,
    messagesPerChat,
  };
}
