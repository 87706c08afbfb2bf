// The context meter's figures from a message path alone (so a reloaded chat shows what the
// live one did): the size of the model's context and what the chat cost.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { AssistantMessage, Usage } from "@earendil-works/pi-ai";
import type { ContextMeter, FixedParts, UsageFigures } from "../../shared/context-meter";
import type { LatestCompaction } from "./compaction";
import { estimateMessageTokens, estimateToolDeclarationTokens } from "./tokens";

/** Tokens of a request as the provider counted them: everything sent plus the answer, which the next request carries. */
export function usageTokens(usage: Usage): number {
  return (usage.input || 0) + (usage.cacheRead || 0) + (usage.cacheWrite || 0) + (usage.output || 0);
}

/** An answer that reported real usage (an error or a stop reports none or a partial one). */
function hasUsage(m: AgentMessage): m is AssistantMessage {
  return m.role === "assistant" && m.stopReason !== "error" && m.stopReason !== "aborted" && !!m.usage && usageTokens(m.usage) > 0;
}

export interface ContextSize {
  tokens: number;
  /** The figure is our estimate: no usage covers the path, or the estimate of the path was larger. */
  estimated: boolean;
}

/**
 * The size of the model's context for the next request, before any trimming: what decides
 * compaction and what the meter shows. Two measures of the same path, and the larger one wins:
 * - the last answer's usage plus an estimate of the messages after it (after a compaction that
 *   came later than that answer, the summary's own figure instead: the usage describes a context
 *   that no longer exists);
 * - our estimate of the whole untrimmed request view (system messages, the latest summary, the
 *   messages it keeps and what followed).
 * Estimates are scaled by the server's measured tokens per estimated token (`serverScale`, 1 when
 * it did not measure), or by what the last usage showed, whichever is more.
 * A usage counts only what the provider was sent: a request trimmed to fit, or a server that counts
 * low or reports nothing, would hide the rest of the path, and the trim (which measures with the
 * estimate) would then pre-empt compaction for good.
 */
export function contextSize(path: readonly AgentMessage[], cache: MeterCache = new MeterCache(), serverScale = 1): ContextSize {
  // One pass (or none, when the cache knows the path) sets the running sums of every prefix.
  const totals = cache.totalsOf(path);
  const scale = Math.max(serverScale, estimateScale(path, cache));
  const estimate = Math.ceil(viewEstimateOfPrefix(path, path.length, cache) * scale);
  const reported = reportedSize(path, latestCompactionOf(path, totals), scale);
  if (reported === undefined || estimate > reported.tokens) return { tokens: estimate, estimated: true };
  return reported;
}

/** A provider counting more than our ~4 characters a token is believed, up to this factor. */
const MAX_ESTIMATE_SCALE = 2;

/**
 * How much more the provider counted than we estimated, for the last request it reported usage
 * for (never less than 1: a lower count may be a trimmed request or a server that counts low, and
 * must not hide anything). Estimates of messages the provider has not seen yet are scaled by it,
 * so a request is not sent over the threshold because our estimate was low.
 */
function estimateScale(path: readonly AgentMessage[], cache: MeterCache): number {
  for (let i = path.length - 1; i > 0; i--) {
    const m = path[i]!;
    if (!hasUsage(m)) continue;
    const sent = (m.usage.input || 0) + (m.usage.cacheRead || 0) + (m.usage.cacheWrite || 0);
    const estimated = viewEstimateOfPrefix(path, i, cache);
    if (!(sent > 0 && estimated > 0)) return 1;
    return Math.min(MAX_ESTIMATE_SCALE, Math.max(1, sent / estimated));
  }
  return 1;
}

/**
 * The size from the last answer's usage (or, after a compaction newer than any answer, the summary's
 * own figure, itself an estimate), or undefined when neither exists.
 */
function reportedSize(path: readonly AgentMessage[], latest: LatestCompaction | undefined, scale: number): ContextSize | undefined {
  const tail = (from: number) => {
    let tokens = 0;
    for (let j = from; j < path.length; j++) tokens += estimateMessageTokens(path[j]!);
    return Math.ceil(tokens * scale);
  };
  for (let i = path.length - 1; i >= 0; i--) {
    const m = path[i]!;
    if (latest && i === latest.index) {
      if (!(m.role === "compactionSummary" && m.tokensAfter > 0)) return undefined;
      return { tokens: m.tokensAfter + tail(i + 1), estimated: true };
    }
    if (hasUsage(m)) return { tokens: usageTokens(m.usage) + tail(i + 1), estimated: false };
  }
  return undefined;
}

