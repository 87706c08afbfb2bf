import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import {
  applyCompaction,
  contextBudget,
  DEFAULT_COMPACTION_SETTINGS,
  fileOperations,
  planCompaction,
  type CompactionPlan,
} from "../../../src/core/context/compaction";
import { estimateMessageTokens } from "../../../src/core/context/tokens";
import { deepFreeze } from "../../support/freeze";
import { assistant, call, conversation, result, summaryMessage, system, text, user } from "./messages";

function plan(path: readonly AgentMessage[], keepRecentTokens: number, maxKeptTokens = 1_000_000): CompactionPlan {
  const planned = planCompaction(path, { keepRecentTokens, maxKeptTokens });
  assert.ok(planned.ok, planned.ok ? "" : planned.reason);
  return planned.plan;
}

/** Every tool call and its result are on the same side of the cut. */
function assertCallsKeepTheirResults(path: readonly AgentMessage[], cut: number): void {
  const side = new Map<string, boolean>();
  path.forEach((m, i) => {
    if (m.role === "assistant") for (const c of m.content) if (c.type === "toolCall") side.set(c.id, i >= cut);
  });
  path.forEach((m, i) => {
    if (m.role === "toolResult") assert.equal(side.get(m.toolCallId), i >= cut, `result of ${m.toolCallId} at ${i} is cut from its call (cut ${cut})`);
  });
  assert.notEqual(path[cut]?.role, "toolResult");
}

describe("compaction: cut points", () => {
  it("never separates a tool call from its result, for any keep size", () => {
    // Turns with several tool calls each, of uneven sizes.
    const path: AgentMessage[] = [system];
    for (let t = 0; t < 12; t++) {
      path.push(user(`turn ${t} ${text(20 + t * 7)}`));
      for (let c = 0; c < (t % 3) + 1; c++) {
        const id = `c${t}-${c}`;
        path.push(call(id, "read_file", { path: `f${t}${c}.ts` }), result(id, "read_file", text(40 + ((t * 13 + c * 29) % 90))));
      }
      path.push(assistant(text(30)));
    }
    deepFreeze(path);
    for (let keep = 10; keep < 3_000; keep += 37) {
      for (const maxKept of [keep * 1.2, keep * 3, 1_000_000]) {
        const planned = planCompaction(path, { keepRecentTokens: keep, maxKeptTokens: maxKept });
        if (!planned.ok) continue;
        assertCallsKeepTheirResults(path, path.length - planned.plan.keptMessageCount);
      }
    }
  });

  it("keeps at least keepRecentTokens verbatim and cuts where a turn starts", () => {
    const path = deepFreeze(conversation(20, 200));
    for (const keep of [150, 500, 1_234, 2_000]) {
      const p = plan(path, keep);
      const cut = path.length - p.keptMessageCount;
      const kept = path.slice(cut).reduce((n, m) => n + estimateMessageTokens(m), 0);
      assert.ok(kept >= keep, `kept ${kept} < ${keep}`);
      assert.equal(p.keptTokens, kept);
      assert.equal(path[cut]!.role, "user");
      assert.equal(p.splitTurn, false);
      // The cut is the latest turn start that still keeps enough: one turn later would keep too little.
      const nextTurn = path.findIndex((m, i) => i > cut && m.role === "user");
      if (nextTurn !== -1) assert.ok(path.slice(nextTurn).reduce((n, m) => n + estimateMessageTokens(m), 0) < keep);
      assert.equal(p.toSummarize.length, cut - 1, "everything before the cut but the system prompt is summarized");
      assert.ok(p.toSummarize.every((m) => m.role !== "system"));
    }
  });

  it("a turn bigger than the keep limit is split at an assistant message: its beginning summarized, its end kept", () => {
    const path: AgentMessage[] = [...conversation(2, 100), user("refactor everything")];
    for (let i = 0; i < 10; i++) path.push(call(`big${i}`, "read_file", { path: `big${i}.ts` }), result(`big${i}`, "read_file", text(300)));
    path.push(assistant("done"));
    deepFreeze(path);
    const p = plan(path, 800, 1_200);
    const cut = path.length - p.keptMessageCount;
    assert.equal(p.splitTurn, true);
    assert.equal(path[cut]!.role, "assistant");
    assert.ok(p.keptTokens >= 800 && p.keptTokens <= 1_200, `kept ${p.keptTokens}`);
    assert.ok(
      p.toSummarize.some((m) => m.role === "user" && JSON.stringify(m).includes("refactor everything")),
      "the turn's request is summarized",
    );
    assertCallsKeepTheirResults(path, cut);
  });

  it("says why there is nothing to compact", () => {
    assert.equal(planCompaction([system], { keepRecentTokens: 10, maxKeptTokens: 100 }).ok, false);
    const small = conversation(1, 40);
    const planned = planCompaction(small, { keepRecentTokens: 10_000, maxKeptTokens: 20_000 });
    assert.equal(planned.ok, false);
    assert.match(planned.ok ? "" : planned.reason, /keepRecentTokens/);
  });
});

