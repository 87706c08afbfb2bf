// P16 MCP overhead, in tokens: what every request declares (system prompt, the MCP servers'
// section and the tool declarations, as the replayed system message a provider sends) with three
// stdio MCP servers configured and warm (server-everything, server-filesystem, server-everything
// again: 44 tools) ÷ with none. MCP tools are on demand (mcp/tool-search.ts): the scripted model
// searches, loads and calls one tool of each server, so the figure shows the first request and the
// one after three loads (and what the three tool_search results, which carry the servers' full
// instructions, add to the transcript once); "before" is the same chat with every MCP tool declared
// (piChat.mcp.toolsOnDemand "never"). Tokens are the meter's estimate (~4 characters a token: no
// tokenizer is installed). Beside it, time: prompt → provider request, with ÷ without, in ms added.
// Real servers over stdio through McpServers, the real session and agent; pi-ai's faux provider.
import { join } from "node:path";
import { getCurrentSystemMessage, type Message } from "@earendil-works/pi-ai";
import { estimateLlmMessageTokens, estimateToolDeclarationTokens, tokensOfText } from "../../src/core/context/tokens";
import type { McpServerDefinition } from "../../src/core/mcp/config";
import { MCP_SERVERS_SECTION, type McpChatTools } from "../../src/core/mcp/gate";
import { McpServers } from "../../src/core/mcp/servers";
import type { McpOnDemandSetting } from "../../src/core/mcp/tool-search";
import { chatWorld } from "../../test/support/chat-world";
import { createScriptedModel, reply, type ScriptStep } from "../../test/support/scripted-model";
import { summarize, type Summary } from "../lib/stats";

export interface P16Result {
  /** Declared tokens of the first request with the servers ÷ without (on demand). */
  tokenRatio: number;
  /** The same after the model loaded one tool of each server. */
  tokenRatioAfterLoads: number;
  /** Before on demand: every MCP tool declared. */
  tokenRatioAllDeclared: number;
  tokens: { without: number; first: number; afterLoads: number; allDeclared: number };
  /** Of the first request on demand: the MCP servers' section (instructions and the listing) and tool_search's declaration. */
  parts: { section: number; toolSearch: number };
  /** The tool_search results on the path after the loads: what they add to the transcript once (each tool's line, the servers' instructions). */
  searchResultTokens: number;
  /** Every call of the three loaded tools ran (no "tool not found"). */
  callsRan: number;
  msAdded: Summary;
  withServers: Summary;
  without: Summary;
  tools: number;
  runs: number;
  goal: number;
  msGoal: number;
}

function stdio(name: string, args: string[]): McpServerDefinition {
  return { name, scope: "user", file: "bench", enabled: true, transport: { type: "stdio", command: process.execPath, args, env: {} } };
}

/** Tokens a request declares: the system message a provider is sent (prompt, sections, current tools). */
function declaredTokens(messages: readonly Message[]): number {
  const system = getCurrentSystemMessage(messages);
  return system ? estimateLlmMessageTokens(system) : 0;
}

/** Where the first request's MCP tokens go: the servers' section (names, instructions, the listing) and tool_search. */
function mcpParts(messages: readonly Message[]): { section: number; toolSearch: number } {
  const system = getCurrentSystemMessage(messages);
  const section = system?.sections?.[MCP_SERVERS_SECTION] ?? "";
  const search = system?.toolsAdded?.find((t) => t.name === "tool_search");
  return { section: tokensOfText(section ?? ""), toolSearch: search ? estimateToolDeclarationTokens([search]) : 0 };
}

/** ms from prompt() to the provider request, once per new chat. */
async function measure(mcp: McpChatTools | undefined, runs: number): Promise<number[]> {
  const model = createScriptedModel();
  let sentAt = 0;
  const inner = model.binding.streamFn;
  const streamFn: typeof inner = (...args) => {
    sentAt ||= performance.now();
    return inner(...args);
  };
  const binding = { ...model.binding, streamFn };
  const world = chatWorld({ resolveModel: async () => binding, ...(mcp ? { mcp } : {}) });
  const out: number[] = [];
  try {
    for (let i = 0; i < runs + 1; i++) {
      model.push(reply.text("ok"));
      const session = world.service.newChat();
      sentAt = 0;
      const start = performance.now();
      await session.prompt(`prompt ${i}`);
      if (i > 0) out.push(sentAt - start); // the first is a warm-up (bundles, JIT)
    }
  } finally {
    await world.cleanup();
  }
  return out;
}

