// Processes that try to outlive their run, on the child-process path (NodeCommandRunner): a
// double fork into a new session (re-parented to init, out of the group), a child that ignores
// SIGTERM, both at once, and a server started that way. After each kind of stop (Stop, time-out,
// a background command's stop and its chat's stopAll, the runner's dispose when VS Code closes,
// and a command that simply finished) none of them runs: checked by pid, and by the run's tag.
import assert from "node:assert/strict";
import { BackgroundCommands } from "../../../src/core/shell/background";
import { NodeCommandRunner } from "../../../src/core/shell/node-runner";
import { runCommandOnce } from "../../../src/core/shell/run";
import { escapees, ESCAPING_RUN, leftOf } from "../../support/escaping-run";
import { tempDir } from "../../support/temp";

describe("commands: processes that try to outlive their run (child-process path)", function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  const runner = new NodeCommandRunner();
  const started: { pids: number[]; tag: string }[] = [];
  beforeEach(() => {
    dir = tempDir("escape");
  });
  afterEach(async () => {
    // A failing test must not leave its sleepers to the next ones.
    for (const run of started.splice(0)) for (const pid of leftOf(run)) process.kill(pid, "SIGKILL");
    dir.cleanup();
  });

  /** Runs the escaping command until all four have printed, then `stop`s it; what is left. */
  async function runThenStop(stop: (controller: AbortController) => void, timeoutMs = 30_000) {
    const controller = new AbortController();
    let run: { pids: number[]; tag: string } | undefined;
    const result = await runCommandOnce({
      runner,
      command: ESCAPING_RUN,
      cwd: dir.path,
      timeoutMs,
      signal: controller.signal,
      onProgress: (p) => {
        if (run) return;
        run = escapees(p.tail.join("\n"));
        if (run) {
          started.push(run);
          stop(controller);
        }
      },
    });
    run ??= escapees(result.output.text);
    assert.ok(run, result.output.text);
    return { result, left: leftOf(run) };
  }

  it("Stop ends them all", async () => {
    const { result, left } = await runThenStop((c) => c.abort());
    assert.equal(result.end, "stopped");
    assert.deepEqual(left, [], "processes left after Stop");
  });

  it("the time-out ends them all", async () => {
    // Long enough for the four to start on a loaded machine; the run never ends by itself.
    const { result, left } = await runThenStop(() => undefined, 4000);
    assert.equal(result.end, "timeout");
    assert.deepEqual(left, [], "processes left after the time-out");
  });

  it("a background command's Stop, and its chat's stopAll, end them all", async () => {
    for (const stop of ["one", "all"] as const) {
      const background = new BackgroundCommands();
      const id = `bg-${stop}`;
      const begun = await background.start({ id, command: ESCAPING_RUN, cwd: ".", absoluteCwd: dir.path, runner, readyPattern: /^tag=/, waitMs: 20_000 });
      assert.equal(begun.ready, "pattern");
      const run = escapees(begun.output.text);
      assert.ok(run, begun.output.text);
      started.push(run);
      if (stop === "one") await background.stop(id, "user");
      else await background.stopAll("chatDeleted");
      assert.deepEqual(leftOf(run), [], `processes left after ${stop === "one" ? "stop" : "stopAll"}`);
    }
  });

  it("dispose (VS Code closing) kills them at once, without the grace, and waits until they are gone", async () => {
    // A grace far longer than the test may run: had dispose waited it, the test would time out (no clock read).
    const own = new NodeCommandRunner({ killGraceMs: 10 * 60_000 });
    let text = "";
    const handle = await own.start({ command: ESCAPING_RUN, cwd: dir.path, onOutput: (chunk) => (text += Buffer.from(chunk).toString()) });
    for (let i = 0; i < 200 && !escapees(text); i++) await new Promise((r) => setTimeout(r, 50));
    const run = escapees(text);
    assert.ok(run, text);
    started.push(run);
    await own.dispose();
    assert.deepEqual(leftOf(run), [], "processes left after dispose");
    await handle.exited;
  });

  it("a command that finished leaves nothing running, not even what left its group and parent", async () => {
    const result = await runCommandOnce({ runner, command: ESCAPING_RUN.replace(/\nwait$/, ""), cwd: dir.path, timeoutMs: 30_000 });
    assert.equal(result.end, "exited");
    const run = escapees(result.output.text);
    assert.ok(run, result.output.text);
    started.push(run);
    // The stubborn child gets SIGKILL after the short leftover grace.
    for (let i = 0; i < 60 && leftOf(run).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(leftOf(run), [], "processes left after the command finished");
  });
});
