// The core tools' file system over VS Code: reads see the text of open editors (unsaved
// changes included), and writes go through a WorkspaceEdit, so an edit appears in the
// editor, can be undone with Ctrl+Z, and is then saved.
//
// Except when VS Code's copy of a saved file is older than the disk. After a write behind its back
// (a checkpoint restore through workspace.fs, a command, git) VS Code reloads a saved document only
// when its file watcher reports the change: about 80 ms after a workspace.fs write and a second
// after a plain one in code-server 1.100. An edit made from the old copy and saved would undo the
// write without a word (same size: VS Code lets the save through) or fail with "the content of the
// file is newer" and leave the editor dirty (other size). So a saved document counts only while its
// text is the disk's; until VS Code has reloaded it, reads and writes go to the disk, as for a file
// that is not open, and VS Code's reload then shows the result (undoable in the editor too).
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
/** Larger files are not compared with their document (VS Code gives extensions no document over 50 MB). */
const SYNC_CHECK_MAX_BYTES = 64 * 1024 * 1024;

/**
 * A saved document whose text is not what its file holds now (or whose file is gone): VS Code has
 * not reloaded it yet after a write behind its back, and the disk is the truth. Never true of a
 * document with unsaved changes: the user's text is what they see and what a save writes.
 */
export async function isStale(doc: vscode.TextDocument, signal?: AbortSignal): Promise<boolean> {
  if (doc.isDirty) return false;
  let bytes: Uint8Array;
  try {
    bytes =
      doc.uri.scheme === "file"
        ? await readRegularFile(doc.uri.fsPath, doc.uri.fsPath, { maxBytes: SYNC_CHECK_MAX_BYTES, signal })
        : await abortable(Promise.resolve(vscode.workspace.fs.readFile(doc.uri)), signal);
  } catch (error) {
    if (error instanceof WorkspaceToolError && error.code === "aborted") throw error;
    return true; // gone, not a regular file, too large: not the document's text
  }
  // Decoded as VS Code decoded the document (UTF-8 here, without the IPC; else its encoding).
  // A file with mixed line endings never matches (VS Code unifies them): the disk is used, which is exact.
  const text =
    doc.encoding === "utf8" || doc.encoding === "utf8bom"
      ? decoder.decode(bytes)
      : await Promise.resolve(vscode.workspace.decode(bytes, { encoding: doc.encoding })).then(
          (t) => t,
          () => undefined, // binary
        );
  return text !== doc.getText();
}

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

  /** The open document to read and write through, if any: not a stale one (see isStale). */
  async function liveDocument(uri: vscode.Uri, signal?: AbortSignal): Promise<vscode.TextDocument | undefined> {
    const doc = openDocument(uri);
    return doc && !(await isStale(doc, signal)) ? doc : undefined;
  }

  return {
    async stat(path): Promise<WorkspaceStat | undefined> {
      const real = await contained(path);
      const uri = uriOf(real);
      const onDisk = disk ? await disk.stat(real) : undefined;
      const doc = await liveDocument(uri);
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
      const doc = await liveDocument(uri, options.signal);
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
      if (openDocument(uri) && !(await liveDocument(uri))) {
        // A saved document VS Code has not reloaded yet: the disk is written, as a restore does.
        await vscode.workspace.fs.writeFile(uri, data);
        return;
      }
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
