// The file I/O the workspace tools need, and an implementation over Node's fs.
//
// Tools never touch the disk themselves: they get a WorkspaceFileSystem. Unit tests use
// createNodeWorkspaceFs over a temp dir; the extension uses an adapter over vscode.workspace.fs
// (which can read unsaved editor text and write through a WorkspaceEdit).
import { constants } from "node:fs";
import { lstat, open, readdir, readlink, realpath, stat, writeFile, type FileHandle } from "node:fs/promises";
import * as nodePath from "node:path";
import { formatBytes } from "../../shared/format";
import { abortable, WorkspaceToolError } from "./tool-error";

/** What a path names, after following symlinks. */
export type WorkspaceEntryType = "file" | "directory" | "other";

export interface WorkspaceStat {
  /** "other" covers sockets, FIFOs, devices: tools refuse them (reading a FIFO can block forever). */
  readonly type: WorkspaceEntryType;
  /** Size in bytes (of the content readFile would return, as far as the implementation knows). */
  readonly size: number;
  /**
   * How many directory entries name this file (st_nlink), when the implementation can tell. More
   * than one means a write here also changes the file under its other names, which may lie outside
   * the workspace (no symlink check can see that), so edits refuse such files.
   */
  readonly hardLinks?: number;
}

/** Bounds for one read: a FIFO, a device or a hung network drive must not hold a tool forever. */
export interface ReadFileOptions {
  /** Stop waiting (and reject with an "aborted" WorkspaceToolError) when this fires. */
  readonly signal?: AbortSignal;
  /** Reject with a "too_large" WorkspaceToolError rather than read more than this many bytes. */
  readonly maxBytes?: number;
}

/** One entry of a directory, as it is (a symlink is reported as one, not followed). */
export interface WorkspaceDirEntry {
  readonly name: string;
  readonly type: "file" | "directory" | "symlink" | "other";
}

/** Where a path really leads once every symlink in it is followed. */
export type WorkspaceRealPath =
  /** `path` is workspace-relative POSIX, "." for the root itself. */
  { readonly inside: true; readonly path: string } | { readonly inside: false };

/**
 * The file system of one workspace folder, as the tools see it.
 *
 * Every `path` argument is a workspace-relative POSIX path that `resolveWorkspacePath` has already
 * validated: segments separated by "/", no "", "." or ".." segments, no leading "/", no "\\",
 * no NUL; the root itself is ".". Implementations may assume this (and should reject anything else
 * rather than interpret it).
 *
 * The tools call `realPath` first and refuse paths that lead outside the workspace; they then do
 * their I/O on the real path it returned. readFile and writeFile must agree: after writeFile(p, b),
 * readFile(p) returns b.
 */
export interface WorkspaceFileSystem {
  /**
   * Type and size of what `path` names (following symlinks), or `undefined` when nothing exists
   * there (including when a parent is not a directory). Other failures reject.
   */
  stat(path: string): Promise<WorkspaceStat | undefined>;

  /**
   * The current bytes of the file. An editor-backed adapter returns the unsaved text of an open
   * document (UTF-8 encoded) so edits apply to what the user sees. Rejects if the file is missing,
   * if it is not a regular file when it is opened (it may have become a FIFO since `stat`), if it
   * holds more than `options.maxBytes`, or when `options.signal` aborts; it must never wait for a
   * writer (open FIFOs non-blocking).
   */
  readFile(path: string, options?: ReadFileOptions): Promise<Uint8Array>;

  /**
   * Replace the whole content of the file with `data`. edit_file only writes files that exist;
   * an adapter may refuse to create new ones.
   */
  writeFile(path: string, data: Uint8Array): Promise<void>;

  /**
   * Follow every symlink in `path` and say whether the target is inside the workspace root.
   * Must also work for paths that do not exist (yet): resolve the deepest existing ancestor and
   * append the rest, following a dangling symlink's target rather than trusting its location.
   * An implementation without symlinks (a virtual file system) returns `{ inside: true, path }`.
   */
  realPath(path: string): Promise<WorkspaceRealPath>;

