// The paths the tools use, for the open folders: plain relative paths with one folder,
// `folderName/relative/path` with several (names made unique: two `app` folders are `app` and
// `app-2`). The one place the host turns a tool path into a URI and back.
import * as path from "node:path";
import * as vscode from "vscode";
import { folderNames } from "../../core/tools/multi-root";

export interface NamedFolder {
  readonly name: string;
  readonly uri: vscode.Uri;
}

export class WorkspacePaths {
  readonly folders: readonly NamedFolder[];

  constructor(workspaceFolders: readonly vscode.WorkspaceFolder[] | undefined) {
    const list = workspaceFolders ?? [];
    const names = folderNames(list.map((f) => f.name));
    this.folders = list.map((f, i) => ({ name: names[i]!, uri: f.uri }));
  }

  /** More than one folder: paths start with the folder's name. */
  get multiRoot(): boolean {
    return this.folders.length > 1;
  }

  /** The URI of a tool path, or undefined (no folder, an unknown folder name, a path that climbs). */
  uriOf(toolPath: string): vscode.Uri | undefined {
    const parts = toolPath.split("/").filter((p) => p !== "" && p !== ".");
    if (parts.includes("..") || toolPath.startsWith("/")) return undefined;
    if (!this.multiRoot) {
      const root = this.folders[0]?.uri;
      return root && (parts.length === 0 ? root : vscode.Uri.joinPath(root, ...parts));
    }
    const [name, ...rest] = parts;
    const folder = this.folders.find((f) => f.name === name);
    return folder && (rest.length === 0 ? folder.uri : vscode.Uri.joinPath(folder.uri, ...rest));
  }

  /** The tool path of a URI inside one of the folders (the innermost folder holding it), else undefined. */
  pathOf(uri: vscode.Uri): string | undefined {
    let best: { folder: NamedFolder; rel: string } | undefined;
    for (const folder of this.folders) {
      if (folder.uri.scheme !== uri.scheme || folder.uri.authority !== uri.authority) continue;
      const rel = path.posix.relative(folder.uri.path, uri.path);
      if (rel === "" || rel.startsWith("..") || path.posix.isAbsolute(rel)) continue;
      // Nested folders: the deepest one names the file, as VS Code's getWorkspaceFolder does.
      if (!best || folder.uri.path.length > best.folder.uri.path.length) best = { folder, rel };
    }
    if (!best) return undefined;
    return this.multiRoot ? `${best.folder.name}/${best.rel}` : best.rel;
  }
}
