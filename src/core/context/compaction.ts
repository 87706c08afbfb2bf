// Compaction, the pure part: the budget a window leaves, where to cut a message path, what to
// summarize, and the model's view of a path that holds summaries. Everything here is a function
// of the message path it is given (root to leaf of one branch), so it works per branch.
// The request that writes the summary is in compactor.ts; the prompt in summary-prompt.ts.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ToolResultMessage } from "@earendil-works/pi-ai";
import type { CompactionSummaryMessage, CompactionTrigger } from "../messages";
import { estimateMessageTokens, estimateTokensOf } from "./tokens";
import { keptUserWords, userWordsBudget } from "./user-words";
import { currentTaskList } from "../../shared/task-list";

export interface CompactionSettings {
  /** Compact on its own (threshold and overflow). Off: only by hand; a full window is trimmed instead. */
  enabled: boolean;
  /** Tokens kept free for the answer (and the estimate's error). Clamped to a quarter of the window. */
  reserveTokens: number;
  /** Tokens of the newest messages kept verbatim (at least), clamped so a compacted context fits. */
  keepRecentTokens: number;
}

export const DEFAULT_COMPACTION_SETTINGS: CompactionSettings = { enabled: true, reserveTokens: 16_384, keepRecentTokens: 20_000 };

/** A summary longer than this is no longer a summary; it also bounds the summary request's answer. */
export const MAX_SUMMARY_TOKENS = 4_096;

/** What one window allows, from the model's limits and the settings. */
export interface ContextBudget {
  window: number;
  /** Kept free above the threshold: the answer (`maxOutputTokens`) plus a margin for estimate error. */
  reserve: number;
  /** The context may not pass this: a request above it is compacted first. */
  threshold: number;
  /** The answer's output limit for every request, so a request always fits its own answer. */
  maxOutputTokens: number;
  /** The summary request's output limit. */
  summaryMaxTokens: number;
  /** Newest tokens kept verbatim by a compaction. */
  keepRecentTokens: number;
  /** A cut never keeps more than this, or the compacted context would not fit under the threshold. */
  maxKeptTokens: number;
  /** The user's own words kept verbatim beside a summary. */
  userWordsTokens: number;
}

/**
 * @param fixedTokens the system prompt and tool declarations: in every request, never summarized.
 */
export function contextBudget(window: number, modelMaxOutput: number, settings: CompactionSettings, fixedTokens = 0): ContextBudget {
  const safeWindow = Math.max(1_024, Math.floor(window) || 0);
  const reserve = Math.max(256, Math.min(Math.floor(settings.reserveTokens) || 0, Math.floor(safeWindow / 4)));
  const threshold = safeWindow - reserve;
  // An eighth of the reserve covers the estimate's error (~4 chars a token is rough).
  const margin = Math.ceil(reserve / 8);
  const maxOutputTokens = Math.max(1, Math.min(modelMaxOutput > 0 ? modelMaxOutput : reserve, reserve - margin));
  const summaryMaxTokens = Math.max(256, Math.min(Math.floor(reserve * 0.8), MAX_SUMMARY_TOKENS));
  const slack = Math.ceil(threshold * 0.05);
  const userWordsTokens = userWordsBudget(threshold);
  const maxKeptTokens = Math.max(0, threshold - summaryMaxTokens - userWordsTokens - fixedTokens - slack);
  const keepRecentTokens = Math.max(0, Math.min(Math.floor(settings.keepRecentTokens) || 0, maxKeptTokens));
  return { window: safeWindow, reserve, threshold, maxOutputTokens, summaryMaxTokens, keepRecentTokens, maxKeptTokens, userWordsTokens };
}

// ---- the model's view of a path ----

export interface LatestCompaction {
  index: number;
  message: CompactionSummaryMessage;
  /** Index of the first message kept verbatim. */
  firstKeptIndex: number;
}

export function latestCompaction(path: readonly AgentMessage[]): LatestCompaction | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const m = path[i]!;
    if (m.role === "compactionSummary") return compactionAt(m, i);
  }
  return undefined;
}

function compactionAt(message: CompactionSummaryMessage, index: number): LatestCompaction {
  const kept = Number.isInteger(message.keptMessageCount) && message.keptMessageCount > 0 ? message.keptMessageCount : 0;
  return { index, message, firstKeptIndex: Math.max(0, index - kept) };
}

export interface CompactedView {
  messages: AgentMessage[];
  /** Messages of the path the summary stands for (left out of the request). */
  summarized: number;
  compaction?: LatestCompaction;
}

/** The system messages before the latest summary's kept messages, and how many others it stands for. */
function summarizedPrefix(path: readonly AgentMessage[], latest: LatestCompaction): { systems: AgentMessage[]; summarized: number } {
  const systems: AgentMessage[] = [];
  let summarized = 0;
  for (let i = 0; i < latest.firstKeptIndex; i++) {
    const m = path[i]!;
    if (m.role === "system") systems.push(m);
    else if (m.role !== "compactionSummary") summarized++;
  }
  return { systems, summarized };
}

/**
 * The model's view: system messages, the latest summary, the messages it keeps verbatim, then what
 * came after it. Older summaries are inside the latest one (it updated them) and left out.
 */
