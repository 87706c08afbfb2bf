// P7 bounded context and P8 compaction overhead, from one scripted 500-turn chat through a
// 32k-token window: the real ChatService, session, context policy, compaction and transcript
// store, with pi-ai's faux provider standing in for the model (it counts a request's tokens from
// the text it is sent, ~4 characters a token). A third of the turns read a workspace file with
// read_file. The scripted summarizer answers with a summary of realistic size (~500–900 tokens)
// made of what its request contains. What the user feels: the chat never errors on a full window
// and never slows down as it grows (P7), and compaction is a small part of what the chat costs (P8).
// These are counts of tokens, deterministic for a seed: one run, no timing.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import {
  calculateCost,
  createModels,
  fauxAssistantMessage,
  fauxProvider,
  fauxText,
  fauxToolCall,
  type Message,
  type TranscriptContext,
  type Usage,
} from "@earendil-works/pi-ai";
import { anthropicProvider } from "@earendil-works/pi-ai/providers/anthropic";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ChatService } from "../../src/core/chat-service";
import { contextBudget, DEFAULT_COMPACTION_SETTINGS } from "../../src/core/context/compaction";
import { SUMMARY_SYSTEM_PROMPT } from "../../src/core/context/summary-prompt";
import { estimateLlmMessageTokens } from "../../src/core/context/tokens";
import { createNodeWorkspaceFs } from "../../src/core/tools";
import { createNodeTranscriptStorage, TranscriptStore } from "../../src/core/transcript";
import { Rng } from "../lib/random";

export const P7_WINDOW = 32_000;
export const P7_TURNS = 500;
const MAX_OUTPUT = 8_192;

export interface P7Result {
  window: number;
  threshold: number;
  turns: number;
  requests: number;
  /** Prompt tokens of the first request of each turn (the faux provider's count). */
  turnRequestTokens: number[];
  largestRequest: number;
  at100: number;
  at500: number;
  ratio500to100: number;
  /** Median of turns 481–500 ÷ median of turns 81–100: the same question without the sawtooth's phase. */
  medianRatio: number;
  band: { min: number; max: number };
  compactions: number;
  summaryInputTokens: number;
  summaryOutputTokens: number;
  allInputTokens: number;
  allOutputTokens: number;
  overheadInput: number;
  overheadAll: number;
  /** A compaction's cost at a priced model's rates (the faux tokens priced as that model's). */
  pricedAs: { model: string; perCompaction: number; perTurn: number };
  transcriptMessages: number;
  summaryTokensMedian: number;
}

function text(rand: () => number, tokens: number): string {
  const words = [
    "the",
    "cache",
    "layout",
    "handler",
    "returns",
    "token",
    "stream",
    "widget",
    "budget",
    "index",
    "module",
    "review",
    "branch",
    "parser",
    "queue",
    "schema",
    "config",
    "request",
    "server",
    "client",
    "value",
    "error",
    "retry",
    "render",
  ];
  const out: string[] = [];
  // ~4.6 characters a word with its space: words ≈ tokens × 0.87.
  const count = Math.max(1, Math.round(tokens * 0.87));
  for (let i = 0; i < count; i++) out.push(words[Math.floor(rand() * words.length)]!);
  return out.join(" ");
}

function isSummaryRequest(messages: readonly Message[]): boolean {
  const first = messages[0];
  return first?.role === "system" && (typeof first.content === "string" ? first.content : first.content.map((c) => c.text).join("")) === SUMMARY_SYSTEM_PROMPT;
}

function promptTokens(usage: Usage): number {
  return usage.input + usage.cacheRead + usage.cacheWrite;
}

