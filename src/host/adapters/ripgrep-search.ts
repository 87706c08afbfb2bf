// The search engine the extension uses: the ripgrep binary every VS Code ships (@vscode/ripgrep
// under vscode.env.appRoot), run without a shell, with the same rules as the portable engine
// (ignore files, excludes, .git and node_modules, binary and large files skipped) so the two give
// the same results. Plain Node (no `vscode` import): the unit tests run it with Debian's rg.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import * as nodePath from "node:path";
import { createInterface } from "node:readline";
import { compileGlob } from "../../core/tools/glob";
import {
  compareMatches,
  SEARCH_MAX_COLLECTED,
  SEARCH_MAX_FILE_BYTES,
  type SearchBackend,
  type SearchMatch,
  type SearchRequest,
} from "../../core/tools/search-backend";
import { WorkspaceToolError } from "../../core/tools/tool-error";
import { ALWAYS_SKIPPED, SKIPPED_BY_DEFAULT } from "../../core/tools/workspace-walk";

export interface RipgrepOptions {
  /** Absolute path of the rg executable. */
  rgPath: string;
  /** Absolute path, on disk, of the workspace folder the request's paths are relative to. */
  folderPath: string;
}

/** rg refused the pattern (its regex dialect differs from JavaScript's): another engine may take it. */
export class RipgrepPatternError extends Error {
  override name = "RipgrepPatternError";
}

/** Where VS Code keeps its ripgrep, or undefined when this build has none. */
export function findVscodeRipgrep(appRoot: string): string | undefined {
  const exe = process.platform === "win32" ? "rg.exe" : "rg";
  const candidates = [
    nodePath.join(appRoot, "node_modules", "@vscode", "ripgrep", "bin", exe),
    nodePath.join(appRoot, "node_modules.asar.unpacked", "@vscode", "ripgrep", "bin", exe),
  ];
  return candidates.find((c) => existsSync(c));
}

/** The rg command line for a request (no shell: each argument is passed as it is). */
export function ripgrepArgs(request: SearchRequest): string[] {
  const args = ["--json", "--no-config", "--hidden", "--no-ignore-global", "--no-ignore-exclude", "--no-require-git", "--crlf"];
  args.push("--max-filesize", String(SEARCH_MAX_FILE_BYTES));
  args.push(request.caseSensitive ? "--case-sensitive" : "--ignore-case");
  if (!request.regex) args.push("--fixed-strings");
  const useIgnoreFiles = request.rules.useIgnoreFiles ?? true;
  if (!useIgnoreFiles) args.push("--no-ignore");
  // `include` is not given to rg: its globs override .gitignore, and the portable engine's do not.
  // The results are filtered with the same matcher the portable engine uses instead.
  for (const name of [...ALWAYS_SKIPPED, ...(useIgnoreFiles ? SKIPPED_BY_DEFAULT : [])]) args.push("--glob", `!${name}`);
  for (const glob of request.rules.excludes ?? []) if (glob.trim() !== "" && !glob.startsWith("!")) args.push("--glob", `!${glob}`);
  args.push("--regexp", request.query, "--");
  args.push(request.pathIsFile ? request.path : ".");
  return args;
}

interface RgText {
  text?: string;
  bytes?: string;
}

function decodeRgText(value: RgText | undefined): Buffer | undefined {
  if (!value) return undefined;
  if (typeof value.text === "string") return Buffer.from(value.text, "utf8");
  if (typeof value.bytes === "string") return Buffer.from(value.bytes, "base64");
  return undefined;
}

