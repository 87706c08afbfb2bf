// The state of a command run_command left running in the background, as its card shows it: one
// shape for the live event (the process ended, or someone stopped it), for a restored chat (the
// transcript's command_output results and the notice a reopened chat adds), and for the words.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type {} from "./app-messages"; // the app message kinds in AgentMessage

/** Without a readiness line (or before it comes), run_command returns after this long with what was printed; the approval card says so. */
export const DEFAULT_BACKGROUND_WAIT_MS = 5000;

/** Who or what ended a background process. */
export type BackgroundStopCause = "user" | "pi" | "chatClosed" | "chatDeleted" | "vscodeClosed";

export type BackgroundRunState =
  | { state: "running" }
  | { state: "exited"; exitCode: number | null; signal?: string; durationMs?: number }
  | { state: "stopped"; by: BackgroundStopCause; durationMs?: number }
  /** A reopened chat: it ended with the window or the chat that ran it; exactly how is not known. */
  | { state: "gone" };

/** For the model (command_output, run_command): "stopped by the user". */
export function stopCauseForModel(by: BackgroundStopCause): string {
  switch (by) {
    case "user":
      return "stopped by the user (the Stop button on its card)";
    case "pi":
      return "stopped by Pi";
    case "chatClosed":
      return "stopped when the user left this chat (switched to another chat or started a new one)";
    case "chatDeleted":
      return "stopped when the chat was deleted";
    case "vscodeClosed":
      return "stopped when VS Code closed";
  }
}

/** For the card: "Stopped by you". */
export function stopCauseForCard(by: BackgroundStopCause): string {
  switch (by) {
    case "user":
      return "Stopped by you";
    case "pi":
      return "Stopped by Pi";
    case "chatClosed":
      return "Stopped when you left the chat";
    case "chatDeleted":
      return "Stopped when the chat was deleted";
    case "vscodeClosed":
      return "Stopped when VS Code closed";
  }
}

const STOP_CAUSES: readonly BackgroundStopCause[] = ["user", "pi", "chatClosed", "chatDeleted", "vscodeClosed"];

/**
 * What a saved message says about a background process's end: a command_output result that saw
 * it end, or the notice a reopened chat adds for one that nothing recorded the end of.
 */
export function backgroundEndIn(message: AgentMessage): { id: string; state: BackgroundRunState } | undefined {
  if (message.role === "toolResult" && message.toolName === "command_output") {
    const d = (typeof message.details === "object" && message.details !== null ? message.details : {}) as Record<string, unknown>;
    if (typeof d.id !== "string") return undefined;
    const durationMs = typeof d.durationMs === "number" ? { durationMs: d.durationMs } : {};
    if (d.state === "exited") {
      const exitCode = typeof d.exitCode === "number" ? d.exitCode : null;
      return { id: d.id, state: { state: "exited", exitCode, ...(typeof d.signal === "string" ? { signal: d.signal } : {}), ...durationMs } };
    }
    if (d.state === "stopped") {
      const by = STOP_CAUSES.find((c) => c === d.stoppedBy) ?? "pi";
      return { id: d.id, state: { state: "stopped", by, ...durationMs } };
    }
    return undefined;
  }
  if (message.role === "localNotice" && typeof message.backgroundId === "string") return { id: message.backgroundId, state: { state: "gone" } };
  return undefined;
}

/**
 * The card's state after `next`: an end is final (a later, poorer account of the same end — the
 * command_output result after the live event — does not replace it).
 */
export function mergeBackgroundState(current: BackgroundRunState | undefined, next: BackgroundRunState): BackgroundRunState {
  if (current === undefined || current.state === "running") return next;
  return current;
}