/** Our estimate of the untrimmed request view of the first `count` messages of the path. */
function viewEstimateOfPrefix(path: readonly AgentMessage[], count: number, cache: MeterCache): number {
  const totals = cache.totalsBefore(path, count);
  return viewEstimate(path, totals, latestCompactionOf(path, totals), cache);
}

/**
 * Our estimate of the untrimmed request view of the path, from the running sums (no pass over the
 * whole path): what applyCompaction's view would be estimated at.
 */
function viewEstimate(path: readonly AgentMessage[], totals: PathTotals, latest: LatestCompaction | undefined, cache: MeterCache): number {
  if (!latest) return totals.estimate;
  const beforeKept = cache.totalsBefore(path, latest.firstKeptIndex);
  // System messages before the kept part stay; everything else before it is in the summary.
  return beforeKept.systemEstimate + estimateMessageTokens(latest.message) + (totals.estimate - beforeKept.estimate);
}

function latestCompactionOf(path: readonly AgentMessage[], totals: PathTotals): LatestCompaction | undefined {
  const index = totals.latestCompaction;
  const message = index >= 0 ? path[index] : undefined;
  if (message?.role !== "compactionSummary") return undefined;
  const kept = Number.isInteger(message.keptMessageCount) && message.keptMessageCount > 0 ? message.keptMessageCount : 0;
  return { index, message, firstKeptIndex: Math.max(0, index - kept) };
}

function emptyFigures(): UsageFigures {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
}

function add(into: UsageFigures, usage: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number }, cost: number): void {
  into.input += usage.input || 0;
  into.output += usage.output || 0;
  into.cacheRead += usage.cacheRead || 0;
  into.cacheWrite += usage.cacheWrite || 0;
  into.cost += Number.isFinite(cost) ? cost : 0;
}

export interface MeterModel {
  contextWindow: number;
  /** The model's prices per million tokens; all zero for a local server. */
  cost?: { input: number; output: number; cacheRead: number; cacheWrite: number };
}

/** What a run sends with every request beyond the transcript: the MCP servers' tools and section. */
export interface RunExtras {
  /** The MCP tools of the run and their declarations' tokens (the agent declares them in a system message at its first request). */
  mcpTools: readonly { name: string; tokens: number }[];
  mcpPromptTokens: number;
  /** MCP tools only listed by name in the system prompt (deferred behind tool_search, not declared). */
  mcpListed?: readonly string[];
  /** Lean mode is on for this run (context/lean-mode.ts). */
  lean?: boolean;
}

/** MCP tools are named `mcp__<server>__<tool>`: none of Pi Chat's own is. */
const isMcpTool = (name: string) => name.startsWith("mcp__");

/**
 * The system prompt and tool declarations along a path, plus a run's extras: what every request
 * carries. A run's MCP tools count once, declared on the path or not yet.
 */
export function fixedParts(path: readonly AgentMessage[], extras?: RunExtras, cache: MeterCache = new MeterCache()): FixedParts {
  const totals = cache.totalsOf(path);
  const parts: FixedParts = {
    instructions: Math.max(0, totals.systemEstimate - totals.systemToolsAdded) + (extras?.mcpPromptTokens ?? 0),
    tools: 0,
    toolCount: 0,
    mcpTools: 0,
    mcpToolCount: 0,
  };
  const mcp = new Map<string, number>();
  for (const [name, tokens] of totals.declaredTools) {
    if (isMcpTool(name)) mcp.set(name, tokens);
    else {
      parts.tools += tokens;
      parts.toolCount++;
    }
  }
  // The run's tool set replaces the MCP tools of earlier runs (the agent declares the change).
  if (extras) {
    mcp.clear();
    for (const tool of extras.mcpTools) mcp.set(tool.name, tool.tokens);
  }
  for (const tokens of mcp.values()) {
    parts.mcpTools += tokens;
    parts.mcpToolCount++;
  }
  if (extras?.mcpListed && extras.mcpListed.length > 0) parts.mcpListedCount = extras.mcpListed.length;
  return parts;
}

/** Every figure of the meter, from the path (and the model, when it is known). */
export function contextMeter(
  path: readonly AgentMessage[],
  model?: MeterModel,
  threshold?: number,
  trimmed?: number,
  cache?: MeterCache,
  extras?: RunExtras,
  serverScale = 1,
): ContextMeter {
  const meterCache = cache ?? new MeterCache();
  const totals = meterCache.totalsOf(path);
  const latest = latestCompactionOf(path, totals);
  const size = contextSize(path, meterCache, serverScale);
  const prices = model?.cost;
  const priced = prices ? prices.input > 0 || prices.output > 0 : totals.anyCost;
  const meter: ContextMeter = { tokens: size.tokens, estimated: size.estimated, chat: { ...totals.chat }, priced };
  if (totals.lastTurn) meter.lastTurn = { ...totals.lastTurn };
  const fixed = fixedParts(path, extras, meterCache);
  if (fixed.instructions + fixed.tools + fixed.mcpTools > 0) meter.fixed = fixed;
  if (model && model.contextWindow > 0) meter.window = model.contextWindow;
  if (extras?.lean) meter.lean = true;
  if (threshold !== undefined && threshold > 0) meter.threshold = threshold;
  if (trimmed !== undefined && trimmed > 0) meter.reduced = { kind: "trimmed", messages: trimmed };
  else if (latest)
    meter.reduced = {
      kind: "compacted",
      tokensBefore: latest.message.tokensBefore,
      tokensAfter: latest.message.tokensAfter,
      messages: latest.message.summarizedMessageCount,
    };
  return meter;
}

