// The MCP approval rule, as a table: a call runs without its card only when the user chose
// "Always allow <server>/<tool>" in this workspace. The approval mode, "allow edits for this chat"
// and the server's own annotations (readOnlyHint) change nothing. Then the gate around the rule.
import assert from "node:assert/strict";
import type { ApprovalMode } from "../../../src/core/permissions/edit-decision";
import type { ApprovalNoticeMessage } from "../../../src/core/messages";
import type { ChatEvent } from "../../../src/shared/protocol";
import {
  cardArguments,
  decideMcpCall,
  gateMcpCall,
  MCP_CARD_VALUE_CHARS,
  type McpCallDecision,
  type McpGateDeps,
  type McpToolFacts,
} from "../../../src/core/mcp/gate";

// The rule, written out: (tool available, user always-allowed it) → what happens.
const RULE: { available: boolean; alwaysAllowed: boolean; action: "refuse" | "ask" | "run" }[] = [
  { available: false, alwaysAllowed: false, action: "refuse" },
  { available: false, alwaysAllowed: true, action: "refuse" },
  { available: true, alwaysAllowed: false, action: "ask" },
  { available: true, alwaysAllowed: true, action: "run" },
];
const MODES: ApprovalMode[] = ["ask", "auto"];
const ANNOTATIONS = [
  undefined,
  { readOnlyHint: true },
  { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  { readOnlyHint: false, destructiveHint: true },
];

describe("MCP approval rule (table)", () => {
  for (const row of RULE)
    for (const approvalMode of MODES)
      for (const editsAllowedForChat of [false, true])
        for (const annotations of ANNOTATIONS)
          it(`available=${row.available} alwaysAllowed=${row.alwaysAllowed} mode=${approvalMode} editsForChat=${editsAllowedForChat} annotations=${JSON.stringify(annotations)} → ${row.action}`, () => {
            assert.deepEqual(decideMcpCall({ available: row.available, alwaysAllowed: row.alwaysAllowed, approvalMode, editsAllowedForChat, annotations }), {
              action: row.action,
            });
          });
});

describe("MCP gate", () => {
  const TOOLS: Record<string, McpToolFacts> = {
    mcp__everything__echo: { server: "everything", identity: "id-everything", tool: "echo", annotations: { readOnlyHint: true, title: "Echo" } },
    "mcp__everything__get-sum": { server: "everything", identity: "id-everything", tool: "get-sum" },
    mcp__other__echo: { server: "other", identity: "id-other", tool: "echo" },
    mcp__everything__off: { server: "everything", identity: "id-everything", tool: "off", disabled: true },
  };

  function world(answers: McpCallDecision[]) {
    const events: ChatEvent[] = [];
    const notices: ApprovalNoticeMessage[] = [];
    const allowed = new Set<string>();
    let asked = 0;
    const deps: McpGateDeps = {
      chatId: "c1",
      describe: (name) => TOOLS[name],
      allowed: { has: (f) => allowed.has(`${f.identity}/${f.tool}`), add: async (f) => void allowed.add(`${f.identity}/${f.tool}`) },
      approver: async () => {
        asked++;
        const next = answers.shift();
        if (!next) throw new Error("no answer scripted");
        return next;
      },
      approvalMode: () => "auto",
      editsAllowedForChat: () => true,
      emit: (e) => events.push(e),
      record: (n) => notices.push(n),
    };
    return { deps, events, notices, allowed, asked: () => asked };
  }

  it("asks on one card with server, tool, pretty arguments and the annotations (auto mode and readOnlyHint notwithstanding)", async () => {
    const w = world([{ decision: "allow" }]);
    const result = await gateMcpCall("call1", "mcp__everything__echo", { message: "hi" }, w.deps, undefined);
    assert.equal(result, undefined, "allowed: it runs");
    const request = w.events.find((e) => e.type === "approval/request");
    assert.deepEqual(request, {
      type: "approval/request",
      toolCallId: "call1",
      toolName: "mcp__everything__echo",
      mcp: { server: "everything", tool: "echo", arguments: '{\n  "message": "hi"\n}', annotations: ["readOnlyHint: true"] },
    });
    assert.equal(w.notices[0]?.decision, "allowed");
    assert.deepEqual(w.notices[0]?.mcp, { server: "everything", tool: "echo" });
  });

  it("Deny blocks the call and tells the model the user's reason", async () => {
    const w = world([{ decision: "deny", reason: "not now" }]);
    const result = await gateMcpCall("call2", "mcp__everything__echo", {}, w.deps, undefined);
    assert.deepEqual(result, { block: true, reason: 'The user denied this MCP call: "not now". Nothing ran.' });
    assert.equal(w.notices[0]?.reason, "not now");
  });

  it("Always allow skips the next card for that server/tool only", async () => {
    const w = world([{ decision: "allowAlways" }, { decision: "allow" }, { decision: "allow" }]);
    assert.equal(await gateMcpCall("a1", "mcp__everything__echo", {}, w.deps, undefined), undefined);
    assert.deepEqual([...w.allowed], ["id-everything/echo"], "kept under the identity, not the name");
    assert.equal(await gateMcpCall("a2", "mcp__everything__echo", {}, w.deps, undefined), undefined);
    assert.equal(w.asked(), 1, "the second echo did not ask");
    assert.equal(w.notices[1]?.rule, "everything/echo");
    await gateMcpCall("a3", "mcp__everything__get-sum", {}, w.deps, undefined);
    await gateMcpCall("a4", "mcp__other__echo", {}, w.deps, undefined);
    assert.equal(w.asked(), 3, "another tool of the server, and the same tool of another server, ask");
  });

  it("refuses unknown and disabled tools without asking; a stop before the decision cancels the card", async () => {
    const w = world([]);
    assert.equal((await gateMcpCall("u", "mcp__gone__x", {}, w.deps, undefined))?.block, true);
    assert.equal((await gateMcpCall("d", "mcp__everything__off", {}, w.deps, undefined))?.block, true);
    assert.equal(w.asked(), 0);
    const cancelled = await gateMcpCall("c", "mcp__everything__echo", {}, w.deps, undefined);
    assert.match(cancelled?.reason ?? "", /cancelled before the user decided/);
    assert.ok(w.events.some((e) => e.type === "approval/cancelled" && e.toolCallId === "c"));
  });

  it("folds long values on the card", () => {
    const text = cardArguments({ content: "x".repeat(MCP_CARD_VALUE_CHARS + 100), n: 1 });
    assert.match(text, new RegExp(`… \\(${MCP_CARD_VALUE_CHARS + 100} characters\\)`));
    assert.ok(text.length < MCP_CARD_VALUE_CHARS + 100);
  });
});