  /**
   * The entries of a directory, in any order, without "." and "..". Symlinks are reported as
   * "symlink" and not followed: the discovery tools never walk through them (neither does ripgrep).
   */
  readDirectory(path: string): Promise<WorkspaceDirEntry[]>;
}

/** On POSIX a backslash is an ordinary file name character, so only Windows splits on it. */
const SEPARATORS = nodePath.sep === "\\" ? /[\\/]/ : /\//;

/** Longest chain of symlinks followed before giving up (the same limit Linux uses). */
const MAX_SYMLINK_HOPS = 40;

/** Most bytes per read() call: between chunks the abort signal is checked. */
const READ_CHUNK_BYTES = 1024 * 1024;
/** Least bytes asked for per read() call (after the size stat gave, to find the end). */
const MIN_READ_BYTES = 64 * 1024;

// O_NONBLOCK: opening a FIFO for reading must not wait for a writer. O_NOFOLLOW: the last
// component was resolved just before; if a symlink was swapped in since, refuse. (Both are 0 on
// Windows, which has neither FIFOs in the file system nor this race on symlinks.)
const OPEN_FOR_READ = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/**
 * Reads a regular file through one handle: opened non-blocking and without following a last
 * symlink, checked to be a regular file on the handle itself (what `stat` said a moment ago may no
 * longer be true), read in chunks up to `maxBytes`, and given up on when the signal aborts.
 */
export async function readRegularFile(absPath: string, shownPath: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
  const { signal } = options;
  const maxBytes = options.maxBytes ?? Number.MAX_SAFE_INTEGER;
  if (signal?.aborted) throw new WorkspaceToolError("aborted", "Operation aborted");
  let handle: FileHandle;
  try {
    handle = await abortable(open(absPath, OPEN_FOR_READ), signal);
  } catch (error) {
    if (errorCode(error) === "ELOOP")
      throw new WorkspaceToolError("invalid_path", `${shownPath} changed into a symbolic link while it was being read; try again.`);
    throw error;
  }
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    // Not awaited on abort: a read stuck in the kernel must not hold the tool.
    handle.close().catch(() => undefined);
  };
  signal?.addEventListener("abort", close, { once: true });
  try {
    const info = await abortable(handle.stat(), signal);
    if (!info.isFile()) throw new WorkspaceToolError("not_a_file", `${shownPath} is not a regular file.`);
    if (info.size > maxBytes) {
      throw new WorkspaceToolError("too_large", `${shownPath} is too large (${formatBytes(info.size)}; the limit is ${formatBytes(maxBytes)}).`);
    }
    // The file may grow while it is read: never take more than maxBytes + 1 (enough to know it is over).
    const limit = Math.min(maxBytes + 1, Number.MAX_SAFE_INTEGER);
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const want = Math.min(READ_CHUNK_BYTES, limit - total, Math.max(info.size - total, MIN_READ_BYTES));
      const buffer = new Uint8Array(want);
      const { bytesRead } = await abortable(handle.read(buffer, 0, want, null), signal);
      if (bytesRead === 0) break;
      chunks.push(bytesRead === want ? buffer : buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) {
        throw new WorkspaceToolError("too_large", `${shownPath} is too large (over ${formatBytes(maxBytes)}, the limit).`);
      }
    }
    if (chunks.length === 1) return chunks[0]!;
    const out = new Uint8Array(total);
    let at = 0;
    for (const chunk of chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  } finally {
    signal?.removeEventListener("abort", close);
    close();
  }
}

function errorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}

function isNotFound(error: unknown): boolean {
  const code = errorCode(error);
  return code === "ENOENT" || code === "ENOTDIR";
}

/** Throws for anything that is not a path in the form the interface promises. */
function assertCleanRelPath(path: string): void {
  if (path === ".") return;
  const bad =
    path.length === 0 ||
    path.includes("\0") ||
    path.includes("\\") ||
    path.startsWith("/") ||
    nodePath.win32.isAbsolute(path) ||
    path.split("/").some((s) => s === "" || s === "." || s === "..");
  if (bad) throw new Error(`Not a validated workspace-relative path: ${JSON.stringify(path)}`);
}

