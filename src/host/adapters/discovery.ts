// The discovery tools' host side: VS Code's ripgrep (portable search when it is missing or
// refuses a pattern) and the user's files.exclude / search.exclude, read at each call.
import * as vscode from "vscode";
import { createPortableSearch, type SearchBackend, type WalkRules, type WorkspaceFileSystem } from "../../core/tools";
import { createMultiRootFs, createMultiRootSearch } from "../../core/tools/multi-root";
import type { ChatServiceOptions } from "../../core/chat-service";
import { createRipgrepSearch, findVscodeRipgrep, withPortableFallback } from "./ripgrep-search";
import { excludeGlobsSetting } from "../settings";

/** One folder's search: ripgrep in its folder on disk when VS Code has it, else the portable one. */
function folderSearch(folder: vscode.Uri, fs: WorkspaceFileSystem, rgPath: string | undefined, log: (line: string) => void): SearchBackend {
  const portable = createPortableSearch(fs);
  if (!rgPath || folder.scheme !== "file") return portable;
  return withPortableFallback(createRipgrepSearch({ rgPath, folderPath: folder.fsPath }), portable, log);
}

export interface WorkspaceTools {
  fs: WorkspaceFileSystem;
  discovery: NonNullable<ChatServiceOptions["discovery"]>;
}

/**
 * The file system and search engine the tools get for the open folders: the folder's own with one
 * folder, the folders under their names with several (see core/tools/multi-root).
 */
export function createWorkspaceTools(
  folders: readonly { name: string; uri: vscode.Uri; fs: WorkspaceFileSystem }[],
  log: (line: string) => void,
): WorkspaceTools | undefined {
  const first = folders[0];
  if (!first) return undefined;
  // Excludes come from the first folder's (and the user's) settings; per-folder differences are rare.
  const rules = (): WalkRules => ({ excludes: excludeGlobsSetting("files", first.uri) });
  const searchRules = (): WalkRules => ({ excludes: [...excludeGlobsSetting("files", first.uri), ...excludeGlobsSetting("search", first.uri)] });
  const rgPath = findVscodeRipgrep(vscode.env.appRoot);
  log(rgPath ? `search: ripgrep at ${rgPath}` : `search: no ripgrep under ${vscode.env.appRoot}; using the portable search`);
  if (folders.length === 1) {
    return { fs: first.fs, discovery: { searchBackend: folderSearch(first.uri, first.fs, rgPath, log), rules, searchRules } };
  }
  return {
    fs: createMultiRootFs(folders.map((f) => ({ name: f.name, value: f.fs }))),
    discovery: {
      searchBackend: createMultiRootSearch(folders.map((f) => ({ name: f.name, value: folderSearch(f.uri, f.fs, rgPath, log) }))),
      rules,
      searchRules,
    },
  };
}
