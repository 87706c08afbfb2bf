// Small holes, in the real extension host: the workspace.fs adapter re-checks symlinks at every
// operation and reports hard links; a file link from the webview (model output) goes through the
// tools' path guard; a webview message naming a chat or tool call that does not exist, or a
// Continue with nothing to continue, is dropped quietly (no dialog, no error popup, no request).
// (Runs before restore.test.ts: the restart test's phase 1 must be the last to touch the chat.)
import * as assert from "node:assert/strict";
import { linkSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as vscode from "vscode";
import { proposeEdit } from "../../src/core/tools";
import type { PiChatTestApi } from "../../src/host/extension";
import { createVscodeWorkspaceFs } from "../../src/host/adapters/vscode-fs";
import type { OpenAIServer } from "../support/openai-server";
import { startChatView, workspaceUri } from "./helpers";

const SECRET = "OUTSIDE-SECRET-5d1e";

type Notify = (message: string, ...rest: unknown[]) => Thenable<unknown>;

/** Records every notification and dialog the extension shows while `fn` runs. */
async function shownDuring(fn: () => Promise<void>): Promise<string[]> {
  const shown: string[] = [];
  const window = vscode.window as unknown as Record<"showErrorMessage" | "showWarningMessage" | "showInformationMessage", Notify>;
  const originals = {
    showErrorMessage: window.showErrorMessage,
    showWarningMessage: window.showWarningMessage,
    showInformationMessage: window.showInformationMessage,
  };
  for (const name of Object.keys(originals) as (keyof typeof originals)[]) {
    window[name] = (message: string) => {
      shown.push(`${name}: ${message}`);
      return Promise.resolve(undefined);
    };
  }
  try {
    await fn();
  } finally {
    Object.assign(window, originals);
  }
  return shown;
}

describe("requests the extension must not trust", function () {
  this.timeout(60_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;
  let outside: string;
  const created: string[] = [];
  const root = () => workspaceUri().fsPath;
  const inWorkspace = (name: string) => {
    const path = join(root(), name);
    created.push(path);
    return path;
  };

  before(async () => {
    ({ server, api } = await startChatView());
    outside = mkdtempSync(join(tmpdir(), "pi-chat-outside-"));
    writeFileSync(join(outside, "secret.txt"), `${SECRET}\n`);
  });

  after(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    for (const path of created) rmSync(path, { force: true });
    rmSync(outside, { recursive: true, force: true });
    await server?.close();
  });

  it("the workspace.fs adapter follows symlinks again at every operation, reads and writes included", async () => {
    const fs = createVscodeWorkspaceFs(workspaceUri());
    symlinkSync(join(outside, "secret.txt"), inWorkspace("tmp-link.txt"));
    await assert.rejects(fs.readFile("tmp-link.txt"), /outside the workspace/);
    await assert.rejects(fs.stat("tmp-link.txt"), /outside the workspace/);
    await assert.rejects(fs.writeFile("tmp-link.txt", new TextEncoder().encode("pwned")), /outside the workspace/);
    assert.equal(readFileSync(join(outside, "secret.txt"), "utf8"), `${SECRET}\n`);

    // A file checked while it was ordinary, then swapped for a symlink: the next read re-checks.
    writeFileSync(inWorkspace("swap.txt"), "harmless\n");
    assert.deepEqual(await fs.realPath("swap.txt"), { inside: true, path: "swap.txt" });
    rmSync(join(root(), "swap.txt"));
    symlinkSync(join(outside, "secret.txt"), join(root(), "swap.txt"));
    await assert.rejects(fs.readFile("swap.txt"), /outside the workspace/);
  });

  it("the adapter reports hard links, so an edit of a file with a second name is refused", async () => {
    const fs = createVscodeWorkspaceFs(workspaceUri());
    writeFileSync(inWorkspace("hard-a.txt"), "port = 3000\n");
    linkSync(join(root(), "hard-a.txt"), inWorkspace("hard-b.txt"));
    assert.equal((await fs.stat("hard-a.txt"))?.hardLinks, 2);
    await assert.rejects(proposeEdit(fs, root(), { path: "hard-a.txt", oldText: "3000", newText: "8080" }), /has 2 hard links/);
  });

  it("openFile from the webview goes through the tools' path guard", async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    symlinkSync(join(outside, "secret.txt"), inWorkspace("open-link.txt"));
    const hostile = [
      "open-link.txt",
      "../x.txt",
      join(outside, "secret.txt"),
      "C:\\Windows\\win.ini",
      "\\\\server\\share\\x",
      "src\u2028config.ts",
      "src/con\u00adfig.ts",
    ];
    const notOpening = () => api.logLines.filter((l) => l.includes("not opening")).length;
    const loggedBefore = notOpening();
    const shown = await shownDuring(async () => {
      for (const path of hostile) await api.view.receive({ type: "editor/openFile", v: 1, path });
    });
    const opened = vscode.workspace.textDocuments.map((d) => d.uri.fsPath);
    assert.ok(!opened.some((p) => p.includes("open-link") || p.includes(outside) || p.includes("win.ini") || p.includes("x.txt")), opened.join("\n"));
    const active = () => vscode.window.activeTextEditor;
    assert.equal(active(), undefined);
    // A link in model output is untrusted: each refusal is logged only, never a popup.
    assert.deepEqual(shown, []);
    assert.equal(notOpening() - loggedBefore, hostile.length);

    await api.view.receive({ type: "editor/openFile", v: 1, path: "src/config.ts", line: 2 });
    assert.equal(active()?.document.uri.fsPath, workspaceUri("src", "config.ts").fsPath);
    assert.equal(active()?.selection.active.line, 1);
  });

  it("messages naming an unknown chat or tool call, and Continue with nothing to continue, are dropped quietly", async () => {
    await vscode.commands.executeCommand("piChat.newChat");
    const chatId = api.screen.currentSession.id;
    const requestsBefore = server.requests.length;
    const shown = await shownDuring(async () => {
      await api.view.receive({ type: "chat/switch", v: 1, chatId: "c-does-not-exist" });
      // Before the fix this opened a modal "Delete this chat?" that nobody answers: the test would hang.
      await api.view.receive({ type: "chat/delete", v: 1, chatId: "c-does-not-exist" });
      // Undo only takes back a delete this window made.
      await api.view.receive({ type: "history/undoDelete", v: 1, chatId: "c-does-not-exist" });
      await api.view.receive({ type: "chat/switch", v: 1, chatId: "../../etc" });
      await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_unknown", decision: "allow" });
      await api.view.receive({ type: "editor/openDiff", v: 1, toolCallId: "call_unknown" });
      await api.view.receive({ type: "command/openOutput", v: 1, toolCallId: "call_unknown" });
      await api.view.receive({ type: "chat/continue", v: 1 });
    });
    assert.deepEqual(shown, []);
    assert.equal(api.screen.currentSession.id, chatId);
    assert.equal(api.screen.currentSession.messages.length, 0, "Continue added nothing");
    assert.equal(server.requests.length, requestsBefore, "Continue sent no request");
    assert.ok(api.logLines.some((l) => l.includes("ignored chat/switch: it names nothing this chat has now")));
    assert.ok(api.logLines.some((l) => l.includes("ignored command/openOutput")));
  });
});
