// Reading a tool card's details back from the view state, for actions the webview asks for by id.
import { chatItems, type ChatState } from "../shared/reducer";

/** The logFile a run_command result named, if the call is in this chat. */
export function findToolDetails(state: ChatState, toolCallId: string): { logFile?: string } | undefined {
  for (const item of chatItems(state)) {
    if (item.kind !== "tool" || item.id !== toolCallId) continue;
    const details = item.details;
    if (typeof details !== "object" || details === null) return {};
    const logFile = (details as Record<string, unknown>).logFile;
    return typeof logFile === "string" ? { logFile } : {};
  }
  return undefined;
}
