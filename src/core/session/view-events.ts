// The agent's events as the view's chat events: each final message saved first, the events
// encoded, streamed text held back while it could be the start of a key, and a final message
// whose streamed text escaped redaction sent again whole, redacted.
import type { AgentEvent, AgentMessage } from "@earendil-works/pi-agent-core";
import { AgentEventEncoder } from "../../shared/event-encoder";
import type { ChatEvent } from "../../shared/protocol";
import { StreamRedaction } from "../redaction";
import type { Redactor } from "./types";

export interface ViewEventDeps {
  /** A queued follow-up or steer reached the transcript (the queue drops its chip). */
  delivered(message: AgentMessage): void;
  /** A final message of the agent's: onto the path, then saved. */
  addedByAgent(message: AgentMessage): void;
  persistOnce(message: AgentMessage): Promise<void>;
  redactor: Redactor | undefined;
  emit(event: ChatEvent): void;
}

/** The agent's subscriber: one encoder and one stream redaction per session. */
export function agentEventsToView(deps: ViewEventDeps): (event: AgentEvent) => Promise<void> {
  const encoder = new AgentEventEncoder();
  /** Holds back streamed text that could be the start of a key (only with a redactor). */
  const stream = deps.redactor ? new StreamRedaction(deps.redactor) : undefined;
  return async (event) => {
    if (event.type === "message_start") deps.delivered(event.message);
    // Only final messages are saved; partial ones never reach the disk.
    if (event.type === "message_end") {
      deps.addedByAgent(event.message);
      await deps.persistOnce(event.message);
    }
    for (const chatEvent of encoder.encode(event)) {
      // The session's own chat/runState brackets the whole run (setup included).
      if (chatEvent.type === "chat/runState") continue;
      if (stream) {
        if (chatEvent.type === "message/delta") {
          const safe = stream.delta(chatEvent.index, chatEvent.text);
          if (safe !== "") deps.emit({ ...chatEvent, text: safe });
          continue;
        }
        // What a stream held back is shown before anything that follows it.
        for (const [index, text] of stream.flush()) deps.emit({ type: "message/delta", index, text });
      }
      // A key split across two streamed deltas escapes their redaction: if the final text had
      // something to redact, send it whole instead of leaving the view the streamed text.
      if (chatEvent.type === "message/end" && chatEvent.elided && event.type === "message_end" && deps.redactor) {
        const redacted = deps.redactor.deep(event.message);
        if (redacted !== event.message) {
          deps.emit({ type: "message/end", message: redacted });
          continue;
        }
      }
      deps.emit(chatEvent);
    }
  };
}
