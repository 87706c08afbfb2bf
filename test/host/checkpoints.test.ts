// Checkpoints in the real extension host, over the real workspace folder: Pi edits two files with
// edit_file (written through VS Code), runs a command that creates a file and one that writes a
// fourth and deletes a fifth (and touches an ignored file); the user then edits one of Pi's files
// and creates their own. *Restore files to here* puts back what Pi changed, deletes only Pi's new
// file, skips the user-edited one (listed), leaves the user's file and the ignored one alone, and
// keeps the modification times of untouched files; *Redo changes* brings back Pi's exact bytes; the
// model is told on the next request. Secret files (.env, a private key, a TLS key, .npmrc) that Pi
// edits or a command rewrites leave no byte in the checkpoint storage, the preview says "not kept",
// and the clean-up removes an older version's copy and leaves every folder 0700 and file 0600.
import * as assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import { type RestorePlan, SECRET_NOT_KEPT, sha256 } from "../../src/core/checkpoints";
import { skippedLabel } from "../../src/host/checkpoints/host-checkpoints";
import type { PiChatTestApi } from "../../src/host/extension";
import type { OpenAIServer } from "../support/openai-server";
import { modesUnder } from "../support/temp";
import { chatItems } from "../../src/shared/reducer";
import { startChatView, toolCard, waitFor } from "./helpers";

