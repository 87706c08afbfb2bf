// The system prompt's section on the MCP servers: one plain line per ready server with its
// summary and instructions. With MCP tools on demand (tool-search.ts) a server's line carries only
// the first line of its description or instructions and the names of its tools; the full instructions come
// with the tool_search result that first loads one of its tools, so they live in the transcript
// (a reload, a branch and a pi export keep them where the model read them) and cost nothing until
// the server is used. A server's words are untrusted: servers.ts makes each a capped plainLine.
import type { AgentMessage, AgentTool } from "@earendil-works/pi-agent-core";
import { MCP_TOOL_PREFIX } from "../../shared/tool-names";

/** What a ready server says of itself, as plain capped lines (servers.ts builds them). */
export interface McpServerWords {
  name: string;
  /** The agent names of its tools (mcp__<server>__<tool>): which server a tool is of. */
  tools: readonly string[];
  /** The user's description of the server, summarized ("" when none). */
  summary: string;
  /** The first line of the description, else of the instructions, heading marks left out, capped (briefSummary). */
  brief: string;
  /** The server's own instructions ("" when none). */
  instructions: string;
}

/** A server's line in the on-demand listing says at most this much of it. */
export const MCP_BRIEF_INSTRUCTIONS_CHARS = 120;

const HEADER = "MCP servers the user configured (their tools are named mcp__<server>__<tool>; every call is shown to the user, who may allow or deny it)";

/** The section when every MCP tool is declared: each server's summary and instructions in full. */
export function mcpServersPrompt(servers: readonly McpServerWords[], notes: readonly string[] = []): string {
  if (servers.length === 0) return notes.join("\n");
  return [`${HEADER}:`, ...servers.map((s) => `- ${s.name}${fullWords(s) ? `: ${fullWords(s)}` : ""}`), ...notes].join("\n");
}

/**
 * The section when MCP tools are on demand: per server its brief line (the first line of its
 * description or instructions) and the names of its offered tools. `full`: servers whose instructions stay here in
 * full (a tool of theirs is declared and no tool_search result on the path carried them).
 */
export function mcpOnDemandPrompt(
  servers: readonly McpServerWords[],
  offered: readonly AgentTool[],
  full: ReadonlySet<string>,
  notes: readonly string[] = [],
): string {
  const byServer = toolsByServer(servers, offered);
  const lines = [...byServer].map(([name, tools]) => {
    const words = servers.find((s) => s.name === name);
    const said = words ? (full.has(name) ? fullWords(words) : words.brief) : "";
    return `- ${name}${said ? `: ${said}` : ""}; tools: ${tools.join(", ")}`;
  });
  return [
    `${HEADER}. Their tools are on demand: tool_search loads them for your next call, with a server's full instructions the first time.`,
    ...lines,
    ...notes,
  ].join("\n");
}

/** The instructions a tool_search result carries for a server: its full text, or "" when its brief line already said all of it. */
export function instructionsToDeliver(words: McpServerWords): string {
  return words.instructions === "" || words.brief === words.instructions ? "" : words.instructions;
}

/** The servers whose instructions a tool_search result on these messages carried (details.instructions). */
export function instructedOnPath(messages: readonly AgentMessage[]): Set<string> {
  const out = new Set<string>();
  for (const m of messages) {
    if (m.role !== "toolResult" || m.toolName !== TOOL_SEARCH_RESULT_NAME) continue;
    const given = (m.details as { instructions?: unknown } | undefined)?.instructions;
    if (Array.isArray(given)) for (const server of given) if (typeof server === "string") out.add(server);
  }
  return out;
}

/** Which server each tool is of, by the servers' own lists; a tool of none by its name's first segment. */
export function serverOfTool(servers: readonly McpServerWords[]): (toolName: string) => string {
  const owner = new Map<string, string>();
  for (const s of servers) for (const tool of s.tools) owner.set(tool, s.name);
  return (toolName) => {
    const known = owner.get(toolName);
    if (known !== undefined) return known;
    const rest = toolName.slice(MCP_TOOL_PREFIX.length);
    const cut = rest.indexOf("__");
    return cut > 0 ? rest.slice(0, cut) : rest;
  };
}

// tool-search.ts names the tool; the name is repeated here so this module stays below it.
const TOOL_SEARCH_RESULT_NAME = "tool_search";

function toolsByServer(servers: readonly McpServerWords[], offered: readonly AgentTool[]): Map<string, string[]> {
  const serverOf = serverOfTool(servers);
  const out = new Map<string, string[]>();
  for (const tool of offered) {
    const server = serverOf(tool.name);
    const prefix = `${MCP_TOOL_PREFIX}${server}__`;
    const local = tool.name.startsWith(prefix) ? tool.name.slice(prefix.length) : tool.name;
    out.set(server, [...(out.get(server) ?? []), local]);
  }
  return out;
}

/** As the section said it before on-demand tools: the summary, then the instructions. */
function fullWords(s: McpServerWords): string {
  return [s.summary, s.instructions && s.summary ? `Instructions: ${s.instructions}` : s.instructions].filter((w) => w !== "").join(" ");
}