export async function runP7(dir: string, log: (line: string) => void, seed = 7): Promise<P7Result> {
  const rng = new Rng(seed);
  const rand = () => rng.next();
  const workspace = join(dir, "p7-ws");
  mkdirSync(join(workspace, "src"), { recursive: true });
  const files: string[] = [];
  for (let i = 0; i < 40; i++) {
    const file = `src/module${i}.ts`;
    writeFileSync(join(workspace, file), `// module ${i}\n${text(rand, 400 + Math.floor(rand() * 900))}\n`);
    files.push(file);
  }

  const faux = fauxProvider({ models: [{ id: "bench-32k", contextWindow: P7_WINDOW, maxTokens: MAX_OUTPUT }] });
  const models = createModels();
  models.setProvider(faux.provider);
  const model = faux.getModel();
  const requests: { summary: boolean; prompt: number; output: number }[] = [];
  const turnRequestTokens: number[] = [];
  let turnFirstPending = false;
  const summaryLengths: number[] = [];

  // One scripted step per request: it answers from its request, like a model would.
  const step = (context: TranscriptContext) => {
    if (isSummaryRequest(context.messages)) {
      const size = 500 + Math.floor(rand() * 400);
      summaryLengths.push(size);
      return fauxAssistantMessage(
        `## Goal\n${text(rand, 60)}\n\n## Progress\n### Done\n- [x] ${text(rand, size - 160)}\n\n## Next Steps\n1. ${text(rand, 60)}`,
      );
    }
    const last = context.messages[context.messages.length - 1];
    // After a tool result: the answer. After a user message: a third of the turns read a file first.
    if (last?.role === "user" && rand() < 0.33) {
      return fauxAssistantMessage([fauxToolCall("read_file", { path: files[Math.floor(rand() * files.length)]! })], { stopReason: "toolUse" });
    }
    return fauxAssistantMessage([fauxText(text(rand, 150 + Math.floor(rand() * 350)))]);
  };
  const streamFn = (m: typeof model, context: TranscriptContext, options?: Parameters<typeof models.streamSimple>[2]) => {
    const summary = isSummaryRequest(context.messages);
    const stream = models.streamSimple(m, context, options);
    void stream.result().then((r) => {
      const prompt = promptTokens(r.usage);
      requests.push({ summary, prompt, output: r.usage.output });
      if (!summary && turnFirstPending) {
        turnRequestTokens.push(prompt);
        turnFirstPending = false;
      }
    });
    return stream;
  };

  const storage = join(dir, "p7-storage");
  const service = new ChatService({
    store: new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storage)),
    fs: createNodeWorkspaceFs(workspace),
    workspaceRoot: workspace,
    resolveModel: async () => ({ model, streamFn, getApiKey: () => "bench" }),
    approver: async () => ({ decision: "allow" }),
    approvalMode: () => "auto",
  });
  const session = service.newChat();
  for (let turn = 1; turn <= P7_TURNS; turn++) {
    for (let i = 0; i < 4; i++) faux.appendResponses([step]);
    turnFirstPending = true;
    await session.prompt(`Turn ${turn}: ${text(rand, 60 + Math.floor(rand() * 240))}`);
    // Let the last result() callbacks land before the next turn.
    await new Promise((r) => setImmediate(r));
    if (turn % 100 === 0)
      log(`  P7 turn ${turn}: request ${turnRequestTokens[turn - 1]} tokens, ${requests.filter((r) => r.summary).length} compactions so far`);
    faux.setResponses([]);
  }
  await service.dispose();

  const systemTokens = estimateLlmMessageTokens(session.messages[0] as Message);
  const budget = contextBudget(P7_WINDOW, MAX_OUTPUT, DEFAULT_COMPACTION_SETTINGS, systemTokens);
  const chat = requests.filter((r) => !r.summary);
  const summaries = requests.filter((r) => r.summary);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)] ?? 0;
  };
  const summaryInput = sum(summaries.map((r) => r.prompt));
  const summaryOutput = sum(summaries.map((r) => r.output));
  const allInput = sum(requests.map((r) => r.prompt));
  const allOutput = sum(requests.map((r) => r.output));
  const late = turnRequestTokens.slice(100);
  // Priced as Claude Sonnet 4.5 (pi-ai's catalog prices), to say what a compaction costs.
  const catalog = createModels();
  catalog.setProvider(anthropicProvider());
  const priced = catalog.getModels("anthropic").find((m) => m.id === "claude-sonnet-4-5") ?? catalog.getModels("anthropic")[0]!;
  const costOf = (input: number, output: number) =>
    calculateCost(priced, {
      input,
      output,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: input + output,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    }).total;
  return {
    window: P7_WINDOW,
    threshold: budget.threshold,
    turns: P7_TURNS,
    requests: requests.length,
    turnRequestTokens,
    largestRequest: Math.max(...chat.map((r) => r.prompt)),
    at100: turnRequestTokens[99]!,
    at500: turnRequestTokens[P7_TURNS - 1]!,
    ratio500to100: turnRequestTokens[P7_TURNS - 1]! / turnRequestTokens[99]!,
    medianRatio: median(turnRequestTokens.slice(480, 500)) / median(turnRequestTokens.slice(80, 100)),
    band: { min: Math.min(...late), max: Math.max(...late) },
    compactions: summaries.length,
    summaryInputTokens: summaryInput,
    summaryOutputTokens: summaryOutput,
    allInputTokens: allInput,
    allOutputTokens: allOutput,
    overheadInput: summaryInput / allInput,
    overheadAll: (summaryInput + summaryOutput) / (allInput + allOutput),
    pricedAs: {
      model: priced.name,
      perCompaction: summaries.length ? costOf(summaryInput / summaries.length, summaryOutput / summaries.length) : 0,
      perTurn: costOf((allInput - summaryInput) / P7_TURNS, (allOutput - summaryOutput) / P7_TURNS),
    },
    transcriptMessages: session.messages.length,
    summaryTokensMedian: median(summaryLengths),
  };
}
