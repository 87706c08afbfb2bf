// A restore of files whose extension host is really killed half-way (run alone, with the host
// launcher's --kill-on-request: scripts/test-all.mjs, step host-crash). Phase 1: Pi's command
// rewrites three files; a restore starts, and after its first file is written the restore waits
// while this test asks the launcher to SIGKILL this extension host process (its pid on a console
// line). Nothing in the extension gets to run after that. Phase 2 is VS Code started again on the
// same user data and workspace: activation must have rolled the restore back before anything else
// (the restored file back as Pi left it, the two it never reached untouched, no file half-written,
// the pending record gone), with a notice, and the files it did not touch keep their mtimes.
import * as assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import type { ToolItem } from "../../src/shared/chat-items";
import { chatItems } from "../../src/shared/reducer";
import type { OpenAIServer } from "../support/openai-server";
import { startChatView, waitFor, workspaceUri } from "./helpers";

const phase = process.env.PI_CHAT_TEST_PHASE === "2" ? 2 : 1;
const recordFile = () => workspaceUri(".pi-chat-test", "checkpoint-kill.json");
/** What the launcher looks for: it kills the process with this pid at once (scripts/run-host-tests.mjs). */
const KILL_REQUEST = "PI-CHAT-TEST-KILL-EXTENSION-HOST";

interface Record {
  chatId: string;
  /** mtimes (ms) before the restore of the files it must not touch. */
  mtimes: { [path: string]: number };
}

describe(`checkpoints: the extension host killed during a restore (phase ${phase})`, function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;
  const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const dir = join(root, "cp-kill");
  const read = (name: string) => readFileSync(join(dir, name), "utf8");
  // Not touched by Pi (the first) or not reached by the restore (the other two).
  const untouched = [join(root, "src", "config.ts"), join(dir, "two.txt"), join(dir, "three.txt")];

  before(async () => {
    ({ server, api } = await startChatView());
  });
  after(async () => server?.close());

  if (phase === 1) {
    it("is killed after the restore wrote its first file", async () => {
      await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", false, vscode.ConfigurationTarget.Global);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      for (const name of ["one", "two", "three"]) writeFileSync(join(dir, `${name}.txt`), `${name} before\n`);
      await vscode.commands.executeCommand("piChat.newChat");
      server.push(
        () => ({
          toolCalls: [
            {
              id: "kill_cmd",
              name: "run_command",
              arguments: { command: 'for f in one two three; do printf "$f by pi\\n" > cp-kill/$f.txt; done' },
            },
          ],
        }),
        () => ({ text: "Done." }),
      );
      void api.view.receive({ type: "chat/send", v: 1, text: "Rewrite the three files." });
      await waitFor("the command to ask", () =>
        chatItems(api.screen.currentSession.viewState).some((i): i is ToolItem => i.kind === "tool" && i.id === "kill_cmd" && i.approval?.state === "pending"),
      );
      await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "kill_cmd", decision: "allow" });
      const session = api.screen.currentSession;
      await session.waitForIdle();
      await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", undefined, vscode.ConfigurationTarget.Global);
      const checkpoints = api.checkpoints!;
      await checkpoints.checkpoints.idle();
      assert.equal(read("two.txt"), "two by pi\n");
      const record: Record = { chatId: session.id, mtimes: Object.fromEntries(untouched.map((p) => [p, statSync(p).mtimeMs])) };
      await vscode.workspace.fs.writeFile(recordFile(), new TextEncoder().encode(JSON.stringify(record)));

      // After the first file: check the disk is mid-restore, then ask to be killed, and wait.
      let killRequested = false;
      checkpoints.preview = async () => "restore";
      checkpoints.checkpoints.afterRestoreStep = async (index) => {
        if (index !== 0) return;
        assert.equal(read("one.txt"), "one before\n", "the first file is restored");
        assert.equal(read("two.txt"), "two by pi\n", "the second is not reached yet");
        assert.ok(existsSync(checkpoints.checkpoints.storage.pendingPath), "the pending record is on disk");
        killRequested = true;
        console.log(`${KILL_REQUEST} ${process.pid}`);
        await new Promise(() => undefined); // the restore goes no further: the process dies here
      };
      void api.view.receive({ type: "checkpoint/restore", v: 1, messageIndex: session.messages.findIndex((m) => m.role === "user") });
      await waitFor("the restore to reach its first file", () => killRequested);
      // The launcher kills this process now; if it does not, the test fails rather than pass half-done.
      await new Promise((resolve) => setTimeout(resolve, 60_000));
      assert.fail("the extension host was not killed (run with scripts/run-host-tests.mjs --kill-on-request)");
    });
  } else {
    it("is rolled back at the next start, with a notice; no file half-written, untouched files keep their mtimes", async () => {
      const record = JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(recordFile()))) as Record;
      const checkpoints = api.checkpoints!;
      assert.match(checkpoints.recoveryNotice ?? "", /interrupted by a reload or crash and has been undone.*\(1 put back/);
      assert.ok(
        api.logLines.some((l) => /checkpoints: interrupted restore rolledBack: cp-kill\/one\.txt$/.test(l)),
        api.logLines.filter((l) => l.includes("checkpoints")).join("\n"),
      );
      assert.equal(read("one.txt"), "one by pi\n", "put back as Pi left it");
      assert.equal(read("two.txt"), "two by pi\n");
      assert.equal(read("three.txt"), "three by pi\n");
      assert.equal(existsSync(checkpoints.checkpoints.storage.pendingPath), false);
      assert.deepEqual(
        untouched.map((p) => statSync(p).mtimeMs),
        untouched.map((p) => record.mtimes[p]),
        "files the restore did not reach, or Pi never touched, keep their modification times",
      );
      // The journal has no trace of the cut-off restore: the same restore can run again, whole.
      const journal = await checkpoints.checkpoints.storage.journal(record.chatId);
      assert.equal(
        journal.some((e) => e.t === "restored"),
        false,
      );
      const mark = journal.find((e) => e.t === "mark");
      assert.ok(mark && mark.t === "mark");
      const outcome = await checkpoints.checkpoints.restore(record.chatId, mark.id);
      assert.equal(outcome?.restored.length, 3);
      assert.deepEqual(
        ["one", "two", "three"].map((n) => read(`${n}.txt`)),
        ["one before\n", "two before\n", "three before\n"],
      );
      rmSync(dir, { recursive: true, force: true });
    });
  }
});
