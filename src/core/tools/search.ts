// search: text (or a regular expression) across the workspace, as `path:line:column: line`.
// Read-only, no approval. The engine is injected: ripgrep in the extension, the portable one in
// tests and when ripgrep is missing; the caps and the wording are this file's.
import type { AgentTool, AgentToolResult } from "@earendil-works/pi-agent-core";
import { bool, obj, opt, str, type Static } from "@earendil-works/pi-schema";
import { capLines, capReason, shortenAround, type CappedLines, type OutputCaps } from "./output-caps";
import { SEARCH_MAX_COLLECTED, SEARCH_MAX_FILE_BYTES, type SearchBackend } from "./search-backend";
import { displayPath, resolveDiscoveryTarget } from "./file-access";
import { formatBytes } from "../../shared/format";
import { throwIfAborted, WorkspaceToolError } from "./tool-error";
import type { WalkRules } from "./workspace-walk";
import type { WorkspaceFileSystem } from "./workspace-fs";

/** Matching lines shown, and the bytes they may take: a common word must not flood the context. */
export const SEARCH_CAPS: OutputCaps = { maxLines: 100, maxBytes: 16 * 1024 };
/** Longest query accepted. */
export const MAX_QUERY_LENGTH = 1000;

export const searchParameters = obj({
  query: str({ description: "Text to find (literal unless regex is true)." }),
  regex: opt(bool({ description: "Treat query as a regular expression (one line at a time). Default false." })),
  caseSensitive: opt(bool({ description: "Match case exactly. Default false." })),
  include: opt(str({ description: "Glob of files to search, e.g. **/*.ts or src/**; a pattern without / matches file names anywhere." })),
  path: opt(str({ description: "Folder or file to search in, relative to the workspace root. Default: the whole workspace." })),
});

export type SearchParams = Static<typeof searchParameters>;

/** For the card: the question, the counts, and each shown result (clickable). */
export interface SearchDetails {
  query: string;
  regex: boolean;
  caseSensitive: boolean;
  include?: string;
  path: string;
  matches: { path: string; line: number; column: number; text: string }[];
  /** Matching lines found in all (a lower bound when `incomplete`). */
  total: number;
  incomplete: boolean;
  truncated: boolean;
  engine: string;
}

export interface SearchToolOptions {
  root?: string;
  backend: SearchBackend;
  /** Read at each call: VS Code's files.exclude and search.exclude may change. */
  rules?: () => WalkRules;
  caps?: OutputCaps;
}

export function createSearchTool(fs: WorkspaceFileSystem, options: SearchToolOptions): AgentTool<typeof searchParameters, SearchDetails> {
  const caps = options.caps ?? SEARCH_CAPS;
  return {
    name: "search",
    label: "Search",
    description:
      "Search the text of the workspace's files. Returns matching lines as path:line:column: text, sorted by path. " +
      "Honours .gitignore and the editor's excludes, skips binary files and files over " +
      `${formatBytes(SEARCH_MAX_FILE_BYTES)}; at most ${caps.maxLines} lines, with the count of the rest. ` +
      "Use it to find where something is defined or configured before reading files; narrow with include or path when there are too many matches.",
    parameters: searchParameters,
    async execute(_toolCallId, params, signal): Promise<AgentToolResult<SearchDetails>> {
      throwIfAborted(signal);
      checkQuery(params.query);
      const target = await resolveDiscoveryTarget(fs, options.root, params.path, signal);
      const regex = params.regex ?? false;
      const caseSensitive = params.caseSensitive ?? false;
      const outcome = await options.backend.search({
        query: params.query,
        regex,
        caseSensitive,
        ...(params.include !== undefined ? { include: params.include } : {}),
        path: target.realPath,
        pathIsFile: target.type === "file",
        rules: options.rules?.() ?? {},
        ...(signal ? { signal } : {}),
      });
      const lines = outcome.matches.map((m) => `${displayPath(target, m.path)}:${m.line}:${m.column}: ${shortenAround(m.text, m.column)}`);
      const capped = capLines(lines, caps);
      const shown = outcome.matches.slice(0, capped.shown).map((m) => ({
        path: displayPath(target, m.path),
        line: m.line,
        column: m.column,
        text: shortenAround(m.text, m.column),
      }));
      const total = outcome.matches.length;
      const where = target.path === "." ? "the workspace" : target.path;
      const text =
        total === 0
          ? `No matches for ${JSON.stringify(params.query)} in ${where}${params.include ? ` (files matching ${params.include})` : ""}.`
          : capped.text + moreLinesNote(total, capped, caps, outcome.incomplete);
      const details: SearchDetails = {
        query: params.query,
        regex,
        caseSensitive,
        ...(params.include !== undefined ? { include: params.include } : {}),
        path: target.path,
        matches: shown,
        total,
        incomplete: outcome.incomplete,
        truncated: capped.shown < total || outcome.incomplete,
        engine: outcome.engine,
      };
      return { content: [{ type: "text", text }], details };
    },
  };
}

/** Refuses a query search cannot answer, with what to send instead. */
function checkQuery(query: string): void {
  if (query.length === 0) throw new WorkspaceToolError("invalid_query", "query is empty; give the text to find.");
  if (query.length > MAX_QUERY_LENGTH) throw new WorkspaceToolError("invalid_query", `query is longer than ${MAX_QUERY_LENGTH} characters.`);
  if (/[\r\n]/.test(query)) {
    throw new WorkspaceToolError("invalid_query", "query contains a line break; search matches one line at a time. Search for one line of it.");
  }
}

/** The note after the shown lines when more matched than are shown (or the search stopped collecting). */
function moreLinesNote(total: number, capped: CappedLines, caps: OutputCaps, incomplete: boolean): string {
  const rest = total - capped.shown;
  if (rest <= 0 && !incomplete) return "";
  const count = incomplete ? `more than ${SEARCH_MAX_COLLECTED - capped.shown}` : String(rest);
  return `\n\n[${count} more matching lines not shown (${capReason(capped, caps, "line")}). Narrow the search with include (e.g. **/*.ts), path, or a more specific query.]`;
}