describe("compaction: the model's view of a path", () => {
  it("system prompt, the summary, the kept messages verbatim, then what came after; older summaries left out", () => {
    const path = conversation(6, 100);
    const first = summaryMessage({ keptMessageCount: 8, summary: "first" });
    path.push(first, user("after first"), assistant("a"));
    // The second compaction keeps 5 messages before it (three of them came after the first summary).
    const second = summaryMessage({ keptMessageCount: 5, summary: "second" });
    path.push(second, user("after second"));
    deepFreeze(path);
    const view = applyCompaction(path);
    const k = path.indexOf(second);
    const expected = [system, second, ...path.slice(k - 5, k).filter((m) => m.role !== "compactionSummary"), path[k + 1]!];
    assert.deepEqual(view.messages, expected);
    assert.ok(!view.messages.includes(first));
    assert.equal(view.summarized, k - 5 - 1, "every message before the kept part but the system prompt");
  });

  it("a later compaction updates the previous summary: it covers the previous kept part and carries its files", () => {
    const path = conversation(8, 120);
    const first = summaryMessage({
      keptMessageCount: 12,
      summary: "PREVIOUS",
      readFiles: ["old/read.ts"],
      modifiedFiles: ["old/changed.ts"],
      summarizedMessageCount: 20,
    });
    path.push(first);
    path.push(...conversation(4, 120, "n").slice(1));
    deepFreeze(path);
    const p = plan(path, 400);
    assert.equal(p.previous, first);
    const firstKept = path.indexOf(first) - 12;
    // Summarized: the previous summary's kept messages and what followed, up to the new cut.
    assert.equal(p.toSummarize[0], path[firstKept]);
    assert.ok(!p.toSummarize.includes(first));
    assert.ok(p.readFiles.includes("old/read.ts") && p.modifiedFiles.includes("old/changed.ts"));
    assert.equal(p.summarizedMessageCount, 20 + p.toSummarize.length);
  });

  it("files come from the tool calls: a read, an edit that was applied, an edit that was denied", () => {
    const path: AgentMessage[] = [
      system,
      user("go"),
      call("r1", "read_file", { path: "src/a.ts" }),
      result("r1", "read_file", "a"),
      call("e1", "edit_file", { path: "src/b.ts", oldText: "x", newText: "y" }),
      result("e1", "edit_file", "Edited src/b.ts"),
      call("e2", "edit_file", { path: "src/denied.ts", oldText: "x", newText: "y" }),
      result("e2", "edit_file", "The user denied this edit", true),
      call("r2", "read_file", { path: "src/b.ts" }),
      result("r2", "read_file", "b"),
    ];
    assert.deepEqual(fileOperations(path, path), { readFiles: ["src/a.ts"], modifiedFiles: ["src/b.ts"] });
  });
});

describe("compaction: the budget", () => {
  it("a request at the threshold always fits its own answer, for small and large windows", () => {
    for (const window of [4_096, 8_000, 32_000, 128_000, 200_000, 1_000_000]) {
      for (const maxOutput of [1_024, 8_192, 64_000, 128_000]) {
        const b = contextBudget(window, maxOutput, DEFAULT_COMPACTION_SETTINGS, 600);
        assert.ok(b.threshold + b.maxOutputTokens < window, `${window}/${maxOutput}: ${b.threshold} + ${b.maxOutputTokens}`);
        assert.ok(b.keepRecentTokens <= b.maxKeptTokens);
        assert.ok(b.maxKeptTokens + b.summaryMaxTokens + 600 < b.threshold, "a compacted context fits under the threshold");
      }
    }
  });
});
