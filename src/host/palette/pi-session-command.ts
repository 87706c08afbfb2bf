// "Pi Chat: Open pi Session…": the pi CLI's sessions of the workspace folders in a quick pick; the
// one chosen opens as a new chat (src/core/pi-sessions maps it, the chat service writes it). The
// pi file is only read.
import { homedir } from "node:os";
import * as vscode from "vscode";
import { importPiSession, listPiSessions, nodePiSessionsIO, readPiSession, type PiEnv, type PiSessionSummary } from "../../core/pi-sessions";
import { formatBytes } from "../../shared/format";
import type { ChatController } from "../controller";
import { isProviderId } from "../providers/catalog";

interface SessionPick extends vscode.QuickPickItem {
  session: PiSessionSummary;
}

function piEnv(): PiEnv {
  return { PI_CODING_AGENT_DIR: process.env["PI_CODING_AGENT_DIR"], PI_CODING_AGENT_SESSION_DIR: process.env["PI_CODING_AGENT_SESSION_DIR"] };
}

function folders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
}

export function registerPiSessionCommand(controller: ChatController, log: (line: string) => void): vscode.Disposable {
  return vscode.commands.registerCommand("piChat.openPiSession", () => openPiSession(controller, log));
}

async function openPiSession(controller: ChatController, log: (line: string) => void): Promise<void> {
  const roots = folders();
  if (roots.length === 0) {
    void vscode.window.showInformationMessage("Pi Chat: open a folder first; pi keeps its sessions per working folder.");
    return;
  }
  const env = piEnv();
  const home = homedir();
  const sessions = await listPiSessions(nodePiSessionsIO, roots, env, home);
  if (sessions.length === 0) {
    void vscode.window.showInformationMessage("Pi Chat: the pi CLI has no sessions for this workspace's folders.");
    return;
  }
  const several = roots.length > 1;
  const items: SessionPick[] = sessions.map((s) => {
    const when = new Date(s.modifiedAt).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
    const facts = [when, formatBytes(s.sizeBytes), several ? s.cwd : undefined].filter(Boolean).join(" · ");
    return {
      label: s.unreadable ? `$(warning) ${s.name}` : s.name,
      description: facts,
      ...(s.unreadable ? { detail: `Cannot open: ${s.unreadable}` } : {}),
      session: s,
    };
  });
  const picked = await vscode.window.showQuickPick(items, { placeHolder: "Open a pi CLI session as a Pi Chat chat", matchOnDescription: true });
  if (!picked) return;
  const chosen = picked.session;
  const read = await readPiSession(nodePiSessionsIO, chosen.path, roots, env, home);
  if (!read.ok) {
    log(`pi session ${chosen.path}: ${read.reason}`);
    void vscode.window.showErrorMessage(`Pi Chat could not open that pi session: ${read.reason}`);
    return;
  }
  // pi's built-in providers share pi-ai's ids with Pi Chat's; an OpenAI-compatible server of pi's
  // models.json is a custom id Pi Chat cannot know the address of.
  const imported = importPiSession(read.session, { path: chosen.path, ...(chosen.named ? { name: chosen.name } : {}) }, Date.now(), {
    knowsProvider: (id) => isProviderId(id) && id !== "openai-compatible",
  });
  const result = await controller.openImportedChat({
    nodes: imported.nodes,
    leafId: imported.leafId,
    notice: imported.notice,
    ...(imported.title !== undefined ? { title: imported.title } : {}),
    ...(imported.model ? { model: imported.model } : {}),
    origin: { kind: "pi-session", path: chosen.path, sessionId: read.session.header.id },
  });
  if (!result.ok) {
    log(`pi session ${chosen.path}: ${result.reason}`);
    void vscode.window.showErrorMessage(`Pi Chat could not open that pi session: ${result.reason}`);
    return;
  }
  log(`opened pi session ${chosen.path} as chat ${result.chatId}`);
  if (read.session.notes.length > 0) {
    void vscode.window.showWarningMessage(
      `Pi Chat opened the pi session as far as it could: ${read.session.notes.length} problem(s), listed at the top of the chat.`,
    );
  }
}
