// An MCP server's tools as agent tools: pi's names (`mcp__<server>__<tool>`), the normalized input
// schema, results through toLlmContent and limitMcpContent (text over 20 KB cut in the middle, the
// whole kept in a file the card opens), `isError` results as failures. Part of out/mcp.js.
import type { AgentTool, AgentToolResult } from "@earendil-works/pi-agent-core";
import {
  createMcpToolName,
  limitMcpContent,
  type McpClient,
  type McpOutputSaver,
  normalizeMcpInputSchema,
  type Tool,
  toLlmContent,
} from "@earendil-works/pi-mcp";
import type { McpToolFacts } from "./gate";

/** What an MCP tool card shows besides the result text. No secrets: server and tool names, the file of the whole output. */
export interface McpToolDetails {
  server: string;
  tool: string;
  /** The whole output when the model got it cut (opened from the card like a command's log). */
  logFile?: string;
  /** Images the model did not get because the model takes no images. */
  imagesLeftOut?: number;
}

export interface WrapOptions {
  server: string;
  client: McpClient;
  /** Names already used (ours, and other MCP tools'): a clash gets pi's hash suffix. */
  isTaken: (name: string) => boolean;
  saveOutput?: McpOutputSaver;
  /** Whether the model of the run takes images (as read_file). */
  acceptsImages: () => boolean;
  timeoutMs?: number;
}

export interface WrappedMcpTool {
  tool: AgentTool;
  facts: McpToolFacts;
}

export function wrapMcpTools(tools: readonly Tool[], options: WrapOptions): WrappedMcpTool[] {
  const out: WrappedMcpTool[] = [];
  const used = new Set<string>();
  for (const mcpTool of tools) {
    const name = createMcpToolName(options.server, mcpTool.name, (n) => used.has(n) || options.isTaken(n));
    used.add(name);
    out.push({
      tool: wrapOne(name, mcpTool, options),
      facts: { server: options.server, tool: mcpTool.name, ...(mcpTool.annotations ? { annotations: { ...mcpTool.annotations } } : {}) },
    });
  }
  return out;
}

function wrapOne(name: string, mcpTool: Tool, options: WrapOptions): AgentTool<object, McpToolDetails> {
  return {
    name,
    label: mcpTool.title ?? mcpTool.annotations?.title ?? mcpTool.name,
    description: `${mcpTool.description ?? mcpTool.name} (MCP server "${options.server}")`,
    parameters: normalizeMcpInputSchema(mcpTool.inputSchema),
    execute: async (_id, params, signal, onUpdate): Promise<AgentToolResult<McpToolDetails>> => {
      const details: McpToolDetails = { server: options.server, tool: mcpTool.name };
      const result = await options.client.callTool(mcpTool.name, (params ?? {}) as Record<string, unknown>, {
        ...(signal ? { signal } : {}),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        onProgress: (p) =>
          onUpdate?.({ content: [], details: { ...details, progress: { progress: p.progress, total: p.total, message: p.message } } as McpToolDetails }),
      });
      let content = toLlmContent(result);
      if (!options.acceptsImages()) {
        const images = content.filter((c) => c.type === "image").length;
        if (images > 0) {
          details.imagesLeftOut = images;
          content = [
            ...content.filter((c) => c.type !== "image"),
            { type: "text", text: `[${images} image(s) left out: the model in use does not take images]` },
          ];
        }
      }
      const limited = await limitMcpContent(content, options.saveOutput);
      if (limited.fullOutputPath !== undefined) details.logFile = limited.fullOutputPath;
      const finalContent = limited.content.length > 0 ? limited.content : [{ type: "text" as const, text: "(no content)" }];
      return { content: finalContent, details, ...(result.isError === true ? { isError: true } : {}) };
    },
  };
}
