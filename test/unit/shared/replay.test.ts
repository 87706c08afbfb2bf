// Restoring a chat builds its items in one mutable pass (stateFromTranscript); it must give
// exactly what folding the reducer over the same messages gives (replayWithReducer), whatever
// the transcript holds: tool calls and results, approvals, attachments, notices, summaries.
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { generateTranscript } from "../../../bench/lib/data";
import { chatItems, stateFromTranscript } from "../../../src/shared/reducer";
import { assistant, call, conversation, result, summaryMessage, system, user } from "../context/messages";
import { replayWithReducer } from "../../support/replay";

describe("restore: the one-pass replay equals the reducer's fold", () => {
  it("on seeded realistic transcripts of several sizes", () => {
    for (const [size, seed] of [
      [1, 1],
      [10, 2],
      [257, 3],
      [2_000, 4],
    ] as const) {
      const transcript = generateTranscript(size, seed);
      assert.deepEqual(stateFromTranscript(transcript), replayWithReducer(transcript), `${size} messages, seed ${seed}`);
    }
  });

  it("with approvals, attachments, notices and compaction summaries (summarized items marked)", () => {
    const path: AgentMessage[] = [
      ...conversation(5, 40),
      { role: "fileAttachment", path: "src/a.ts", range: { startLine: 1, endLine: 3 }, timestamp: 4 },
      user("about this file"),
      call("e1", "edit_file", { path: "src/a.ts", oldText: "a", newText: "b" }),
      { role: "approvalNotice", toolCallId: "e1", toolName: "edit_file", decision: "denied", reason: "no", path: "src/a.ts", diff: "-a\n+b", timestamp: 5 },
      result("e1", "edit_file", "The user denied this edit", true),
      { role: "localNotice", level: "error", text: "Rate limited", fix: "wait", timestamp: 6 },
      summaryMessage({ keptMessageCount: 6, summarizedMessageCount: 20 }),
      user("next"),
      assistant("answer"),
      summaryMessage({ keptMessageCount: 2, summarizedMessageCount: 30 }),
      user("after"),
    ];
    const fast = stateFromTranscript(path);
    assert.deepEqual(fast, replayWithReducer(path));
    assert.ok(
      chatItems(fast).some((i) => i.summarized),
      "some items are marked",
    );
    assert.equal(chatItems(fast).filter((i) => i.kind === "summary").length, 2);
    assert.deepEqual(stateFromTranscript([system]), replayWithReducer([system]));
    assert.deepEqual(stateFromTranscript([]), replayWithReducer([]));
  });

  it("finds a card wherever it is: an approval after a user turn settled it, a result without a call, a call id used twice", () => {
    const path: AgentMessage[] = [
      system,
      user("edit it"),
      call("e1", "edit_file", { path: "a.ts", oldText: "a", newText: "b" }),
      result("e1", "edit_file", "Applied"),
      user("meanwhile"),
      // The notice arrives after the card was settled by the user turn: the settled card gets it.
      { role: "approvalNotice", toolCallId: "e1", toolName: "edit_file", decision: "allowed", path: "a.ts", diff: "-a\n+b", timestamp: 7 },
      result("orphan", "read_file", "no call before me"),
      { role: "approvalNotice", toolCallId: "nowhere", toolName: "run_command", decision: "denied", command: "rm -rf /", cwd: ".", timestamp: 8 },
      call("dup", "read_file", { path: "b.ts" }),
      call("dup", "read_file", { path: "b.ts" }),
      result("dup", "read_file", "twice", true),
      assistant("done"),
    ];
    const fast = stateFromTranscript(path);
    assert.deepEqual(fast, replayWithReducer(path));
    const edit = chatItems(fast).find((i) => i.kind === "tool" && i.id === "e1");
    assert.equal(edit?.kind === "tool" ? edit.approval?.state : undefined, "allowed", "the settled card carries the decision");
    // Restoring twice from the same messages gives the same items: nothing was written into them.
    assert.deepEqual(stateFromTranscript(path), fast);
  });
});
