// MCP tools on demand: above a threshold, a run declares none of the MCP servers' tools. The
// system prompt lists their names per server (server-words.ts), and a `tool_search` tool ranks them (BM25 over
// name and description, the ranking pi's coding agent uses) and loads the matches for the next
// model call. Loading changes the agent's tool set; pi-agent-core records each change in the
// transcript as a system message with `toolsAdded`, so a reload, a branch and a pi export keep
// exactly the tools the model was given (loadedOnPath reads them back). The result that first loads
// a tool of a server carries that server's full instructions (the listing has only their first
// sentence), so they too are kept where the model read them.
import type { AgentMessage, AgentTool } from "@earendil-works/pi-agent-core";
import { getCurrentTools } from "@earendil-works/pi-ai";
import { obj, opt, num, str } from "@earendil-works/pi-schema";
import { isMcpToolName } from "../../shared/tool-names";
import { estimateToolDeclarationTokens } from "../context/tokens";
import { plainLine } from "./plain-line";
import { instructionsToDeliver, type McpServerWords, serverOfTool } from "./server-words";

export const TOOL_SEARCH_TOOL_NAME = "tool_search";

/** Above this many MCP tools, or this many declared tokens, they are deferred (Copilot CLI defers above ~30; we are tighter: each costs every request). */
export const MCP_DEFER_TOOL_COUNT = 10;
export const MCP_DEFER_DECLARED_TOKENS = 2_000;
/** A loaded tool's line in tool_search's answer is cut to this (a server's words are untrusted). */
export const MCP_LISTED_LINE_CHARS = 120;
export const DEFAULT_TOOL_SEARCH_LIMIT = 5;
const MAX_TOOL_SEARCH_LIMIT = 20;

/** `piChat.mcp.toolsOnDemand`: "auto" (above a threshold, or in lean mode), "always" or "never". */
export type McpOnDemandSetting = "auto" | "always" | "never";

/** Whether a run's MCP tools are deferred: the user's "always"/"never", else in lean mode or above either threshold. */
export function shouldDeferMcpTools(tools: readonly AgentTool[], lean: boolean, setting: McpOnDemandSetting = "auto"): boolean {
  if (tools.length === 0 || setting === "never") return false;
  if (lean || setting === "always") return true;
  return tools.length > MCP_DEFER_TOOL_COUNT || estimateToolDeclarationTokens(tools) > MCP_DEFER_DECLARED_TOKENS;
}

function firstSentence(description: string): string {
  // Our own suffix (`(MCP server "x")`) is in the name already.
  const text = description.replace(/ \(MCP server "[^"]*"\)( \[Pi Chat:[^\]]*\])?$/, "");
  const line = text.split(/\r?\n/)[0] ?? "";
  const stop = line.search(/[.!?](\s|$)/);
  return stop > 0 ? line.slice(0, stop + 1) : line;
}

// ---- ranking (BM25, as pi coding-agent's tool_search ranks) ----

const STOP_WORDS = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "by",
  "for",
  "from",
  "in",
  "is",
  "it",
  "of",
  "on",
  "or",
  "that",
  "the",
  "this",
  "to",
  "with",
]);

/** Naive singular form, so `issues` matches `issue`. */
function stem(term: string): string {
  if (term.length > 4 && term.endsWith("ies")) return `${term.slice(0, -3)}y`;
  if (term.length > 4 && /(ches|shes|sses|xes|zes)$/.test(term)) return term.slice(0, -2);
  if (term.length > 3 && term.endsWith("s") && !term.endsWith("ss")) return term.slice(0, -1);
  return term;
}

/** Words of a text: identifiers split at camelCase and `_`, lower case, stop words out, singular. */
export function searchTerms(text: string): string[] {
  return text
    .normalize("NFC")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0 && !STOP_WORDS.has(word))
    .map(stem);
}

export interface SearchDocument {
  name: string;
  text: string;
}

/** A name term counts three times its IDF: a name match beats any number of mentions in a description. */
const NAME_WEIGHT = 3;

/**
 * The documents matching `query`, best first: the exact name first, then more query terms
 * matched, then the BM25 score (description length-normalized). Ties keep document order.
 */
export function rankTools(query: string, documents: readonly SearchDocument[], limit: number): string[] {
  const queryTerms = new Set(searchTerms(query));
  if (queryTerms.size === 0 || documents.length === 0 || limit <= 0) return [];
  const k1 = 1.2;
  const b = 0.75;
  const indexed = documents.map((d) => {
    const counts = new Map<string, number>();
    for (const term of searchTerms(d.text)) counts.set(term, (counts.get(term) ?? 0) + 1);
    let length = 0;
    for (const c of counts.values()) length += c;
    return { name: d.name, nameTerms: new Set(searchTerms(d.name)), counts, length };
  });
  const average = indexed.reduce((sum, d) => sum + d.length, 0) / indexed.length || 1;
  const idf = new Map<string, number>();
  for (const term of queryTerms) {
    const frequency = indexed.filter((d) => d.nameTerms.has(term) || d.counts.has(term)).length;
    idf.set(term, Math.log(1 + (indexed.length - frequency + 0.5) / (frequency + 0.5)));
  }
  const exact = query.trim().toLowerCase();
  const matches: { name: string; score: number; covered: number; exact: boolean; order: number }[] = [];
  indexed.forEach((d, order) => {
    const norm = k1 * (1 - b + (b * d.length) / average);
    let score = 0;
    let covered = 0;
    for (const term of queryTerms) {
      const count = d.counts.get(term) ?? 0;
      const weight = (d.nameTerms.has(term) ? NAME_WEIGHT : 0) + (count * (k1 + 1)) / (count + norm);
      if (weight > 0) covered++;
      score += (idf.get(term) ?? 0) * weight;
    }
    if (score === 0) return;
    const name = d.name.toLowerCase();
    matches.push({ name: d.name, score, covered, exact: name === exact || name.endsWith(`__${exact}`), order });
  });
  return matches
    .sort((x, y) => Number(y.exact) - Number(x.exact) || y.covered - x.covered || y.score - x.score || x.order - y.order)
    .slice(0, limit)
    .map((m) => m.name);
}

