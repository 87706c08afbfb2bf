// Messages about the chat on screen: send, stop, continue, which chat is shown, and its task list.
import type { HandlerGroup } from "./deps";

export const chatHandlers = {
  "chat/send": (message, { input }) => input.prompt(message.text, message.images ?? [], message.mentions ?? [], message.verbatim === true),
  "chat/stop": (_message, { screen }) => screen.stop(),
  "chat/continue": (_message, { screen }) => screen.continueChat(),
  "chat/loadEarlier": (message, { screen }) => screen.currentSession.loadEarlier(message.count),
  "chat/new": (_message, { screen }) => screen.newChat(),
  // Ids from the webview are only requests: one naming no saved chat is dropped quietly.
  "chat/switch": (message, deps) => (deps.screen.isKnownChat(message.chatId) ? deps.screen.switchChat(message.chatId) : deps.ignore(message)),
  "chat/delete": (message, deps) => (deps.screen.isKnownChat(message.chatId) ? deps.screen.deleteChat(message.chatId) : deps.ignore(message)),
  // Approve and act: the plan as the user left it in its editor, if they opened it there.
  "plan/approve": async (message, deps) => {
    await deps.screen.writeCurrentChat(deps.screen.currentChatId);
    const text = deps.editor.plans.textOf(message.toolCallId);
    if (await deps.screen.currentSession.approvePlan(message.toolCallId, text)) deps.editor.plans.forget(message.toolCallId);
    else deps.ignore(message);
  },
  // Revise: the comments go back to the model with the lines they are on (a stale card's are dropped).
  "plan/revise": async (message, deps) => {
    await deps.screen.writeCurrentChat(deps.screen.currentChatId);
    if (!(await deps.screen.currentSession.revisePlan(message.toolCallId, message.comments))) deps.ignore(message);
  },
  "plan/openInEditor": async (message, deps) => {
    const plan = deps.screen.currentSession.proposedPlan(message.toolCallId);
    if (plan === undefined) return deps.ignore(message);
    await deps.editor.plans.open(message.toolCallId, plan);
  },
  "chat/setMode": async (message, { screen }) => {
    await screen.writeCurrentChat(screen.currentChatId);
    await screen.currentSession.setMode(message.mode);
  },
  // The user's ticks, reorders and deletions in the task list: an edit naming items the list does not have is dropped.
  "tasks/edit": async (message, deps) => {
    await deps.screen.writeCurrentChat(deps.screen.currentChatId);
    if (!(await deps.screen.currentSession.editTaskList(message.items))) deps.ignore(message);
  },
} satisfies HandlerGroup;
