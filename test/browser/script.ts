// Scripted agent runs for the browser tests: AgentEvents as pi-agent-core emits them, turned
// into ChatEvents by the real AgentEventEncoder, exactly what the host will send.
import type { AgentEvent, AgentMessage } from "@earendil-works/pi-agent-core";
import type { AssistantMessage, TextContent, ThinkingContent, ToolCall, UserMessage } from "@earendil-works/pi-ai";
import { AgentEventEncoder } from "../../src/shared/event-encoder";
import type { ChatEvent } from "../../src/shared/protocol";
import { withStructuredDiff } from "../../src/shared/diff-hunks";
import { emptyChatState, reduce, type ChatState } from "../../src/shared/reducer";
import type { StructuredDiff } from "../../src/shared/structured-diff";
import type { LocalNoticeMessage } from "../../src/shared/app-messages";

type Content = TextContent | ThinkingContent | ToolCall;

let clock = 1_750_000_000_000;
const now = () => (clock += 1000);

export function assistantMessage(content: Content[], extra: Partial<AssistantMessage> = {}): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    usage: { input: 10, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 30, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: content.some((c) => c.type === "toolCall") ? "toolUse" : "stop",
    timestamp: now(),
    ...extra,
  };
}

export function userMessage(text: string): UserMessage {
  return { role: "user", content: text, timestamp: now() };
}

/** Splits text into pieces of `size` characters (the deltas of a stream). */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export class Script {
  private readonly encoder = new AgentEventEncoder();
  private events: ChatEvent[] = [];

  /** The ChatEvents produced since the last take(). */
  take(): ChatEvent[] {
    const out = this.events;
    this.events = [];
    return out;
  }

  agent(event: AgentEvent): this {
    this.events.push(...this.encoder.encode(event));
    return this;
  }

  /** A ChatEvent the host sends itself (approval requests). */
  raw(event: ChatEvent): this {
    this.events.push(event);
    return this;
  }

  start(): this {
    return this.agent({ type: "agent_start" });
  }

  end(): this {
    return this.agent({ type: "agent_end", messages: [] });
  }

  message(message: AgentMessage): this {
    return this.agent({ type: "message_start", message }).agent({ type: "message_end", message });
  }

  user(text: string): this {
    return this.message(userMessage(text));
  }

  /** Streams an assistant message block by block in deltas of `chunk` characters, then ends it. */
  assistant(content: Content[], options: { chunk?: number; extra?: Partial<AssistantMessage>; open?: boolean } = {}): this {
    const final = assistantMessage(content, options.extra);
    const partial: AssistantMessage = { ...final, content: [] };
    this.agent({ type: "message_start", message: partial });
    const update = (assistantMessageEvent: Extract<AgentEvent, { type: "message_update" }>["assistantMessageEvent"]) =>
      this.agent({ type: "message_update", message: partial, assistantMessageEvent });
    content.forEach((block, contentIndex) => {
      if (block.type === "toolCall") {
        update({ type: "toolcall_start", contentIndex, partial });
        update({ type: "toolcall_delta", contentIndex, delta: JSON.stringify(block.arguments), partial });
        update({ type: "toolcall_end", contentIndex, toolCall: block, partial });
        return;
      }
      const text = block.type === "text" ? block.text : block.thinking;
      update({ type: block.type === "text" ? "text_start" : "thinking_start", contentIndex, partial });
      for (const delta of pieces(text, options.chunk ?? 5)) {
        update({ type: block.type === "text" ? "text_delta" : "thinking_delta", contentIndex, delta, partial });
      }
      update({ type: block.type === "text" ? "text_end" : "thinking_end", contentIndex, content: text, partial });
    });
    if (!options.open) this.agent({ type: "message_end", message: final });
    return this;
  }

  toolStart(toolCallId: string, toolName: string, args: unknown): this {
    return this.agent({ type: "tool_execution_start", toolCallId, toolName, args });
  }

  toolEnd(toolCallId: string, toolName: string, result: { text: string; details?: unknown; isError?: boolean }): this {
    const isError = result.isError ?? false;
    this.agent({ type: "tool_execution_end", toolCallId, toolName, result: {}, isError });
    return this.message({
      role: "toolResult",
      toolCallId,
      toolName,
      content: [{ type: "text", text: result.text }],
      ...(result.details !== undefined ? { details: result.details as never } : {}),
      isError,
      timestamp: now(),
    });
  }
}

export function toolCall(id: string, name: string, args: Record<string, string | number>): ToolCall {
  return { type: "toolCall", id, name, arguments: args };
}

export const SAMPLE_DIFF = [
  "Index: src/config.ts",
  "===================================================================",
  "--- src/config.ts",
  "+++ src/config.ts",
  "@@ -1,6 +1,6 @@",
  " export const config = {",
  '   host: "localhost",',
  "-  port: 3000,",
  "+  port: 8080,",
  "   retries: 3,",
  " };",
  " ",
  "",
].join("\n");

/** SAMPLE_DIFF as the hunks the host sends (written out, not built by the code under test). */
export const SAMPLE_CHANGE: StructuredDiff = {
  kind: "hunks",
  hunks: [
    {
      oldStart: 1,
      oldLines: 6,
      newStart: 1,
      newLines: 6,
      lines: [" export const config = {", '   host: "localhost",', "-  port: 3000,", "+  port: 8080,", "   retries: 3,", " };", " "],
    },
  ],
};

/** The state the shared reducer builds from these events (what a host snapshot would carry: edit diffs as hunks). */
export function stateOf(events: readonly ChatEvent[], from: ChatState = emptyChatState): ChatState {
  return events.map(withStructuredDiff).reduce(reduce, from);
}

/** A chat of one prompt ("Show me") answered with `text`, as the view holds it once the answer ended. */
export function answeredChat(text: string): ChatState {
  return stateOf(
    new Script()
      .start()
      .user("Show me")
      .assistant([{ type: "text", text }])
      .end()
      .take(),
  );
}

/** The events of one finished turn: "Show me", then an answer of `text`. */
export const answered = (text: string): ChatEvent[] =>
  new Script()
    .start()
    .user("Show me")
    .assistant([{ type: "text", text }])
    .end()
    .take();

/** The notice a prompt gets when the provider has no key (as the host words it): the first-run tests and the README's picture. */
export function noKeyNotice(timestamp = now()): LocalNoticeMessage {
  return {
    role: "localNotice",
    level: "error",
    text: "No API key for Anthropic: none is stored in VS Code, and ANTHROPIC_API_KEY is not set.",
    fix: "Run “Pi Chat: Set API Key” or set ANTHROPIC_API_KEY. Or choose another provider, or use a local model (no key needed).",
    fixCommand: "setApiKey",
    moreFixCommands: ["selectChatModel", "useLocalModel"],
    timestamp,
  };
}

/** An edit of three hunks far apart in one file (lines 3, 20 and 40 change), as the host sends it. */
export const THREE_HUNK_CHANGE: StructuredDiff = {
  kind: "hunks",
  hunks: [
    { oldStart: 1, oldLines: 6, newStart: 1, newLines: 6, lines: [" a1", " a2", "-port = 3000", "+port = 8080", " a4", " a5", " a6"] },
    { oldStart: 17, oldLines: 7, newStart: 17, newLines: 7, lines: [" b17", " b18", " b19", "-name = old", "+name = new", " b21", " b22", " b23"] },
    {
      oldStart: 37,
      oldLines: 7,
      newStart: 37,
      newLines: 8,
      lines: [" c37", " c38", " c39", "-retries = 3", "+retries = 5", "+timeout = 10", " c41", " c42", " c43"],
    },
  ],
};
