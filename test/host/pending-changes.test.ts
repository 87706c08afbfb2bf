// Keep / Undo after the write, in the real extension host: Pi edits files in approval mode
// "auto" through the real pi-ai adapter, the checkpoint journal records each write, and the
// pending changes are Pi's hunks only. The user's own edit elsewhere is never Pi's and survives
// Undo; Keep leaves the file as it is; a user change inside Pi's hunk is "changed by you since"
// and Undo refuses it; a path from the view that Pi never wrote (or outside the workspace) undoes
// nothing; and the decisions survive a restart of VS Code (phase 2 over the same state). Since a
// checkpoint the user picks: two prompts' edits are one review, Undo puts back what was there
// before the first, a forged checkpoint id changes nothing, and the pick survives the restart.
import * as assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import type { PendingReview } from "../../src/host/pending";
import type { HostMessage, PendingFileSummary } from "../../src/shared/protocol";
import type { OpenAIServer } from "../support/openai-server";
import { diskText, isHostMessage, startChatView, waitFor, workspaceUri } from "./helpers";

const phase = process.env.PI_CHAT_TEST_PHASE === "2" ? 2 : 1;
const ORIGINAL = `${Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;
const recordFile = () => workspaceUri(".pi-chat-test", "pending-changes.json");
const sinceRecordFile = () => workspaceUri(".pi-chat-test", "pending-since.json");

describe(`pending changes after the write: Keep and Undo (phase ${phase})`, function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;
  const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const dir = join(root, "pending");
  const uri = (name: string) => workspaceUri("pending", name);

  before(async () => {
    ({ server, api } = await startChatView());
    await vscode.workspace.getConfiguration("piChat").update("approvalMode", "auto", vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await vscode.workspace.getConfiguration("piChat").update("approvalMode", "ask", vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    await server?.close();
  });

  const review = (): PendingReview => {
    const pending = api.host.deps.pending;
    assert.ok(pending, "a folder on disk has pending changes");
    return pending;
  };
  const listed = async (): Promise<PendingFileSummary[]> => {
    await review().changes.settled();
    return review().changes.summaries();
  };
  const pendingMessages = () =>
    (api.view.posted ?? []).filter((m): m is Extract<HostMessage, { type: "pending/changes" }> => isHostMessage(m) && m.type === "pending/changes");
  const lensTitles = async (target: vscode.Uri): Promise<string[]> => {
    const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", target)) ?? [];
    return lenses.map((l) => l.command?.title ?? "");
  };

  /** A new chat (or the one on screen, `again`) whose next prompt makes Pi apply `edits` (edit_file, auto mode) to `name`. */
  async function piEdits(name: string, edits: { oldText: string; newText: string }[], again = false): Promise<void> {
    if (!again) await vscode.commands.executeCommand("piChat.newChat");
    const tag = `${name.replace(/\W/g, "_")}${again ? "_again" : ""}`;
    server.push(
      ...edits.map((e, i) => () => ({
        toolCalls: [{ id: `pend_${tag}_${i}`, name: "edit_file", arguments: { path: `pending/${name}`, ...e } }],
      })),
      () => ({ text: "Done." }),
    );
    await api.view.receive({ type: "chat/send", v: 1, text: `Change ${name}${again ? " again" : ""}.` });
    const last = edits[edits.length - 1]?.newText ?? "";
    await waitFor(`Pi's write of ${name} to be pending`, async () => {
      await listed();
      return review()
        .changes.files.get(`pending/${name}`)
        ?.hunks.some((h) => h.decision === undefined && h.added.join("") === last);
    });
    await api.host.deps.screen.currentSession.waitForIdle();
  }
  const lastPendingMessage = () => pendingMessages().at(-1);

  /** The user types in the file's editor (unsaved), replacing `from` by `to`. */
  async function userTypes(target: vscode.Uri, from: string, to: string): Promise<vscode.TextEditor> {
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(target));
    const text = editor.document.getText();
    const at = text.indexOf(from);
    assert.ok(at >= 0, `${from} is in the file`);
    await editor.edit((b) => b.replace(new vscode.Range(editor.document.positionAt(at), editor.document.positionAt(at + from.length)), to));
    return editor;
  }

  if (phase === 1) {
    beforeEach(() => {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
    });

    it("attack: a view message naming a file Pi never wrote, or one outside the workspace, undoes nothing", async () => {
      writeFileSync(join(dir, "pi.txt"), ORIGINAL);
      // The user's own file, changed by the user only: never Pi's, whatever a message says.
      writeFileSync(join(dir, "mine.txt"), ORIGINAL);
      const outside = join(root, "..", "pending-outside.txt");
      writeFileSync(outside, ORIGINAL);
      try {
        await piEdits("pi.txt", [{ oldText: "line 5\n", newText: "line 5 by pi\n" }]);
        await userTypes(uri("mine.txt"), "line 7", "line 7 by me");
        await vscode.workspace.saveAll(false);
        assert.deepEqual(
          (await listed()).map((f) => f.path),
          ["pending/pi.txt"],
          "only the file Pi wrote is listed",
        );
        const ignoredBefore = api.logLines.filter((l) => l.startsWith("ignored pending/")).length;
        const hostile = [
          "pending/mine.txt",
          "../pending-outside.txt",
          outside,
          "pending/../pending/mine.txt",
          "PENDING/PI.TXT",
          "pending/pi.txt/",
          "pending//pi.txt",
        ];
        for (const path of hostile) {
          for (const action of ["undo", "keep"] as const) await api.view.receive({ type: "pending/decide", v: 1, action, path });
          await api.view.receive({ type: "pending/open", v: 1, path });
        }
        // A lens's command with a path of the caller's choosing: the same rule.
        await vscode.commands.executeCommand("piChat.undoChange", { path: "pending/mine.txt", hunk: 0 });
        await vscode.commands.executeCommand("piChat.undoFileChanges", { path: "../pending-outside.txt" });
        assert.equal(readFileSync(outside, "utf8"), ORIGINAL, "the file outside is untouched");
        assert.equal(await diskText(uri("mine.txt")), ORIGINAL.replace("line 7", "line 7 by me"), "the user's file keeps the user's edit");
        assert.equal(await diskText(uri("pi.txt")), ORIGINAL.replace("line 5\n", "line 5 by pi\n"), "Pi's file is still as Pi left it");
        assert.equal((await listed())[0]?.pending, 1, "Pi's change is still pending (nothing was kept either)");
        assert.equal(
          api.logLines.filter((l) => l.startsWith("ignored pending/")).length - ignoredBefore,
          hostile.length * 3,
          "every hostile message was ignored",
        );
      } finally {
        rmSync(outside, { force: true });
      }
    });

    it("a Pi edit then a user edit elsewhere: one pending hunk, and Undo (Alt+N's command) leaves the user's edit", async () => {
      writeFileSync(join(dir, "notes.txt"), ORIGINAL);
      await piEdits("notes.txt", [{ oldText: "line 5\n", newText: "line 5 by pi\nline 5b by pi\n" }]);
      const editor = await userTypes(uri("notes.txt"), "line 30", "line 30 by me");
      await waitFor("the user's edit to be read", async () => (await review().changes.currentText(uri("notes.txt")))?.includes("line 30 by me"));
      const [file] = await listed();
      assert.deepEqual(file, { path: "pending/notes.txt", by: "pi", kind: "modified", added: 2, removed: 1, pending: 1, changedByYou: 0 });
      assert.deepEqual(await lensTitles(uri("notes.txt")), [
        "Pi Chat: Keep the change",
        "Undo all",
        "Open Diff",
        "Keep change 1 of 1",
        "Undo (puts back 1 line)",
      ]);
      assert.ok(review().editor.provideFileDecoration(uri("notes.txt"))?.badge, "the tab and the Explorer show a badge");

      editor.selection = new vscode.Selection(5, 0, 5, 0); // on Pi's second line
      const outcome = await vscode.commands.executeCommand<{ done: boolean; said: string }>("piChat.undoChange");
      assert.equal(outcome.done, true, outcome.said);
      assert.equal(await diskText(uri("notes.txt")), ORIGINAL.replace("line 30", "line 30 by me"), "Pi's lines are gone, the user's edit stays, saved");
      assert.deepEqual(await listed(), []);
      assert.equal(review().editor.provideFileDecoration(uri("notes.txt")), undefined, "no badge once nothing is pending");
      await waitFor("the view to be told", () => pendingMessages().some((m) => m.said === "Undid 1 change in pending/notes.txt." && m.files.length === 0));
      // One undoable step: Ctrl+Z in the editor brings Pi's lines back.
      await vscode.commands.executeCommand("undo");
      assert.equal(editor.document.getText(), ORIGINAL.replace("line 5\n", "line 5 by pi\nline 5b by pi\n").replace("line 30", "line 30 by me"));
      await vscode.commands.executeCommand("workbench.action.files.revert");
    });

    it("Keep takes a change off the list without touching the file", async () => {
      writeFileSync(join(dir, "kept.txt"), ORIGINAL);
      await piEdits("kept.txt", [{ oldText: "line 9\n", newText: "line 9 by pi\n" }]);
      const written = readFileSync(join(dir, "kept.txt"));
      await api.view.receive({ type: "pending/decide", v: 1, action: "keep", path: "pending/kept.txt" });
      assert.deepEqual(await listed(), []);
      assert.deepEqual(readFileSync(join(dir, "kept.txt")), written, "the file is as Pi left it");
      await waitFor("the view to be told", () => pendingMessages().some((m) => m.said === "Kept 1 change in pending/kept.txt."));
    });

    it("a user change inside Pi's hunk is changed by you since, and Undo refuses it with the reason", async () => {
      writeFileSync(join(dir, "mixed.txt"), ORIGINAL);
      await piEdits("mixed.txt", [
        { oldText: "line 5\n", newText: "line 5 by pi\n" },
        { oldText: "line 25\n", newText: "line 25 by pi\n" },
      ]);
      await userTypes(uri("mixed.txt"), "line 5 by pi", "line 5 by pi, fixed by me");
      await waitFor("the user's edit to be read", async () => (await listed())[0]?.changedByYou === 1);
      assert.deepEqual(await lensTitles(uri("mixed.txt")), [
        "Pi Chat: Keep all 2 changes",
        "Undo all",
        "Open Diff",
        "Keep change 1 of 2",
        "Changed by you since: undo by hand",
        "Keep change 2 of 2",
        "Undo (puts back 1 line)",
      ]);
      // Alt+] / Alt+[: from the top, to each pending change in turn, round to the first again, and back.
      const editor = vscode.window.activeTextEditor;
      assert.ok(editor);
      editor.selection = new vscode.Selection(0, 0, 0, 0);
      const cursorLines: number[] = [];
      for (const command of ["piChat.nextPendingChange", "piChat.nextPendingChange", "piChat.nextPendingChange", "piChat.previousPendingChange"]) {
        await vscode.commands.executeCommand(command);
        cursorLines.push(vscode.window.activeTextEditor?.selection.active.line ?? -1);
      }
      assert.deepEqual(cursorLines, [4, 24, 4, 24]);
      const refused = await vscode.commands.executeCommand<{ done: boolean; said: string }>("piChat.undoChange", { path: "pending/mixed.txt", hunk: 0 });
      assert.equal(refused.done, false);
      assert.match(refused.said, /hunk 1 of pending\/mixed\.txt \(changed by you since/);
      // Undo all of the file: the other hunk goes, the user's stays, and the refusal is said.
      await api.view.receive({ type: "pending/decide", v: 1, action: "undo", path: "pending/mixed.txt" });
      assert.equal(await diskText(uri("mixed.txt")), ORIGINAL.replace("line 5\n", "line 5 by pi, fixed by me\n"));
      await waitFor("the refusal to be said", () =>
        pendingMessages().some((m) => /^Undid 1 change in pending\/mixed\.txt\. Not undone: hunk 1/.test(m.said ?? "")),
      );
      const [file] = await listed();
      assert.equal(file?.pending, 1, "the user's hunk stays pending, to keep or undo by hand");
    });

    it("attack, then since a checkpoint: a forged id changes nothing; the first prompt's checkpoint shows both prompts' edits, and Undo puts back the file before the first", async () => {
      writeFileSync(join(dir, "since.txt"), ORIGINAL);
      writeFileSync(join(dir, "other.txt"), ORIGINAL);
      // Another chat's checkpoint: a real mark in a real journal, but not this chat's.
      await piEdits("other.txt", [{ oldText: "line 2\n", newText: "line 2 by pi\n" }]);
      const otherChatMark = api.host.deps.screen.currentSession.promptCheckpoints()[0]?.markId;
      assert.ok(otherChatMark);
      await piEdits("since.txt", [{ oldText: "line 5\n", newText: "line 5 by pi\n" }]);
      await piEdits("since.txt", [{ oldText: "line 25\n", newText: "line 25 by pi\n" }], true);
      const [second, first] = api.host.deps.screen.currentSession.promptCheckpoints();
      assert.ok(first && second, "the chat has two checkpoints");
      // Since the last prompt: the second prompt's edit only.
      assert.deepEqual(await listed(), [{ path: "pending/since.txt", by: "pi", kind: "modified", added: 1, removed: 1, pending: 1, changedByYou: 0 }]);
      await waitFor("the view to get both checkpoints", () => lastPendingMessage()?.checkpoints?.length === 2);
      assert.deepEqual(
        lastPendingMessage()?.checkpoints?.map((c) => c.markId),
        [second.markId, first.markId],
        "newest first",
      );

      // Forged ids: not one of this chat's checkpoints (another chat's mark, near misses, prototype keys, a path).
      const hostile = [
        "not-a-checkpoint",
        `${first.markId} `,
        first.markId.toUpperCase() === first.markId ? `${first.markId}0` : first.markId.toUpperCase(),
        "__proto__",
        "constructor",
        "../../journal",
        otherChatMark,
      ];
      const ignoredBefore = api.logLines.filter((l) => l.startsWith("ignored pending/since")).length;
      for (const markId of hostile) await api.view.receive({ type: "pending/since", v: 1, markId });
      // The owner checks again: the command's argument, and a direct call past the handler.
      for (const markId of hostile) {
        const outcome = await vscode.commands.executeCommand<{ done: boolean; said: string }>("piChat.reviewChangesSince", { markId });
        assert.equal(outcome.done, false, `the command refuses ${markId}`);
        assert.equal((await review().changes.reviewSince(markId)).done, false, `the owner refuses ${markId}`);
      }
      assert.equal(api.logLines.filter((l) => l.startsWith("ignored pending/since")).length - ignoredBefore, hostile.length, "every forged id was ignored");
      assert.equal(review().changes.sinceCheckpoint, undefined, "still since the last prompt");
      assert.equal((await listed())[0]?.pending, 1);

      // The user picks the first prompt's checkpoint (the list's Since select).
      await api.view.receive({ type: "pending/since", v: 1, markId: first.markId });
      await waitFor("the pick to be said", () => lastPendingMessage()?.said === `Showing Pi's changes since message 1 ("Change since.txt.").`);
      assert.deepEqual(lastPendingMessage()?.since, first);
      assert.deepEqual(await listed(), [{ path: "pending/since.txt", by: "pi", kind: "modified", added: 2, removed: 2, pending: 2, changedByYou: 0 }]);
      assert.deepEqual(
        review()
          .sinceChoices()
          .map((c) => [c.label, c.picked]),
        [
          [`Since message 2 ("Change since.txt again.")`, false],
          [`Since message 1 ("Change since.txt.")`, true],
        ],
        "the command's quick pick: newest first, labelled as the checkpoints are, the one shown picked",
      );
      assert.deepEqual(await lensTitles(uri("since.txt")), [
        "Pi Chat: Keep all 2 changes",
        "Undo all",
        "Open Diff",
        "Keep change 1 of 2",
        "Undo (puts back 1 line)",
        "Keep change 2 of 2",
        "Undo (puts back 1 line)",
      ]);
      await api.view.receive({ type: "pending/decide", v: 1, action: "undo", path: "pending/since.txt" });
      assert.equal(await diskText(uri("since.txt")), ORIGINAL, "the file as it was before the first prompt's edit");
      await waitFor("the undo to be said", () => lastPendingMessage()?.said === "Undid 2 changes in pending/since.txt.");
      assert.deepEqual(lastPendingMessage()?.files, []);
      assert.deepEqual(lastPendingMessage()?.since, first, "the list stays since the checkpoint picked");
      mkdirSync(join(root, ".pi-chat-test"), { recursive: true });
      writeFileSync(sinceRecordFile().fsPath, JSON.stringify({ chatId: api.screen.currentChatId, markId: first.markId }));
    });

    it("removed lines show in the editor without hovering (the first, how many more, all in the hover), and Open Diff shows before Pi ↔ now", async () => {
      writeFileSync(join(dir, "removed.txt"), ORIGINAL);
      writeFileSync(join(dir, "not-pi.txt"), ORIGINAL);
      await piEdits("removed.txt", [
        { oldText: "line 10\nline 11\nline 12\n", newText: "" },
        { oldText: "line 20\n", newText: "line 20 by pi\n" },
      ]);
      const editor = await vscode.window.showTextDocument(uri("removed.txt"));
      const shown = await waitFor("the decorations", () => {
        const d = review().editor.decorationsOf(uri("removed.txt"));
        return d && d.removed.length === 2 ? d : undefined;
      });
      // Lines 10–12 are gone: the line after them (line 13, now the 10th) carries them.
      const lineOf13 = 9;
      assert.equal(editor.document.lineAt(lineOf13).text, "line 13");
      assert.deepEqual(
        shown.removed.map((r) => [r.range.start.line, r.range.start.character, r.range.isEmpty, r.renderOptions?.after?.contentText]),
        [
          [lineOf13, "line 13".length, true, "− line 10   (+2 more removed lines)"],
          [16, "line 20 by pi".length, true, "− line 20"],
        ],
        "at the end of the line, after its own text",
      );
      assert.deepEqual(
        shown.removedAt.map((r) => r.start.line),
        [lineOf13, 16],
      );
      assert.deepEqual(
        shown.added.map((r) => [r.start.line, r.end.line]),
        [[16, 16]],
      );
      const hover = shown.removed[0]?.hoverMessage;
      assert.ok(hover instanceof vscode.MarkdownString);
      assert.match(hover.value, /Pi removed 3 lines here[\s\S]*line 10\nline 11\nline 12/);

      // Open Diff: the checkpoint store's copy from before Pi's write beside the file now.
      assert.equal(await vscode.commands.executeCommand("piChat.openPendingDiff", { path: "pending/not-pi.txt" }), false, "a file Pi did not write");
      assert.equal(await vscode.commands.executeCommand("piChat.openPendingDiff", { path: "pending/removed.txt" }), true);
      const tab = await waitFor("the diff editor", () => {
        const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
        return input instanceof vscode.TabInputTextDiff ? input : undefined;
      });
      assert.equal(tab.modified.toString(), uri("removed.txt").toString());
      assert.equal((await vscode.workspace.openTextDocument(tab.original)).getText(), ORIGINAL, "the left side is the file before Pi");
      await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
    });

    it("keeps one hunk and undoes another before a restart (its phase 2 checks them)", async () => {
      writeFileSync(join(dir, "restart.txt"), ORIGINAL);
      await piEdits("restart.txt", [
        { oldText: "line 3\n", newText: "line 3 by pi\n" },
        { oldText: "line 20\n", newText: "line 20 by pi\n" },
        { oldText: "line 35\n", newText: "line 35 by pi\n" },
      ]);
      await vscode.commands.executeCommand("piChat.keepChange", { path: "pending/restart.txt", hunk: 0 });
      await vscode.commands.executeCommand("piChat.undoChange", { path: "pending/restart.txt", hunk: 1 });
      const [file] = await listed();
      assert.equal(file?.pending, 1);
      mkdirSync(join(root, ".pi-chat-test"), { recursive: true });
      writeFileSync(recordFile().fsPath, JSON.stringify({ chatId: api.screen.currentChatId }));
    });
  } else {
    it("the checkpoint picked is still the one the list counts from after the restart", async () => {
      const { chatId, markId } = JSON.parse(readFileSync(sinceRecordFile().fsPath, "utf8")) as { chatId: string; markId: string };
      const onScreen = api.screen.currentChatId;
      await api.screen.switchChat(chatId);
      await waitFor("the pick to be read", async () => {
        await listed();
        return review().changes.sinceCheckpoint?.markId === markId;
      });
      await waitFor("the view to be told", () => lastPendingMessage()?.since?.markId === markId);
      // Back to the last prompt: none picked, for this chat only.
      assert.equal((await review().changes.reviewSince(undefined)).done, true);
      await listed();
      assert.equal(review().changes.sinceCheckpoint, undefined);
      await api.screen.switchChat(onScreen, { quiet: true });
    });

    it("the decisions and the pending hunk are still there after the restart", async () => {
      const { chatId } = JSON.parse(readFileSync(recordFile().fsPath, "utf8")) as { chatId: string };
      // The chat on screen at the restart goes back on screen after (restore.test.js's phase 2 reads it).
      const onScreen = api.screen.currentChatId;
      await api.screen.switchChat(chatId);
      const files = await waitFor("the chat's pending changes", async () => {
        const list = await listed();
        return list.length > 0 ? list : undefined;
      });
      assert.deepEqual(files, [{ path: "pending/restart.txt", by: "pi", kind: "modified", added: 1, removed: 1, pending: 1, changedByYou: 0 }]);
      const hunks = review()
        .changes.files.get("pending/restart.txt")
        ?.hunks.map((h) => h.decision);
      assert.deepEqual(hunks, ["kept", "undone", undefined]);
      assert.ok(review().editor.provideFileDecoration(uri("restart.txt"))?.badge);
      await api.view.receive({ type: "pending/decide", v: 1, action: "undo" });
      assert.equal(await diskText(uri("restart.txt")), ORIGINAL.replace("line 3\n", "line 3 by pi\n"));
      rmSync(dir, { recursive: true, force: true });
      await api.screen.switchChat(onScreen, { quiet: true });
    });
  }
});