export function applyCompaction(path: readonly AgentMessage[]): CompactedView {
  const latest = latestCompaction(path);
  if (!latest) return { messages: path.slice(), summarized: 0 };
  const { systems: out, summarized } = summarizedPrefix(path, latest);
  out.push(latest.message);
  for (let i = latest.firstKeptIndex; i < path.length; i++) {
    const m = path[i]!;
    if (m.role !== "compactionSummary") out.push(m);
  }
  return { messages: out, summarized, compaction: latest };
}

/**
 * What the agent holds of a path, as pi's agent holds its session's projection: the system
 * messages before the latest summary's kept messages, then the path from there on, in order.
 * applyCompaction gives the same view of it as of the path, and pi-agent-core's own work on
 * each prompt (copies of its messages, the scan for tool declarations) then follows what the
 * model gets, not the whole chat (P21). Without a summary, the whole path.
 */
export function agentProjection(path: readonly AgentMessage[]): AgentMessage[] {
  const latest = latestCompaction(path);
  if (!latest || latest.firstKeptIndex === 0) return path.slice();
  const { systems: out } = summarizedPrefix(path, latest);
  for (let i = latest.firstKeptIndex; i < path.length; i++) out.push(path[i]!);
  return out;
}

/**
 * How many messages of `path` the summary at `index` stands for (what applyCompaction counts).
 * A summary's ancestors never change in the chat's tree, so this is a fact of the summary:
 * callers may keep it (ChatSession does, per summary).
 */
export function summarizedBy(path: readonly AgentMessage[], index: number): number {
  const m = path[index];
  return m?.role === "compactionSummary" ? summarizedPrefix(path, compactionAt(m, index)).summarized : 0;
}

// ---- where to cut ----

export interface CompactionPlan {
  /** Messages the new summary covers, in order (the previous summary comes separately). */
  toSummarize: AgentMessage[];
  /** The kept part starts inside a turn: its beginning is summarized, its end kept. */
  splitTurn: boolean;
  /** Messages between the cut and the end of the path: the summary's `keptMessageCount`. */
  keptMessageCount: number;
  keptTokens: number;
  previous?: CompactionSummaryMessage;
  readFiles: string[];
  modifiedFiles: string[];
  /** All messages the summary will stand for, earlier summaries' included. */
  summarizedMessageCount: number;
}

export type PlanResult = { ok: true; plan: CompactionPlan } | { ok: false; reason: string };

/** A cut may fall where a user turn starts (its attachments first) or at an assistant message, never at a tool result. */
function isTurnStart(path: readonly AgentMessage[], i: number): boolean {
  const m = path[i]!;
  const prev = path[i - 1];
  // Attachments and `!cmd` runs come before the prompt they belong to: the turn starts at the first.
  const leadsIn = (r: string | undefined) => r === "fileAttachment" || r === "bashExecution";
  if (leadsIn(m.role)) return !leadsIn(prev?.role);
  return m.role === "user" && !leadsIn(prev?.role);
}

/** The newest candidate index at which the kept part reaches `keepRecentTokens` (-1: never). */
function keepTarget(candidates: readonly number[], cost: ReadonlyMap<number, number>, keepRecentTokens: number): number {
  let acc = 0;
  for (let c = candidates.length - 1; c >= 0; c--) {
    acc += cost.get(candidates[c]!)!;
    if (acc >= keepRecentTokens) return candidates[c]!;
  }
  return -1;
}

/**
 * Where to cut, at or before `target`: the start of its turn when that turn can be kept whole
 * (`keepsWhole`), else an assistant message inside the turn (`splitTurn`). `cut` -1: nowhere.
 */
function chooseCut(
  path: readonly AgentMessage[],
  first: number,
  target: number,
  keepsWhole: (turnStart: number) => boolean,
): { cut: number; splitTurn: boolean } {
  let turnStart = -1;
  for (let i = target; i >= first; i--) {
    if (path[i]!.role !== "system" && path[i]!.role !== "compactionSummary" && isTurnStart(path, i)) {
      turnStart = i;
      break;
    }
  }
  if (turnStart > first && keepsWhole(turnStart)) return { cut: turnStart, splitTurn: false };
  // One turn is too big to keep whole: cut at an assistant message inside it.
  const inTurn = (i: number) => i > Math.max(turnStart, first) && path[i]!.role === "assistant";
  let cut = -1;
  for (let i = target; i > first && cut === -1; i--) if (inTurn(i)) cut = i;
  for (let i = target + 1; i < path.length && cut === -1; i++) if (inTurn(i)) cut = i;
  if (cut !== -1) return { cut, splitTurn: turnStart !== -1 && turnStart < cut && !isTurnStart(path, cut) };
  return { cut: turnStart > first ? turnStart : -1, splitTurn: false };
}

/**
 * Plans a compaction of `path`, the summary to be appended at its end. Walks back from the newest
 * message until `keepRecentTokens` are kept and cuts at the turn start at or before that point
 * (so at least that much stays verbatim, and a tool call never loses its result). When that one
 * turn alone would keep more than `maxKeptTokens`, it cuts inside the turn, at an assistant message,
 * and the turn's beginning goes into the summary.
 */