/** One chat in which the model searches, loads and calls one tool of each server; each request's declared tokens. */
async function scriptedUse(
  mcp: McpChatTools | undefined,
  onDemand: McpOnDemandSetting,
): Promise<{ tokens: number[]; callsRan: number; searchResultTokens: number; parts: { section: number; toolSearch: number } }> {
  const model = createScriptedModel();
  const world = chatWorld({ resolveModel: async () => model.binding, mcpOnDemand: () => onDemand, ...(mcp ? { mcp } : {}) });
  const tokens: number[] = [];
  let parts = { section: 0, toolSearch: 0 };
  const step =
    (next: ScriptStep): ScriptStep =>
    (messages) => {
      if (tokens.length === 0) parts = mcpParts(messages);
      tokens.push(declaredTokens(messages));
      return next(messages);
    };
  const uses: [string, Record<string, unknown>][] = [
    ["mcp__everything__echo", { message: "hi" }],
    ["mcp__fs__list_allowed_directories", {}],
    ["mcp__everything2__get_sum", { a: 1, b: 2 }],
  ];
  try {
    if (mcp) {
      for (const [name, args] of uses) {
        if (onDemand !== "never") model.push(step(reply.tool("tool_search", { query: name, limit: 1 })));
        model.push(step(reply.tool(name, args as never)));
      }
    }
    model.push(step(reply.text("done")));
    const session = world.service.newChat();
    await session.prompt("Use one tool of each server.");
    const callsRan = session.messages.filter((m) => m.role === "toolResult" && m.toolName.startsWith("mcp__") && !m.isError).length;
    const searchResultTokens = session.messages.reduce(
      (sum, m) => sum + (m.role === "toolResult" && m.toolName === "tool_search" ? estimateLlmMessageTokens(m) : 0),
      0,
    );
    return { tokens, callsRan, searchResultTokens, parts };
  } finally {
    await world.cleanup();
  }
}

export async function runP16(repoRoot: string, log: (line: string) => void, runs: number): Promise<P16Result> {
  const everything = join(repoRoot, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
  const filesystem = join(repoRoot, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
  const servers = new McpServers({
    clientInfo: { name: "pi-chat-bench", version: "0" },
    prepare: async (def) => ({ transport: def.transport }),
    isServerDisabled: () => false,
    isToolDisabled: () => false,
    acceptsImages: () => false,
    log: () => {},
    onChange: () => {},
  });
  servers.setDefinitions([stdio("everything", [everything, "stdio"]), stdio("fs", [filesystem, repoRoot]), stdio("everything2", [everything, "stdio"])]);
  await servers.ensureStarted(60_000);
  const mcp: McpChatTools = {
    forRun: async () => {
      await servers.ensureStarted(5000);
      return { tools: servers.tools(60).tools, servers: servers.words(), notes: [] };
    },
    describe: (name) => servers.describe(name),
    allowed: { has: () => false, add: async () => {} },
    approver: async () => ({ decision: "allow" }),
  };
  try {
    const none = await scriptedUse(undefined, "auto");
    const onDemand = await scriptedUse(mcp, "auto");
    const allDeclared = await scriptedUse(mcp, "never");
    const without = none.tokens[0]!;
    const first = onDemand.tokens[0]!;
    const afterLoads = onDemand.tokens.at(-1)!;
    log(`P16 tokens: ${without} without; on demand ${onDemand.tokens.join(" → ")}; all declared ${allDeclared.tokens[0]}`);
    log(`P16 first request on demand: MCP section ${onDemand.parts.section} tokens, tool_search ${onDemand.parts.toolSearch} tokens`);
    log(`P16 after the loads: the three tool_search results hold ${onDemand.searchResultTokens} tokens of the transcript (once, not per request)`);
    const withoutMs: number[] = [];
    const withMs: number[] = [];
    const added: number[] = [];
    // Alternating sides, so a slow moment of the machine falls on both.
    for (let round = 0; round < 3; round++) {
      const a = await measure(undefined, runs);
      const b = await measure(mcp, runs);
      withoutMs.push(...a);
      withMs.push(...b);
      added.push(summarize(b).median - summarize(a).median);
      log(`P16 round ${round + 1}: ${summarize(b).median.toFixed(2)} ms with, ${summarize(a).median.toFixed(2)} ms without`);
    }
    return {
      tokenRatio: first / without,
      tokenRatioAfterLoads: afterLoads / without,
      tokenRatioAllDeclared: allDeclared.tokens[0]! / without,
      tokens: { without, first, afterLoads, allDeclared: allDeclared.tokens[0]! },
      parts: onDemand.parts,
      searchResultTokens: onDemand.searchResultTokens,
      callsRan: onDemand.callsRan,
      msAdded: summarize(added),
      withServers: summarize(withMs),
      without: summarize(withoutMs),
      tools: servers.tools(1000).tools.length,
      runs,
      goal: 1.3,
      msGoal: 10,
    };
  } finally {
    await servers.dispose();
  }
}
