// Token estimates without a tokenizer: ~4 characters a token, counted over what the model is
// actually sent (text, thinking, tool-call arguments, tool declarations), not over the JSON
// envelope and metadata (usage, timestamps) that never reach it. A tokenizer per provider would
// be more exact and weigh megabytes; the figures here only decide when to compact and what the
// meter shows between two requests (the provider's own usage replaces them after each answer).
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { appMessageFact } from "./app-message-facts";
import { isAppMessage } from "../messages";

export const CHARS_PER_TOKEN = 4;
/** An image's rough cost in tokens, whatever its size (providers scale them down). */
export const IMAGE_TOKENS = 1200;
/** Role markers and separators a provider adds around each message. */
const MESSAGE_OVERHEAD_TOKENS = 4;

export function tokensOfText(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** The tokens one message costs in a request. App messages count as the sentence the model gets (or 0). */
export function estimateMessageTokens(message: AgentMessage): number {
  try {
    if (isAppMessage(message)) {
      const fact = appMessageFact(message);
      return fact === null ? 0 : tokensOfText(fact) + MESSAGE_OVERHEAD_TOKENS;
    }
    return estimateLlmMessageTokens(message as Message);
  } catch {
    // A malformed message from a damaged transcript: count its JSON, never throw.
    return tokensOfText(safeJson(message));
  }
}

export function estimateLlmMessageTokens(message: Message): number {
  const { chars, images } = messageWeight(message);
  return Math.ceil(chars / CHARS_PER_TOKEN) + images * IMAGE_TOKENS + MESSAGE_OVERHEAD_TOKENS;
}

/** What a message weighs: its characters and its images. */
interface Weight {
  chars: number;
  images: number;
}

function messageWeight(message: Message): Weight {
  switch (message.role) {
    case "system":
      return { chars: systemChars(message), images: 0 };
    case "user":
      return typeof message.content === "string" ? { chars: message.content.length, images: 0 } : partsWeight(message.content);
    case "assistant":
      return { chars: assistantChars(message), images: 0 };
    case "toolResult": {
      const parts = partsWeight(message.content);
      return { chars: message.toolName.length + parts.chars, images: parts.images };
    }
  }
  return { chars: 0, images: 0 };
}

/** The system prompt, its sections and the tools it declares. */
function systemChars(message: Extract<Message, { role: "system" }>): number {
  let chars = typeof message.content === "string" ? message.content.length : message.content.reduce((n, c) => n + c.text.length, 0);
  for (const text of Object.values(message.sections ?? {})) if (typeof text === "string") chars += text.length;
  for (const tool of message.toolsAdded ?? []) chars += toolDeclarationChars(tool);
  return chars;
}

/** Text and images of a user message or a tool result. */
function partsWeight(content: readonly ({ type: "text"; text: string } | { type: "image" })[]): Weight {
  const weight: Weight = { chars: 0, images: 0 };
  for (const c of content) c.type === "text" ? (weight.chars += c.text.length) : weight.images++;
  return weight;
}

/** Text, thinking and tool calls (name and arguments) of an answer. */
function assistantChars(message: Extract<Message, { role: "assistant" }>): number {
  let chars = 0;
  for (const c of message.content) {
    if (c.type === "text") chars += c.text.length;
    else if (c.type === "thinking") chars += c.thinking.length;
    else chars += c.name.length + safeJson(c.arguments).length;
  }
  return chars;
}

/** A tool declaration as the model gets it: its name, description and parameter schema. */
export interface ToolDeclarationShape {
  name: string;
  description: string;
  parameters: unknown;
}

// A declaration is counted on every request (the meter, the budget): its schema is serialized once
// per declaration object. Declarations are never changed after they are made (a changed tool is a
// new object), so the count cannot go stale.
const declarationCharsCache = new WeakMap<ToolDeclarationShape, number>();

function toolDeclarationChars(tool: ToolDeclarationShape): number {
  const cached = declarationCharsCache.get(tool);
  if (cached !== undefined) return cached;
  const chars = tool.name.length + tool.description.length + safeJson(tool.parameters).length;
  declarationCharsCache.set(tool, chars);
  return chars;
}

/** The tokens a set of tool declarations takes in every request. */
export function estimateToolDeclarationTokens(tools: readonly ToolDeclarationShape[]): number {
  let chars = 0;
  for (const tool of tools) chars += toolDeclarationChars(tool);
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

export function estimateTokensOf(messages: readonly AgentMessage[]): number {
  let total = 0;
  for (const m of messages) total += estimateMessageTokens(m);
  return total;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}
