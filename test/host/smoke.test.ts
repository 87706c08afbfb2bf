// Smoke test of the test harness itself: we are in a real VS Code extension host, the version the
// runner started (1.100 or 1.139, scripts/vscode.mjs), with a workspace folder open and a working
// file system API. Does not depend on the extension.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";

describe("host smoke", () => {
  it("runs in the VS Code the runner started (1.100 unless PI_CHAT_VSCODE says another)", () => {
    const expected = process.env.PI_CHAT_TEST_VSCODE ?? "1.100";
    assert.ok(vscode.version.startsWith(`${expected}.`), `VS Code ${vscode.version}, expected ${expected}`);
  });

  it("has a workspace folder open", () => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.ok(folders.length >= 1, "no workspace folder");
  });

  it("writes a file with workspace.fs and reads it back", async () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, "no workspace folder");
    const dir = vscode.Uri.joinPath(folder.uri, "smoke");
    const uri = vscode.Uri.joinPath(dir, `hello-${Date.now()}.txt`);
    const text = "hello from the extension host\nünïcödé ✓\n";
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
    const back = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    assert.equal(back, text);
    const stat = await vscode.workspace.fs.stat(uri);
    assert.equal(stat.type, vscode.FileType.File);
    await vscode.workspace.fs.delete(dir, { recursive: true });
  });
});
