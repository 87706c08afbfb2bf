// propose_plan: the model ends its planning with a plan document (Markdown: goal, steps, files,
// risks). The run stops there (`terminate`): the user reads the plan on its card, may edit it in
// an editor, and approves it (Approve and act: act mode, and the approved text is the model's next
// message) or writes what to change. Only plan mode offers it; it changes nothing.
import type { AgentTool, AgentToolResult } from "@earendil-works/pi-agent-core";
import { obj, str, type Static } from "@earendil-works/pi-schema";
import { PROPOSE_PLAN_TOOL } from "../../shared/plans";

export const MAX_PLAN_CHARS = 20_000;

export const proposePlanParameters = obj({
  plan: str({
    minLength: 1,
    maxLength: MAX_PLAN_CHARS,
    description: "The plan in Markdown: ## Goal, ## Steps (numbered), ## Files (each file and what changes), ## Risks.",
  }),
});

export type ProposePlanParams = Static<typeof proposePlanParameters>;

export interface ProposePlanDetails {
  plan: string;
}

export function createProposePlanTool(): AgentTool<typeof proposePlanParameters, ProposePlanDetails> {
  return {
    name: PROPOSE_PLAN_TOOL,
    label: "Propose plan",
    description:
      "In plan mode, when you have read enough: propose the plan the user approves before anything changes. " +
      "Markdown with ## Goal, ## Steps (numbered), ## Files, ## Risks. Your turn ends with it: the user approves it " +
      "(you then get the approved text, perhaps edited, in act mode) or tells you what to change.",
    parameters: proposePlanParameters,
    async execute(_toolCallId, params): Promise<AgentToolResult<ProposePlanDetails>> {
      return {
        content: [{ type: "text", text: "The plan is shown to the user, who approves it or says what to change. Wait for the user." }],
        details: { plan: params.plan },
        terminate: true,
      };
    },
  };
}
