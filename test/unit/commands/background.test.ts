// Background commands with real processes (the child-process path): the start waits for the
// readiness line (or a few seconds, or the end), the model reads newer output by id, stop ends
// the process and the grandchild it started (pids checked), and a whole chat: start, read,
// deleting the chat ends it, and a reopened chat says its background command is not running.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { ChatService } from "../../../src/core/chat-service";
import { BackgroundCommands, backgroundRunState, unendedBackgroundStarts } from "../../../src/core/shell/background";
import { NodeCommandRunner } from "../../../src/core/shell/node-runner";
import { createCommandOutputTool } from "../../../src/core/tools/command-output";
import { isRunning } from "../../../src/core/shell/process-tree";
import { createNodeWorkspaceFs } from "../../../src/core/tools";
import { createNodeTranscriptStorage, TranscriptStore } from "../../../src/core/transcript";
import { chatItems } from "../../../src/shared/reducer";
import { createScriptedModel, reply } from "../../support/scripted-model";
import { tempDir } from "../../support/temp";
import { waitFor } from "../../support/wait-for";

const SERVER =
  "echo pid:$$; sleep 300 & echo grandchild:$!; echo starting; sleep 0.3; echo 'Server listening on port 4321'; i=0; while true; do i=$((i+1)); echo tick-$i; sleep 0.05; done";

function pidsIn(text: string): number[] {
  return [...text.matchAll(/(?:pid|grandchild):(\d+)/g)].map((m) => Number(m[1]));
}

