// Message builders for the context tests: a path with turns of chosen sizes and tool calls.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { AssistantMessage, Usage } from "@earendil-works/pi-ai";
import type { CompactionSummaryMessage } from "../../../src/core/messages";

export function usage(input: number, output: number, cost = 0): Usage {
  return { input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost } };
}

export const system: AgentMessage = { role: "system", content: "You are a test assistant.", timestamp: 0 };

/** ~`tokens` tokens of text (4 characters a token). */
export function text(tokens: number, word = "lorem"): string {
  return `${word} `.repeat(Math.ceil((tokens * 4) / (word.length + 1))).slice(0, tokens * 4);
}

export const user = (content: string): AgentMessage => ({ role: "user", content: [{ type: "text", text: content }], timestamp: 1 });

export function assistant(content: string, u: Usage = usage(0, 0)): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text: content }],
    api: "faux",
    provider: "faux",
    model: "m",
    usage: u,
    stopReason: "stop",
    timestamp: 2,
  };
}

export function call(id: string, name: string, args: Record<string, string>, u: Usage = usage(0, 0)): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "toolCall", id, name, arguments: args }],
    api: "faux",
    provider: "faux",
    model: "m",
    usage: u,
    stopReason: "toolUse",
    timestamp: 2,
  };
}

export const result = (id: string, name: string, content: string, isError = false): AgentMessage => ({
  role: "toolResult",
  toolCallId: id,
  toolName: name,
  content: [{ type: "text", text: content }],
  isError,
  timestamp: 3,
});

/** `turns` turns: a question, a read_file call and its result, an answer; each ~`size` tokens. */
export function conversation(turns: number, size = 100, prefix = "t"): AgentMessage[] {
  const out: AgentMessage[] = [system];
  for (let i = 0; i < turns; i++) {
    const id = `${prefix}${i}`;
    out.push(
      user(`question ${i} ${text(size / 4)}`),
      call(id, "read_file", { path: `src/f${i}.ts` }),
      result(id, "read_file", text(size / 2)),
      assistant(`answer ${i} ${text(size / 4)}`),
    );
  }
  return out;
}

export function summaryMessage(fields: Partial<CompactionSummaryMessage> & { keptMessageCount: number }): CompactionSummaryMessage {
  return {
    role: "compactionSummary",
    summary: "## Goal\nTest",
    summarizedMessageCount: 0,
    tokensBefore: 1000,
    tokensAfter: 200,
    readFiles: [],
    modifiedFiles: [],
    trigger: "threshold",
    timestamp: 5,
    ...fields,
  };
}