/** What the meter adds up along a path, up to and including one message. */
interface PathTotals {
  chat: UsageFigures;
  /** Since the last prompt. */
  lastTurn: UsageFigures | undefined;
  anyCost: boolean;
  /** Index of the latest compaction summary, -1 for none. */
  latestCompaction: number;
  /** Estimated tokens of every message but the summaries (the untrimmed view before any compaction). */
  estimate: number;
  /** The part of `estimate` that is system messages: they stay in every request. */
  systemEstimate: number;
  /** The part of `systemEstimate` that is tool declarations (every one ever added). */
  systemToolsAdded: number;
  /** The tools declared now (added, not removed since), by name: their tokens. */
  declaredTools: ReadonlyMap<string, number>;
}

const NO_TOTALS: PathTotals = {
  chat: emptyFigures(),
  lastTurn: undefined,
  anyCost: false,
  latestCompaction: -1,
  estimate: 0,
  systemEstimate: 0,
  systemToolsAdded: 0,
  declaredTools: new Map(),
};

/**
 * The running totals after each message, kept by message object. A message has one place in its
 * chat (the tree gives it one parent), so the next message, or another branch sharing a prefix,
 * adds up only what is new: the meter after a message or a branch switch costs the changed part,
 * not the chat's length.
 */
export class MeterCache {
  private readonly after = new WeakMap<object, { index: number; totals: PathTotals }>();

  totalsOf(path: readonly AgentMessage[]): PathTotals {
    let start = path.length;
    let totals = NO_TOTALS;
    while (start > 0) {
      const known = this.after.get(path[start - 1]!);
      if (known && known.index === start - 1) {
        totals = known.totals;
        break;
      }
      start--;
    }
    for (let i = start; i < path.length; i++) {
      totals = step(totals, path[i]!, i);
      this.after.set(path[i]!, { index: i, totals });
    }
    return totals;
  }

  /** The totals of the first `count` messages of the path (known after totalsOf(path): no copy of the path then). */
  totalsBefore(path: readonly AgentMessage[], count: number): PathTotals {
    if (count <= 0) return NO_TOTALS;
    const known = this.after.get(path[count - 1]!);
    return known && known.index === count - 1 ? known.totals : this.totalsOf(path.slice(0, count));
  }
}

function step(before: PathTotals, m: AgentMessage, index: number): PathTotals {
  let lastTurn = m.role === "user" ? undefined : before.lastTurn;
  let { chat, anyCost } = before;
  let usage: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number } | undefined;
  let cost = 0;
  if (m.role === "assistant" && m.usage) {
    usage = m.usage;
    cost = m.usage.cost?.total ?? 0;
  } else if (m.role === "compactionSummary" && m.usage) {
    usage = m.usage;
    cost = m.usage.cost;
  }
  if (usage) {
    if (cost > 0) anyCost = true;
    chat = { ...chat };
    add(chat, usage, cost);
    lastTurn = { ...(lastTurn ?? emptyFigures()) };
    add(lastTurn, usage, cost);
  }
  const latestCompaction = m.role === "compactionSummary" ? index : before.latestCompaction;
  const tokens = m.role === "compactionSummary" ? 0 : estimateMessageTokens(m);
  const estimate = before.estimate + tokens;
  let { systemEstimate, systemToolsAdded, declaredTools } = before;
  if (m.role === "system") {
    systemEstimate += tokens;
    // System messages are few (the first, then one per change of the tool set): a copy each is cheap.
    const declared = new Map(declaredTools);
    for (const removed of m.toolsRemoved ?? []) declared.delete(removed.name);
    for (const added of m.toolsAdded ?? []) {
      const addedTokens = estimateToolDeclarationTokens([added]);
      systemToolsAdded += addedTokens;
      declared.set(added.name, addedTokens);
    }
    declaredTools = declared;
  }
  return { chat, lastTurn, anyCost, latestCompaction, estimate, systemEstimate, systemToolsAdded, declaredTools };
}
