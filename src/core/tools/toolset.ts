// The workspace tools a chat gets, built in one place, and what the system prompt says about them.
import type { AgentTool } from "@earendil-works/pi-agent-core";
import { createEditFileTool, type EditFileDetails, type editFileParameters, type EditProposalStore } from "./edit-file";
import { createFindFilesTool } from "./find-files";
import { createListFilesTool } from "./list-files";
import { createReadFileTool } from "./read-file";
import type { ReadImageOptions } from "./read-image";
import { createPortableSearch, type SearchBackend } from "./search-backend";
import { createSearchTool } from "./search";
import type { WalkRules } from "./workspace-walk";
import type { WorkspaceFileSystem } from "./workspace-fs";

export interface WorkspaceToolsetOptions {
  fs: WorkspaceFileSystem;
  /** Absolute workspace root, so the tools accept absolute paths inside it. */
  root?: string;
  /** Where the permission gate leaves approved edit proposals; execute writes only those. */
  proposals: EditProposalStore;
  /** ripgrep in the extension; the portable search over `fs` when not given. */
  searchBackend?: SearchBackend;
  /** VS Code's files.exclude, read at each call (list_files, find_files). */
  rules?: () => WalkRules;
  /** files.exclude and search.exclude, for search (default: `rules`). */
  searchRules?: () => WalkRules;
  /** read_file on an image: whether the model sees images, and the scaler for large ones. */
  readImages?: ReadImageOptions;
  /** Adds to edit_file's results (the language server's problems after an edit). */
  wrapEditFile?: (tool: AgentTool<typeof editFileParameters, EditFileDetails>) => AgentTool<typeof editFileParameters, EditFileDetails>;
}

/** read_file, edit_file (writes only what the gate approved), list_files, find_files, search. */
export function createWorkspaceTools(options: WorkspaceToolsetOptions): AgentTool[] {
  const root = options.root !== undefined ? { root: options.root } : {};
  const rules = options.rules ? { rules: options.rules } : {};
  const wrapEdit = options.wrapEditFile ?? ((tool) => tool);
  return [
    createReadFileTool(options.fs, { ...root, ...(options.readImages ? { images: options.readImages } : {}) }),
    wrapEdit(createEditFileTool(options.fs, { ...root, proposals: options.proposals, requireProposal: true })),
    createListFilesTool(options.fs, { ...root, ...rules }),
    createFindFilesTool(options.fs, { ...root, ...rules }),
    createSearchTool(options.fs, {
      ...root,
      ...(options.searchRules ? { rules: options.searchRules } : rules),
      backend: options.searchBackend ?? createPortableSearch(options.fs),
    }),
  ] as AgentTool[];
}

/** The system prompt's paragraph about the tools: which to reach for, and when. */
export const WORKSPACE_TOOLS_PROMPT = [
  "Tools for the open workspace (paths are relative to the workspace root):",
  "- search: find text or a regex across files (path:line:column: line). Use it first to locate where something is defined or configured when no file is named.",
  "- find_files: find files by glob (e.g. **/*.config.*) when you know roughly the name.",
  "- list_files: see a folder's layout (a tree; ignored files and node_modules left out).",
  "- read_file: read a file (or a range of lines) before answering about it or editing it.",
  "- edit_file: replace text copied from the file (oldText, exactly once in it) with newText; for several changes to one file pass edits: [{oldText, newText}, …] in one call.",
  "The first four only read. Every edit is shown to the user as a diff and applied only if they allow it.",
].join("\n");
