// Messages from the view's history dialog: undo a delete, search, rename, export.
import type { HandlerGroup } from "./context";

export const historyHandlers = {
  "history/undoDelete": (message, ctx) => (ctx.deletion.canUndo(message.chatId) ? ctx.deletion.undo(message.chatId) : ctx.ignore(message)),
  "history/search": (message, ctx) => ctx.historyView.search(message.query),
  "history/rename": (message, ctx) => (ctx.isKnownChat(message.chatId) ? ctx.historyView.rename(message.chatId, message.title) : ctx.ignore(message)),
  "history/export": (message, ctx) => (ctx.isKnownChat(message.chatId) ? ctx.historyView.export(message.chatId) : ctx.ignore(message)),
} satisfies HandlerGroup;
