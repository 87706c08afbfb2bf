// The two ways between Pi Chat and the pi CLI (docs/pi-sessions.md), in their own bundle
// (out/pi-sessions.js), loaded by pi-sessions-loader.ts (through lazy-bundle.ts) on the first use, never at activation:
// - "Pi Chat: Open pi Session…": the pi CLI's sessions of the workspace folders in a quick pick;
//   the one chosen opens as a new chat (src/core/pi-sessions maps it, the chat service writes
//   it). The pi file is only read.
// - "Pi Chat: Continue in pi CLI": the chat, every branch, written as a new pi session file where
//   pi looks for the folder's sessions, then `pi --session <file>` in a terminal when pi is on the
//   PATH, else where the file is and how to install pi.
import { randomBytes, randomUUID } from "node:crypto";
import { homedir } from "node:os";
import * as vscode from "vscode";
import {
  findOnPath,
  importedChatTitle,
  importPiSession,
  listPiSessions,
  nodePiSessionsIO,
  nodePiSessionWriter,
  readPiSession,
  savePiSession,
  type PiEnv,
  type PiSessionSummary,
} from "../../core/pi-sessions";
import { formatBytes } from "../../shared/format";
import type { ChatScreen } from "../chat-screen";
import { isProviderId } from "../providers/catalog";
import { modelLabel } from "../models/chat-model";
import { providersIfLoaded, readProviderSettings } from "../models/providers-loader";

/** The model a chat without its own uses now (the settings'), as the header names it, and where it runs. */
function defaultModelInWords(): string {
  const label = modelLabel(
    readProviderSettings(),
    undefined,
    (provider, id) =>
      providersIfLoaded()
        ?.listModels(provider)
        .find((m) => m.id === id)?.name,
  );
  return `${label.label} (${label.where})`;
}

interface SessionPick extends vscode.QuickPickItem {
  session: PiSessionSummary;
}

function piEnv(): PiEnv {
  return { PI_CODING_AGENT_DIR: process.env["PI_CODING_AGENT_DIR"], PI_CODING_AGENT_SESSION_DIR: process.env["PI_CODING_AGENT_SESSION_DIR"] };
}

function folders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
}

export async function openPiSession(screen: ChatScreen, log: (line: string) => void): Promise<void> {
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
  // Read and mapped in slices under a notification that can be cancelled: the host goes on
  // answering, and what is too large is refused by the reader with the reason (reader.ts limits).
  const prepared = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Opening the pi session “${chosen.name}”`, cancellable: true },
    async (progress, token) => {
      let reported = 0;
      const read = await readPiSession(nodePiSessionsIO, chosen.path, roots, env, home, {
        between: async ({ bytesRead, totalBytes }) => {
          const percent = Math.floor((bytesRead / Math.max(totalBytes, 1)) * 90);
          if (percent > reported) progress.report({ increment: percent - reported, message: "reading" });
          reported = Math.max(reported, percent);
          await new Promise<void>((resolve) => setImmediate(resolve));
        },
        cancelled: () => token.isCancellationRequested,
      });
      if (token.isCancellationRequested) return undefined;
      if (!read.ok) return read;
      progress.report({ increment: 90 - reported, message: "mapping" });
      // pi's built-in providers share pi-ai's ids with Pi Chat's; an OpenAI-compatible server of pi's
      // models.json is a custom id Pi Chat cannot know the address of.
      const imported = importPiSession(read.session, { path: chosen.path, ...(chosen.named ? { name: chosen.name } : {}) }, Date.now(), {
        knowsProvider: (id) => isProviderId(id) && id !== "openai-compatible",
        defaultModel: defaultModelInWords(),
      });
      return token.isCancellationRequested ? undefined : { ok: true as const, session: read.session, imported };
    },
  );
  if (prepared === undefined) {
    log(`pi session ${chosen.path}: opening cancelled`);
    return;
  }
  if (!prepared.ok) {
    log(`pi session ${chosen.path}: ${prepared.reason}`);
    void vscode.window.showErrorMessage(`Pi Chat could not open that pi session: ${prepared.reason}`);
    return;
  }
  const { imported } = prepared;
  const read = prepared;
  const result = await screen.openImportedChat({
    nodes: imported.nodes,
    leafId: imported.leafId,
    notice: imported.notice,
    title: importedChatTitle(imported.title ?? chosen.name, read.session.header.timestamp),
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

/** What "Continue in pi CLI" did, for the log and the tests. */
export type ContinueInPiResult = { ok: true; path: string; pi: string | undefined } | { ok: false; reason: string };

export const PI_INSTALL = "npm install -g @earendil-works/pi-coding-agent";

export async function continueInPi(screen: ChatScreen, log: (line: string) => void, chatId: string): Promise<ContinueInPiResult> {
  const fail = (reason: string): ContinueInPiResult => {
    log(`continue in pi: ${reason}`);
    void vscode.window.showErrorMessage(`Pi Chat could not hand this chat to pi: ${reason}`);
    return { ok: false, reason };
  };
  const roots = folders();
  if (roots.length === 0) return fail("open a folder first; pi keeps its sessions per working folder");
  let cwd = roots[0]!;
  if (roots.length > 1) {
    const picked = await vscode.window.showQuickPick(roots, { placeHolder: "The folder pi works in (its sessions are kept per folder)" });
    if (picked === undefined) return { ok: false, reason: "no folder chosen" };
    cwd = picked;
  }
  const exported = await screen.service.exportTree(chatId);
  if (!exported.ok) return fail(/does not exist/.test(exported.reason) ? "the chat has no saved messages yet" : exported.reason);
  const { chat } = exported;
  const saved = await savePiSession(
    nodePiSessionWriter,
    { nodes: chat.nodes, leafId: chat.leafId, title: chat.title, cwd, ...(chat.model ? { model: chat.model } : {}) },
    {
      env: piEnv(),
      home: homedir(),
      now: Date.now(),
      newSessionId: randomUUID,
      newEntryId: () => randomBytes(4).toString("hex"),
      // pi shares pi-ai's provider ids; Pi Chat's OpenAI-compatible address is nothing pi knows (pi keeps its default model).
      modelForPi: (model) => isProviderId(model.provider) && model.provider !== "openai-compatible",
    },
  );
  if (!saved.ok) return fail(saved.reason);
  log(
    `chat ${chatId} written as the pi session ${saved.path} (${Object.entries(saved.kinds)
      .map(([k, n]) => `${n} ${k}`)
      .join(", ")})`,
  );
  const pi = await findOnPath("pi", process.env);
  if (pi !== undefined) {
    // No shell line is built: the terminal runs pi itself, the path one argument of its own.
    const terminal = vscode.window.createTerminal({ name: `pi: ${chat.title.slice(0, 40)}`, cwd, shellPath: pi, shellArgs: ["--session", saved.path] });
    terminal.show();
    return { ok: true, path: saved.path, pi };
  }
  void vscode.window
    .showInformationMessage(
      `Pi Chat wrote this chat as a pi session: ${saved.path}. pi is not on the PATH: install it with \`${PI_INSTALL}\`, then run pi --session with that file.`,
      "Copy path",
      "Reveal",
    )
    .then(async (choice) => {
      if (choice === "Copy path") await vscode.env.clipboard.writeText(saved.path);
      else if (choice === "Reveal") await vscode.commands.executeCommand("revealFileInOS", vscode.Uri.file(saved.path));
    });
  return { ok: true, path: saved.path, pi: undefined };
}
