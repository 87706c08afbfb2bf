// Helpers shared by the workspace tools: the error type they throw and the common
// "resolve the path, check it, read the file" step.
import { createHash } from "node:crypto";
import { isInsideGitDir } from "../permissions/protected-paths";
import { checkRealPath, resolveWorkspacePath } from "./paths";
import type { WorkspaceFileSystem } from "./workspace-fs";

/** Why a tool call failed; the message is what the model reads. */
export type WorkspaceToolErrorCode =
  | "invalid_path"
  | "not_found"
  | "not_a_file"
  | "too_large"
  | "binary"
  | "not_utf8"
  | "offset_out_of_range"
  | "invalid_edit"
  | "invalid_query"
  | "no_match"
  | "ambiguous_match"
  | "overlapping_edits"
  | "no_change"
  | "changed_since_proposal"
  | "proposal_mismatch"
  | "not_approved"
  | "aborted";

/**
 * Thrown by the tools for failures the model can act on. The agent turns any thrown error into an
 * error tool result with `message` as its text; `code` lets the UI or the permission gate tell
 * the kinds apart without parsing text.
 */
export class WorkspaceToolError extends Error {
  constructor(
    readonly code: WorkspaceToolErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "WorkspaceToolError";
  }
}

/** Files above this size are refused: the whole file is read into memory to slice or edit it. */
export const DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024;

/** Bytes scanned for NUL to decide a file is binary (what git and grep do, roughly). */
export const BINARY_SNIFF_BYTES = 8 * 1024;

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new WorkspaceToolError("aborted", "Operation aborted");
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

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round((bytes / 1024) * 10) / 10} KB`;
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** A text file that passed every check, as read from the workspace. */
export interface OpenedFile {
  /** Normalized workspace-relative path as the model asked for it (shown in messages). */
  readonly path: string;
  /** Where the I/O happens, after symlinks (inside the workspace). */
  readonly realPath: string;
  readonly bytes: Uint8Array;
}

/** Resolve a model-given path to a real path inside the workspace, or throw "invalid_path". */
export async function resolveToolPath(
  fs: WorkspaceFileSystem,
  root: string | undefined,
  input: string,
): Promise<{ path: string; realPath: string }> {
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
  const bytes = await fs.readFile(realPath);
  throwIfAborted(signal);
  // The size can grow between stat and read (or an adapter may not know it in advance).
  if (bytes.length > maxFileBytes) {
    throw new WorkspaceToolError("too_large", `${path} is too large (${formatBytes(bytes.length)}; the limit is ${formatBytes(maxFileBytes)}).`);
  }
  if (looksBinary(bytes)) {
    throw new WorkspaceToolError("binary", `${path} looks like a binary file (it contains NUL bytes); only text files can be read or edited.`);
  }
  return { path, realPath, bytes };
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
