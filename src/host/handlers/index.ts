// Every webview message's handler, by message type: chat-host.ts dispatches through this one map.
import { approvalHandlers } from "./approvals";
import { branchHandlers } from "./branches";
import { chatHandlers } from "./chat";
import { composerHandlers } from "./composer";
import type { WebviewMessage } from "../../shared/protocol";
import type { AllHandlers, HandlerDeps, MessageHandler } from "./deps";
import { editorHandlers } from "./editor";
import { historyHandlers } from "./history";
import { pendingHandlers } from "./pending";

export type { EditorActions, HandlerDeps } from "./deps";

export const messageHandlers: AllHandlers = {
  ...chatHandlers,
  ...composerHandlers,
  ...approvalHandlers,
  ...historyHandlers,
  ...editorHandlers,
  ...branchHandlers,
  ...pendingHandlers,
  // Answered by the view itself (it sends the snapshot).
  "view/ready": () => {},
  "view/resync": () => {},
};

/** Runs the handler for `message.type`. */
export function dispatch(message: WebviewMessage, deps: HandlerDeps): void | Promise<void> {
  // The map pairs each type with its message shape; TypeScript cannot follow that through the union.
  const handler = messageHandlers[message.type] as MessageHandler<WebviewMessage["type"]>;
  return (handler as (message: WebviewMessage, deps: HandlerDeps) => void | Promise<void>)(message, deps);
}
