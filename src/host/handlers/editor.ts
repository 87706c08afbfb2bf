// Messages that reach into the editor or the workbench: open a file, code block actions, palette commands.
import * as vscode from "vscode";
import type { HandlerGroup } from "./context";

export const editorHandlers = {
  "editor/openFile": (message, ctx) => ctx.openFile(message.path, message.line),
  "editor/insertCode": (message, ctx) => ctx.codeInserter.insert(message.code, message.language),
  "editor/applyCode": async (message, ctx) => {
    const outcome = await ctx.codeApplier.apply(message.code, message.path, message.requestId);
    // The block says where it went, with Undo (only a request the webview numbered can be answered).
    if (outcome.status === "applied" && message.requestId !== undefined)
      ctx.send({ type: "editor/codeApplied", requestId: message.requestId, path: outcome.path, state: "applied" });
  },
  "editor/undoApply": async (message, ctx) => {
    const outcome = await ctx.codeApplier.undo(message.requestId);
    if (outcome.status === "undone") ctx.send({ type: "editor/codeApplied", requestId: message.requestId, path: outcome.path, state: "undone" });
  },
  "editor/runInTerminal": async (message, ctx) => {
    await ctx.terminals.run(message.command);
  },
  "workbench/runCommand": async (message) => {
    await vscode.commands.executeCommand(`piChat.${message.command}`);
  },
} satisfies HandlerGroup;
