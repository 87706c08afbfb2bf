// An edit allowed in part, after the fact: the saved notice brings "hunk 2 rejected" back on a
// restored card, the model's fact for later turns names the hunk not written, and the live card
// follows the host's record only while the edit waits.
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { appMessageFact } from "../../../src/core/context/app-message-facts";
import type { ApprovalNoticeMessage } from "../../../src/shared/app-messages";
import { chatItems, emptyChatState, reduce, stateFromTranscript } from "../../../src/shared/reducer";

const notice: ApprovalNoticeMessage = {
  role: "approvalNotice",
  toolCallId: "c1",
  toolName: "edit_file",
  decision: "allowed",
  path: "src/a.ts",
  diff: "@@ -1,1 +1,1 @@\n-a\n+b\n@@ -9,1 +9,1 @@\n-c\n+d\n",
  reason: "keep c",
  rejectedHunks: [1],
  timestamp: 1,
};

const messages: AgentMessage[] = [
  { role: "user", content: "Change it.", timestamp: 0 },
  {
    role: "assistant",
    content: [{ type: "toolCall", id: "c1", name: "edit_file", arguments: { path: "src/a.ts" } }],
    api: "openai-completions",
    provider: "x",
    model: "m",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "toolUse",
    timestamp: 0,
  },
  { role: "toolResult", toolCallId: "c1", toolName: "edit_file", content: [{ type: "text", text: "Edited src/a.ts." }], isError: false, timestamp: 1 },
  notice,
];

describe("an edit allowed in part, after the decision", () => {
  it("a restored card shows the hunks the saved notice rejected", () => {
    const card = chatItems(stateFromTranscript(messages)).find((i) => i.kind === "tool" && i.id === "c1");
    assert.ok(card?.kind === "tool");
    assert.equal(card.approval?.state, "allowed");
    assert.deepEqual(card.approval?.rejectedHunks, [1]);
  });

  it("the model's fact names the hunk not written and the reason", () => {
    assert.equal(
      appMessageFact(notice),
      '[The user allowed only part of the edit_file call c1 on src/a.ts: hunk 2 of the proposed diff rejected and not written. The user\'s reason: "keep c".]',
    );
    const { rejectedHunks: _none, ...whole } = notice;
    assert.equal(appMessageFact(whole), "[The user allowed the edit_file call c1 on src/a.ts.]");
  });

  it("the host's record reaches a waiting card only", () => {
    let state = reduce(emptyChatState, { type: "tool/start", toolCallId: "c2", toolName: "edit_file", args: { path: "src/a.ts" } });
    state = reduce(state, { type: "approval/request", toolCallId: "c2", toolName: "edit_file", path: "src/a.ts" });
    state = reduce(state, { type: "approval/hunks", toolCallId: "c2", rejectedHunks: [0] });
    const waiting = chatItems(state).find((i) => i.kind === "tool" && i.id === "c2");
    assert.deepEqual(waiting?.kind === "tool" ? waiting.approval?.rejectedHunks : undefined, [0]);
    state = reduce(state, { type: "approval/decided", toolCallId: "c2", decision: "denied" });
    state = reduce(state, { type: "approval/hunks", toolCallId: "c2", rejectedHunks: [1] });
    const decided = chatItems(state).find((i) => i.kind === "tool" && i.id === "c2");
    assert.deepEqual(decided?.kind === "tool" ? decided.approval?.rejectedHunks : undefined, [0], "a late record does not change a decided card");
  });
});