describe("background commands", function () {
  this.timeout(30_000);
  const runner = new NodeCommandRunner();
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  after(() => runner.dispose());

  function registry() {
    const ws = tempDir("bg");
    const background = new BackgroundCommands();
    cleanups.push(async () => {
      await background.stopAll("vscodeClosed");
      ws.cleanup();
    });
    return { background, ws: ws.path };
  }

  it("returns once the readiness line is printed, keeps running, gives only newer output per read, and stop ends the tree", async () => {
    const { background, ws } = registry();
    const started = await background.start({
      id: "call_srv",
      command: SERVER,
      cwd: ".",
      absoluteCwd: ws,
      runner,
      readyPattern: /listening on port/i,
      waitMs: 20_000,
    });
    assert.equal(started.ready, "pattern");
    assert.equal(started.readyLine, "Server listening on port 4321");
    assert.match(started.output.text, /starting/);
    const pids = pidsIn(started.output.text);
    assert.equal(pids.length, 2, started.output.text);
    for (const pid of pids) assert.ok(isRunning(pid), `pid ${pid} runs`);
    assert.deepEqual(
      background.running.map((p) => p.id),
      ["call_srv"],
    );

    // Read until a tick came (the server prints them as it runs), twice.
    const readTicks = async () => {
      let text = "";
      await waitFor("a tick", () => {
        text += background.read("call_srv")!.text;
        return /tick-\d+/.test(text);
      });
      return { text, ticks: [...text.matchAll(/tick-(\d+)/g)].map((m) => Number(m[1])) };
    };
    const first = await readTicks();
    const second = await readTicks();
    assert.ok(second.ticks[0]! > first.ticks[first.ticks.length - 1]!, "the second read starts after the first");
    assert.doesNotMatch(second.text, /starting/);

    const stopped = await background.stop("call_srv", "pi");
    assert.deepEqual(stopped?.status, { state: "stopped", by: "pi" });
    for (const pid of pids) assert.ok(!isRunning(pid), `pid ${pid} is gone after stop`);
    assert.deepEqual(background.running, []);
  });

  it("without a readiness line returns after the wait; a command that ends at once says so; an unknown id is undefined", async () => {
    const { background, ws } = registry();
    const waited = await background.start({ id: "w", command: "echo hello; sleep 300", cwd: ".", absoluteCwd: ws, runner, waitMs: 300 });
    assert.equal(waited.ready, "waited");
    assert.equal(waited.output.text, "hello");
    const ended = await background.start({ id: "e", command: "echo bye; exit 4", cwd: ".", absoluteCwd: ws, runner, readyPattern: /never/, waitMs: 10_000 });
    assert.equal(ended.ready, "ended");
    assert.deepEqual(ended.process.status, { state: "exited", exitCode: 4 });
    assert.equal(background.read("nope"), undefined);
  });

  it("in a chat: run_command starts it after the approval, command_output reads it; deleting the chat ends what still runs; a reopened chat says once that it is not running", async () => {
    const model = createScriptedModel();
    const ws = tempDir("bg-ws");
    const storage = tempDir("bg-storage");
    const open = () =>
      new ChatService({
        store: new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storage.path), { indexFlushDelayMs: 0 }),
        fs: createNodeWorkspaceFs(ws.path),
        workspaceRoot: ws.path,
        resolveModel: async () => model.binding,
        approver: async () => ({ decision: "allow" }),
        approvalMode: () => "ask",
        commands: {
          runner: () => runner,
          enabled: () => true,
          rules: { list: () => [], add: async () => undefined },
          approver: async () => ({ decision: "allow" }),
          defaultTimeoutSeconds: () => 30,
          logRoot: join(storage.path, "command-output"),
        },
      });
    const service = open();
    cleanups.push(async () => {
      await service.dispose();
      ws.cleanup();
      storage.cleanup();
    });
    const session = service.newChat();
    model.push(
      reply.tool("run_command", { command: SERVER, background: true, readyPattern: "listening on port \\d+" }, "call_dev"),
      reply.tool("command_output", { id: "call_dev" }, "call_read"),
      reply.text("It is up."),
    );
    await session.prompt("Start the dev server.");
    const results = session.messages.filter((m) => m.role === "toolResult");
    const startText = JSON.stringify(results[0]);
    assert.match(startText, /Started in the background with id call_dev/);
    assert.match(startText, /It printed a line matching \/listening on port \\\\d\+\/ after [\d.]+ s: Server listening on port 4321/);
    assert.match(JSON.stringify(results[1]), /call_dev \(.*\) is still running/);
    const pids = pidsIn(startText);
    assert.equal(pids.length, 2);
    for (const pid of pids) assert.ok(isRunning(pid));

    // The transcript holds the start: a reopened chat (another service, as after a restart) says it is not running, once.
    const reopened = await open().open(session.id);
    assert.ok(reopened.ok);
    const notices = chatItems(reopened.session.viewState).filter((i) => i.kind === "notice");
    assert.equal(notices.length, 1);
    assert.match(notices[0]!.kind === "notice" ? notices[0]!.text : "", /^Background command call_dev \(.*\) is not running any more/);
    // Its card says so too: no Stop for a process that is gone.
    const card = chatItems(reopened.session.viewState).find((i) => i.kind === "tool" && i.id === "call_dev");
    assert.deepEqual(card?.kind === "tool" ? card.background : undefined, { state: "gone" });
    // While the first window's chat is open, its card shows it running.
    const live = chatItems(session.viewState).find((i) => i.kind === "tool" && i.id === "call_dev");
    assert.deepEqual(live?.kind === "tool" ? live.background : undefined, { state: "running" });
    const file = join(storage.path, "chats", `${session.id}.jsonl`);
    await waitFor("the notice to be saved", () => readFileSync(file, "utf8").includes("Background command call_dev"));
    const again = await open().open(session.id);
    assert.ok(again.ok);
    assert.equal(chatItems(again.session.viewState).filter((i) => i.kind === "notice").length, 1, "the notice is not repeated");

    await service.deleteChat(session.id);
    await waitFor("the processes to end", () => pids.every((pid) => !isRunning(pid)));
    await waitFor("the card to say why it ended", () => {
      const card = chatItems(session.viewState).find((i) => i.kind === "tool" && i.id === "call_dev");
      return card?.kind === "tool" && card.background?.state === "stopped" && card.background.by === "chatDeleted";
    });
  });

  it("command_output with stop: true ends the process and says so; an id not running says why", async () => {
    const { background, ws } = registry();
    const tool = createCommandOutputTool(background);
    const started = await background.start({ id: "call_w", command: SERVER, cwd: ".", absoluteCwd: ws, runner, readyPattern: /listening/, waitMs: 20_000 });
    const pids = pidsIn(started.output.text);
    const result = await tool.execute("t1", { id: "call_w", stop: true });
    const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
    assert.match(text, /^call_w \(.*\) is stopped by Pi\./);
    assert.equal(result.details.state, "stopped");
    assert.equal(result.details.stoppedBy, "pi");
    for (const pid of pids) assert.ok(!isRunning(pid), `pid ${pid} is gone`);
    const unknown = await tool.execute("t2", { id: "call_old" });
    assert.equal(unknown.isError, true);
    assert.match(
      unknown.content.map((c) => (c.type === "text" ? c.text : "")).join(""),
      /No background command with id call_old runs in this chat\. Background commands end when the user stops them, leaves or deletes the chat, or VS Code closes/,
    );
  });

  it("tells onEnd once per process, after the whole tree is gone: an exit with its code, a stop with its cause", async () => {
    const ws = tempDir("bg-end");
    const ends: { id: string; state: unknown; alive: boolean[] }[] = [];
    let pids: number[] = [];
    const background = new BackgroundCommands({
      onEnd: (p) => ends.push({ id: p.id, state: backgroundRunState(p), alive: pids.map((pid) => isRunning(pid)) }),
    });
    cleanups.push(async () => {
      await background.stopAll("vscodeClosed");
      ws.cleanup();
    });
    const started = await background.start({ id: "srv", command: SERVER, cwd: ".", absoluteCwd: ws.path, runner, readyPattern: /listening/, waitMs: 20_000 });
    pids = pidsIn(started.output.text);
    assert.equal(pids.length, 2);
    await background.start({ id: "quick", command: "sleep 0.2; exit 7", cwd: ".", absoluteCwd: ws.path, runner, waitMs: 50 });
    await waitFor("the quick one to end", () => ends.some((e) => e.id === "quick"));
    assert.equal(ends.length, 1, "the server still runs");
    await background.stop("srv", "user");
    await waitFor("the server's end", () => ends.length === 2);
    // stopAll resolves once every end was told: a second end would be here now.
    await background.stopAll("vscodeClosed");
    assert.equal(ends.length, 2, "a process ends once");
    const quick = ends.find((e) => e.id === "quick")!.state as { state: string; exitCode: number; durationMs: number };
    assert.equal(quick.state, "exited");
    assert.equal(quick.exitCode, 7);
    assert.ok(quick.durationMs >= 150, `duration ${quick.durationMs}`);
    const srv = ends.find((e) => e.id === "srv")!;
    assert.equal((srv.state as { state: string; by: string }).by, "user");
    assert.equal((srv.state as { state: string }).state, "stopped");
    assert.deepEqual(srv.alive, [false, false], "told once the shell and its grandchild are gone");
  });

  it("finds the background starts a transcript never saw end", () => {
    const start = (id: string, ready = "pattern") => ({
      role: "toolResult",
      toolName: "run_command",
      details: { command: `cmd ${id}`, background: { id, ready } },
    });
    assert.deepEqual(
      unendedBackgroundStarts([
        start("a"),
        start("b"),
        start("c", "ended"),
        start("d"),
        { role: "toolResult", toolName: "command_output", details: { id: "b", state: "stopped" } },
        { role: "toolResult", toolName: "command_output", details: { id: "a", state: "running" } },
        { role: "localNotice", text: "Background command d (cmd d) is not running any more" },
        start("e"),
        { role: "localNotice", text: "anything", backgroundId: "e" },
      ]),
      [{ id: "a", command: "cmd a" }],
    );
  });
});