/**
 * A WorkspaceFileSystem over a directory on disk. Each operation re-checks, with realpath, that the
 * path stays inside the root (so this is safe even if a caller skipped the tools' own checks), and
 * does its I/O on the resolved path.
 */
export function createNodeWorkspaceFs(root: string): WorkspaceFileSystem {
  const absRoot = nodePath.resolve(root);
  // The root itself may sit behind a symlink (macOS /tmp -> /private/tmp); compare real to real.
  let realRootPromise: Promise<string> | undefined;
  const realRoot = (): Promise<string> =>
    (realRootPromise ??= realpath(absRoot).catch((error: unknown) => {
      realRootPromise = undefined; // the folder may appear later: do not cache the failure
      throw error;
    }));

  /**
   * realpath that also works when the tail of the path does not exist: walks the components,
   * following each symlink (dangling ones too: their target is where a write would land).
   */
  // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one walk of a path following each symlink in turn; the containment argument needs it in one piece
  async function resolveReal(abs: string): Promise<string> {
    try {
      return await realpath(abs);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    const parsed = nodePath.parse(abs);
    let current = parsed.root;
    const queue = abs.slice(parsed.root.length).split(SEPARATORS);
    let hops = 0;
    let missing = false;
    while (queue.length > 0) {
      const segment = queue.shift() ?? "";
      if (segment === "" || segment === ".") continue;
      // `current` never contains a symlink, so ".." can be applied lexically.
      if (segment === "..") {
        current = nodePath.dirname(current);
        continue;
      }
      const next = nodePath.join(current, segment);
      if (missing) {
        current = next;
        continue;
      }
      const info = await lstat(next).catch((error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      });
      if (info === undefined) {
        missing = true;
        current = next;
      } else if (info.isSymbolicLink()) {
        if (++hops > MAX_SYMLINK_HOPS) throw new Error("Too many levels of symbolic links");
        const target = await readlink(next);
        const targetRoot = nodePath.parse(target).root;
        if (targetRoot !== "") current = targetRoot;
        queue.unshift(...target.slice(targetRoot.length).split(SEPARATORS));
      } else {
        current = next;
      }
    }
    return current;
  }

  async function locate(path: string): Promise<{ abs: string; real: WorkspaceRealPath }> {
    assertCleanRelPath(path);
    const abs = await resolveReal(nodePath.join(absRoot, path));
    const rel = nodePath.relative(await realRoot(), abs);
    const outside = rel === ".." || rel.startsWith(`..${nodePath.sep}`) || nodePath.isAbsolute(rel);
    if (outside) return { abs, real: { inside: false } };
    return { abs, real: { inside: true, path: rel === "" ? "." : rel.split(nodePath.sep).join("/") } };
  }

  async function insideAbs(path: string): Promise<string> {
    const { abs, real } = await locate(path);
    if (!real.inside) throw new Error(`Path leads outside the workspace: ${path}`);
    return abs;
  }

  return {
    async stat(path) {
      const abs = await insideAbs(path);
      try {
        const info = await stat(abs);
        const type: WorkspaceEntryType = info.isFile() ? "file" : info.isDirectory() ? "directory" : "other";
        return { type, size: info.size, hardLinks: info.nlink };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
    async readFile(path, options) {
      return readRegularFile(await insideAbs(path), path, options);
    },
    async writeFile(path, data) {
      await writeFile(await insideAbs(path), data);
    },
    async realPath(path) {
      return (await locate(path)).real;
    },
    async readDirectory(path) {
      const entries = await readdir(await insideAbs(path), { withFileTypes: true });
      return entries.map((e) => ({
        name: e.name,
        type: e.isSymbolicLink() ? "symlink" : e.isDirectory() ? "directory" : e.isFile() ? "file" : "other",
      }));
    },
  };
}
