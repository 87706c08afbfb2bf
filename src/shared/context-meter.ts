// The figures of the context meter in the view's header: how full the model's context is, and
// what the chat cost. Computed in the host from the transcript (src/core/context/meter.ts), so a
// reloaded chat shows the same figures; the webview only formats them.

export interface UsageFigures {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** In US dollars, from the model's prices in pi-ai; 0 for a model without prices. */
  cost: number;
}

export interface ContextMeter {
  /** Tokens of the model's context now: the last request's usage plus an estimate of what came after it. */
  tokens: number;
  /** No request reported usage for the current context yet: `tokens` is an estimate. */
  estimated: boolean;
  /** The model's context window, once the model is known. */
  window?: number;
  /** The model's server did not say its window and no setting does (piChat.contextWindow): shown as unknown, not guessed. */
  windowUnknown?: boolean;
  /** Where compaction starts (window minus the reserve for the answer). */
  threshold?: number;
  /** Usage of the last turn (every request since the last prompt, summaries included). */
  lastTurn?: UsageFigures;
  /** Usage of the whole chat, summaries included. */
  chat: UsageFigures;
  /** The model has prices: show costs. */
  priced: boolean;
  /** What every request carries besides the conversation (estimates): shown so a long tool list is seen to cost. */
  fixed?: FixedParts;
  /** Lean mode is on for the chat's model (a short prompt, the essential tools, MCP tools on demand). */
  lean?: true;
  /** Why the last request was smaller than the transcript. */
  reduced?: { kind: "compacted"; tokensBefore: number; tokensAfter: number; messages: number } | { kind: "trimmed"; messages: number };
}

/** Estimated tokens of what every request carries besides the conversation. */
export interface FixedParts {
  /** The system prompt, the project's instructions and the MCP servers' section. */
  instructions: number;
  /** Declarations of Pi Chat's own tools, and how many. */
  tools: number;
  toolCount: number;
  /** Declarations of the MCP servers' tools sent in the last run, and how many. */
  mcpTools: number;
  mcpToolCount: number;
  /** MCP tools only listed by name (loaded on demand with tool_search), not declared. */
  mcpListedCount?: number;
}

/** The meter turns to its warning colour from this share of the window. */
export const METER_WARNING_SHARE = 0.8;

/** 41,210 → "41.2k"; 200,000 → "200k". */
export function formatTokens(tokens: number): string {
  if (!Number.isFinite(tokens) || tokens < 0) return "0";
  if (tokens < 1_000) return String(Math.round(tokens));
  if (tokens < 1_000_000) return `${trimZero((tokens / 1_000).toFixed(tokens < 100_000 ? 1 : 0))}k`;
  return `${trimZero((tokens / 1_000_000).toFixed(2))}M`;
}

export function formatCost(dollars: number): string {
  if (!Number.isFinite(dollars) || dollars <= 0) return "$0.00";
  if (dollars < 0.01) return `$${dollars.toFixed(4)}`;
  return `$${dollars.toFixed(2)}`;
}

function trimZero(text: string): string {
  return text.replace(/\.0+$/, "").replace(/(\.\d*?)0+$/, "$1");
}
