// Whether a request fits a server's known window before it is sent, and how long its answer may
// be: a server holds prompt and answer together, and a request over its window is cut or refused
// by the server (the system prompt and tools first) without a word. Measured with our estimate
// times the server's own tokens per estimated token (server-window.ts), with the budget's margin.
import type { Context } from "@earendil-works/pi-ai";
import type { ErrorFix } from "../session/run-errors";
import type { ContextBudget } from "./compaction";
import { type BindingWindow, windowSettingFix } from "./server-window";
import { estimateLlmMessageTokens, estimateToolDeclarationTokens, type ToolDeclarationShape, tokensOfText } from "./tokens";

/** The README's section on local models (how the window is found, the server's own settings, lean mode). */
export const LOCAL_MODELS_HELP_URL = "https://github.com/pi-chat/pi-chat#local-models";

/** An answer shorter than this is no answer: a request that leaves less room is not sent. */
export const MIN_ANSWER_TOKENS = 256;

/** A request's size in the server's tokens: what every request carries, and all of it. */
export interface RequestSize {
  /** The system prompt, its sections and the tool declarations. */
  fixed: number;
  total: number;
}

/** Why a request was not sent, and what fixes it (the error card's text, fix and buttons). */
export interface OversizedRequest extends ErrorFix {
  kind: "fixed" | "conversation";
  text: string;
}

/**
 * The model to hand pi-ai for a request whose answer limit we sized from the server's window: pi-ai
 * must not size it again, as its clamp keeps a fixed 4,096-token margin, which left a 4,096-token
 * window an answer of one token (max_tokens: 1). A window of 0 is pi-ai's "unknown": it keeps ours.
 */
export function answerSizedByUs<M extends { contextWindow: number }>(model: M): M {
  return { ...model, contextWindow: 0 };
}

/** The size of a request as pi-ai will send it, scaled to the server's tokens. */
export function requestTokens(context: Context, scale: number): RequestSize {
  // The tools go out once, whether the context lists them or a system message declared them.
  const declared = new Map<string, ToolDeclarationShape>();
  for (const tool of context.tools ?? []) declared.set(tool.name, tool);
  let fixed = tokensOfText(context.systemPrompt ?? "");
  let conversation = 0;
  for (const message of context.messages) {
    const tokens = estimateLlmMessageTokens(message);
    if (message.role !== "system") {
      conversation += tokens;
      continue;
    }
    const own = message.toolsAdded ?? [];
    fixed += Math.max(0, tokens - estimateToolDeclarationTokens(own));
    for (const tool of own) declared.set(tool.name, tool);
    for (const tool of message.toolsRemoved ?? []) declared.delete(tool.name);
  }
  fixed += estimateToolDeclarationTokens([...declared.values()]);
  return { fixed: Math.ceil(fixed * scale), total: Math.ceil((fixed + conversation) * scale) };
}

/**
 * A request that fits gets the answer limit that is left of the window (never more than the
 * budget's); one whose fixed part alone, or whole, leaves no room for an answer is refused.
 */
export function requestFit(size: RequestSize, budget: ContextBudget, window: BindingWindow): { maxOutputTokens?: number; refused?: OversizedRequest } {
  const margin = Math.ceil(budget.reserve / 8);
  const tokens = budget.window;
  if (size.fixed + margin + MIN_ANSWER_TOKENS > tokens) return { refused: fixedCostRefusal(size.fixed, tokens, window) };
  const left = tokens - size.total - margin;
  if (left < MIN_ANSWER_TOKENS) return { refused: conversationRefusal(size.total, tokens, window) };
  return { maxOutputTokens: Math.max(1, Math.min(budget.maxOutputTokens, left)) };
}

function groupDigits(n: number): string {
  return n.toLocaleString("en-US");
}

function fixedCostRefusal(fixed: number, window: number, server: BindingWindow): OversizedRequest {
  return {
    kind: "fixed",
    text:
      `Pi Chat did not send this message: what every request carries (the system prompt, the tool declarations and the instructions) is about ${groupDigits(fixed)} tokens, ` +
      `and the model's context window holds only ${groupDigits(window)} tokens, answer included.`,
    fix:
      `Use fewer tools: turn on lean mode (setting piChat.leanMode) or turn off MCP servers you do not need; or ${windowSettingFix(server.server)}, then Retry. ` +
      `More in the README's “Local models” section: ${LOCAL_MODELS_HELP_URL}`,
    fixCommand: "openSettings",
    moreFixCommands: ["retry"],
  };
}

function conversationRefusal(total: number, window: number, server: BindingWindow): OversizedRequest {
  return {
    kind: "conversation",
    text: `Pi Chat did not send this request: it is about ${groupDigits(total)} tokens, and the model's context window holds only ${groupDigits(window)} tokens, answer included.`,
    fix: `Run “Pi Chat: Compact Chat” to summarize the conversation, or start a new chat; or ${windowSettingFix(server.server)}. More: ${LOCAL_MODELS_HELP_URL}`,
    fixCommand: "compact",
    moreFixCommands: ["retry"],
  };
}