export function createRipgrepSearch(options: RipgrepOptions): SearchBackend {
  return {
    search(request) {
      let include: ((relPath: string) => boolean) | undefined;
      if (request.include !== undefined && !request.pathIsFile) {
        const glob = compileGlob(request.include);
        if (!glob.ok) return Promise.reject(new WorkspaceToolError("invalid_path", glob.error));
        include = glob.test;
      }
      const cwd = request.pathIsFile || request.path === "." ? options.folderPath : nodePath.join(options.folderPath, ...request.path.split("/"));
      const prefix = request.pathIsFile || request.path === "." ? "" : `${request.path}/`;
      return new Promise((resolve, reject) => {
        const matches: SearchMatch[] = [];
        let incomplete = false;
        let stderr = "";
        let settled = false;
        const child = spawn(options.rgPath, ripgrepArgs(request), { cwd, shell: false, stdio: ["ignore", "pipe", "pipe"], windowsHide: true });
        const stop = (): void => {
          if (child.exitCode === null && child.signalCode === null) child.kill();
        };
        const onAbort = (): void => {
          stop();
          finish(() => reject(new WorkspaceToolError("aborted", "Operation aborted")));
        };
        const finish = (done: () => void): void => {
          if (settled) return;
          settled = true;
          request.signal?.removeEventListener("abort", onAbort);
          done();
        };
        if (request.signal?.aborted) return onAbort();
        request.signal?.addEventListener("abort", onAbort);
        child.stderr.setEncoding("utf8");
        child.stderr.on("data", (chunk: string) => {
          if (stderr.length < 4096) stderr += chunk;
        });
        const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
        lines.on("line", (line) => {
          if (incomplete || !line.startsWith('{"type":"match"')) return;
          let event: { data?: { path?: RgText; lines?: RgText; line_number?: number; submatches?: { start?: number }[] } };
          try {
            event = JSON.parse(line) as typeof event;
          } catch {
            return;
          }
          const data = event.data;
          const pathBytes = decodeRgText(data?.path);
          const lineBytes = decodeRgText(data?.lines);
          if (!data || !pathBytes || !lineBytes || typeof data.line_number !== "number") return;
          let rel = pathBytes.toString("utf8").replace(/\\/g, "/");
          if (rel.startsWith("./")) rel = rel.slice(2);
          if (include && !include(rel)) return;
          const start = data.submatches?.[0]?.start ?? 0;
          const text = lineBytes.toString("utf8").replace(/\r?\n$/, "");
          if (matches.length >= SEARCH_MAX_COLLECTED) {
            incomplete = true;
            stop();
            return;
          }
          matches.push({
            path: `${prefix}${rel}`,
            line: data.line_number,
            // rg counts bytes; VS Code (and the portable engine) count UTF-16 units.
            column: lineBytes.subarray(0, start).toString("utf8").length + 1,
            text,
          });
        });
        child.on("error", (error) => finish(() => reject(new Error(`ripgrep could not be started (${options.rgPath}): ${error.message}`))));
        child.on("close", (code) => {
          lines.close();
          finish(() => {
            // 0: matches, 1: none, 2: an error (an unreadable file still leaves the other results).
            if (code === 2 && matches.length === 0 && /regex parse error|error parsing|unrecognized escape|look-around|backreferences/i.test(stderr)) {
              reject(new RipgrepPatternError(stderr.trim().split("\n").slice(-3).join(" ")));
              return;
            }
            if (code !== 0 && code !== 1 && code !== 2 && !incomplete) {
              reject(new Error(`ripgrep failed (exit ${String(code)}): ${stderr.trim().slice(0, 300)}`));
              return;
            }
            matches.sort(compareMatches);
            resolve({ matches, incomplete, engine: "ripgrep" });
          });
        });
      });
    },
  };
}

/**
 * ripgrep first; the portable engine when rg cannot run or refuses a pattern JavaScript accepts
 * (look-around, backreferences). A pattern neither accepts is the portable engine's error.
 */
export function withPortableFallback(primary: SearchBackend, portable: SearchBackend, log?: (line: string) => void): SearchBackend {
  return {
    async search(request) {
      try {
        return await primary.search(request);
      } catch (error) {
        if (error instanceof WorkspaceToolError) throw error;
        log?.(`ripgrep: ${error instanceof Error ? error.message : String(error)}; using the portable search`);
        return portable.search(request);
      }
    },
  };
}
