// A command card's facts and outcome line, checked in Node: webview/cards/command-facts.ts has no
// DOM, so what the card says about untrusted tool details is tested here; drawing it is the
// browser suite's (test/browser/command-card.test.ts).
import assert from "node:assert/strict";
import type { ToolItem } from "../../../src/shared/chat-items";
import { outcome, readFacts } from "../../../webview/cards/command-facts";

const tool = (over: Partial<ToolItem>): ToolItem => ({
  kind: "tool",
  id: "call-1",
  name: "run_command",
  args: { command: "npm test" },
  status: "success",
  ...over,
});

describe("command card facts", () => {
  it("reads the command, folder and end from the tool's details, ignoring shapes it does not know", () => {
    const facts = readFacts(
      { command: "ls", cwd: "" },
      { command: "npm test", cwd: "app", via: "elsewhere", end: "exited", exitCode: "0", durationMs: 1500, logFile: "/tmp/x.log" },
      "junk",
    );
    assert.deepEqual(facts, { command: "npm test", cwd: "app", end: "exited", durationMs: 1500, logFile: true });
  });

  it("keeps the last 50 lines of the live tail, strings only", () => {
    const tail = [...Array.from({ length: 60 }, (_, i) => `line ${i}`), 7];
    const facts = readFacts({}, undefined, { progress: { tail, elapsedMs: 900 } });
    assert.equal(facts.tail?.length, 50);
    assert.equal(facts.tail?.[49], "line 59");
    assert.equal(facts.elapsedMs, 900);
  });

  it("says how a run ended, with its time, in the tone of its exit code", () => {
    const item = tool({ details: { end: "exited", exitCode: 1, durationMs: 2500 } });
    assert.deepEqual(outcome(item, readFacts(item.args, item.details, item.progress)), { text: "Exit code 1 · 2.5 s", tone: "bad" });
    const ok = tool({ details: { end: "exited", exitCode: 0, durationMs: 400 } });
    assert.deepEqual(outcome(ok, readFacts(ok.args, ok.details, ok.progress)), { text: "Exit code 0 · 400 ms", tone: "ok" });
  });

  it("a call refused before it ran is 'Not run'; one waiting for the user says so", () => {
    const refused = tool({ status: "error", details: {} });
    assert.deepEqual(outcome(refused, readFacts(refused.args, refused.details, undefined)), { text: "Not run", tone: "bad" });
    const asking = tool({
      status: "running",
      approval: { kind: "approval", id: "approval:call-1", toolCallId: "call-1", toolName: "run_command", state: "pending" },
    });
    assert.deepEqual(outcome(asking, readFacts(asking.args, asking.details, undefined)), { text: "Waiting for your approval", tone: "muted" });
  });
});
