// Processes that try to outlive their run, on the child-process path (NodeCommandRunner): a
// double fork into a new session (re-parented to init, out of the group), a child that ignores
// SIGTERM, both at once, and a server started that way. After each kind of stop (Stop, time-out,
// a background command's stop and its chat's stopAll, the runner's dispose when VS Code closes,
// and a command that simply finished) none of them runs: checked by pid, and by the run's tag.
import assert from "node:assert/strict";
import { BackgroundCommands } from "../../../src/core/commands/background";
import { NodeCommandRunner } from "../../../src/core/commands/node-runner";
import { isRunning, KILL_GRACE_MS, taggedProcesses } from "../../../src/core/commands/process-tree";
import { runCommandOnce } from "../../../src/core/commands/run";
import { tempDir } from "../../support/temp";

const node = JSON.stringify(process.execPath);
/** An HTTP server that leaves its pid in server.pid once it listens. */
const SERVER = `require("http").createServer().listen(0, "127.0.0.1", () => require("fs").writeFileSync("server.pid", String(process.pid)))`;
/** Each prints `name=<pid>`; the shell prints its tag once all did, then waits for its direct child. */
export const ESCAPING_RUN = [
  // setsid plus a double fork: another session, its parent gone (re-parented to init)
  `( setsid sh -c 'echo orphan=$$; exec sleep 300' & )`,
  // a child that ignores SIGTERM (ignored signals stay ignored across exec)
  `sh -c 'trap "" TERM; echo stubborn=$$; exec sleep 301' &`,
  // both: out of the group and the tree, and deaf to SIGTERM
  `( setsid sh -c 'trap "" TERM; echo ghost=$$; exec sleep 302' & )`,
  // a server, double-forked into its own session
  `( setsid ${node} -e '${SERVER}' & )`,
  // the tag last, once the server listens: every pid is printed before it
  `until [ -s server.pid ]; do sleep 0.05; done; echo "server=$(cat server.pid)"`,
  `echo "tag=$PI_CHAT_RUN_TAG"`,
  "wait",
].join("\n");
const NAMES = ["orphan", "stubborn", "ghost", "server"];

/** The pids and tag the run printed, once all are there. */
export function escapees(text: string): { pids: number[]; tag: string } | undefined {
  const pids = NAMES.map((name) => Number(new RegExp(`${name}=(\\d+)`).exec(text)?.[1]));
  // (Empty where runs are not tagged: the pids are checked all the same.)
  const tag = /tag=([0-9a-f]*)/.exec(text)?.[1];
  return pids.every((pid) => pid > 0) && tag !== undefined ? { pids, tag } : undefined;
}

/** Processes of the run still running: by pid and by tag (0 is the goal). */
export function leftOf(run: { pids: number[]; tag: string }): number[] {
  return [...new Set([...run.pids, ...(run.tag ? taggedProcesses(run.tag) : [])])].filter(isRunning);
}

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
    const own = new NodeCommandRunner();
    let text = "";
    const handle = await own.start({ command: ESCAPING_RUN, cwd: dir.path, onOutput: (chunk) => (text += Buffer.from(chunk).toString()) });
    for (let i = 0; i < 200 && !escapees(text); i++) await new Promise((r) => setTimeout(r, 50));
    const run = escapees(text);
    assert.ok(run, text);
    started.push(run);
    const before = Date.now();
    await own.dispose();
    const took = Date.now() - before;
    assert.deepEqual(leftOf(run), [], "processes left after dispose");
    assert.ok(took < KILL_GRACE_MS, `${took} ms: killed at once, not after the ${KILL_GRACE_MS} ms grace`);
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
