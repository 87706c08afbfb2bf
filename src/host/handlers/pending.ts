// The changed-files list's messages: Keep or Undo a listed file (or all), open one. The path is
// the view's (untrusted): only a file the checkpoint journal says Pi wrote since the last prompt
// is acted on; any other path does nothing and is logged.
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
} satisfies HandlerGroup;
