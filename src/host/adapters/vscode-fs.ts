// The core tools' file system over VS Code: reads see the text of open editors (unsaved
// changes included), and writes go through a WorkspaceEdit, so an edit appears in the
// editor, can be undone with Ctrl+Z, and is then saved.
//
// On a local folder every operation first follows the path's symlinks on disk again (as the Node
// adapter does) and works on the real path: a symlink swapped in after the tool's own check can
// not lead a read or a write outside the workspace. Reads of files on disk go through
// readRegularFile (non-blocking open, regular files only, bounded, abortable), because
// workspace.fs.readFile would wait forever on a FIFO.
import * as vscode from "vscode";
import {
  abortable,
  createNodeWorkspaceFs,
  readRegularFile,
  WorkspaceToolError,
  type ReadFileOptions,
  type WorkspaceDirEntry,
  type WorkspaceFileSystem,
  type WorkspaceRealPath,
  type WorkspaceStat,
} from "../../core/tools";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8");
const BOM = "\uFEFF";

export function createVscodeWorkspaceFs(root: vscode.Uri): WorkspaceFileSystem {
  // Symlink containment needs the real disk; for other schemes there are no symlinks to follow.
  const disk = root.scheme === "file" ? createNodeWorkspaceFs(root.fsPath) : undefined;
  const uriOf = (path: string) => (path === "." ? root : vscode.Uri.joinPath(root, ...path.split("/")));
  const openDocument = (uri: vscode.Uri) => vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());

  /** The real workspace-relative path to do I/O on, checked now; throws if it leads outside. */
  async function contained(path: string): Promise<string> {
    if (!disk) return path;
    const real = await disk.realPath(path);
    if (!real.inside)
      throw new WorkspaceToolError("invalid_path", `Invalid path ${JSON.stringify(path)}: the path leads outside the workspace through a symbolic link.`);
    return real.path;
  }

  return {
    async stat(path): Promise<WorkspaceStat | undefined> {
      const real = await contained(path);
      const uri = uriOf(real);
      const onDisk = disk ? await disk.stat(real) : undefined;
      const doc = openDocument(uri);
      if (doc) {
        const size = Buffer.byteLength(doc.getText(), "utf8");
        return onDisk?.hardLinks !== undefined ? { type: "file", size, hardLinks: onDisk.hardLinks } : { type: "file", size };
      }
      if (disk) return onDisk;
      try {
        const s = await vscode.workspace.fs.stat(uri);
        const type = s.type & vscode.FileType.Directory ? "directory" : s.type & vscode.FileType.File ? "file" : "other";
        return { type, size: s.size };
      } catch (error) {
        if (error instanceof vscode.FileSystemError && (error.code === "FileNotFound" || error.code === "FileNotADirectory")) return undefined;
        throw error;
      }
    },

    async readFile(path, options: ReadFileOptions = {}): Promise<Uint8Array> {
      const real = await contained(path);
      const uri = uriOf(real);
      const doc = openDocument(uri);
      if (doc) {
        const text = doc.getText();
        const max = options.maxBytes ?? Number.MAX_SAFE_INTEGER;
        if (Buffer.byteLength(text, "utf8") > max) throw new WorkspaceToolError("too_large", `${path} is too large (over the ${max} byte limit).`);
        return encoder.encode(text);
      }
      if (disk) return readRegularFile(uri.fsPath, path, options);
      // A virtual file system: its provider decides; at least Stop is not kept waiting.
      const bytes = await abortable(Promise.resolve(vscode.workspace.fs.readFile(uri)), options.signal);
      if (options.maxBytes !== undefined && bytes.length > options.maxBytes) throw new WorkspaceToolError("too_large", `${path} is too large.`);
      return bytes;
    },

    async writeFile(path, data): Promise<void> {
      const uri = uriOf(await contained(path));
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
