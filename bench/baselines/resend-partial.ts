// BASELINE (not Pi Chat): what an extension that forwards pi-agent-core's events to its webview
// does. Every `message_update` is posted with the whole partial message, so a streamed answer of
// n tokens costs O(n²) bytes. Generous to the baseline: it posts only `event.message`, not the
// second copy of the partial inside `assistantMessageEvent.partial`, and uses the same
// { v, seq } envelope as Pi Chat.
import type { AgentEvent } from "@earendil-works/pi-agent-core";

export class ResendPartialChannel {
  private seq = 0;

  constructor(private readonly post: (message: unknown) => void) {}

  send(event: AgentEvent): void {
    switch (event.type) {
      case "message_start":
      case "message_update":
      case "message_end":
        this.post({ type: event.type, message: event.message, v: 1, seq: ++this.seq });
        return;
      case "agent_start":
      case "agent_end":
        this.post({ type: "chat/runState", running: event.type === "agent_start", v: 1, seq: ++this.seq });
        return;
      default:
        return;
    }
  }
}
