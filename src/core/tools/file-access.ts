// Helpers shared by the workspace tools: their limits and the common
// "resolve the path, check it, read the file" step.
import { createHash } from "node:crypto";
import { isInsideGitDir } from "../permissions/protected-paths";
import { checkRealPath, resolveWorkspacePath } from "./paths";
import type { WorkspaceFileSystem } from "./workspace-fs";
import { formatBytes } from "../../shared/format";
import { abortable, throwIfAborted, WorkspaceToolError } from "./tool-error";

/** Files above this size are refused: the whole file is read into memory to slice or edit it. */
export const DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024;

/**
 * edit_file refuses larger files (read_file still pages through them up to DEFAULT_MAX_FILE_BYTES).
 * An edit decodes, searches, hashes and re-encodes the whole file in the extension host: about
 * 0.2 s for 5 MB, 1 s for 20 MB on a busy 2-core machine, with the UI waiting. Beyond it the model
 * is told the file is too large to edit and to ask the user.
 */
export const DEFAULT_MAX_EDIT_FILE_BYTES = 5 * 1024 * 1024;

/**
 * A read that takes longer is given up (the model is told why): a file on a hung network drive or
 * a special file must not hold a run forever. Generous, so a big file on a slow disk still loads.
 */
export const DEFAULT_READ_TIMEOUT_MS = 30_000;

/** Bytes scanned for NUL to decide a file is binary (what git and grep do, roughly). */
export const BINARY_SNIFF_BYTES = 8 * 1024;

/**
 * The file's bytes, read within `timeoutMs` and up to `maxBytes`, honouring `signal` even when the
 * file system does not (the wait is dropped; the adapter's own bound stops the I/O).
 */
export async function readWithin(
  fs: WorkspaceFileSystem,
  realPath: string,
  shownPath: string,
  maxBytes: number,
  signal: AbortSignal | undefined,
  timeoutMs: number = DEFAULT_READ_TIMEOUT_MS,
): Promise<Uint8Array> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const bounded = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    return await abortable(fs.readFile(realPath, { signal: bounded, maxBytes }), bounded);
  } catch (error) {
    if (timeout.aborted && !signal?.aborted) {
      throw new WorkspaceToolError(
        "timeout",
        `Reading ${shownPath} took longer than ${Math.round(timeoutMs / 1000)} s (a slow network drive, or not an ordinary file?), so it was given up.`,
      );
    }
    throw error;
  }
}

export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

