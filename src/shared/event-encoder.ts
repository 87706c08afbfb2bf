// Turns pi-agent-core AgentEvents into the compact ChatEvents of the protocol.
// An AgentEvent `message_update` carries the whole partial message; re-sending it per token
// costs O(n²) bytes over a long answer. This sends each delta once and, at the end, the final
// message with the text the receiver already has left out (`elided`).
import { withoutImageData } from "./images";
import type { AgentEvent } from "@earendil-works/pi-agent-core";
import type { AssistantMessage } from "@earendil-works/pi-ai";
import type { ChatEvent } from "./protocol";

export class AgentEventEncoder {
  /** Text streamed so far per content index of the open assistant message. */
  private streamed = new Map<number, string>();

  encode(event: AgentEvent): ChatEvent[] {
    switch (event.type) {
      case "agent_start":
        return [{ type: "chat/runState", running: true }];
      case "agent_end":
        return [{ type: "chat/runState", running: false }];
      case "message_start":
        if (event.message.role === "assistant") {
          this.streamed = new Map();
          // Blocks arrive through message/blockStart and message/delta; the start only needs the metadata.
          return [{ type: "message/start", message: { ...event.message, content: [] } }];
        }
        return [{ type: "message/start", message: withoutImageData(event.message) }];
      case "message_update":
        return this.encodeUpdate(event.assistantMessageEvent);
      case "message_end":
        if (event.message.role === "assistant") return [this.encodeAssistantEnd(event.message)];
        return [{ type: "message/end", message: withoutImageData(event.message) }];
      case "tool_execution_start":
        return [{ type: "tool/start", toolCallId: event.toolCallId, toolName: event.toolName, args: event.args }];
      case "tool_execution_end":
        return [{ type: "tool/end", toolCallId: event.toolCallId, isError: event.isError }];
      case "tool_execution_update":
        // Tools rate-limit their own updates (run_command: every 250 ms at most).
        return event.partialResult?.details !== undefined
          ? [{ type: "tool/progress", toolCallId: event.toolCallId, details: event.partialResult.details }]
          : [];
      case "turn_start":
      case "turn_end":
        return [];
    }
  }

  private encodeUpdate(update: Extract<AgentEvent, { type: "message_update" }>["assistantMessageEvent"]): ChatEvent[] {
    switch (update.type) {
      case "text_start":
        this.streamed.set(update.contentIndex, "");
        return [{ type: "message/blockStart", index: update.contentIndex, block: "text" }];
      case "thinking_start":
        this.streamed.set(update.contentIndex, "");
        return [{ type: "message/blockStart", index: update.contentIndex, block: "thinking" }];
      case "toolcall_start":
        return [{ type: "message/blockStart", index: update.contentIndex, block: "toolCall" }];
      case "text_delta":
      case "thinking_delta": {
        if (update.delta === "") return [];
        this.streamed.set(update.contentIndex, (this.streamed.get(update.contentIndex) ?? "") + update.delta);
        return [{ type: "message/delta", index: update.contentIndex, text: update.delta }];
      }
      default:
        // Tool-call argument deltas are not shown while streaming; the final message carries them parsed.
        return [];
    }
  }

  private encodeAssistantEnd(message: AssistantMessage): ChatEvent {
    const elided: number[] = [];
    const content = message.content.map((block, index) => {
      const streamed = this.streamed.get(index);
      if (block.type === "text" && streamed === block.text) {
        elided.push(index);
        return { ...block, text: "" };
      }
      if (block.type === "thinking" && streamed === block.thinking && !block.redacted) {
        elided.push(index);
        return { ...block, thinking: "" };
      }
      return block;
    });
    this.streamed = new Map();
    return elided.length > 0 ? { type: "message/end", message: { ...message, content }, elided } : { type: "message/end", message };
  }
}

/** Joins adjacent deltas of one block, so a batch of events can be posted as fewer, larger ones. */
export function mergeDeltas(events: readonly ChatEvent[]): ChatEvent[] {
  const out: ChatEvent[] = [];
  for (const event of events) {
    const last = out[out.length - 1];
    if (event.type === "message/delta" && last?.type === "message/delta" && last.index === event.index) {
      out[out.length - 1] = { type: "message/delta", index: event.index, text: last.text + event.text };
    } else {
      out.push(event);
    }
  }
  return out;
}
