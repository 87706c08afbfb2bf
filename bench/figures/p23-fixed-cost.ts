// P23 fixed cost: what the first request of a new chat declares before the user's words (system
// prompt and tool declarations, as the replayed system message a provider sends), normal and in
// lean mode (piChat.leanMode "on"), with commands allowed (run_command offered) and no MCP server.
// Tokens are the meter's estimate (~4 characters a token: no tokenizer is installed). The real
// session and agent; pi-ai's faux provider records the request.
import { getCurrentSystemMessage } from "@earendil-works/pi-ai";
import { estimateLlmMessageTokens } from "../../src/core/context/tokens";
import type { LeanModeSetting } from "../../src/core/context/lean-mode";
import { chatWorld } from "../../test/support/chat-world";
import { createScriptedModel, reply } from "../../test/support/scripted-model";

export interface P23Result {
  normal: { tokens: number; tools: string[] };
  lean: { tokens: number; tools: string[] };
  goal: { normal: number; lean: number };
}

async function firstRequest(leanMode: LeanModeSetting): Promise<{ tokens: number; tools: string[] }> {
  const model = createScriptedModel();
  const world = chatWorld({
    resolveModel: async () => model.binding,
    leanMode: () => leanMode,
    commands: {
      runner: () => {
        throw new Error("no command runs in P23");
      },
      enabled: () => true,
      rules: { list: () => [], add: async () => undefined },
      approver: async () => ({ decision: "deny" }),
      defaultTimeoutSeconds: () => 30,
    },
  });
  try {
    model.push(reply.text("ok"));
    await world.service.newChat().prompt("hello");
    const system = getCurrentSystemMessage(model.requests[0] ?? []);
    return { tokens: system ? estimateLlmMessageTokens(system) : 0, tools: (system?.toolsAdded ?? []).map((t) => t.name) };
  } finally {
    await world.cleanup();
  }
}

export async function runP23(log: (line: string) => void): Promise<P23Result> {
  const normal = await firstRequest("off");
  const lean = await firstRequest("on");
  log(`P23: normal ${normal.tokens} tokens (${normal.tools.join(", ")}); lean ${lean.tokens} tokens (${lean.tools.join(", ")})`);
  return { normal, lean, goal: { normal: 3_000, lean: 1_200 } };
}
