// Messages that reach into the editor or the workbench: open a file, code block actions, palette commands.
import * as vscode from "vscode";
import type { HandlerGroup } from "./deps";

export const editorHandlers = {
  "editor/openFile": (message, { editor }) => editor.links.open(message.path, message.line),
  "editor/insertCode": (message, { editor }) => editor.codeInserter.insert(message.code, message.language),
  "editor/applyCode": async (message, { editor, view }) => {
    const outcome = await editor.codeApplier.apply(message.code, message.path, message.requestId);
    // The block says where it went, with Undo (only a request the webview numbered can be answered).
    if (outcome.status === "applied" && message.requestId !== undefined)
      view.send({ type: "editor/codeApplied", requestId: message.requestId, path: outcome.path, state: "applied" });
  },
  "editor/undoApply": async (message, { editor, view }) => {
    const outcome = await editor.codeApplier.undo(message.requestId);
    if (outcome.status === "undone") view.send({ type: "editor/codeApplied", requestId: message.requestId, path: outcome.path, state: "undone" });
  },
  "editor/runInTerminal": async (message, { editor }) => {
    await editor.terminals.run(message.command);
  },
  "workbench/runCommand": async (message) => {
    await vscode.commands.executeCommand(`piChat.${message.command}`);
  },
} satisfies HandlerGroup;