// ---- the run's shelf of deferred tools ----

/** The MCP tools the transcript declares at its end (what the model was last given). */
export function loadedOnPath(messages: readonly AgentMessage[]): Set<string> {
  return new Set(getCurrentTools(messages).flatMap((tool) => (isMcpToolName(tool.name) ? [tool.name] : [])));
}

/**
 * A run's deferred MCP tools: which are loaded (declared to the model) and which are only
 * listed. `tool_search` loads; `takeLoaded` hands the agent what to add before its next call.
 */
export class DeferredMcpTools {
  private tools: AgentTool[] = [];
  private readonly loaded = new Set<string>();
  private fresh: AgentTool[] = [];
  /** Servers whose full instructions the model has not read yet: a search that loads a tool of one delivers them. */
  private readonly untold = new Map<string, string>();
  private serverOf: (toolName: string) => string = serverOfTool([]);

  /**
   * A run's tools; those the path declares already stay loaded (a reload, a branch, an edit).
   * `servers`' instructions are delivered by the first search that loads one of their tools,
   * except for the servers in `told` (a result on the path carried them, or the listing has them in full).
   */
  reset(tools: readonly AgentTool[], alreadyLoaded: ReadonlySet<string>, servers: readonly McpServerWords[] = [], told: ReadonlySet<string> = new Set()): void {
    this.tools = [...tools];
    this.loaded.clear();
    this.fresh = [];
    for (const tool of tools) if (alreadyLoaded.has(tool.name)) this.loaded.add(tool.name);
    this.serverOf = serverOfTool(servers);
    this.untold.clear();
    for (const server of servers) {
      const text = instructionsToDeliver(server);
      if (text !== "" && !told.has(server.name)) this.untold.set(server.name, text);
    }
  }

  /** The instructions of the servers of `found` the model has not read yet, each handed once. */
  takeInstructions(found: readonly AgentTool[]): { server: string; text: string }[] {
    const out: { server: string; text: string }[] = [];
    for (const tool of found) {
      const server = this.serverOf(tool.name);
      const text = this.untold.get(server);
      if (text === undefined) continue;
      this.untold.delete(server);
      out.push({ server, text });
    }
    return out;
  }

  /** The deferred tools declared to the model now. */
  declared(): AgentTool[] {
    return this.tools.filter((t) => this.loaded.has(t.name));
  }

  /** The deferred tools only listed by name. */
  listed(): AgentTool[] {
    return this.tools.filter((t) => !this.loaded.has(t.name));
  }

  /** Ranks the listed tools and loads the best matches; returns them. */
  search(query: string, limit: number): AgentTool[] {
    const candidates = this.listed();
    const names = rankTools(
      query,
      candidates.map((t) => ({ name: t.name, text: t.description })),
      limit,
    );
    const found = names.map((name) => candidates.find((t) => t.name === name)!);
    for (const tool of found) this.loaded.add(tool.name);
    this.fresh.push(...found);
    return found;
  }

  /** The tools loaded since the last call, for the agent's next request (each handed once). */
  takeLoaded(): AgentTool[] {
    const out = this.fresh;
    this.fresh = [];
    return out;
  }
}

const toolSearchParams = obj({
  query: str({ description: "What the tool does, or its name." }),
  limit: opt(num()),
});

/** `tool_search`: read-only and ungated (it runs nothing of a server); a tool it loads passes the MCP gate when called. */
export function createToolSearchTool(shelf: DeferredMcpTools): AgentTool {
  const tool: AgentTool<typeof toolSearchParams> = {
    name: TOOL_SEARCH_TOOL_NAME,
    label: "Find tools",
    description: `Load the MCP tools on demand that best match the query (at most limit, default ${DEFAULT_TOOL_SEARCH_LIMIT}) for your next call.`,
    parameters: toolSearchParams,
    execute: async (_id, params) => {
      const query = params.query.trim();
      if (query === "") throw new Error("query must not be empty");
      const limit = Math.min(MAX_TOOL_SEARCH_LIMIT, Math.max(1, Math.floor(params.limit ?? DEFAULT_TOOL_SEARCH_LIMIT)));
      const found = shelf.search(query, limit);
      const instructions = shelf.takeInstructions(found);
      const text =
        found.length === 0
          ? "No matching tools that are not loaded already."
          : [
              `Loaded ${found.length} tool(s); call them from your next call:`,
              ...found.map((t) => `- ${t.name}: ${plainLine(firstSentence(t.description), MCP_LISTED_LINE_CHARS)}`),
              // Already plain capped lines (servers.ts): a server's words never start a line of their own.
              ...instructions.map((i) => `Instructions of MCP server "${i.server}": ${i.text}`),
            ].join("\n");
      // details.instructions: which servers' instructions the transcript holds from here (instructedOnPath).
      return {
        content: [{ type: "text", text }],
        details: { loaded: found.map((t) => t.name), ...(instructions.length > 0 ? { instructions: instructions.map((i) => i.server) } : {}) },
      };
    },
  };
  return tool as unknown as AgentTool;
}
