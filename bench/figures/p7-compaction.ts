// P7 bounded context, P8 compaction overhead and P15 turns left out, from one scripted 500-turn
// chat through a 32k-token window: the real ChatService, session, context policy, compaction and
// transcript store. The model is either pi-ai's real OpenAI-compatible adapter over HTTP to a local
// server that streams and reports usage in its last chunk, as OpenAI, vLLM, llama.cpp and Ollama
// do (the path users take: "http"), or pi-ai's faux provider ("faux"); both count a request's
// tokens at ~4 characters a token. A third of the turns read a workspace file with read_file. The
// scripted summarizer answers with a summary of realistic size (~500–900 tokens). What the user
// feels: the chat never errors on a full window and never slows down as it grows (P7), compaction
// is a small part of what the chat costs (P8), and no turn is silently left out (P15).
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
import type { ModelBinding } from "../../src/core/session/types";
import { resolveModelBinding } from "../../src/host/providers/provider-bundle";
import { startOpenAIServer, type ChatCompletionRequest, type ServerReply, type WireMessage } from "../../test/support/openai-server";
import { contextBudget, DEFAULT_COMPACTION_SETTINGS } from "../../src/core/context/compaction";
import { SUMMARY_SYSTEM_PROMPT } from "../../src/core/context/summary-prompt";
import { estimateLlmMessageTokens } from "../../src/core/context/tokens";
import { createNodeWorkspaceFs } from "../../src/core/tools";
import { createNodeTranscriptStorage, TranscriptStore } from "../../src/core/transcript";
import { Rng } from "../lib/random";

export const P7_WINDOW = 32_000;
export const P7_TURNS = 500;
const MAX_OUTPUT = 8_192;

/** How the model is reached: the real OpenAI-compatible adapter over HTTP, or pi-ai's faux provider. */
export type P7Transport = "http" | "faux";

/** The note the trim adds when it leaves turns out: P15 counts the requests that carry it. */
const NOT_SHOWN = "earlier messages of this conversation are not shown";

export interface P7Result {
  transport: P7Transport;
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
  /** P15: turns whose request left earlier turns out (the trim's note) ÷ all turns. */
  trimmedTurns: number;
  trimmedShare: number;
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

/** What the scripted model answers, whichever transport carries it. */
type ScriptedAnswer = { kind: "summary"; text: string } | { kind: "readFile"; path: string } | { kind: "text"; text: string };

export async function runP7(dir: string, log: (line: string) => void, transport: P7Transport = "http", seed = 7): Promise<P7Result> {
  const rng = new Rng(seed);
  const rand = () => rng.next();
  const workspace = join(dir, `p7-ws-${transport}`);
  mkdirSync(join(workspace, "src"), { recursive: true });
  const files: string[] = [];
  for (let i = 0; i < 40; i++) {
    const file = `src/module${i}.ts`;
    writeFileSync(join(workspace, file), `// module ${i}\n${text(rand, 400 + Math.floor(rand() * 900))}\n`);
    files.push(file);
  }

  const requests: { summary: boolean; prompt: number; output: number }[] = [];
  const turnRequestTokens: number[] = [];
  let turnFirstPending = false;
  let trimmedTurns = 0;
  const summaryLengths: number[] = [];

  // One scripted answer per request, from what the request is, like a model would.
  const answer = (summary: boolean, lastIsUser: boolean): ScriptedAnswer => {
    if (summary) {
      const size = 500 + Math.floor(rand() * 400);
      summaryLengths.push(size);
      return {
        kind: "summary",
        text: `## Goal\n${text(rand, 60)}\n\n## Progress\n### Done\n- [x] ${text(rand, size - 160)}\n\n## Next Steps\n1. ${text(rand, 60)}`,
      };
    }
    // After a tool result: the answer. After a user message: a third of the turns read a file first.
    if (lastIsUser && rand() < 0.33) return { kind: "readFile", path: files[Math.floor(rand() * files.length)]! };
    return { kind: "text", text: text(rand, 150 + Math.floor(rand() * 350)) };
  };

  const reached = await reachModel(transport, answer);
  // Every request, whichever transport: its size as the provider reported it, and whether turns were left out of it.
  const streamFn: ModelBinding["streamFn"] = (m, context, options) => {
    const summary = isSummaryRequest(context.messages);
    const trimmed = context.messages.some((msg) => msg.role === "user" && textOfMessage(msg).includes(NOT_SHOWN));
    const stream = reached.binding.streamFn(m, context, options);
    void Promise.resolve(stream)
      .then((s) => s.result())
      .then((r) => {
        const prompt = promptTokens(r.usage);
        requests.push({ summary, prompt, output: r.usage.output });
        if (!summary && turnFirstPending) {
          turnRequestTokens.push(prompt);
          if (trimmed) trimmedTurns++;
          turnFirstPending = false;
        }
      });
    return stream;
  };

  const storage = join(dir, `p7-storage-${transport}`);
  const service = new ChatService({
    store: new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storage)),
    fs: createNodeWorkspaceFs(workspace),
    workspaceRoot: workspace,
    resolveModel: async () => ({ ...reached.binding, streamFn }),
    approver: async () => ({ decision: "allow" }),
    approvalMode: () => "auto",
  });
  const session = service.newChat();
  for (let turn = 1; turn <= P7_TURNS; turn++) {
    reached.prepareTurn(4);
    turnFirstPending = true;
    await session.prompt(`Turn ${turn}: ${text(rand, 60 + Math.floor(rand() * 240))}`);
    // Let the last result() callbacks land before the next turn.
    await new Promise((r) => setImmediate(r));
    if (turn % 100 === 0)
      log(`  P7 (${transport}) turn ${turn}: request ${turnRequestTokens[turn - 1]} tokens, ${requests.filter((r) => r.summary).length} compactions so far`);
  }
  await service.dispose();
  await reached.close();

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
    transport,
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
    trimmedTurns,
    trimmedShare: trimmedTurns / P7_TURNS,
  };
}

