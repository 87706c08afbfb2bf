// A restore of files cut off half-way, across a real restart of VS Code. Phase 1 records Pi's
// changes (a command), then starts a restore whose run breaks off after its first file with the
// next file half-written: the disk is left as a kill at that moment leaves it (the pending record
// flushed, one file restored, one torn). VS Code is then shut down. Phase 2 is a new activation:
// it must roll the restore back before anything else, so every file holds what Pi left (none
// half-written), say so in a notice, and leave the chat free to restore again.
import * as assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import type { ToolItem } from "../../src/shared/chat-items";
import { chatItems } from "../../src/shared/reducer";
import type { OpenAIServer } from "../support/openai-server";
import { startChatView, waitFor, workspaceUri } from "./helpers";

const phase = process.env.PI_CHAT_TEST_PHASE === "2" ? 2 : 1;
const recordFile = () => workspaceUri(".pi-chat-test", "checkpoint-crash.json");

describe(`checkpoints: a restore cut off by a restart is rolled back (phase ${phase})`, function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;
  const dir = join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, "cp-crash");
  const read = (name: string) => readFileSync(join(dir, name), "utf8");

  before(async () => {
    ({ server, api } = await startChatView());
  });
  after(async () => server?.close());

  if (phase === 1) {
    it("leaves a restore half-done when VS Code goes away", async () => {
      await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", false, vscode.ConfigurationTarget.Global);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "one.txt"), "one before\n");
      writeFileSync(join(dir, "two.txt"), "two before\n");
      await vscode.commands.executeCommand("piChat.newChat");
      server.push(
        () => ({
          toolCalls: [
            {
              id: "crash_cmd",
              name: "run_command",
              arguments: { command: "printf 'one by pi\\n' > cp-crash/one.txt && printf 'two by pi\\n' > cp-crash/two.txt" },
            },
          ],
        }),
        () => ({ text: "Done." }),
      );
      void api.view.receive({ type: "chat/send", v: 1, text: "Rewrite the two files." });
      await waitFor("the command to ask", () =>
        chatItems(api.screen.currentSession.viewState).some((i): i is ToolItem => i.kind === "tool" && i.id === "crash_cmd" && i.approval?.state === "pending"),
      );
      await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "crash_cmd", decision: "allow" });
      await api.screen.currentSession.waitForIdle();
      await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", undefined, vscode.ConfigurationTarget.Global);
      const checkpoints = api.checkpoints!;
      await checkpoints.checkpoints.idle();

      checkpoints.preview = async () => "restore";
      checkpoints.checkpoints.afterRestoreStep = (index) => {
        if (index !== 0) return;
        writeFileSync(join(dir, "two.txt"), "two be"); // torn mid-write
        throw new Error("the extension host went away here");
      };
      const session = api.screen.currentSession;
      await api.view.receive({ type: "checkpoint/restore", v: 1, messageIndex: session.messages.findIndex((m) => m.role === "user") }).catch(() => undefined);
      checkpoints.checkpoints.afterRestoreStep = undefined;
      assert.equal(read("one.txt"), "one before\n", "the first file was restored");
      assert.equal(read("two.txt"), "two be", "the second is half-written");
      const storage = checkpoints.checkpoints.storage;
      assert.ok(existsSync(storage.pendingPath), "the pending record is on disk");
      await vscode.workspace.fs.writeFile(recordFile(), new TextEncoder().encode(JSON.stringify({ chatId: session.id })));
    });
  } else {
    it("rolls it back at the next start, with a notice, and the chat can restore again", async () => {
      const { chatId } = JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(recordFile()))) as { chatId: string };
      const checkpoints = api.checkpoints!;
      // Activation finished the recovery before the view came up.
      assert.ok(
        api.logLines.some((l) => /checkpoints: interrupted restore rolledBack: .*cp-crash\/one\.txt/.test(l)),
        api.logLines.filter((l) => l.includes("checkpoints")).join("\n"),
      );
      assert.equal(read("one.txt"), "one by pi\n");
      assert.equal(read("two.txt"), "two by pi\n", "no file is left half-written");
      assert.equal(existsSync(checkpoints.checkpoints.storage.pendingPath), false);
      const journal = await checkpoints.checkpoints.storage.journal(chatId);
      const mark = journal.find((e) => e.t === "mark");
      assert.ok(mark && mark.t === "mark");
      const plan = await checkpoints.checkpoints.plan(chatId, mark.id);
      assert.deepEqual(
        plan?.files.map((f) => f.path),
        ["cp-crash/one.txt", "cp-crash/two.txt"],
      );
      const outcome = await checkpoints.checkpoints.restore(chatId, mark.id, plan);
      assert.equal(outcome?.restored.length, 2);
      assert.equal(read("two.txt"), "two before\n");
      rmSync(dir, { recursive: true, force: true });
    });
  }
});
