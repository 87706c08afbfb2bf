// A file written behind VS Code's back (a checkpoint restore through workspace.fs, a command, git)
// while it is open and saved: VS Code reloads its copy only when the file watcher reports the
// change, tens of milliseconds to a second later. Pi's tools must see and change the file on disk
// meanwhile, never VS Code's old copy: an edit made from the old copy and saved would silently undo
// the restore (same size), or fail with a save conflict and a dirty editor (other size). Each edit
// here runs at once after the write, with no waiting, through the same workspace.fs adapter and
// tools the extension uses; then a restore and an edit through the chat.
import * as assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { RestorePlan } from "../../src/core/checkpoints";
import { createEditFileTool, createReadFileTool } from "../../src/core/tools";
import { createVscodeWorkspaceFs } from "../../src/host/adapters/vscode-fs";
import type { PiChatTestApi } from "../../src/host/extension";
import type { OpenAIServer } from "../support/openai-server";
import { startChatView, toolCard, waitFor } from "./helpers";

const encode = (text: string) => new TextEncoder().encode(text);

describe("stale documents: Pi reads and writes the disk, not VS Code's copy it has not reloaded yet", function () {
  this.timeout(120_000);
  const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const dir = join(root, "stale-docs");
  const file = (name: string) => join(dir, name);
  const uri = (name: string) => vscode.Uri.file(file(name));
  const disk = (name: string) => readFileSync(file(name), "utf8");
  const fs = createVscodeWorkspaceFs(vscode.workspace.workspaceFolders![0]!.uri);
  const editTool = createEditFileTool(fs, { root });
  const readTool = createReadFileTool(fs, { root });
  let calls = 0;
  const edit = (path: string, oldText: string, newText: string) => editTool.execute(`stale_${++calls}`, { path: `stale-docs/${path}`, oldText, newText });
  const text = (result: { content: { type: string; text?: string }[] }) => result.content.map((c) => c.text ?? "").join("");

  /** The file on disk and open in an editor, VS Code's copy the disk's text. */
  async function openSaved(name: string, content: string): Promise<vscode.TextDocument> {
    writeFileSync(file(name), content);
    const doc = await vscode.workspace.openTextDocument(uri(name));
    await vscode.window.showTextDocument(doc);
    await waitFor(`VS Code's copy of ${name} to be the disk's`, () => doc.getText() === content.replace(/^\uFEFF/, ""));
    return doc;
  }

  /** VS Code's copy catches up with the disk by itself, and no editor is left with unsaved text. */
  async function editorFollows(doc: vscode.TextDocument, name: string): Promise<void> {
    await waitFor(`VS Code's copy of ${name} to follow the disk`, () => doc.getText() === disk(name).replace(/^\uFEFF/, ""), 5_000);
    assert.equal(doc.isDirty, false, "no unsaved editor (no save conflict) is left");
  }

  before(() => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  });

  after(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    rmSync(dir, { recursive: true, force: true });
  });

  // Each edit is of the second line, which the write left alone: from VS Code's old copy it
  // succeeds, and saving that copy would put the first line back as it was before the write (same
  // size), or hit VS Code's "file modified since" conflict (another size).
  const writesThenEdits = [
    {
      name: "an edit right after a same-size write behind VS Code's back applies to the disk's text, and does not undo the write",
      file: "same.ts",
      saved: "export const s = 1;\nexport const t = 1;\n",
      written: "export const s = 2;\nexport const t = 1;\n",
      edit: ["t = 1", "t = 3"],
      expected: "export const s = 2;\nexport const t = 3;\n",
    },
    {
      name: "an edit right after a write of another size saves without a conflict",
      file: "longer.ts",
      saved: "export const l = 1;\nexport const m = 1;\n",
      written: "export const l = 222;\nexport const m = 1;\n",
      edit: ["m = 1", "m = 4"],
      expected: "export const l = 222;\nexport const m = 4;\n",
    },
  ] as const;
  for (const c of writesThenEdits) {
    it(c.name, async () => {
      const doc = await openSaved(c.file, c.saved);
      await vscode.workspace.fs.writeFile(uri(c.file), encode(c.written)); // as a restore writes
      const stale = doc.getText() !== disk(c.file);
      const result = await edit(c.file, c.edit[0], c.edit[1]).catch((e: unknown) => `error: ${String(e)}`);
      assert.equal(disk(c.file), c.expected, `the edit of the disk's text (VS Code's copy was stale: ${stale}): ${JSON.stringify(result)}`);
      await editorFollows(doc, c.file);
    });
  }

  it("a read right after a write behind VS Code's back sees the disk; a file deleted behind it is gone", async () => {
    const doc = await openSaved("read.ts", "export const r = 1;\n");
    writeFileSync(file("read.ts"), "export const r = 'new';\n"); // a command's write: VS Code hears of it later still
    const stale = doc.getText() !== disk("read.ts");
    assert.match(text(await readTool.execute("stale_read", { path: "stale-docs/read.ts" })), /r = 'new'/, `VS Code's copy was stale: ${stale}`);
    assert.equal((await fs.stat("stale-docs/read.ts"))?.size, Buffer.byteLength("export const r = 'new';\n"));
    await vscode.workspace.fs.delete(uri("read.ts"));
    assert.equal(await fs.stat("stale-docs/read.ts"), undefined, "deleted on disk: no file, whatever VS Code still shows");
    await assert.rejects(readTool.execute("stale_read2", { path: "stale-docs/read.ts" }));
  });

  it("a saved document VS Code is up to date with is still edited through the editor (BOM and CRLF kept), undoable there", async () => {
    const doc = await openSaved("crlf.ts", "\uFEFFexport const c = 1;\r\nexport const d = 1;\r\n");
    await edit("crlf.ts", "c = 1", "c = 2");
    // Through the editor: its copy changed when the edit returned, not when a file watcher got to it.
    assert.equal(doc.getText(), "export const c = 2;\r\nexport const d = 1;\r\n");
    assert.equal(doc.isDirty, false);
    assert.deepEqual(readFileSync(file("crlf.ts")), Buffer.from("\uFEFFexport const c = 2;\r\nexport const d = 1;\r\n"));
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand("undo");
    assert.match(doc.getText(), /c = 1/);
    await doc.save();
  });

  it("a document with unsaved changes is still what Pi reads and edits (the user's text, then saved)", async () => {
    const doc = await openSaved("dirty.ts", "export const u = 1;\n");
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((b) => b.insert(new vscode.Position(0, 0), "// typing\n"));
    assert.ok(doc.isDirty);
    assert.match(text(await readTool.execute("stale_read3", { path: "stale-docs/dirty.ts" })), /\/\/ typing/);
    await edit("dirty.ts", "u = 1", "u = 2");
    assert.equal(disk("dirty.ts"), "// typing\nexport const u = 2;\n");
    assert.equal(doc.isDirty, false);
  });

  describe("through the chat", () => {
    let server: OpenAIServer;
    let api: PiChatTestApi;

    before(async () => {
      ({ server, api } = await startChatView());
      await vscode.workspace.getConfiguration("piChat").update("approvalMode", "auto", vscode.ConfigurationTarget.Global);
    });

    after(async () => {
      await vscode.workspace.getConfiguration("piChat").update("approvalMode", "ask", vscode.ConfigurationTarget.Global);
      await server?.close();
    });

    const card = (id: string) => toolCard(api, id);

    it("restore files to a message with the file open, then an edit at once: the edit applies to the restored text", async () => {
      const checkpoints = api.checkpoints!;
      await vscode.commands.executeCommand("piChat.newChat");
      writeFileSync(file("chat.ts"), "export const k = 1;\n");
      server.push(
        () => ({ toolCalls: [{ id: "stale_k2", name: "edit_file", arguments: { path: "stale-docs/chat.ts", oldText: "k = 1", newText: "k = 2222" } }] }),
        () => ({ text: "Changed." }),
      );
      await api.view.receive({ type: "chat/send", v: 1, text: "Change k." });
      const session = api.screen.currentSession;
      await session.waitForIdle();
      await checkpoints.checkpoints.idle();
      assert.equal(disk("chat.ts"), "export const k = 2222;\n", JSON.stringify(card("stale_k2")));
      const doc = await vscode.workspace.openTextDocument(uri("chat.ts"));
      await vscode.window.showTextDocument(doc);
      assert.equal(doc.getText(), "export const k = 2222;\n");

      let plan: RestorePlan | undefined;
      checkpoints.preview = async (p) => {
        plan = p;
        return "restore";
      };
      checkpoints.notify = async () => undefined;
      await api.view.receive({ type: "checkpoint/restore", v: 1, messageIndex: session.messages.findIndex((m) => m.role === "user") });
      assert.deepEqual(
        plan?.files.map((f) => f.path),
        ["stale-docs/chat.ts"],
      );
      assert.equal(disk("chat.ts"), "export const k = 1;\n", "restored");
      server.push(
        () => ({ toolCalls: [{ id: "stale_k3", name: "edit_file", arguments: { path: "stale-docs/chat.ts", oldText: "k = 1", newText: "k = 3" } }] }),
        () => ({ text: "Three." }),
      );
      await api.view.receive({ type: "chat/send", v: 1, text: "Now make it three." });
      await session.waitForIdle();
      assert.equal(disk("chat.ts"), "export const k = 3;\n", JSON.stringify(card("stale_k3")));
      await editorFollows(doc, "chat.ts");
    });
  });
});