export function planCompaction(path: readonly AgentMessage[], keep: { keepRecentTokens: number; maxKeptTokens: number }): PlanResult {
  const latest = latestCompaction(path);
  const start = latest ? latest.firstKeptIndex : 0;
  const candidates: number[] = [];
  for (let i = start; i < path.length; i++) {
    const role = path[i]!.role;
    if (role !== "system" && role !== "compactionSummary") candidates.push(i);
  }
  if (candidates.length === 0) return { ok: false, reason: "There is nothing to compact yet." };
  const cost = new Map<number, number>();
  for (const i of candidates) cost.set(i, estimateMessageTokens(path[i]!));
  const keptFrom = (cut: number) => candidates.reduce((sum, i) => (i >= cut ? sum + cost.get(i)! : sum), 0);

  const target = keepTarget(candidates, cost, keep.keepRecentTokens);
  if (target === -1) return { ok: false, reason: "The conversation is still shorter than the part kept verbatim (piChat.compaction.keepRecentTokens)." };
  const { cut, splitTurn } = chooseCut(path, candidates[0]!, target, (turnStart) => keptFrom(turnStart) <= keep.maxKeptTokens);
  if (cut === -1) return { ok: false, reason: "There is no place to cut: the conversation is one turn that cannot be split." };

  const toSummarize = candidates.filter((i) => i < cut).map((i) => path[i]!);
  const files = fileOperations(toSummarize, path, latest?.message);
  return {
    ok: true,
    plan: {
      toSummarize,
      splitTurn,
      keptMessageCount: path.length - cut,
      keptTokens: keptFrom(cut),
      ...(latest ? { previous: latest.message } : {}),
      readFiles: files.readFiles,
      modifiedFiles: files.modifiedFiles,
      summarizedMessageCount: (latest?.message.summarizedMessageCount ?? 0) + toSummarize.length,
    },
  };
}

// ---- files, from the tool calls ----

/** Tools that read a file (by `path`) and tools that change one. */
const READ_TOOLS = new Set(["read_file"]);
const WRITE_TOOLS = new Set(["edit_file", "write_file", "multi_edit"]);

/**
 * Files read and modified in `messages`, plus those of the previous summary. A modification
 * counts only if its call has a successful result on the path (a denied edit changed nothing).
 */
export function fileOperations(
  messages: readonly AgentMessage[],
  path: readonly AgentMessage[],
  previous?: CompactionSummaryMessage,
): { readFiles: string[]; modifiedFiles: string[] } {
  const read = new Set<string>(Array.isArray(previous?.readFiles) ? previous.readFiles : []);
  const modified = new Set<string>(Array.isArray(previous?.modifiedFiles) ? previous.modifiedFiles : []);
  const succeeded = new Set<string>();
  for (const m of path) if (m.role === "toolResult" && !(m as ToolResultMessage).isError) succeeded.add(m.toolCallId);
  for (const m of messages) {
    if (m.role !== "assistant" || !Array.isArray(m.content)) continue;
    for (const block of m.content) {
      if (block.type !== "toolCall") continue;
      const file = typeof block.arguments?.path === "string" ? block.arguments.path : undefined;
      if (!file) continue;
      if (READ_TOOLS.has(block.name)) read.add(file);
      else if (WRITE_TOOLS.has(block.name) && succeeded.has(block.id)) modified.add(file);
    }
  }
  return { readFiles: [...read].filter((f) => !modified.has(f)).sort(), modifiedFiles: [...modified].sort() };
}

// ---- the summary message ----

export function compactionMessage(
  path: readonly AgentMessage[],
  plan: CompactionPlan,
  summary: string,
  details: {
    trigger: CompactionTrigger;
    tokensBefore: number;
    instructions?: string;
    usage?: CompactionSummaryMessage["usage"];
    timestamp: number;
    /** Tokens of the user's own words to keep verbatim (ContextBudget.userWordsTokens). */
    userWordsTokens: number;
  },
): CompactionSummaryMessage {
  const userMessages = keptUserWords(plan.previous?.userMessages, plan.toSummarize, details.userWordsTokens);
  // The list the work follows, verbatim: its todo calls may be among the summarized messages.
  const taskList = currentTaskList(path);
  const message: CompactionSummaryMessage = {
    role: "compactionSummary",
    summary,
    keptMessageCount: plan.keptMessageCount,
    summarizedMessageCount: plan.summarizedMessageCount,
    tokensBefore: details.tokensBefore,
    tokensAfter: 0,
    readFiles: plan.readFiles,
    modifiedFiles: plan.modifiedFiles,
    trigger: details.trigger,
    ...(details.instructions ? { instructions: details.instructions } : {}),
    ...(userMessages.length > 0 ? { userMessages } : {}),
    ...(taskList.length > 0 ? { taskList } : {}),
    ...(details.usage ? { usage: details.usage } : {}),
    timestamp: details.timestamp,
  };
  message.tokensAfter = estimateTokensOf(applyCompaction([...path, message]).messages);
  return message;
}
