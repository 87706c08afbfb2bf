// find_files: file paths matching a glob (VS Code's syntax), shortest first. Read-only, no approval.
import type { AgentTool, AgentToolResult } from "@earendil-works/pi-agent-core";
import { obj, opt, str, type Static } from "@earendil-works/pi-schema";
import { compileGlob } from "./glob";
import { capLines, capReason, type OutputCaps } from "./output-caps";
import { displayPath, resolveDiscoveryTarget } from "./file-access";
import { throwIfAborted, WorkspaceToolError } from "./tool-error";
import { MAX_WALK_ENTRIES, walkWorkspace, type WalkRules } from "./workspace-walk";
import type { WorkspaceFileSystem } from "./workspace-fs";

/** Paths shown, and their bytes. */
export const FIND_CAPS: OutputCaps = { maxLines: 200, maxBytes: 16 * 1024 };

export const findFilesParameters = obj({
  pattern: str({
    description:
      "Glob in VS Code syntax: * ? ** {a,b} [a-z]. Without / it matches file names anywhere (config.*); with / the path from the folder searched (src/**/*.test.ts).",
  }),
  path: opt(str({ description: "Folder to search in, relative to the workspace root. Default: the whole workspace." })),
});

export type FindFilesParams = Static<typeof findFilesParameters>;

export interface FindFilesDetails {
  pattern: string;
  path: string;
  /** Shown paths, workspace-relative. */
  files: string[];
  total: number;
  truncated: boolean;
}

export interface FindFilesToolOptions {
  root?: string;
  rules?: () => WalkRules;
  caps?: OutputCaps;
}

export function createFindFilesTool(fs: WorkspaceFileSystem, options: FindFilesToolOptions = {}): AgentTool<typeof findFilesParameters, FindFilesDetails> {
  const caps = options.caps ?? FIND_CAPS;
  return {
    name: "find_files",
    label: "Find files",
    description:
      "Find files by name or path pattern (glob), honouring .gitignore and the editor's excludes. Returns workspace-relative paths, " +
      `shortest first, at most ${caps.maxLines}. Use it when you know roughly what a file is called.`,
    parameters: findFilesParameters,
    async execute(_toolCallId, params, signal): Promise<AgentToolResult<FindFilesDetails>> {
      throwIfAborted(signal);
      const glob = compileGlob(params.pattern);
      if (!glob.ok) throw new WorkspaceToolError("invalid_path", glob.error);
      const target = await resolveDiscoveryTarget(fs, options.root, params.path, signal);
      if (target.type !== "directory") {
        throw new WorkspaceToolError("not_a_file", `${target.path} is a file, not a folder; give the folder to search in (or leave path out).`);
      }
      const state = { truncated: false };
      const found: string[] = [];
      const prefix = target.realPath === "." ? 0 : target.realPath.length + 1;
      for await (const entry of walkWorkspace(fs, { ...(options.rules?.() ?? {}), start: target.realPath, ...(signal ? { signal } : {}) }, state)) {
        // The pattern is relative to the folder searched, like VS Code's "files to include" in a folder.
        if (entry.type === "file" && glob.test(entry.path.slice(prefix))) found.push(displayPath(target, entry.path));
      }
      found.sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
      const capped = capLines(found, caps);
      const where = target.path === "." ? "the workspace" : target.path;
      let text = found.length === 0 ? `No files match ${JSON.stringify(params.pattern)} in ${where}.` : capped.text;
      if (capped.shown < found.length) {
        text += `\n\n[${found.length - capped.shown} more files not shown (${capReason(capped, caps, "path")}). Use a narrower pattern or path.]`;
      }
      if (state.truncated) text += `\n[The walk stopped after ${MAX_WALK_ENTRIES} entries; give a path to look deeper.]`;
      return {
        content: [{ type: "text", text }],
        details: {
          pattern: params.pattern,
          path: target.path,
          files: found.slice(0, capped.shown),
          total: found.length,
          truncated: capped.shown < found.length || state.truncated,
        },
      };
    },
  };
}
