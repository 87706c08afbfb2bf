// One compaction of a message path: plan the cut, ask the same model for the summary in a
// separate request, and build the summary message. Nothing is written here: the caller appends
// the message it returns, or nothing at all (cancelled, failed), so a stopped compaction leaves
// the transcript exactly as it was.
import type { AgentMessage, StreamFn } from "@earendil-works/pi-agent-core";
import { normalizeContext, type Api, type Model } from "@earendil-works/pi-ai";
import { convertToLlm } from "../context-policy";
import type { CompactionSummaryMessage, CompactionTrigger } from "../messages";
import { compactionMessage, latestCompaction, planCompaction, type ContextBudget } from "./compaction";
import { contextSize } from "./meter";
import { answerSizedByUs } from "./request-fit";
import { buildSummaryRequest } from "./summary-prompt";
import { estimateMessageTokens } from "./tokens";

export interface SummaryModel {
  model: Model<Api>;
  streamFn: StreamFn;
  apiKey: string | undefined;
}

/**
 * The model of a side request (a summary, a title), which sizes its own answer. Where the server
 * told us its window, the request is sized in its tokens (compactPath's tokenScale), so pi-ai
 * must not size the answer again.
 */
export function summaryModelOf(binding: { model: Model<Api>; streamFn: StreamFn; window?: { known: boolean } }, apiKey: string | undefined): SummaryModel {
  const model = binding.window?.known ? answerSizedByUs(binding.model) : binding.model;
  return { model, streamFn: binding.streamFn, apiKey };
}

export type CompactionOutcome =
  | { status: "done"; message: CompactionSummaryMessage }
  | { status: "nothing"; reason: string }
  | { status: "cancelled" }
  | { status: "failed"; error: string };

export interface CompactOptions {
  trigger: CompactionTrigger;
  budget: ContextBudget;
  instructions?: string;
  signal?: AbortSignal;
  now?: () => number;
  /** The server's tokens per estimated token (server-window.ts): the summary request is sized in the server's tokens. */
  tokenScale?: number;
}

export async function compactPath(path: readonly AgentMessage[], summaryModel: SummaryModel, options: CompactOptions): Promise<CompactionOutcome> {
  const { budget } = options;
  const tokensBefore = contextSize(path).tokens;
  // By hand the user asks for a compaction now: keep less than the setting when the chat is small
  // (half of its conversation: the system prompt and tools stay in every request and are no part of it).
  const keepRecentTokens = options.trigger === "manual" ? Math.min(budget.keepRecentTokens, Math.floor(conversationTokens(path) / 2)) : budget.keepRecentTokens;
  const planned = planCompaction(path, { keepRecentTokens, maxKeptTokens: budget.maxKeptTokens });
  if (!planned.ok) return { status: "nothing", reason: planned.reason };
  const request = buildSummaryRequest(planned.plan, convertToLlm, {
    // The summary request must fit the window with its own answer (and a margin for the estimate),
    // counted in the server's tokens where it told us how many it makes of ours.
    maxInputTokens: Math.floor((budget.window - budget.summaryMaxTokens - Math.ceil(budget.window / 16)) / Math.max(1, options.tokenScale ?? 1)),
    maxTokens: budget.summaryMaxTokens,
    ...(options.instructions ? { instructions: options.instructions } : {}),
  });
  if (options.signal?.aborted) return { status: "cancelled" };
  let answer: Awaited<ReturnType<typeof writeSummary>>;
  try {
    answer = await writeSummary(summaryModel, request, options.signal);
  } catch (error) {
    if (options.signal?.aborted) return { status: "cancelled" };
    return { status: "failed", error: error instanceof Error ? error.message : String(error) };
  }
  if (options.signal?.aborted) return { status: "cancelled" };
  const message = compactionMessage(path, planned.plan, answer.text, {
    trigger: options.trigger,
    tokensBefore,
    ...(options.instructions?.trim() ? { instructions: options.instructions.trim() } : {}),
    usage: answer.usage,
    timestamp: (options.now ?? Date.now)(),
    userWordsTokens: budget.userWordsTokens,
  });
  return { status: "done", message };
}

/** The summary request itself: the same model, a system prompt of its own, no tools. */
export async function writeSummary(
  summaryModel: SummaryModel,
  request: { systemPrompt: string; prompt: string; maxTokens: number },
  signal: AbortSignal | undefined,
): Promise<{ text: string; usage: NonNullable<CompactionSummaryMessage["usage"]> }> {
  const now = Date.now();
  const context = normalizeContext({
    messages: [
      { role: "system", content: request.systemPrompt, timestamp: now },
      { role: "user", content: [{ type: "text", text: request.prompt }], timestamp: now },
    ],
  });
  const stream = await summaryModel.streamFn(summaryModel.model, context, {
    maxTokens: request.maxTokens,
    ...(summaryModel.apiKey ? { apiKey: summaryModel.apiKey } : {}),
    ...(signal ? { signal } : {}),
  });
  const result = await stream.result();
  if (result.stopReason === "aborted") throw new Error("The summary request was stopped.");
  if (result.stopReason === "error") throw new Error(result.errorMessage || "The summary request failed.");
  const text = result.content
    .flatMap((c) => (c.type === "text" ? [c.text] : []))
    .join("\n")
    .trim();
  if (!text) throw new Error("The model returned an empty summary.");
  const u = result.usage;
  return {
    text,
    usage: { input: u?.input ?? 0, output: u?.output ?? 0, cacheRead: u?.cacheRead ?? 0, cacheWrite: u?.cacheWrite ?? 0, cost: u?.cost?.total ?? 0 },
  };
}

/** Estimated tokens of the messages a compaction could summarize or keep: not the system messages, not summaries. */
function conversationTokens(path: readonly AgentMessage[]): number {
  const latest = latestCompaction(path);
  let tokens = 0;
  for (let i = latest ? latest.firstKeptIndex : 0; i < path.length; i++) {
    const m = path[i]!;
    if (m.role !== "system" && m.role !== "compactionSummary") tokens += estimateMessageTokens(m);
  }
  return tokens;
}
