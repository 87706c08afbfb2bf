// The changed-files list's messages: Keep or Undo a listed file (or all), open one, review since a
// checkpoint. The path and the checkpoint id are the view's (untrusted): only a file the
// checkpoint journal says Pi wrote since the checkpoint is acted on, and only one of the chat's
// checkpoints on screen is picked (PendingChanges checks both again); anything else does nothing
// and is logged.
import type { HandlerGroup } from "./deps";

export const pendingHandlers = {
  "pending/decide": async (message, deps) => {
    if (!deps.pending) return deps.ignore(message);
    if (message.path !== undefined && !deps.pending.changes.files.has(message.path)) return deps.ignore(message);
    const changes = deps.pending.changes;
    await (message.action === "keep" ? changes.keep(message.path) : changes.undo(message.path));
  },
  "pending/open": async (message, deps) => {
    if (!deps.pending || !(await deps.pending.editor.open(message.path))) deps.ignore(message);
  },
  "pending/since": async (message, deps) => {
    const { markId } = message;
    if (!deps.pending) return deps.ignore(message);
    if (markId !== undefined && !deps.screen.currentSession.promptCheckpoints().some((c) => c.markId === markId)) return deps.ignore(message);
    const outcome = await deps.pending.changes.reviewSince(markId);
    if (!outcome.done) deps.ignore(message);
  },
} satisfies HandlerGroup;
