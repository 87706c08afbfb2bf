// Messages that change the chat's path: edit a prompt, retry an answer, switch branch, restore files.
import type { HandlerGroup } from "./context";

export const branchHandlers = {
  "branch/editPrompt": (message, ctx) => ctx.branch(() => ctx.session.editPrompt(message.messageIndex, message.text, message.removeImages)),
  "branch/retry": (message, ctx) => ctx.branch(() => ctx.session.retry(message.messageIndex)),
  "branch/switch": (message, ctx) => ctx.branch(() => ctx.session.switchBranch(message.messageIndex, message.to)),
  "checkpoint/restore": async (message, ctx) => {
    await ctx.restoreFiles(message.messageIndex);
  },
} satisfies HandlerGroup;