interface ReachedModel {
  binding: ModelBinding;
  /** Scripts up to `requests` answers for the next turn (unused ones are dropped). */
  prepareTurn(requests: number): void;
  close(): Promise<void>;
}

/** The model of the run: the real adapter to a local server over HTTP, or the faux provider in process. */
async function reachModel(transport: P7Transport, answer: (summary: boolean, lastIsUser: boolean) => ScriptedAnswer): Promise<ReachedModel> {
  if (transport === "faux") {
    const faux = fauxProvider({ models: [{ id: "bench-32k", contextWindow: P7_WINDOW, maxTokens: MAX_OUTPUT }] });
    const models = createModels();
    models.setProvider(faux.provider);
    const step = (context: TranscriptContext) => {
      const a = answer(isSummaryRequest(context.messages), context.messages[context.messages.length - 1]?.role === "user");
      return a.kind === "readFile"
        ? fauxAssistantMessage([fauxToolCall("read_file", { path: a.path })], { stopReason: "toolUse" })
        : fauxAssistantMessage([fauxText(a.text)]);
    };
    return {
      binding: { model: faux.getModel(), streamFn: (m, context, options) => models.streamSimple(m, context, options), getApiKey: () => "bench" },
      prepareTurn: (n) => faux.setResponses(Array.from({ length: n }, () => step)),
      close: async () => {},
    };
  }
  // The server counts what it received (messages and tool declarations, ~4 characters a token) and reports it in the last chunk.
  const server = await startOpenAIServer({ usage: "exact", chunkSize: 256 });
  let calls = 0;
  const step = (body: ChatCompletionRequest): ServerReply => {
    const a = answer(wireIsSummary(body.messages), body.messages[body.messages.length - 1]?.role === "user");
    if (a.kind === "readFile") return { toolCalls: [{ id: `call_${++calls}`, name: "read_file", arguments: { path: a.path } }] };
    return { text: a.text };
  };
  const binding = await resolveModelBinding(
    { provider: "openai-compatible", model: "local-model", baseUrl: `${server.url}/v1`, contextWindow: P7_WINDOW, maxTokens: MAX_OUTPUT },
    { get: async () => undefined },
    { env: {} },
  );
  return {
    binding,
    prepareTurn: (n) => {
      server.clearPending();
      server.push(...Array.from({ length: n }, () => step));
    },
    close: () => server.close(),
  };
}

function wireIsSummary(messages: readonly WireMessage[]): boolean {
  const first = messages[0];
  const content = typeof first?.content === "string" ? first.content : (first?.content ?? []).map((p) => p.text ?? "").join("");
  return first?.role === "system" && content === SUMMARY_SYSTEM_PROMPT;
}

function textOfMessage(message: Message): string {
  if (message.role === "toolResult") return "";
  if (typeof message.content === "string") return message.content;
  return message.content.map((c) => ("text" in c && typeof c.text === "string" ? c.text : "")).join("");
}
