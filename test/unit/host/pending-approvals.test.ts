// The one wait behind every approval card (edits, commands, MCP tools): an answer settles it once,
// a stale click finds nothing, a run's abort cancels it, and closing answers what still waits.
import assert from "node:assert/strict";
import { PendingApprovals } from "../../../src/host/approvals/pending-approvals";

interface Request {
  toolCallId: string;
  what: string;
}

describe("approvals: PendingApprovals", () => {
  it("settles a waiting approval once; a second click on the same card finds nothing", async () => {
    const approvals = new PendingApprovals<Request, string>();
    const answer = approvals.wait({ toolCallId: "t1", what: "edit" }, undefined);
    assert.deepEqual(approvals.get("t1"), { toolCallId: "t1", what: "edit" });
    assert.equal(
      approvals.settle("t1", (r) => `allow ${r.what}`),
      true,
    );
    assert.equal(await answer, "allow edit");
    assert.equal(
      approvals.settle("t1", () => "deny"),
      false,
    );
    assert.equal(approvals.get("t1"), undefined);
  });

  it("an abort cancels the wait (rejects, runs the cancel hook) and a late answer does nothing", async () => {
    const approvals = new PendingApprovals<Request, string>();
    const stop = new AbortController();
    let cancelled = 0;
    const answer = approvals.wait({ toolCallId: "t2", what: "command" }, stop.signal, () => cancelled++);
    stop.abort();
    await assert.rejects(answer, /aborted/);
    assert.equal(cancelled, 1);
    assert.equal(
      approvals.settle("t2", () => "allow"),
      false,
    );
  });

  it("an already aborted run is refused at once and nothing waits", async () => {
    const approvals = new PendingApprovals<Request, string>();
    const stop = new AbortController();
    stop.abort();
    await assert.rejects(approvals.wait({ toolCallId: "t3", what: "mcp" }, stop.signal), /aborted/);
    assert.deepEqual(approvals.requests, []);
  });

  it("settleAll answers every approval still waiting", async () => {
    const approvals = new PendingApprovals<Request, string>();
    const a = approvals.wait({ toolCallId: "a", what: "x" }, undefined);
    const b = approvals.wait({ toolCallId: "b", what: "y" }, undefined);
    assert.equal(approvals.requests.length, 2);
    approvals.settleAll("deny: closing");
    assert.deepEqual(await Promise.all([a, b]), ["deny: closing", "deny: closing"]);
    assert.deepEqual(approvals.requests, []);
  });
});
