// P16 MCP overhead: the time from a prompt to the provider request with three stdio MCP servers
// configured and warm (server-everything, server-filesystem, server-everything again), divided by
// the same with none, side by side in one run. Real servers over stdio through McpServers, the real
// session and agent; the provider is pi-ai's faux provider, and the time ends when its stream
// function is called (the request is built: tool declarations included).
import { join } from "node:path";
import type { McpServerDefinition } from "../../src/core/mcp/config";
import type { McpChatTools } from "../../src/core/mcp/gate";
import { McpServers } from "../../src/core/mcp/servers";
import { chatWorld } from "../../test/support/chat-world";
import { createScriptedModel, reply } from "../../test/support/scripted-model";
import { summarize, type Summary } from "../lib/stats";

export interface P16Result {
  ratio: Summary;
  withServers: Summary;
  without: Summary;
  tools: number;
  runs: number;
  goal: number;
}

function stdio(name: string, args: string[]): McpServerDefinition {
  return { name, scope: "user", file: "bench", enabled: true, transport: { type: "stdio", command: process.execPath, args, env: {} } };
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
  for (let i = 0; i < runs + 1; i++) {
    model.push(reply.text("ok"));
    const session = world.service.newChat();
    sentAt = 0;
    const start = performance.now();
    await session.prompt(`prompt ${i}`);
    if (i > 0) out.push(sentAt - start); // the first is a warm-up (bundles, JIT)
  }
  return out;
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
      return { tools: servers.tools(60).tools, prompt: servers.prompt() };
    },
    describe: (name) => servers.describe(name),
    allowed: { has: () => false, add: async () => {} },
    approver: async () => ({ decision: "allow" }),
  };
  try {
    const without: number[] = [];
    const withServers: number[] = [];
    const ratios: number[] = [];
    // Alternating sides, so a slow moment of the machine falls on both.
    for (let round = 0; round < 3; round++) {
      const a = await measure(undefined, runs);
      const b = await measure(mcp, runs);
      without.push(...a);
      withServers.push(...b);
      ratios.push(summarize(b).median / summarize(a).median);
      log(`P16 round ${round + 1}: ${summarize(b).median.toFixed(2)} ms with ÷ ${summarize(a).median.toFixed(2)} ms without`);
    }
    return {
      ratio: summarize(ratios),
      withServers: summarize(withServers),
      without: summarize(without),
      tools: servers.tools(1000).tools.length,
      runs,
      goal: 1.2,
    };
  } finally {
    await servers.dispose();
  }
}