describe("checkpoints: restore files to a message in the extension host", function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;
  const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const dir = join(root, "cp-scenario");
  const file = (name: string) => join(dir, name);
  const read = (name: string) => readFileSync(file(name));

  before(async () => {
    ({ server, api } = await startChatView());
    await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", false, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("piChat").update("approvalMode", "auto", vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    api?.checkpoints?.checkpoints.baseline.releaseEvents(); // a failed test may have held them
    await vscode.workspace.getConfiguration("piChat").update("approvalMode", "ask", vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    rmSync(dir, { recursive: true, force: true });
    await server?.close();
  });

  const card = (id: string) => toolCard(api, id);

  it("restores Pi's changes, skips the user's, and Redo brings back the exact bytes", async () => {
    const checkpoints = api.checkpoints;
    assert.ok(checkpoints, "a folder on disk has checkpoints");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, "out"), { recursive: true });
    writeFileSync(file(".gitignore"), "out/\n");
    writeFileSync(file("a.ts"), "export const a = 1;\r\n"); // CRLF kept to the byte
    writeFileSync(file("b.ts"), "\uFEFFexport const b = 1;\n"); // BOM kept too
    writeFileSync(file("d.txt"), "d before\n");
    writeFileSync(file("e.txt"), "e before\n");
    writeFileSync(file("untouched.txt"), "never written\n");
    writeFileSync(file("out/gen.js"), "ignored before\n");
    const untouched = [file("untouched.txt"), join(root, "src", "config.ts")];
    const mtimes = untouched.map((p) => statSync(p).mtimeMs);

    await vscode.commands.executeCommand("piChat.newChat");
    server.push(
      () => ({ toolCalls: [{ id: "cp_edit_a", name: "edit_file", arguments: { path: "cp-scenario/a.ts", oldText: "a = 1", newText: "a = 2" } }] }),
      () => ({ toolCalls: [{ id: "cp_edit_b", name: "edit_file", arguments: { path: "cp-scenario/b.ts", oldText: "b = 1", newText: "b = 2" } }] }),
      () => ({ toolCalls: [{ id: "cp_cmd_1", name: "run_command", arguments: { command: "printf 'export const c = 3;\\n' > cp-scenario/c.ts" } }] }),
      () => ({
        toolCalls: [
          {
            id: "cp_cmd_2",
            name: "run_command",
            arguments: { command: "printf 'd by pi\\n' > cp-scenario/d.txt && rm cp-scenario/e.txt && printf 'ignored after\\n' > cp-scenario/out/gen.js" },
          },
        ],
      }),
      () => ({ text: "Done." }),
    );
    void api.view.receive({ type: "chat/send", v: 1, text: "Change the scenario files." });
    for (const id of ["cp_cmd_1", "cp_cmd_2"]) {
      await waitFor(`${id} to ask`, () => card(id)?.approval?.state === "pending");
      await api.view.receive({ type: "approval/decide", v: 1, toolCallId: id, decision: "allow" });
    }
    await api.screen.currentSession.waitForIdle();
    await checkpoints.checkpoints.idle(); // the walk after the last command is recorded in the background
    assert.equal(read("a.ts").toString(), "export const a = 2;\r\n");
    assert.equal(existsSync(file("e.txt")), false);
    const piBytes = { b: read("b.ts"), c: read("c.ts"), d: read("d.txt") };

    // The user edits one of Pi's files and creates an untracked file of their own.
    await vscode.workspace.fs.writeFile(vscode.Uri.file(file("a.ts")), new TextEncoder().encode("export const a = 'mine';\n"));
    writeFileSync(file("mine.txt"), "my own\n");

    let previewed: RestorePlan | undefined;
    checkpoints.preview = async (plan) => {
      previewed = plan;
      return "restore";
    };
    let answerNotice: ((button: string | undefined) => void) | undefined;
    let noticeText = "";
    checkpoints.notify = (text) => {
      noticeText = text;
      return new Promise((resolve) => {
        answerNotice = resolve;
      });
    };
    const session = api.screen.currentSession;
    const promptIndex = session.messages.findIndex((m) => m.role === "user");
    await api.view.receive({ type: "checkpoint/restore", v: 1, messageIndex: promptIndex });
    await waitFor("the notice after the restore", () => answerNotice);

    assert.ok(previewed);
    assert.deepEqual(
      previewed.files.map((f) => [f.path, f.piDid]),
      [
        ["cp-scenario/b.ts", "modified"],
        ["cp-scenario/c.ts", "created"],
        ["cp-scenario/d.txt", "modified"],
        ["cp-scenario/e.txt", "deleted"],
      ],
    );
    assert.deepEqual(
      previewed.skipped.map((s) => s.path),
      ["cp-scenario/a.ts"],
    );
    assert.match(previewed.skipped[0]!.reason, /changed since Pi wrote it/);
    assert.match(noticeText, /3 put back, 1 deleted\. Skipped 1: cp-scenario\/a\.ts/);
    assert.deepEqual(read("b.ts"), Buffer.from("\uFEFFexport const b = 1;\n"));
    assert.equal(existsSync(file("c.ts")), false);
    assert.equal(read("d.txt").toString(), "d before\n");
    assert.equal(read("e.txt").toString(), "e before\n");
    assert.equal(read("a.ts").toString(), "export const a = 'mine';\n", "the user's edit is kept");
    assert.equal(read("mine.txt").toString(), "my own\n", "the user's own file is kept");
    assert.equal(read("out/gen.js").toString(), "ignored after\n", "ignored files are never touched");
    assert.deepEqual(
      untouched.map((p) => statSync(p).mtimeMs),
      mtimes,
      "untouched files keep their modification times",
    );

    // The chat says so, and the model is told with the next request.
    const restoredNote = session.messages.find((m) => m.role === "filesRestored");
    assert.ok(restoredNote && restoredNote.role === "filesRestored" && restoredNote.messageNumber === 1 && !restoredNote.redo);

    // Redo changes: Pi's exact bytes come back; the user's files stay as they are.
    answerNotice?.("Redo changes");
    await waitFor("the redo", () => existsSync(file("c.ts")) && session.messages.some((m) => m.role === "filesRestored" && m.redo));
    assert.deepEqual(read("b.ts"), piBytes.b);
    assert.deepEqual(read("c.ts"), piBytes.c);
    assert.deepEqual(read("d.txt"), piBytes.d);
    assert.equal(existsSync(file("e.txt")), false);
    assert.equal(read("a.ts").toString(), "export const a = 'mine';\n");
    assert.equal(read("mine.txt").toString(), "my own\n");
    assert.deepEqual(
      untouched.map((p) => statSync(p).mtimeMs),
      mtimes,
    );

    server.push((body) => {
      const text = JSON.stringify(body.messages);
      assert.match(text, /restored the workspace files to how they were before message 1 \(\\"Change the scenario files\.\\"\)/);
      assert.match(text, /undid a restore of the workspace files/);
      return { text: "Understood." };
    });
    await api.view.receive({ type: "chat/send", v: 1, text: "What changed?" });
    await api.screen.currentSession.waitForIdle();
    assert.equal(server.pending(), 0);
  });

  it("Redo stays on the restore's note in the chat after the notification is gone, marks the restored edit, and redoes once", async () => {
    const checkpoints = api.checkpoints!;
    const dir = join(root, "cp-redo");
    const file = (name: string) => join(dir, name);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(file("x.ts"), "export const x = 1;\n");
    await vscode.commands.executeCommand("piChat.newChat");
    server.push(
      () => ({ toolCalls: [{ id: "redo_edit", name: "edit_file", arguments: { path: "cp-redo/x.ts", oldText: "x = 1", newText: "x = 2" } }] }),
      () => ({ text: "Two." }),
    );
    await api.view.receive({ type: "chat/send", v: 1, text: "Make x two." });
    const session = api.screen.currentSession;
    await session.waitForIdle();
    await checkpoints.checkpoints.idle();
    assert.equal(readFileSync(file("x.ts"), "utf8"), "export const x = 2;\n");

    // The notification with its Redo is dismissed (it disappears by itself too).
    let answerNotice: ((button: string | undefined) => void) | undefined;
    checkpoints.notify = () => new Promise((resolve) => (answerNotice = resolve));
    checkpoints.preview = async () => "restore";
    await api.view.receive({ type: "checkpoint/restore", v: 1, messageIndex: session.messages.findIndex((m) => m.role === "user") });
    await waitFor("the notification", () => answerNotice);
    answerNotice?.(undefined);
    assert.equal(readFileSync(file("x.ts"), "utf8"), "export const x = 1;\n");

    // The chat keeps Redo on the note, and the edit it undid no longer reads "applied".
    const items = () => chatItems(session.viewState);
    const noteIndex = session.messages.findIndex((m) => m.role === "filesRestored");
    const note = items().find((i) => i.id === `m${noteIndex}`);
    assert.ok(note?.kind === "notice" && note.redo?.state === "offered", JSON.stringify(note));
    assert.equal(card("redo_edit")?.undoneByRestore, true, JSON.stringify(card("redo_edit")));

    // Redo from the note: the file comes back, the note says it is done, the edit reads applied again.
    await api.view.receive({ type: "checkpoint/redo", v: 1, messageIndex: noteIndex });
    assert.equal(readFileSync(file("x.ts"), "utf8"), "export const x = 2;\n");
    const after = items().find((i) => i.id === `m${noteIndex}`);
    assert.ok(after?.kind === "notice" && after.redo?.state === "done", JSON.stringify(after));
    assert.equal(card("redo_edit")?.undoneByRestore, undefined);

    // A second Redo (the note again, a reopened chat's note) does nothing more.
    await api.view.receive({ type: "checkpoint/redo", v: 1, messageIndex: noteIndex });
    const reopened = await api.screen.service.open(session.id);
    assert.ok(reopened.ok);
    assert.ok(chatItems(reopened.session.viewState).some((i) => i.id === `m${noteIndex}` && i.kind === "notice" && i.redo?.state === "done"));
    assert.equal(session.messages.filter((m) => m.role === "filesRestored" && m.redo).length, 1, "one Redo");
    rmSync(dir, { recursive: true, force: true });
  });

  it("Retry and Edit ask to restore the files too: restore, keep and cancel act on the real files and on what the model reads", async () => {
    const checkpoints = api.checkpoints!;
    // A folder of its own: documents VS Code still holds for the scenario's files are not these.
    const dir = join(root, "cp-branch");
    const file = (name: string) => join(dir, name);
    const read = (name: string) => readFileSync(file(name));
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(file("a.ts"), "export const a = 1;\n");
    writeFileSync(file("mine.ts"), "export const mine = 1;\n");
    await vscode.commands.executeCommand("piChat.newChat");
    server.push(
      () => ({ toolCalls: [{ id: "br_edit", name: "edit_file", arguments: { path: "cp-branch/a.ts", oldText: "a = 1", newText: "a = 2" } }] }),
      () => ({ toolCalls: [{ id: "br_mine", name: "edit_file", arguments: { path: "cp-branch/mine.ts", oldText: "mine = 1", newText: "mine = 2" } }] }),
      () => ({ toolCalls: [{ id: "br_cmd", name: "run_command", arguments: { command: "printf 'new\\n' > cp-branch/new.txt" } }] }),
      () => ({ text: "Changed." }),
    );
    void api.view.receive({ type: "chat/send", v: 1, text: "Change a and mine." });
    await waitFor("the command to ask", () => card("br_cmd")?.approval?.state === "pending");
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "br_cmd", decision: "allow" });
    const session = api.screen.currentSession;
    await session.waitForIdle();
    await checkpoints.checkpoints.idle();
    assert.equal(read("new.txt").toString(), "new\n");
    assert.equal(read("a.ts").toString(), "export const a = 2;\n", JSON.stringify(card("br_edit")));
    // The user edits one of Pi's files: the offer lists it as skipped, and it is kept.
    writeFileSync(file("mine.ts"), "export const mine = 'user';\n");
    let notices = 0;
    checkpoints.notify = async () => {
      notices++;
      return undefined;
    };
    const answerIndex = () => session.messages.map((m) => m.role).lastIndexOf("assistant");

    // Retry, Cancel: nothing changes, no request.
    void api.view.receive({ type: "branch/retry", v: 1, messageIndex: answerIndex() });
    let id = await waitFor("the offer", () => checkpoints.pendingOfferId);
    await api.view.receive({ type: "checkpoint/answer", v: 1, id, choice: "cancel" });
    await session.waitForIdle();
    assert.equal(read("a.ts").toString(), "export const a = 2;\n");
    assert.ok(existsSync(file("new.txt")));
    assert.equal(server.pending(), 0);

    // Retry, restore the files: they are put back, and the new answer's request says so after the prompt.
    let told = "";
    server.push((body) => {
      told = JSON.stringify(body.messages);
      return { text: "Retried." };
    });
    const opened: string[] = [];
    void api.view.receive({ type: "branch/retry", v: 1, messageIndex: answerIndex() });
    id = await waitFor("the offer", () => checkpoints.pendingOfferId);
    // A file of the offer opens as a diff, as in the restore's preview.
    await api.view.receive({ type: "checkpoint/openDiff", v: 1, id, path: "cp-branch/a.ts" });
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    opened.push(tab?.label ?? "");
    // Its right side is a read-only copy of the file as it is now, never the editable file itself.
    const modified = tab?.input instanceof vscode.TabInputTextDiff ? tab.input.modified : undefined;
    assert.ok(modified && modified.scheme !== "file", `a read-only copy, not ${modified?.toString()}`);
    assert.equal((await vscode.workspace.openTextDocument(modified)).getText(), read("a.ts").toString(), "showing the file as it is now");
    await api.view.receive({ type: "checkpoint/answer", v: 1, id, choice: "restore" });
    await waitFor("the retried answer", () => session.messages.some((m) => m.role === "assistant" && JSON.stringify(m.content).includes("Retried.")));
    await session.waitForIdle();
    assert.match(opened[0]!, /cp-branch\/a\.ts \(at the checkpoint ↔ now, read-only\)/);
    assert.equal(read("a.ts").toString(), "export const a = 1;\n");
    assert.equal(existsSync(file("new.txt")), false, "the file Pi's command created is gone");
    assert.equal(read("mine.ts").toString(), "export const mine = 'user';\n", "the user's edit is kept");
    assert.match(told, /restored the workspace files to how they were before message 1 \(\\"Change a and mine\.\\"\)/);
    assert.match(told, /Deleted \(created after it\): cp-branch\/new\.txt/);
    assert.match(told, /Left as they are: cp-branch\/mine\.ts \(changed since Pi wrote it/);
    const roles = session.messages.map((m) => m.role);
    const prompt = roles.indexOf("user");
    assert.deepEqual(roles.slice(prompt, prompt + 3), ["user", "filesRestored", "assistant"], "the note is on the new branch, before its answer");
    assert.equal(notices, 1, "the notice with Redo changes");

    // Edit, keep the files: nothing is restored, nothing is said about files. The edit runs at once:
    // VS Code's copy of a.ts (the diff opened it) may still be the one before the restore, which it
    // reloads a moment later; edit_file works on the disk's text meanwhile.
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    server.push(
      () => ({ toolCalls: [{ id: "br_edit2", name: "edit_file", arguments: { path: "cp-branch/a.ts", oldText: "a = 1", newText: "a = 3" } }] }),
      () => ({ text: "Three." }),
    );
    await api.view.receive({ type: "branch/editPrompt", v: 1, messageIndex: session.messages.findIndex((m) => m.role === "user"), text: "Make a three." });
    await session.waitForIdle();
    assert.equal(read("a.ts").toString(), "export const a = 3;\n", JSON.stringify(card("br_edit2")));
    let keptTold = "";
    server.push((body) => {
      keptTold = JSON.stringify(body.messages);
      return { text: "Kept." };
    });
    void api.view.receive({ type: "branch/retry", v: 1, messageIndex: answerIndex() });
    id = await waitFor("the offer", () => checkpoints.pendingOfferId);
    await api.view.receive({ type: "checkpoint/answer", v: 1, id, choice: "keep" });
    await waitFor("the answer", () => keptTold);
    await session.waitForIdle();
    assert.equal(read("a.ts").toString(), "export const a = 3;\n", "kept as Pi left it");
    assert.doesNotMatch(keptTold, /restored the workspace files/);

    // Edit with restore: the note comes first on the new branch, before the edited prompt.
    let editTold = "";
    server.push((body) => {
      editTold = JSON.stringify(body.messages);
      return { text: "Edited." };
    });
    void api.view.receive({ type: "branch/editPrompt", v: 1, messageIndex: session.messages.findIndex((m) => m.role === "user"), text: "Leave a alone." });
    id = await waitFor("the offer", () => checkpoints.pendingOfferId);
    await api.view.receive({ type: "checkpoint/answer", v: 1, id, choice: "restore" });
    await waitFor("the edited answer", () => editTold);
    await session.waitForIdle();
    assert.equal(read("a.ts").toString(), "export const a = 1;\n");
    assert.match(editTold, /restored the workspace files to how they were before message 1 \(\\"Make a three\.\\"\).*Leave a alone\./);

    // Nothing to restore (the files are as at the checkpoint): nothing is asked.
    server.push(() => ({ text: "Again." }));
    await api.view.receive({ type: "branch/retry", v: 1, messageIndex: answerIndex() });
    await session.waitForIdle();
    assert.equal(checkpoints.pendingOfferId, undefined);
    assert.equal(server.pending(), 0);
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    rmSync(dir, { recursive: true, force: true });
  });

  it("a background command's writes after the turn ended are recorded when it ends; the user's save meanwhile is not; restore undoes them", async () => {
    const checkpoints = api.checkpoints!;
    const dir = join(root, "cp-bg");
    const file = (name: string) => join(dir, name);
    const read = (name: string) => readFileSync(file(name), "utf8");
    // The watcher as late as CI's: none of this test's files is reported before the command starts.
    checkpoints.checkpoints.baseline.holdEvents();
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(file("existing.txt"), "before\n");
    writeFileSync(file("user.txt"), "user before\n");
    await vscode.commands.executeCommand("piChat.newChat");
    server.push(
      () => ({
        toolCalls: [
          {
            id: "cp_bg",
            name: "run_command",
            arguments: {
              command: "echo watcher ready; sleep 3; printf 'late\\n' > cp-bg/late.txt; printf 'by the watcher\\n' > cp-bg/existing.txt",
              background: true,
              readyPattern: "watcher ready",
            },
          },
        ],
      }),
      () => ({ text: "It runs in the background." }),
    );
    void api.view.receive({ type: "chat/send", v: 1, text: "Start the watcher." });
    await waitFor("the command to ask", () => card("cp_bg")?.approval?.state === "pending");
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "cp_bg", decision: "allow" });
    const session = api.screen.currentSession;
    await session.waitForIdle();
    await checkpoints.checkpoints.idle();
    // The turn is over and the command still runs: nothing of it is on disk yet.
    assert.equal(card("cp_bg")?.background?.state, "running");
    assert.equal(existsSync(file("late.txt")), false);
    assert.equal(checkpoints.checkpoints.watchedBackground, 1);

    // Meanwhile the user edits and saves a file of their own in VS Code.
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file("user.txt")));
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((b) => b.insert(new vscode.Position(0, 0), "mine: "));
    await doc.save();

    await waitFor("the background command to end", () => card("cp_bg")?.background?.state === "exited", 30_000);
    await waitFor("its end to be recorded", () => checkpoints.checkpoints.watchedBackground === 0);
    checkpoints.checkpoints.baseline.releaseEvents();
    await checkpoints.checkpoints.idle();
    assert.equal(read("late.txt"), "late\n");
    assert.equal(read("existing.txt"), "by the watcher\n");
    const journal = await checkpoints.checkpoints.storage.journal(session.id);
    assert.deepEqual(
      journal.flatMap((e) => (e.t === "change" ? [[e.path, e.by]] : [])),
      [
        ["cp-bg/existing.txt", "command"],
        ["cp-bg/late.txt", "command"],
      ],
      "the watcher's writes are its own; the user's save is not",
    );

    let previewed: RestorePlan | undefined;
    checkpoints.preview = async (plan) => {
      previewed = plan;
      return "restore";
    };
    checkpoints.notify = async () => undefined;
    await api.view.receive({ type: "checkpoint/restore", v: 1, messageIndex: session.messages.findIndex((m) => m.role === "user") });
    assert.deepEqual(
      previewed?.files.map((f) => [f.path, f.piDid]),
      [
        ["cp-bg/existing.txt", "modified"],
        ["cp-bg/late.txt", "created"],
      ],
    );
    assert.deepEqual(previewed?.skipped, []);
    assert.equal(read("existing.txt"), "before\n");
    assert.equal(existsSync(file("late.txt")), false);
    assert.equal(read("user.txt"), "mine: user before\n", "the user's save is left alone");
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    rmSync(dir, { recursive: true, force: true });
  });

  it("skips a file open with unsaved changes and says so; the editor keeps its text", async () => {
    const checkpoints = api.checkpoints!;
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(file("open.ts"), "export const open = 1;\n");
    writeFileSync(file("closed.ts"), "export const closed = 1;\n");
    await vscode.commands.executeCommand("piChat.newChat");
    server.push(
      () => ({ toolCalls: [{ id: "cp_open", name: "edit_file", arguments: { path: "cp-scenario/open.ts", oldText: "open = 1", newText: "open = 2" } }] }),
      () => ({
        toolCalls: [{ id: "cp_closed", name: "edit_file", arguments: { path: "cp-scenario/closed.ts", oldText: "closed = 1", newText: "closed = 2" } }],
      }),
      () => ({ text: "Done." }),
    );
    await api.view.receive({ type: "chat/send", v: 1, text: "Bump both." });
    await api.screen.currentSession.waitForIdle();
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file("open.ts")));
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((b) => b.insert(new vscode.Position(0, 0), "// typing, not saved\n"));
    assert.ok(doc.isDirty);

    let previewed: RestorePlan | undefined;
    checkpoints.preview = async (plan) => {
      previewed = plan;
      return "restore";
    };
    let noticeText = "";
    checkpoints.notify = async (text) => {
      noticeText = text;
      return undefined;
    };
    const session = api.screen.currentSession;
    await api.view.receive({ type: "checkpoint/restore", v: 1, messageIndex: session.messages.findIndex((m) => m.role === "user") });
    await waitFor("the notice", () => noticeText);
    assert.deepEqual(
      previewed?.skipped.map((x) => [x.path, x.reason]),
      [["cp-scenario/open.ts", "open with unsaved changes; save or revert it, then restore again"]],
    );
    assert.match(noticeText, /1 put back, 0 deleted\. Skipped 1: cp-scenario\/open\.ts \(open with unsaved changes/);
    assert.equal(read("closed.ts").toString(), "export const closed = 1;\n");
    assert.equal(read("open.ts").toString(), "export const open = 2;\n", "the file on disk is left as Pi left it");
    assert.ok(doc.isDirty && doc.getText().startsWith("// typing, not saved\n"), "the editor keeps the user's text");
    await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");
  });

  it("keeps no byte of .env, a private key, a TLS key or .npmrc; the preview says not kept; storage is the user's own", async () => {
    const checkpoints = api.checkpoints;
    assert.ok(checkpoints, "a folder on disk has checkpoints");
    const dir = join(root, "cp-secrets");
    const file = (name: string) => join(dir, name);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, "deploy"), { recursive: true });
    writeFileSync(file(".env"), "API_KEY=sk-live-HOSTENV-1\n");
    writeFileSync(file("deploy/id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\nHOSTSSH-1\n-----END OPENSSH PRIVATE KEY-----\n");
    writeFileSync(file("server.pem"), "-----BEGIN PRIVATE KEY-----\nHOSTTLS-1\n-----END PRIVATE KEY-----\n");
    writeFileSync(file(".npmrc"), "//registry.npmjs.org/:_authToken=npm_HOSTNPM-1\n");
    writeFileSync(file("notes.txt"), "notes before\n");

    // What an older version left in this window's storage: open modes and a kept copy of a .env.
    const store = checkpoints.checkpoints.storage.dir;
    const oldEnv = Buffer.from("API_KEY=sk-live-HOSTENV-OLD\n");
    const oldHash = sha256(oldEnv);
    mkdirSync(join(store, "blobs", oldHash.slice(0, 2)), { recursive: true });
    mkdirSync(join(store, "chats"), { recursive: true });
    writeFileSync(join(store, "blobs", oldHash.slice(0, 2), oldHash), oldEnv, { mode: 0o644 });
    const oldLine = {
      t: "change",
      path: "cp-secrets/.env",
      before: { hash: oldHash, size: oldEnv.length, kept: true },
      after: { absent: true },
      by: "edit",
      at: 1,
    };
    writeFileSync(join(store, "chats", "older-version.jsonl"), `${JSON.stringify({ t: "mark", id: "m0", at: 0 })}\n${JSON.stringify(oldLine)}\n`, {
      mode: 0o644,
    });
    for (const d of [store, join(store, "chats"), join(store, "blobs")]) chmodSync(d, 0o755);

    await vscode.commands.executeCommand("piChat.newChat");
    server.push(
      () => ({
        toolCalls: [{ id: "sec_edit_env", name: "edit_file", arguments: { path: "cp-secrets/.env", oldText: "HOSTENV-1", newText: "HOSTENV-ROTATED" } }],
      }),
      () => ({
        toolCalls: [
          {
            id: "sec_cmd",
            name: "run_command",
            arguments: {
              command:
                "cd cp-secrets && printf 'KEY HOSTSSH-ROTATED\\n' > deploy/id_rsa && printf 'KEY HOSTTLS-ROTATED\\n' > server.pem && printf '//r/:_authToken=npm_HOSTNPM-ROTATED\\n' > .npmrc && printf 'notes by pi\\n' > notes.txt",
            },
          },
        ],
      }),
      () => ({ text: "Done." }),
    );
    void api.view.receive({ type: "chat/send", v: 1, text: "Rotate the keys." });
    for (const id of ["sec_edit_env", "sec_cmd"]) {
      await waitFor(`${id} to ask`, () => toolCard(api, id)?.approval?.state === "pending");
      await api.view.receive({ type: "approval/decide", v: 1, toolCallId: id, decision: "allow" });
    }
    await api.screen.currentSession.waitForIdle();
    await checkpoints.checkpoints.idle();
    assert.match(readFileSync(file(".env"), "utf8"), /HOSTENV-ROTATED/);
    assert.match(readFileSync(file("deploy/id_rsa"), "utf8"), /HOSTSSH-ROTATED/);

    // No byte of any secret, old or new, except the older version's copy the clean-up has not met yet.
    const scan = () =>
      modesUnder(store)
        .filter((f) => !f.dir)
        .filter((f) => /HOST(ENV|SSH|TLS|NPM)-(1|ROTATED)/.test(readFileSync(f.path, "latin1")))
        .map((f) => f.path);
    assert.deepEqual(scan(), []);

    let previewed: RestorePlan | undefined;
    checkpoints.preview = async (plan) => {
      previewed = plan;
      return "restore";
    };
    checkpoints.notify = async () => undefined;
    const session = api.screen.currentSession;
    await api.view.receive({ type: "checkpoint/restore", v: 1, messageIndex: session.messages.findIndex((m) => m.role === "user") });
    await waitFor("the restore", () => session.messages.some((m) => m.role === "filesRestored"));
    assert.ok(previewed);
    assert.deepEqual(
      previewed.files.map((f) => f.path),
      ["cp-secrets/notes.txt"],
    );
    assert.deepEqual(previewed.skipped.map(skippedLabel).sort(), [
      `not kept: cp-secrets/.env (${SECRET_NOT_KEPT})`,
      `not kept: cp-secrets/.npmrc (${SECRET_NOT_KEPT})`,
      `not kept: cp-secrets/deploy/id_rsa (${SECRET_NOT_KEPT})`,
      `not kept: cp-secrets/server.pem (${SECRET_NOT_KEPT})`,
    ]);
    assert.equal(readFileSync(file("notes.txt"), "utf8"), "notes before\n");
    assert.match(readFileSync(file(".env"), "utf8"), /HOSTENV-ROTATED/, "a secret file is never written back");

    // The clean-up (at activation) removes the older version's copy and sets every mode.
    await checkpoints.checkpoints.collectGarbage();
    const all = modesUnder(store);
    assert.ok(!all.some((f) => f.path.endsWith(oldHash)), "the older version's copy of .env is gone");
    for (const f of all) assert.equal(f.mode, f.dir ? 0o700 : 0o600, `${f.path}: ${f.mode.toString(8)}`);
    assert.equal(statSync(store).mode & 0o777, 0o700);
    rmSync(dir, { recursive: true, force: true });
  });
});
