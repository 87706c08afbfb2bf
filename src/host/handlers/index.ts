// Every webview message's handler, by message type: the controller dispatches through this one map.
import { approvalHandlers } from "./approvals";
import { branchHandlers } from "./branches";
import { chatHandlers } from "./chat";
import { composerHandlers } from "./composer";
import type { WebviewMessage } from "../../shared/protocol";
import type { AllHandlers, HandlerContext, MessageHandler } from "./context";
import { editorHandlers } from "./editor";
import { historyHandlers } from "./history";

export type { HandlerContext } from "./context";

export const messageHandlers: AllHandlers = {
  ...chatHandlers,
  ...composerHandlers,
  ...approvalHandlers,
  ...historyHandlers,
  ...editorHandlers,
  ...branchHandlers,
  // Answered by the view itself (it sends the snapshot).
  "view/ready": () => {},
  "view/resync": () => {},
};

/** Runs the handler for `message.type`. */
export function dispatch(message: WebviewMessage, ctx: HandlerContext): void | Promise<void> {
  // The map pairs each type with its message shape; TypeScript cannot follow that through the union.
  const handler = messageHandlers[message.type] as MessageHandler<WebviewMessage["type"]>;
  return (handler as (message: WebviewMessage, ctx: HandlerContext) => void | Promise<void>)(message, ctx);
}
