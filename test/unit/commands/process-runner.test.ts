// Real processes in temporary folders, through the child-process path (NodeCommandRunner):
// exit codes, floods, terminal noise, stdin, non-UTF-8, and Stop / time-out ending the whole
// tree (checked by pid). Runs on the "process" path; the terminal path is tested in test/host.
import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { MODEL_OUTPUT_MAX_BYTES, MODEL_OUTPUT_MAX_LINES } from "../../../src/core/shell/output";
import { NodeCommandRunner } from "../../../src/core/shell/node-runner";
import { isRunning } from "../../../src/core/shell/process-tree";
import { resultTextForModel, runCommandOnce, type RunCommandOnceOptions } from "../../../src/core/shell/run";
import { SecretRedactor } from "../../../src/core/redaction";
import { tempDir } from "../../support/temp";

describe("commands: the child-process runner", function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  const runner = new NodeCommandRunner();
  beforeEach(() => {
    dir = tempDir("cmd");
  });
  afterEach(() => dir.cleanup());

  const run = (command: string, extra: Partial<RunCommandOnceOptions> = {}) => runCommandOnce({ runner, command, cwd: dir.path, timeoutMs: 30_000, ...extra });

  it("returns exit codes and runs in the given folder", async () => {
    const ok = await run("pwd");
    assert.equal(ok.end, "exited");
    assert.equal(ok.exitCode, 0);
    assert.equal(ok.via, "process");
    assert.equal(ok.output.text.trim(), dir.path);
    const failed = await run("echo oops >&2; exit 3");
    assert.equal(failed.exitCode, 3);
    assert.equal(failed.output.text, "oops");
    assert.match(resultTextForModel("x", failed), /Exit code 3/);
  });

  it("keeps 10 MB of output to the model's cap, with head, tail and what was cut; the log has all of it", async () => {
    const log = join(dir.path, "out.log");
    // 100,000 numbered lines of 100 bytes = 10 MB.
    const result = await run(`seq -f 'line %06g ${"x".repeat(87)}' 1 100000`, { logFile: log });
    assert.equal(result.exitCode, 0);
    const o = result.output;
    assert.equal(o.totalLines, 100_000);
    assert.equal(o.totalBytes, 10_000_000);
    const text = resultTextForModel("seq", result);
    assert.ok(Buffer.byteLength(text) <= MODEL_OUTPUT_MAX_BYTES + 1024, `model text is ${Buffer.byteLength(text)} bytes`);
    assert.ok(text.split("\n").length <= MODEL_OUTPUT_MAX_LINES + 5);
    assert.match(o.text, /^line 000001 /, "the head is kept");
    assert.match(o.text, /line 100000 x+$/, "the tail is kept");
    assert.match(o.text, /lines \(\d+\.\d MB\) cut here/);
    assert.ok(o.cutLines > 90_000);
    assert.equal(o.logFile, log);
    assert.equal(statSync(log).size, 10_000_000);
  });

  it("removes ANSI codes and keeps the last rewrite of a \\r progress line", async () => {
    const result = await run(
      String.raw`printf '\033[1;31mred\033[0m and \033]0;title\007plain\n'; printf 'get 10%%\rget 50%%\rget 100%%\n'; printf 'no newline\rfinal'`,
    );
    assert.deepEqual(result.output.text.split("\n"), ["red and plain", "get 100%", "final"]);
  });

  it("closes standard input: a command that reads it ends instead of waiting", async () => {
    const result = await run(`read -r line; echo "read returned $? with '$line'"; cat; echo done`);
    assert.equal(result.end, "exited");
    assert.equal(result.exitCode, 0);
    assert.match(result.output.text, /read returned 1 with ''\ndone/);
  });

  it("sets a non-interactive environment", async () => {
    const result = await run(`echo "$CI $GIT_TERMINAL_PROMPT $PAGER"`);
    assert.equal(result.output.text, "1 0 cat");
  });

  it("says when output is not UTF-8, without failing", async () => {
    const result = await run(String.raw`printf 'caf\351 \377\n'`);
    assert.equal(result.exitCode, 0);
    assert.equal(result.output.invalidUtf8, true);
    assert.equal(result.output.text, "caf\uFFFD \uFFFD");
    assert.match(resultTextForModel("x", result), /not valid UTF-8/);
  });

  it("redacts the key in use from the output and the log", async () => {
    const log = join(dir.path, "k.log");
    const keys = new SecretRedactor();
    keys.add("sk-test-SECRET1234");
    const result = await run("echo token=sk-test-SECRET1234 end", { logFile: log, redact: keys });
    assert.equal(result.output.text, "token=[redacted] end");
    assert.doesNotMatch(readFileSync(log, "utf8"), /SECRET/);
  });

  /** A command whose child starts a grandchild (one in another session too); returns their pids once printed. */
  const TREE = `bash -c 'sleep 300 & echo "grandchild=$!"; setsid sleep 301 & echo "detached=$!"; wait' & echo "child=$!"; wait`;
  function pidsIn(text: string): number[] {
    return [...text.matchAll(/(?:grandchild|detached|child)=(\d+)/g)].map((m) => Number(m[1]));
  }

  it("Stop ends the whole process tree and reports the output so far", async () => {
    const controller = new AbortController();
    let seen: number[] = [];
    const result = await run(TREE, {
      signal: controller.signal,
      onProgress: (p) => {
        seen = pidsIn(p.tail.join("\n"));
        if (seen.length === 3) controller.abort();
      },
    });
    assert.equal(result.end, "stopped");
    const pids = pidsIn(result.output.text);
    assert.equal(pids.length, 3, result.output.text);
    for (const pid of pids) assert.equal(isRunning(pid), false, `pid ${pid} still runs after Stop: ${describePid(pid)}`);
    assert.match(resultTextForModel("x", result), /^\$ x\nStopped by the user after \d/);
  });

  it("a time-out ends the whole process tree and says so", async () => {
    const result = await run(TREE, { timeoutMs: 1500 });
    assert.equal(result.end, "timeout");
    const pids = pidsIn(result.output.text);
    assert.equal(pids.length, 3, result.output.text);
    for (const pid of pids) assert.equal(isRunning(pid), false, `pid ${pid} still runs after the time-out: ${describePid(pid)}`);
    assert.match(resultTextForModel("x", result), /Timed out after 1\.\d s/);
  });

  it("a command that finishes leaves nothing running behind it", async () => {
    const result = await run(`sleep 300 & echo "child=$!"`);
    assert.equal(result.exitCode, 0);
    const [pid] = pidsIn(result.output.text);
    assert.ok(pid);
    for (let i = 0; i < 40 && isRunning(pid); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(isRunning(pid), false, "the background child of a finished command was left running");
  });
});

function describePid(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return "(no /proc entry)";
  }
}
