// Messages from the view's history dialog: undo a delete, search, rename, export, continue in pi.
import type { HandlerGroup } from "./deps";

export const historyHandlers = {
  "history/undoDelete": (message, { screen, ignore }) => (screen.deletion.canUndo(message.chatId) ? screen.deletion.undo(message.chatId) : ignore(message)),
  "history/search": (message, { history }) => history.search(message.query),
  "history/rename": (message, { screen, history, ignore }) =>
    screen.isKnownChat(message.chatId) ? history.rename(message.chatId, message.title) : ignore(message),
  "history/export": (message, { screen, history, ignore }) => (screen.isKnownChat(message.chatId) ? history.export(message.chatId) : ignore(message)),
  "history/continueInPi": (message, { screen, history, ignore }) =>
    screen.isKnownChat(message.chatId) ? history.continueInPi(message.chatId) : ignore(message),
} satisfies HandlerGroup;
