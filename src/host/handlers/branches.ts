// Messages that change the chat's path: edit a prompt, retry an answer (asking first whether to
// restore the files too), switch branch, restore files.
import type { HandlerGroup } from "./context";

export const branchHandlers = {
  "branch/editPrompt": (message, ctx) => {
    const edit = { text: message.text, ...(message.removeImages ? { removeImages: message.removeImages } : {}) };
    return ctx.branchWithFiles("edit", message.messageIndex, edit, (session, note) =>
      session.editPrompt(message.messageIndex, message.text, message.removeImages, note),
    );
  },
  "branch/retry": (message, ctx) => ctx.branchWithFiles("retry", message.messageIndex, undefined, (session, note) => session.retry(message.messageIndex, note)),
  "checkpoint/answer": (message, ctx) => {
    if (!ctx.answerFilesOffer(message.id, message.choice)) ctx.ignore(message);
  },
  "checkpoint/openDiff": async (message, ctx) => {
    if (!(await ctx.openFilesOfferDiff(message.id, message.path))) ctx.ignore(message);
  },
  "branch/switch": (message, ctx) => ctx.branch(() => ctx.session.switchBranch(message.messageIndex, message.to)),
  "checkpoint/restore": async (message, ctx) => {
    await ctx.restoreFiles(message.messageIndex);
  },
  "checkpoint/redo": async (message, ctx) => {
    await ctx.redoRestore(message.messageIndex);
  },
} satisfies HandlerGroup;
