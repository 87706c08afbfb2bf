// What the search tool asks of a search engine, and the portable engine: a walk plus a line scan
// in JavaScript. The extension uses ripgrep where VS Code ships it (src/host/adapters/ripgrep-search.ts)
// and this one when it cannot; both give the same results on the same tree (tested together).
import { compileGlob } from "./glob";
import { looksBinary } from "./file-access";
import { throwIfAborted, WorkspaceToolError } from "./tool-error";
import { walkWorkspace, type WalkRules } from "./workspace-walk";
import type { WorkspaceFileSystem } from "./workspace-fs";

/** Files larger than this are not searched (generated bundles, data dumps, logs). */
export const SEARCH_MAX_FILE_BYTES = 1024 * 1024;
/** Files read at the same time by the portable engine. */
const SEARCH_CONCURRENCY = 8;
/** Matching lines collected at most; past it the search stops and says "more than". */
export const SEARCH_MAX_COLLECTED = 10_000;

export interface SearchRequest {
  /** Literal text, or a regular expression when `regex`. */
  readonly query: string;
  readonly regex: boolean;
  readonly caseSensitive: boolean;
  /** Glob of files to search (see compileGlob), relative to `path`. Not applied when `path` is a file. */
  readonly include?: string;
  /** Real, validated, workspace-relative file or folder to search ("." for everything). */
  readonly path: string;
  /** Whether `path` is a file. */
  readonly pathIsFile: boolean;
  readonly rules: WalkRules;
  readonly signal?: AbortSignal;
}

/** One matching line. */
export interface SearchMatch {
  /** Workspace-relative POSIX path. */
  readonly path: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based, in UTF-16 code units (what VS Code's positions count) of the first match on the line. */
  readonly column: number;
  /** The whole line, without its line ending. */
  readonly text: string;
}

export interface SearchOutcome {
  /** Matching lines, sorted by path then line; at most SEARCH_MAX_COLLECTED. */
  readonly matches: SearchMatch[];
  /** True when there were more than SEARCH_MAX_COLLECTED (the search stopped there). */
  readonly incomplete: boolean;
  /** Which engine answered, for the card and the logs. */
  readonly engine: string;
}

/** A search engine. Throws WorkspaceToolError("invalid_query") for a pattern it cannot compile. */
export interface SearchBackend {
  search(request: SearchRequest): Promise<SearchOutcome>;
}

export function compareMatches(a: SearchMatch, b: SearchMatch): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return a.line - b.line;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The query as a JavaScript RegExp, as the portable engine runs it. */
export function queryRegExp(request: Pick<SearchRequest, "query" | "regex" | "caseSensitive">): RegExp {
  const source = request.regex ? request.query : escapeRegExp(request.query);
  const flags = request.caseSensitive ? "" : "i";
  try {
    return new RegExp(source, `${flags}u`);
  } catch {
    // Unicode mode refuses escapes such as \- that models write; the plain mode takes them.
  }
  try {
    return new RegExp(source, flags);
  } catch (error) {
    throw new WorkspaceToolError("invalid_query", `Invalid regular expression: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Splits decoded text into lines the way ripgrep numbers them ("\n" ends a line; "\r" is stripped). */
function* lines(text: string): Generator<[number, string]> {
  let start = 0;
  let n = 1;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const line = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
    yield [n++, line];
    start = end + 1;
  }
}

/** Search in JavaScript over the injected file system: used in tests, and when ripgrep is missing. */
export function createPortableSearch(fs: WorkspaceFileSystem): SearchBackend {
  return {
    async search(request) {
      const pattern = queryRegExp(request);
      const precheck = pattern.source.includes("$") ? undefined : new RegExp(pattern.source, `${pattern.flags}m`);
      const include = request.include !== undefined ? compileGlob(request.include) : undefined;
      if (include && !include.ok) throw new WorkspaceToolError("invalid_path", include.error);
      const matches: SearchMatch[] = [];
      let incomplete = false;
      const files: string[] = [];
      if (request.pathIsFile) files.push(request.path);
      else {
        const prefix = request.path === "." ? 0 : request.path.length + 1;
        for await (const entry of walkWorkspace(fs, { ...request.rules, start: request.path, ...(request.signal ? { signal: request.signal } : {}) })) {
          if (entry.type === "file" && (!include || include.test(entry.path.slice(prefix)))) files.push(entry.path);
        }
      }
      const decoder = new TextDecoder("utf-8");
      /** The matching lines of one file ([] for a file that is skipped). */
      const scan = async (path: string): Promise<SearchMatch[]> => {
        let bytes: Uint8Array;
        try {
          const info = await fs.stat(path);
          if (info?.type !== "file" || info.size > SEARCH_MAX_FILE_BYTES) return [];
          bytes = await fs.readFile(path);
        } catch {
          return []; // vanished or unreadable meanwhile
        }
        if (bytes.length > SEARCH_MAX_FILE_BYTES || looksBinary(bytes) || bytes.indexOf(0) !== -1) return [];
        const text = decoder.decode(bytes).replace(/^\uFEFF/, "");
        // Cheap pre-check over the whole text (most files do not match at all); with "m", ^ and $
        // work at line starts and ends. "$" before a "\r" would be missed, so then no pre-check.
        if (precheck && !precheck.test(text)) return [];
        const found: SearchMatch[] = [];
        for (const [line, lineText] of lines(text)) {
          const hit = pattern.exec(lineText);
          if (hit) found.push({ path, line, column: hit.index + 1, text: lineText });
        }
        return found;
      };
      // Several files in flight: the file system's latency, not the CPU, is what a search waits on.
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < files.length && !incomplete) {
          throwIfAborted(request.signal);
          const path = files[next++]!;
          const found = await scan(path);
          for (const match of found) {
            if (matches.length >= SEARCH_MAX_COLLECTED) {
              incomplete = true;
              break;
            }
            matches.push(match);
          }
        }
      };
      await Promise.all(Array.from({ length: SEARCH_CONCURRENCY }, worker));
      matches.sort(compareMatches);
      return { matches, incomplete, engine: "portable" };
    },
  };
}
