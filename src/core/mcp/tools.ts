// An MCP server's tools as agent tools: pi's names (`mcp__<server>__<tool>`), the normalized input
// schema, results through toLlmContent and limitMcpContent (text over 20 KB cut in the middle, the
// whole kept in a file the card opens), `isError` results as failures. Part of out/mcp.js.
import type { AgentTool, AgentToolResult } from "@earendil-works/pi-agent-core";
import { obj, str } from "@earendil-works/pi-schema";
import {
  type CallToolResult,
  createMcpToolName,
  limitMcpContent,
  type McpClient,
  type McpOutputSaver,
  normalizeMcpInputSchema,
  type Tool,
  toLlmContent,
  type LlmContent,
} from "@earendil-works/pi-mcp";
import { McpOAuthAuthorizationRequiredError } from "@earendil-works/pi-mcp/oauth";
import { acceptAttachedImage } from "../images/accept";
import type { McpToolFacts } from "./gate";

/** A tool's description is cut to this, saying so: a server cannot fill every request with one tool. */
export const MCP_TOOL_DESCRIPTION_CHARS = 2_000;
/** A tool's input schema over this size (JSON characters) or nesting is replaced by "any object", saying so. */
export const MCP_TOOL_SCHEMA_CHARS = 20_000;
export const MCP_TOOL_SCHEMA_DEPTH = 20;

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
  /** The server's identity (identity.ts), which the gate's "Always allow" is kept under. */
  identity: string;
  client: McpClient;
  /** Names already used (ours, and other MCP tools'): a clash gets pi's hash suffix. */
  isTaken: (name: string) => boolean;
  saveOutput?: McpOutputSaver;
  /** The one redactor (src/core/redaction.ts): a result's text is redacted before the model, the card or a file get it. */
  redact?: (text: string) => string;
  /** Whether the model of the run takes images (as read_file). */
  acceptsImages: () => boolean;
  timeoutMs?: number;
  /** The server's sign-in ended (its refresh was refused) during a call: it waits for a new one. */
  onSignInNeeded?: () => void;
}

/** A call refused for want of a sign-in: the server is told, the model gets words it can pass on. */
async function signedIn<T>(options: WrapOptions, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof McpOAuthAuthorizationRequiredError)) throw error;
    options.onSignInNeeded?.();
    throw new Error(`The MCP server "${options.server}" needs the user to sign in again (Pi Chat: MCP Servers → Sign In). Nothing ran.`);
  }
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
      facts: {
        server: options.server,
        identity: options.identity,
        tool: mcpTool.name,
        ...(mcpTool.annotations ? { annotations: { ...mcpTool.annotations } } : {}),
      },
    });
  }
  return out;
}

/** Resources listed for the model at most; the rest is counted, not listed. */
export const MCP_RESOURCES_LISTED = 200;

/** The pseudo tool names a resource call has on its card and in the approval rule (`server/resources/read`). */
export const RESOURCE_LIST_TOOL = "resources/list";
export const RESOURCE_READ_TOOL = "resources/read";

/**
 * A server's resources as two agent tools: list them, read one by URI. Calls pass the same gate
 * as the server's tools (a card asks; "Always allow" covers `server/resources/read` only), and
 * what a resource holds goes through toLlmContent and the same limit as a tool's result.
 */
