// Messages that change the chat's path: edit a prompt, retry an answer (asking first whether to
// restore the files too), switch branch, restore files.
import type { HandlerGroup } from "./deps";

export const branchHandlers = {
  "branch/editPrompt": (message, { checkpoints }) => {
    const edit = { text: message.text, ...(message.removeImages ? { removeImages: message.removeImages } : {}) };
    return checkpoints.branchWithFiles("edit", message.messageIndex, edit, (session, note) =>
      session.editPrompt(message.messageIndex, message.text, message.removeImages, note),
    );
  },
  "branch/retry": (message, { checkpoints }) =>
    checkpoints.branchWithFiles("retry", message.messageIndex, undefined, (session, note) => session.retry(message.messageIndex, note)),
  "checkpoint/answer": (message, deps) => {
    if (!deps.checkpoints.answerOffer(message.id, message.choice)) deps.ignore(message);
  },
  "checkpoint/openDiff": async (message, deps) => {
    if (!(await deps.checkpoints.openOfferDiff(message.id, message.path))) deps.ignore(message);
  },
  "branch/switch": (message, { checkpoints, screen }) => checkpoints.branch(() => screen.currentSession.switchBranch(message.messageIndex, message.to)),
  "checkpoint/restore": (message, { checkpoints }) => checkpoints.restoreFiles(message.messageIndex),
  "checkpoint/redo": (message, { checkpoints }) => checkpoints.redoRestore(message.messageIndex),
} satisfies HandlerGroup;
