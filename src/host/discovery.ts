// The discovery tools' host side: VS Code's ripgrep (portable search when it is missing or
// refuses a pattern) and the user's files.exclude / search.exclude, read at each call.
import * as vscode from "vscode";
import { createPortableSearch, type WalkRules, type WorkspaceFileSystem } from "../core/tools";
import type { ChatServiceOptions } from "../core/chat-service";
import { createRipgrepSearch, findVscodeRipgrep, withPortableFallback } from "./ripgrep-search";

/** The `true` keys of an exclude setting (`when` clauses cannot be evaluated here and are skipped). */
function excludeGlobs(section: "files" | "search", folder: vscode.Uri | undefined): string[] {
  const value = vscode.workspace.getConfiguration(section, folder).get<Record<string, unknown>>("exclude") ?? {};
  return Object.entries(value)
    .filter(([glob, on]) => on === true && typeof glob === "string")
    .map(([glob]) => glob);
}

export function createDiscovery(
  folder: vscode.Uri | undefined,
  fs: WorkspaceFileSystem,
  log: (line: string) => void,
): NonNullable<ChatServiceOptions["discovery"]> {
  const rules = (): WalkRules => ({ excludes: excludeGlobs("files", folder) });
  const searchRules = (): WalkRules => ({ excludes: [...excludeGlobs("files", folder), ...excludeGlobs("search", folder)] });
  const portable = createPortableSearch(fs);
  const rgPath = folder?.scheme === "file" ? findVscodeRipgrep(vscode.env.appRoot) : undefined;
  if (!rgPath || !folder) {
    log(`search: ${folder ? `no ripgrep under ${vscode.env.appRoot}` : "no folder"}; using the portable search`);
    return { searchBackend: portable, rules, searchRules };
  }
  log(`search: ripgrep at ${rgPath}`);
  return { searchBackend: withPortableFallback(createRipgrepSearch({ rgPath, folderPath: folder.fsPath }), portable, log), rules, searchRules };
}
