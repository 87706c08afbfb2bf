// The core tools' file system over VS Code: reads see the text of open editors (unsaved
// changes included), and writes go through a WorkspaceEdit, so an edit appears in the
// editor, can be undone with Ctrl+Z, and is then saved.
import * as vscode from "vscode";
import { createNodeWorkspaceFs, type WorkspaceDirEntry, type WorkspaceFileSystem, type WorkspaceRealPath, type WorkspaceStat } from "../core/tools";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8");
const BOM = "\uFEFF";

export function createVscodeWorkspaceFs(root: vscode.Uri): WorkspaceFileSystem {
  // Symlink containment needs the real disk; for other schemes there are no symlinks to follow.
  const disk = root.scheme === "file" ? createNodeWorkspaceFs(root.fsPath) : undefined;
  const uriOf = (path: string) => (path === "." ? root : vscode.Uri.joinPath(root, ...path.split("/")));
  const openDocument = (uri: vscode.Uri) => vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());

  return {
    async stat(path): Promise<WorkspaceStat | undefined> {
      const uri = uriOf(path);
      const doc = openDocument(uri);
      if (doc) return { type: "file", size: encoder.encode(doc.getText()).length };
      try {
        const s = await vscode.workspace.fs.stat(uri);
        const type = s.type & vscode.FileType.Directory ? "directory" : s.type & vscode.FileType.File ? "file" : "other";
        return { type, size: s.size };
      } catch (error) {
        if (error instanceof vscode.FileSystemError && (error.code === "FileNotFound" || error.code === "FileNotADirectory")) return undefined;
        throw error;
      }
    },

    async readFile(path): Promise<Uint8Array> {
      const uri = uriOf(path);
      const doc = openDocument(uri);
      return doc ? encoder.encode(doc.getText()) : vscode.workspace.fs.readFile(uri);
    },

    async writeFile(path, data): Promise<void> {
      const uri = uriOf(path);
      let text = decoder.decode(data);
      // The document model has no BOM; VS Code keeps the file's encoding (utf8bom) when saving.
      if (text.startsWith(BOM)) text = text.slice(BOM.length);
      // Always ask for the document afresh: an instance found earlier may belong to an editor
      // (the diff view) that was closed meanwhile, and a closed document cannot be saved.
      const doc = await vscode.workspace.openTextDocument(uri);
      const edit = new vscode.WorkspaceEdit();
      edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), text);
      if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`VS Code refused the edit of ${path}.`);
      const edited = await vscode.workspace.openTextDocument(uri);
      if (!(await edited.save())) throw new Error(`The edit of ${path} was applied in the editor but could not be saved.`);
    },

    async realPath(path): Promise<WorkspaceRealPath> {
      return disk ? disk.realPath(path) : { inside: true, path };
    },

    async readDirectory(path): Promise<WorkspaceDirEntry[]> {
      // The disk itself when there is one: VS Code's readDirectory reports a symlink to a folder
      // as a folder too, and the walk must not go through links.
      if (disk) return disk.readDirectory(path);
      const entries = await vscode.workspace.fs.readDirectory(uriOf(path));
      return entries.map(([name, type]) => ({
        name,
        type: type & vscode.FileType.SymbolicLink ? "symlink" : type & vscode.FileType.Directory ? "directory" : type & vscode.FileType.File ? "file" : "other",
      }));
    },
  };
}
