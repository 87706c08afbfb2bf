import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { ChatContext } from "../../../src/core/context/chat-context";
import { DEFAULT_COMPACTION_SETTINGS } from "../../../src/core/context/compaction";
import { contextMeter, fixedParts, type RunExtras } from "../../../src/core/context/meter";
import { estimateMessageTokens } from "../../../src/core/context/tokens";
import { assistant, user } from "./messages";

// What every request carries besides the conversation: the system prompt and the tool
// declarations (Pi Chat's and the MCP servers'). The meter's details show them, and the
// compaction budget keeps room for them (issue 27: "count the tokens the tool declarations take").

const readFile = { name: "read_file", description: "Read a file of the workspace.", parameters: { type: "object", properties: { path: { type: "string" } } } };
const runCommand = {
  name: "run_command",
  description: "Run a shell command after the user approves it.",
  parameters: { type: "object", properties: { command: { type: "string" } } },
};
const prompt = "You are Pi, a coding assistant in VS Code. ".repeat(20);

function declarationTokens(tools: readonly { name: string; description: string; parameters: unknown }[]): number {
  const chars = tools.reduce((n, t) => n + t.name.length + t.description.length + JSON.stringify(t.parameters).length, 0);
  return Math.ceil(chars / 4);
}

const systemWithTools: AgentMessage = { role: "system", content: prompt, toolsAdded: [readFile, runCommand], timestamp: 0 } as AgentMessage;

describe("the meter's fixed parts (system prompt and tool declarations)", () => {
  it("splits the system messages into instructions and tool declarations, counting the tools", () => {
    const path: AgentMessage[] = [systemWithTools, user("hello"), assistant("hi")];
    const fixed = fixedParts(path);
    assert.equal(fixed.tools, declarationTokens([readFile, runCommand]));
    assert.equal(fixed.toolCount, 2);
    assert.equal(fixed.instructions + fixed.tools, estimateMessageTokens(systemWithTools));
    assert.ok(fixed.instructions >= Math.ceil(prompt.length / 4), "the prompt's text is counted as instructions");
    assert.equal(fixed.mcpToolCount, 0);
  });

  it("follows later system messages that add and remove tools", () => {
    const removal = { role: "system", content: "", toolsRemoved: [{ name: "run_command" }], timestamp: 1 } as AgentMessage;
    assert.equal(fixedParts([systemWithTools, user("a"), removal]).toolCount, 1);
  });

  it("adds a run's MCP tools and servers' section, and the meter shows them", () => {
    const extras: RunExtras = { mcpTools: Array.from({ length: 12 }, (_, i) => ({ name: `mcp__s__t${i}`, tokens: 425 })), mcpPromptTokens: 300 };
    const meter = contextMeter([systemWithTools, user("hello")], { contextWindow: 200_000 }, undefined, undefined, undefined, extras);
    assert.ok(meter.fixed);
    assert.equal(meter.fixed.mcpTools, 5_100);
    assert.equal(meter.fixed.mcpToolCount, 12);
    assert.equal(meter.fixed.instructions, fixedParts([systemWithTools]).instructions + 300);
  });

  it("a chat with no system message and no run has no fixed parts to show", () => {
    assert.equal(contextMeter([user("hello")]).fixed, undefined);
  });

  it("the compaction budget keeps room for the MCP tools of the run", () => {
    let extras: RunExtras | undefined;
    const context = new ChatContext({
      chatId: "c",
      messages: () => [systemWithTools, user("hello")],
      append: async () => {},
      emit: () => {},
      settings: () => DEFAULT_COMPACTION_SETTINGS,
      runExtras: () => extras,
    });
    const model = { contextWindow: 100_000, maxTokens: 8_000 };
    const without = context.budget(model);
    extras = { mcpTools: Array.from({ length: 40 }, (_, i) => ({ name: `mcp__s__t${i}`, tokens: 225 })), mcpPromptTokens: 1_000 };
    const withMcp = context.budget(model);
    assert.ok(without && withMcp);
    assert.equal(without.maxKeptTokens - withMcp.maxKeptTokens, 10_000);
    assert.equal(context.meter().fixed?.mcpToolCount, 40);
  });
});

describe("the meter's fixed parts after a run with MCP tools", () => {
  it("counts each MCP tool once, whether or not the agent declared it in a system message", async () => {
    const { chatWorld } = await import("../../support/chat-world");
    const { createScriptedModel, reply } = await import("../../support/scripted-model");
    const { num, obj } = await import("@earendil-works/pi-schema");
    const model = createScriptedModel();
    const lookup = {
      name: "mcp__tracker__lookup",
      label: "lookup",
      description: "Look up an issue in the tracker by its number.",
      parameters: obj({ issue: num() }),
      execute: async () => ({ content: [{ type: "text" as const, text: "ok" }], details: undefined }),
    };
    const world = chatWorld({
      resolveModel: async () => model.binding,
      mcp: {
        forRun: async () => ({ tools: [lookup], servers: [{ name: "tracker", tools: [lookup.name], summary: "", brief: "", instructions: "" }], notes: [] }),
        describe: () => undefined,
        allowed: { has: () => false, add: async () => {} },
        approver: async () => ({ decision: "allow" }),
      },
    });
    model.push(reply.text("ok"));
    const session = world.service.newChat();
    await session.prompt("hello");
    // The agent declared the MCP tool in a system message of its own (pi-agent-core's tool changes).
    const declaredInTranscript = session.messages.flatMap((m) => (m.role === "system" ? (m.toolsAdded ?? []).map((t) => t.name) : []));
    assert.ok(declaredInTranscript.includes("mcp__tracker__lookup"), declaredInTranscript.join(", "));
    const fixed = session.viewState.meter?.fixed;
    const builtIn = declaredInTranscript.filter((name) => !name.startsWith("mcp__"));
    assert.deepEqual(
      { toolCount: fixed?.toolCount, mcpToolCount: fixed?.mcpToolCount, mcpTools: fixed?.mcpTools },
      { toolCount: builtIn.length, mcpToolCount: 1, mcpTools: declarationTokens([lookup]) },
    );
  });
});
