// Reading a command card's log file back, for "Open the whole output" (asked for by id).
import { chatItems, type ChatState } from "../../shared/reducer";

/** The logFile a run_command result (by tool call id) or a `!cmd` (by item id) named, if it is in this chat. */
export function findCommandLogFile(state: ChatState, id: string): { logFile?: string } | undefined {
  for (const item of chatItems(state)) {
    if (item.id !== id) continue;
    if (item.kind === "tool") {
      const details = item.details;
      if (typeof details !== "object" || details === null) return {};
      const logFile = (details as Record<string, unknown>).logFile;
      return typeof logFile === "string" ? { logFile } : {};
    }
    if (item.kind === "userCommand") return item.logFile !== undefined ? { logFile: item.logFile } : {};
  }
  return undefined;
}
