// The pi CLI commands (pi-sessions-bundle.ts) live in out/pi-sessions.js, required on their first
// use: activation loads none of the pi session code (bench P5).
import * as vscode from "vscode";
import type { ChatScreen } from "../chat-screen";
import type * as PiSessions from "./pi-sessions-bundle";
import { lazyBundle } from "../lazy-bundle";

const bundle = lazyBundle<typeof PiSessions>("pi-sessions.js");
const load = () => bundle.load();

export function registerPiSessionCommands(screen: ChatScreen, log: (line: string) => void): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand("piChat.openPiSession", () => load().openPiSession(screen, log)),
    // From the palette or the view's menu: the chat on screen; from a history row: that chat.
    vscode.commands.registerCommand("piChat.continueInPi", (chatId?: unknown) =>
      load().continueInPi(screen, log, typeof chatId === "string" ? chatId : screen.currentSession.id),
    ),
  ];
}
