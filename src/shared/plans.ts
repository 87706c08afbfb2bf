// Plans as data, for the core, the host and the view: the tool's name, the plan a call proposed
// (from its tool result's details), and which plan the chat may still approve.
import type { AgentMessage } from "@earendil-works/pi-agent-core";

export const PROPOSE_PLAN_TOOL = "propose_plan";

/** The plan text a propose_plan result carries, if it is one. */
export function planOf(details: unknown): string | undefined {
  const plan = (details as { plan?: unknown } | undefined)?.plan;
  return typeof plan === "string" && plan.trim() !== "" ? plan : undefined;
}

/**
 * The newest proposed plan on the path that nothing came after but notices: the one the user may
 * approve now. A plan the user answered (a prompt, an approval, another run) is history.
 */
export function approvablePlan(messages: readonly AgentMessage[]): { toolCallId: string; plan: string } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "localNotice" || m.role === "approvalNotice") continue;
    if (m.role === "toolResult" && m.toolName === PROPOSE_PLAN_TOOL && !m.isError) {
      const plan = planOf(m.details);
      return plan === undefined ? undefined : { toolCallId: m.toolCallId, plan };
    }
    // The assistant message that made the call comes before its result: anything else after it ends the offer.
    return undefined;
  }
  return undefined;
}
