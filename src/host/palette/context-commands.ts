// The commands of what a chat keeps for the model: Compact Chat (with optional words on what to
// keep), Show Model Context (the read-only tab), New Chat from Summary.
import * as vscode from "vscode";
import type { ChatService } from "../../core/chat-service";
import type { ChatSession } from "../../core/session";
import type { ModelContextDocuments } from "../views/model-context-view";

/** What these commands need of the chat on screen (chat-screen.ts). */
export interface ContextCommandsHost {
  readonly currentSession: ChatSession;
  readonly service: ChatService;
  switchChat(chatId: string): Promise<void>;
}

export function registerContextCommands(screen: ContextCommandsHost, documents: ModelContextDocuments): vscode.Disposable[] {
  return [
    // An argument ({ instructions }) skips the input box: for keybindings and the extension's tests.
    vscode.commands.registerCommand("piChat.compact", async (args?: { instructions?: unknown }) => {
      const session = screen.currentSession;
      if (session.running) {
        void vscode.window.showInformationMessage("Pi Chat: wait for the reply to finish (or stop it), then compact.");
        return;
      }
      let instructions = typeof args?.instructions === "string" ? args.instructions : undefined;
      if (instructions === undefined) {
        instructions = await vscode.window.showInputBox({
          title: "Pi Chat: Compact Chat",
          prompt: "Optional: what the summary should keep (e.g. “keep the API design”). Leave empty for the usual summary.",
          placeHolder: "What to keep (optional)",
          ignoreFocusOut: true,
        });
        if (instructions === undefined) return; // Escape: no compaction
      }
      const outcome = await session.compact(instructions);
      if (outcome.status === "nothing") void vscode.window.showInformationMessage(`Pi Chat: ${outcome.reason}`);
      else if (outcome.status === "failed") void vscode.window.showErrorMessage(`Pi Chat could not compact this chat: ${outcome.error}`);
      return outcome.status;
    }),
    vscode.commands.registerCommand("piChat.showModelContext", () => documents.show(screen.currentSession.id)),
    vscode.commands.registerCommand("piChat.newChatFromSummary", async () => {
      const opened = await screen.service.newChatFromSummary(screen.currentSession.id);
      if (!opened.ok) {
        void vscode.window.showInformationMessage(`Pi Chat: ${opened.reason}`);
        return;
      }
      await screen.switchChat(opened.session.id);
    }),
  ];
}
