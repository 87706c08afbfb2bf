// The types of checkpoints: what a file was and became at each write Pi made, the journal that
// records them per chat, and the workspace I/O a restore needs (injected: Node in the tests and
// the benchmarks, VS Code's workspace.fs in the extension).
import type { WorkspaceDirEntry } from "../tools/workspace-fs";

/** Files larger than this are not kept: a restore lists them as not restorable. */
export const MAX_CHECKPOINT_FILE_BYTES = 5 * 1024 * 1024;

/** What a path held at one moment, as the journal records it. */
export type FileState =
  /** A regular file with this content (sha256 hex); `kept`: its bytes are in the blob store. */
  | { readonly hash: string; readonly size: number; readonly kept: boolean }
  /** Nothing there. */
  | { readonly absent: true }
  /** Something Pi Chat could not keep (said why): a restore cannot bring it back. */
  | { readonly unknown: string };

export const ABSENT: FileState = { absent: true };

/**
 * The reason recorded for a secret file (SECRET_FILES in permissions/protected-paths.ts: `.env*`,
 * private keys, credentials): its content is never read into storage, not even as a hash, so no
 * copy outlives a key's rotation. A restore lists it as "not kept".
 */
export const SECRET_NOT_KEPT = "secrets are never copied";
export const SECRET_STATE: FileState = { unknown: SECRET_NOT_KEPT };

export function isAbsent(s: FileState): s is { absent: true } {
  return "absent" in s;
}
export function isFileState(s: FileState): s is { hash: string; size: number; kept: boolean } {
  return "hash" in s;
}
/** Same content (or both absent); unknown equals nothing. */
export function sameState(a: FileState, b: FileState): boolean {
  if (isAbsent(a) && isAbsent(b)) return true;
  return isFileState(a) && isFileState(b) && a.hash === b.hash;
}

/** A FileState as read back from storage (a journal line, the pending record): any other shape is damage. */
export function isStoredFileState(value: unknown): value is FileState {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  if ("absent" in v) return v["absent"] === true;
  if ("unknown" in v) return typeof v["unknown"] === "string";
  return typeof v["hash"] === "string" && /^[0-9a-f]{64}$/.test(v["hash"]) && typeof v["size"] === "number" && typeof v["kept"] === "boolean";
}

/** A workspace path as the tools write it: relative, POSIX, no `.`/`..` segment, no NUL or backslash. */
export function isStoredPath(value: unknown): value is string {
  return (
    typeof value === "string" &&
    value !== "" &&
    value.length <= 4096 &&
    !value.startsWith("/") &&
    !/[\0\\]/.test(value) &&
    value.split("/").every((p) => p !== "" && p !== "." && p !== "..")
  );
}

/** One journal line's value, if it has the shape of an entry (planning trusts these fields). */
export function isJournalEntry(value: unknown): value is JournalEntry {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  switch (v["t"]) {
    case "mark":
      return typeof v["id"] === "string";
    case "change":
      return isStoredPath(v["path"]) && isStoredFileState(v["before"]) && isStoredFileState(v["after"]);
    case "restored":
      return typeof v["restore"] === "string" && typeof v["toMark"] === "string";
    default:
      return false;
  }
}

/** Which of Pi's ways of writing made a change. */
export type ChangeSource = "edit" | "apply" | "command" | "restore";

/** One line of a chat's journal, in the order things happened. */
export type JournalEntry =
  /** A user message (its transcript node id) was sent: the files as they are now are its checkpoint. */
  | { readonly t: "mark"; readonly id: string; readonly at: number }
  /** Pi (or a restore) changed `path` from `before` to `after`. */
  | { readonly t: "change"; readonly path: string; readonly before: FileState; readonly after: FileState; readonly by: ChangeSource; readonly at: number }
  /** A restore finished; its changes are the entries before this line with the same `restore`. */
  | { readonly t: "restored"; readonly restore: string; readonly toMark: string; readonly at: number };

/** lstat: what is at a path itself (a symlink is reported, not followed). */
export interface EntryStat {
  readonly type: "file" | "directory" | "symlink" | "other";
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
  /** Names the file has (hard links); 1 or absent for an ordinary file. */
  readonly links?: number;
  /**
   * When its content or metadata last changed (the kernel stamps it; no program can set it back):
   * tells a change made before a command from one made while it ran. Absent: not known.
   */
  readonly ctimeMs?: number;
}

/**
 * Why a file with `links` names is never written (a restore, *Apply to file*): a write through a
 * hard link changes every name, and another name may be outside the workspace (a link to
 * ~/.bashrc). Refused rather than replaced by a new file: replacing would silently cut a link the
 * user may have made on purpose, and the preview would not say so.
 */
export function hardLinkReason(links: number): string {
  return `it is a hard link (${links} names for one file, maybe one outside the workspace), and a write would change every one; to change it here, break the link first (copy the file to a new name and move that over it)`;
}

/**
 * The workspace as checkpoints see it. Paths are the tools' workspace-relative POSIX paths
 * (`folder/path` in a multi-root workspace).
 */
export interface CheckpointIo {
  lstat(path: string): Promise<EntryStat | undefined>;
  readDirectory(path: string): Promise<WorkspaceDirEntry[]>;
  /**
   * The entries of a folder with the lstat of each regular file, for the walk around a command
   * (optional: without it, readDirectory and lstat are used one by one). The Node implementation
   * does it with synchronous calls, a folder at a time: an lstat through the thread pool costs
   * several times more, and the walk sits on the command's path.
   */
  statDirectory?(path: string): Promise<{ entries: WorkspaceDirEntry[]; files: Map<string, EntryStat> }>;
  /** The bytes on disk (not an editor's unsaved text); a regular file only, never through a symlink. */
  readFile(path: string, maxBytes: number): Promise<Uint8Array>;
  /** True when no folder on the way to `path` (below its workspace folder) is a symlink, and the path is inside a folder. */
  plainPath(path: string): Promise<boolean>;
  /** Creates or replaces the file (parent folders created). The extension writes through workspace.fs. */
  writeFile(path: string, data: Uint8Array): Promise<void>;
  /** Deletes one file (never a folder). */
  deleteFile(path: string): Promise<void>;
  /** The file is open in an editor with unsaved changes. */
  isDirty(path: string): boolean;
}
