// The meter's running totals kept per message (MeterCache): the figures must be the ones a
// fresh count of the whole path gives, whatever paths were measured before — the next message,
// a path cut back for an edit, another branch sharing a prefix, a compaction on one branch.
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { contextMeter, MeterCache } from "../../../src/core/context/meter";
import { assistant, summaryMessage, system, usage, user } from "./messages";

const model = { contextWindow: 200_000, cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } };

function turn(n: number, cost = 0.01): AgentMessage[] {
  return [user(`question ${n}`), assistant(`answer ${n}`, usage(1_000 * n, 100 + n, cost))];
}

describe("context meter: running totals per message", () => {
  it("equals a fresh count on every path it is asked about, in any order", () => {
    const trunk: AgentMessage[] = [system, ...turn(1), ...turn(2), ...turn(3)];
    const branchA = [...trunk, ...turn(4), ...turn(5)];
    const branchB = [
      ...trunk.slice(0, 3),
      ...turn(20, 0.5),
      summaryMessage({ keptMessageCount: 2, tokensAfter: 900, usage: { input: 50, output: 20, cacheRead: 0, cacheWrite: 0, cost: 0.002 } }),
      ...turn(21),
    ];
    const cache = new MeterCache();
    const asked = [trunk, branchA, branchA.slice(0, 6), branchB, branchA, trunk.slice(0, 2), branchB.slice(0, 6), branchB];
    for (const path of asked) {
      assert.deepStrictEqual(contextMeter(path, model, 150_000, undefined, cache), contextMeter(path, model, 150_000), `${path.length} messages`);
    }
    const onB = contextMeter(branchB, model, 150_000, undefined, cache);
    assert.equal(onB.reduced?.kind, "compacted", "the summary of branch B is seen on B");
    assert.equal(contextMeter(branchA, model, 150_000, undefined, cache).reduced, undefined, "and not on A");
  });
});
