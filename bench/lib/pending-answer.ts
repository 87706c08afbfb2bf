// The assistant message a streamed answer starts as (no content yet, stop reason "pending"), for
// the figures that stream into a chat (P4 in the browser, P6 in the reducer).
import type { AssistantMessage } from "@earendil-works/pi-ai";

export function pendingAnswer(timestamp: number): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "pending",
    timestamp,
  };
}
