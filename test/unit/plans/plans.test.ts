// Plans as data: which proposed plan the chat may approve (the newest, answered by nothing since),
// what the model reads of an approval (the approved text, edited or not), and that propose_plan
// ends the run.
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ToolResultMessage } from "@earendil-works/pi-ai";
import { convertToLlm } from "../../../src/core/context-policy";
import { createProposePlanTool } from "../../../src/core/plans/propose-plan-tool";
import { approvablePlan } from "../../../src/shared/plans";

const PLAN = "## Goal\nFix the parser.\n\n## Steps\n1. Write the test\n2. Fix it";

function proposed(id: string, plan = PLAN, isError = false): ToolResultMessage {
  return { role: "toolResult", toolCallId: id, toolName: "propose_plan", content: [{ type: "text", text: "shown" }], details: { plan }, isError, timestamp: 1 };
}

describe("plans", () => {
  it("the plan the chat may approve is the newest proposed, with only notices after it", () => {
    assert.deepEqual(approvablePlan([proposed("p1")]), { toolCallId: "p1", plan: PLAN });
    assert.deepEqual(approvablePlan([proposed("p1"), { role: "localNotice", level: "info", text: "x", timestamp: 2 }]), { toolCallId: "p1", plan: PLAN });
    assert.equal(approvablePlan([proposed("p1"), { role: "user", content: "change step 2", timestamp: 2 }]), undefined, "answered by a prompt");
    assert.equal(approvablePlan([proposed("p1", PLAN, true)]), undefined, "a failed call proposed nothing");
    assert.equal(approvablePlan([proposed("p1", "   ")]), undefined, "an empty plan");
    assert.equal(approvablePlan([]), undefined);
  });

  it("the model reads the approved plan; an edited one as the user's text to follow", () => {
    const [asProposed] = convertToLlm([{ role: "planApproved", toolCallId: "p1", plan: PLAN, edited: false, timestamp: 3 } as AgentMessage]);
    assert.match(String(asProposed?.content), /^\[The user approved the plan as you proposed it\. The chat is in act mode/);
    assert.ok(String(asProposed?.content).endsWith(`<plan>\n${PLAN}\n</plan>`));
    const [edited] = convertToLlm([{ role: "planApproved", toolCallId: "p1", plan: "## Goal\nOnly the test.", edited: true, timestamp: 3 } as AgentMessage]);
    assert.match(String(edited?.content), /approved the plan after editing it: follow the text below, not the plan as you proposed it/);
    assert.match(String(edited?.content), /<plan>\n## Goal\nOnly the test\.\n<\/plan>/);
  });

  it("propose_plan ends the run and keeps the plan for the card", async () => {
    const result = await createProposePlanTool().execute("p1", { plan: PLAN });
    assert.equal(result.terminate, true);
    assert.equal(result.details.plan, PLAN);
  });
});
