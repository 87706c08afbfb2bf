// Messages about the chat on screen: send, stop, continue, and which chat is shown.
import type { HandlerGroup } from "./context";

export const chatHandlers = {
  "chat/send": (message, ctx) => ctx.prompt(message.text, message.images ?? [], message.mentions ?? [], message.verbatim === true),
  "chat/stop": (_message, ctx) => ctx.stop(),
  "chat/continue": (_message, ctx) => ctx.continueChat(),
  "chat/loadEarlier": (message, ctx) => ctx.session.loadEarlier(message.count),
  "chat/new": (_message, ctx) => ctx.newChat(),
  // Ids from the webview are only requests: one naming no saved chat is dropped quietly.
  "chat/switch": (message, ctx) => (ctx.isKnownChat(message.chatId) ? ctx.switchChat(message.chatId) : ctx.ignore(message)),
  "chat/delete": (message, ctx) => (ctx.isKnownChat(message.chatId) ? ctx.deleteChat(message.chatId) : ctx.ignore(message)),
} satisfies HandlerGroup;
