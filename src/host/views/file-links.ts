// A file link the webview asked to open (a path in model output): through the same path guard as
// the tools, and a refusal is logged, never a popup a message could raise.
import * as vscode from "vscode";
import { resolveToolPath, type WorkspaceFileSystem } from "../../core/tools";
import type { WorkspacePaths } from "../adapters/workspace-paths";

export class FileLinks {
  constructor(
    private readonly fs: WorkspaceFileSystem,
    /** The one folder's root (absolute paths inside it are accepted); undefined with several folders. */
    private readonly workspaceRoot: vscode.Uri | undefined,
    private readonly paths: WorkspacePaths,
    private readonly log: (line: string) => void,
  ) {}

  async open(requested: string, line: number | undefined): Promise<void> {
    const root = this.workspaceRoot;
    let relative: string;
    try {
      relative = (await resolveToolPath(this.fs, root?.scheme === "file" ? root.fsPath : undefined, requested)).realPath;
    } catch (error) {
      this.log(`not opening ${JSON.stringify(requested.slice(0, 200))}: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const uri = this.paths.uriOf(relative);
    if (!uri) return;
    const doc = await vscode.workspace.openTextDocument(uri);
    const position = new vscode.Position(Math.max(0, (line ?? 1) - 1), 0);
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(position, position), preview: true });
  }
}