export function hasUtf8Bom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export function utf8Length(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** A text file that passed every check, as read from the workspace. */
export interface OpenedFile {
  /** Normalized workspace-relative path as the model asked for it (shown in messages). */
  readonly path: string;
  /** Where the I/O happens, after symlinks (inside the workspace). */
  readonly realPath: string;
  readonly bytes: Uint8Array;
  /** Names of the file (st_nlink) when the file system can tell; see WorkspaceStat.hardLinks. */
  readonly hardLinks?: number;
}

/** Resolve a model-given path to a real path inside the workspace, or throw "invalid_path". */
export async function resolveToolPath(fs: WorkspaceFileSystem, root: string | undefined, input: string): Promise<{ path: string; realPath: string }> {
  const lexical = resolveWorkspacePath(root, input);
  if (!lexical.ok) throw new WorkspaceToolError("invalid_path", lexical.error);
  const real = await checkRealPath(fs, lexical.path);
  if (!real.ok) throw new WorkspaceToolError("invalid_path", real.error);
  return { path: lexical.path, realPath: real.path };
}

/**
 * Resolve, check and read a text file: refuses missing files, directories, special files, files
 * above `maxFileBytes` and binary files (NUL in the first 8 KB), each with a message for the model.
 */
export async function openTextFile(
  fs: WorkspaceFileSystem,
  root: string | undefined,
  input: string,
  maxFileBytes: number,
  signal?: AbortSignal,
  readTimeoutMs?: number,
): Promise<OpenedFile> {
  const file = await openWorkspaceFile(fs, root, input, maxFileBytes, signal, readTimeoutMs);
  if (looksBinary(file.bytes)) {
    throw new WorkspaceToolError("binary", `${file.path} looks like a binary file (it contains NUL bytes); only text files can be read or edited.`);
  }
  return file;
}

/** A workspace file's bytes, with every check of openTextFile but the one for binary content (read_file's images). */
export async function openWorkspaceFile(
  fs: WorkspaceFileSystem,
  root: string | undefined,
  input: string,
  maxFileBytes: number,
  signal?: AbortSignal,
  readTimeoutMs?: number,
): Promise<OpenedFile> {
  const { path, realPath } = await resolveToolPath(fs, root, input);
  throwIfAborted(signal);
  const info = await fs.stat(realPath);
  if (info === undefined) throw new WorkspaceToolError("not_found", `File not found: ${path}`);
  if (info.type === "directory") {
    throw new WorkspaceToolError("not_a_file", `${path} is a directory, not a file. Give the path of a file inside it.`);
  }
  if (info.type !== "file") throw new WorkspaceToolError("not_a_file", `${path} is not a regular file.`);
  if (info.size > maxFileBytes) {
    throw new WorkspaceToolError("too_large", `${path} is too large (${formatBytes(info.size)}; the limit is ${formatBytes(maxFileBytes)}).`);
  }
  // Bounded in bytes, time and by Stop: the file may have become a FIFO or grown since the stat.
  const bytes = await readWithin(fs, realPath, path, maxFileBytes, signal, readTimeoutMs);
  throwIfAborted(signal);
  // The size can grow between stat and read (or an adapter may not know it in advance).
  if (bytes.length > maxFileBytes) {
    throw new WorkspaceToolError("too_large", `${path} is too large (${formatBytes(bytes.length)}; the limit is ${formatBytes(maxFileBytes)}).`);
  }
  return info.hardLinks !== undefined ? { path, realPath, bytes, hardLinks: info.hardLinks } : { path, realPath, bytes };
}

/**
 * A file with several names is refused: its other names may be outside the workspace, so reading
 * it could show an outside file (a hard link is not a symlink: no path check sees it), and
 * writing it would change it under names nobody checked.
 */
export function refuseHardLinks(path: string, hardLinks: number | undefined, tool: "edit_file" | "read_file" = "edit_file"): void {
  if (hardLinks === undefined || hardLinks <= 1) return;
  const what =
    tool === "edit_file"
      ? "edit_file does not change it. Ask the user to edit it themselves."
      : "read_file does not read it. Ask the user to open it themselves.";
  throw new WorkspaceToolError(
    "hard_linked",
    `${path} has ${hardLinks} hard links: it is the same file as ${hardLinks - 1 === 1 ? "another path" : `${hardLinks - 1} other paths`}, possibly outside the workspace, so ${what}`,
  );
}

/** A file or folder a discovery tool starts from, after the same checks read_file makes. */
export interface DiscoveryTarget {
  /** Normalized workspace-relative path as asked ("." for the whole workspace). */
  readonly path: string;
  /** Real workspace-relative path (after symlinks) to walk or search. */
  readonly realPath: string;
  readonly type: "file" | "directory";
}

/**
 * Resolve the optional `path` argument of list_files/find_files/search: contained in the workspace,
 * symlinks resolved, `.git` refused (git's data is never the answer and may hold credentials).
 */
export async function resolveDiscoveryTarget(
  fs: WorkspaceFileSystem,
  root: string | undefined,
  input: string | undefined,
  signal?: AbortSignal,
): Promise<DiscoveryTarget> {
  const { path, realPath } = await resolveToolPath(fs, root, input === undefined || input.trim() === "" ? "." : input);
  throwIfAborted(signal);
  if (isInsideGitDir(realPath) || isInsideGitDir(path)) {
    throw new WorkspaceToolError("invalid_path", `${path} is inside .git, which the tools do not read.`);
  }
  const info = await fs.stat(realPath);
  if (info === undefined) throw new WorkspaceToolError("not_found", `Not found: ${path}`);
  if (info.type === "other") throw new WorkspaceToolError("not_a_file", `${path} is not a regular file or folder.`);
  return { path, realPath, type: info.type };
}

/** Maps a real path found under `target.realPath` back to the path the model asked through. */
export function displayPath(target: DiscoveryTarget, realPath: string): string {
  if (target.path === target.realPath) return realPath;
  const rest = target.realPath === "." ? realPath : realPath.slice(target.realPath.length + 1);
  return target.path === "." ? rest : rest === "" ? target.path : `${target.path}/${rest}`;
}
