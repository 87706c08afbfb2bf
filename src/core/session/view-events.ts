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
  const view = new ViewEvents(deps);
  return (event) => view.onAgentEvent(event);
}

class ViewEvents {
  private readonly encoder = new AgentEventEncoder();
  /** Holds back streamed text that could be the start of a key (only with a redactor). */
  private readonly stream: StreamRedaction | undefined;

  constructor(private readonly deps: ViewEventDeps) {
    this.stream = deps.redactor ? new StreamRedaction(deps.redactor) : undefined;
  }

  async onAgentEvent(event: AgentEvent): Promise<void> {
    if (event.type === "message_start") this.deps.delivered(event.message);
    // Only final messages are saved; partial ones never reach the disk.
    if (event.type === "message_end") {
      this.deps.addedByAgent(event.message);
      await this.deps.persistOnce(event.message);
    }
    for (const chatEvent of this.encoder.encode(event)) this.send(chatEvent, event);
  }

  private send(chatEvent: ChatEvent, event: AgentEvent): void {
    const { deps, stream } = this;
    // The session's own chat/runState brackets the whole run (setup included).
    if (chatEvent.type === "chat/runState") return;
    if (stream) {
      if (chatEvent.type === "message/delta") {
        const safe = stream.delta(chatEvent.index, chatEvent.text);
        if (safe !== "") deps.emit({ ...chatEvent, text: safe });
        return;
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
        return;
      }
    }
    deps.emit(chatEvent);
  }
}