export function wrapResourceTools(options: WrapOptions): WrappedMcpTool[] {
  const used = new Set<string>();
  const nameOf = (wanted: string) => {
    const name = createMcpToolName(options.server, wanted, (n) => used.has(n) || options.isTaken(n));
    used.add(name);
    return name;
  };
  const facts = (tool: string): McpToolFacts => ({ server: options.server, identity: options.identity, tool });
  const list: AgentTool<object, McpToolDetails> = {
    name: nameOf("list_resources"),
    label: "List resources",
    description: `List the resources (files, documents, records) the MCP server "${options.server}" offers, with their URIs.`,
    parameters: obj({}),
    execute: async (_id, _params, signal) => {
      const details: McpToolDetails = { server: options.server, tool: RESOURCE_LIST_TOOL };
      const resources = await signedIn(options, () =>
        options.client.listResources({
          ...(signal ? { signal } : {}),
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        }),
      );
      const lines = resources
        .slice(0, MCP_RESOURCES_LISTED)
        .map((r) => `- ${r.uri} — ${r.title ?? r.name}${r.mimeType ? ` (${r.mimeType})` : ""}${r.description ? `: ${oneLine(r.description)}` : ""}`);
      if (resources.length > MCP_RESOURCES_LISTED) lines.push(`(${resources.length - MCP_RESOURCES_LISTED} more not listed)`);
      const text = resources.length === 0 ? "The server offers no resources." : `${resources.length} resource(s):\n${lines.join("\n")}`;
      const limited = await limitMcpContent([{ type: "text", text: options.redact ? options.redact(text) : text }], options.saveOutput);
      if (limited.fullOutputPath !== undefined) details.logFile = limited.fullOutputPath;
      return { content: limited.content, details };
    },
  };
  const readParams = obj({ uri: str({ description: "The resource's URI, as list_resources gave it." }) });
  const read: AgentTool<typeof readParams, McpToolDetails> = {
    name: nameOf("read_resource"),
    label: "Read resource",
    description: `Read one resource of the MCP server "${options.server}" by its URI.`,
    parameters: readParams,
    execute: async (_id, params, signal) => {
      const details: McpToolDetails = { server: options.server, tool: RESOURCE_READ_TOOL };
      const result = await signedIn(options, () =>
        options.client.readResource(params.uri, {
          ...(signal ? { signal } : {}),
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        }),
      );
      // A resource's contents are what a tool's embedded resources are: one conversion for both.
      const asToolResult: Pick<CallToolResult, "content"> = { content: result.contents.map((resource) => ({ type: "resource", resource })) };
      return finish(toLlmContent(asToolResult), details, options, false);
    },
  };
  return [
    { tool: list, facts: { ...facts(RESOURCE_LIST_TOOL), annotations: { readOnlyHint: true } } },
    { tool: read as unknown as AgentTool, facts: { ...facts(RESOURCE_READ_TOOL), annotations: { readOnlyHint: true } } },
  ];
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

/** Images only for a model that takes them; text over the limit cut, the whole kept in a file the card opens. */
async function finish(content: LlmContent[], details: McpToolDetails, options: WrapOptions, isError: boolean): Promise<AgentToolResult<McpToolDetails>> {
  // An image is checked as an attached one is (whole PNG/JPEG/GIF/WebP by its bytes, within the caps).
  content = content.map((c) => {
    if (c.type !== "image") return c;
    const accepted = acceptAttachedImage(c.data, "An image from the MCP server");
    return accepted.ok ? { ...c, mimeType: accepted.info.mimeType } : { type: "text" as const, text: `[image left out: ${accepted.reason}]` };
  });
  if (!options.acceptsImages()) {
    const images = content.filter((c) => c.type === "image").length;
    if (images > 0) {
      details.imagesLeftOut = images;
      content = [...content.filter((c) => c.type !== "image"), { type: "text", text: `[${images} image(s) left out: the model in use does not take images]` }];
    }
  }
  const redact = options.redact;
  if (redact) content = content.map((c) => (c.type === "text" ? { ...c, text: redact(c.text) } : c));
  const limited = await limitMcpContent(content, options.saveOutput);
  if (limited.fullOutputPath !== undefined) details.logFile = limited.fullOutputPath;
  const finalContent = limited.content.length > 0 ? limited.content : [{ type: "text" as const, text: "(no content)" }];
  return { content: finalContent, details, ...(isError ? { isError: true } : {}) };
}

/**
 * What a tool declares, within caps: every request carries it. A description over the cap is cut,
 * and a schema too large or too deep is replaced by "any object" (the call still works; the
 * server checks its own arguments), each saying so in the description.
 */
export function boundedDeclaration(mcpTool: Tool, server: string): { description: string; parameters: ReturnType<typeof normalizeMcpInputSchema> } {
  const notes: string[] = [];
  let description = mcpTool.description ?? mcpTool.name;
  if (description.length > MCP_TOOL_DESCRIPTION_CHARS) {
    notes.push(`description cut from ${description.length} characters`);
    description = `${description.slice(0, MCP_TOOL_DESCRIPTION_CHARS)}…`;
  }
  const depth = nesting(mcpTool.inputSchema, MCP_TOOL_SCHEMA_DEPTH);
  const size = depth > MCP_TOOL_SCHEMA_DEPTH ? 0 : JSON.stringify(mcpTool.inputSchema ?? {}).length;
  let parameters: ReturnType<typeof normalizeMcpInputSchema>;
  if (depth > MCP_TOOL_SCHEMA_DEPTH || size > MCP_TOOL_SCHEMA_CHARS) {
    notes.push(
      depth > MCP_TOOL_SCHEMA_DEPTH
        ? `input schema left out: nested deeper than ${MCP_TOOL_SCHEMA_DEPTH}`
        : `input schema left out: ${size} characters, over ${MCP_TOOL_SCHEMA_CHARS}`,
    );
    parameters = normalizeMcpInputSchema({ type: "object", additionalProperties: true });
  } else parameters = normalizeMcpInputSchema(mcpTool.inputSchema);
  const cut = notes.length > 0 ? ` [Pi Chat: ${notes.join("; ")}]` : "";
  return { description: `${description} (MCP server "${server}")${cut}`, parameters };
}

/** How deep objects and arrays nest in a value, counting no further than `limit` + 1 (no recursion: any depth is safe). */
function nesting(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    deepest = Math.max(deepest, d + 1);
    if (deepest > limit) return deepest;
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return deepest;
}

function wrapOne(name: string, mcpTool: Tool, options: WrapOptions): AgentTool<object, McpToolDetails> {
  const declared = boundedDeclaration(mcpTool, options.server);
  return {
    name,
    label: mcpTool.title ?? mcpTool.annotations?.title ?? mcpTool.name,
    description: declared.description,
    parameters: declared.parameters,
    execute: async (_id, params, signal, onUpdate): Promise<AgentToolResult<McpToolDetails>> => {
      const details: McpToolDetails = { server: options.server, tool: mcpTool.name };
      const result = await signedIn(options, () =>
        options.client.callTool(mcpTool.name, (params ?? {}) as Record<string, unknown>, {
          ...(signal ? { signal } : {}),
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
          onProgress: (p) =>
            onUpdate?.({ content: [], details: { ...details, progress: { progress: p.progress, total: p.total, message: p.message } } as McpToolDetails }),
        }),
      );
      return finish(toLlmContent(result), details, options, result.isError === true);
    },
  };
}
