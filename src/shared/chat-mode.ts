// The chat's mode, from its path: the newest modeChanged message says it (act before any).
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ChatMode } from "./app-messages";

export type { ChatMode };

export function currentMode(messages: readonly AgentMessage[]): ChatMode {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "modeChanged") return m.mode === "plan" ? "plan" : "act";
  }
  return "act";
}
