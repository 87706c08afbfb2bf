// The restore planner: from a chat's journal, what putting the files back to a checkpoint would
// write, delete and skip, and why. It reads the workspace but changes nothing.
//
// For each path Pi changed after the checkpoint, the changes recorded since then must form one
// chain (each change starts from what the one before left): then the first change's `before` is
// what the file was at the checkpoint, and the last change's `after` is what Pi left. A file is
// written back only when its current content is exactly what Pi left; a file Pi created is
// deleted only on the same condition. Anything else is skipped with its reason.
import { isInsideGitDir, isSecretFile } from "../permissions/protected-paths";
import { IgnoreRules, type WalkRules } from "../tools/workspace-walk";
import { sha256 } from "./storage";
import {
  type CheckpointIo,
  type FileState,
  hardLinkReason,
  isAbsent,
  isFileState,
  type JournalEntry,
  MAX_CHECKPOINT_FILE_BYTES,
  SECRET_NOT_KEPT,
  sameState,
} from "./types";

/** What Pi did to a file since the checkpoint, as the preview says it. */
export type PiDid = "modified" | "created" | "deleted";

export interface PlannedFile {
  readonly path: string;
  readonly piDid: PiDid;
  /** What the restore writes (`absent`: deletes). Its bytes are in the blob store. */
  readonly target: FileState;
  /** What is there now (exactly what Pi left). */
  readonly current: FileState;
}

export interface SkippedFile {
  readonly path: string;
  readonly piDid: PiDid;
  readonly reason: string;
}

export interface RestorePlan {
  readonly markId: string;
  readonly files: readonly PlannedFile[];
  readonly skipped: readonly SkippedFile[];
  /** Journal lines that were not entries and were skipped (damaged storage): the preview says how many. */
  readonly damagedLines?: number;
}

export interface PlanContext {
  readonly io: CheckpointIo;
  readonly rules: () => WalkRules;
  /** Whether a blob is kept (the target's bytes must exist to write them). */
  readonly hasBlob: (hash: string) => Promise<boolean>;
  readonly maxFileBytes?: number;
}

/** The changes after the mark, by path, in order; undefined when the journal has no such mark. */
export function changesAfter(journal: readonly JournalEntry[], markId: string): Map<string, Extract<JournalEntry, { t: "change" }>[]> | undefined {
  const at = journal.findIndex((e) => e.t === "mark" && e.id === markId);
  if (at === -1) return undefined;
  const byPath = new Map<string, Extract<JournalEntry, { t: "change" }>[]>();
  for (const e of journal.slice(at + 1)) {
    if (e.t !== "change") continue;
    const list = byPath.get(e.path);
    if (list) list.push(e);
    else byPath.set(e.path, [e]);
  }
  return byPath;
}

/** What is at `path` now, as a FileState, or why it cannot be compared (a folder, a link…). */
export async function currentState(io: CheckpointIo, path: string, expected: FileState, maxFileBytes: number): Promise<FileState | { why: string }> {
  const st = await io.lstat(path);
  if (!st) return { absent: true };
  if (st.type === "symlink") return { why: "it is a symbolic link now" };
  if (st.type === "directory") return { why: "a folder is there now" };
  if (st.type !== "file") return { why: "it is not a regular file now" };
  // A size that differs from what Pi left is a change without reading a byte.
  if (isFileState(expected) && st.size !== expected.size) return { hash: "", size: st.size, kept: false };
  if (st.size > maxFileBytes) return { why: `it is larger than ${Math.round(maxFileBytes / (1024 * 1024))} MB` };
  const bytes = await io.readFile(path, maxFileBytes);
  return { hash: sha256(bytes), size: bytes.length, kept: false };
}

function describeDifference(piDid: PiDid, current: FileState, last: FileState): string {
  if (isAbsent(current)) return piDid === "deleted" ? "" : "deleted since Pi changed it";
  if (isAbsent(last)) return "created again since Pi deleted it";
  return "changed since Pi wrote it (your edit is kept)";
}

// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the restore rules, one decision per file, kept in one place so the safety rules read together (docs/checkpoints.md)
export async function planRestore(journal: readonly JournalEntry[], markId: string, ctx: PlanContext): Promise<RestorePlan | undefined> {
  const byPath = changesAfter(journal, markId);
  if (!byPath) return undefined;
  const maxFileBytes = ctx.maxFileBytes ?? MAX_CHECKPOINT_FILE_BYTES;
  const files: PlannedFile[] = [];
  const skipped: SkippedFile[] = [];
  const rules = new IgnoreRules({ readFile: (p) => ctx.io.readFile(p, 1024 * 1024) }, ctx.rules());
  for (const [path, changes] of [...byPath].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const first = changes[0]!;
    const last = changes[changes.length - 1]!;
    const target = first.before;
    const piDid: PiDid = isAbsent(target) ? "created" : isAbsent(last.after) ? "deleted" : "modified";
    const skip = (reason: string) => skipped.push({ path, piDid, reason });
    // Nothing to undo: Pi created and deleted it again, or changed it back.
    if (sameState(target, last.after)) continue;
    if (isInsideGitDir(path)) {
      skip("inside .git, which a restore never touches");
      continue;
    }
    // Also when an older journal kept its bytes: a restore never writes a secret from storage.
    if (isSecretFile(path)) {
      skip(SECRET_NOT_KEPT);
      continue;
    }
    if (!(await ctx.io.plainPath(path))) {
      skip("not inside a workspace folder, or reached through a symbolic link");
      continue;
    }
    const parent = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : ".";
    await rules.enterAncestors(parent);
    if (rules.skips(path, "file")) {
      skip("an ignored file (ignore rules or files.exclude), which a restore never touches");
      continue;
    }
    const broken = changes.findIndex((c, i) => i > 0 && !sameState(changes[i - 1]!.after, c.before));
    if (broken !== -1) {
      skip("changed outside Pi between Pi's changes, so its earlier content would undo your work");
      continue;
    }
    if ("unknown" in target) {
      skip(`changed by a command; its earlier content was not kept (${target.unknown})`);
      continue;
    }
    if (isFileState(target) && (!target.kept || !(await ctx.hasBlob(target.hash)))) {
      skip(
        target.size > maxFileBytes
          ? `larger than ${Math.round(maxFileBytes / (1024 * 1024))} MB; its earlier content was not kept`
          : "its earlier content was not kept",
      );
      continue;
    }
    if ("unknown" in last.after) {
      skip(`what Pi left is not known (${last.after.unknown})`);
      continue;
    }
    if (ctx.io.isDirty(path)) {
      skip("open with unsaved changes; save or revert it, then restore again");
      continue;
    }
    let current: FileState | { why: string };
    try {
      current = await currentState(ctx.io, path, last.after, maxFileBytes);
    } catch (error) {
      skip(`could not be read (${error instanceof Error ? error.message : String(error)})`);
      continue;
    }
    if ("why" in current) {
      skip(current.why);
      continue;
    }
    if (sameState(current, target)) continue; // already as it was
    if (!sameState(current, last.after)) {
      skip(describeDifference(piDid, current, last.after) || "changed since Pi changed it");
      continue;
    }
    const links = isFileState(current) && isFileState(target) ? ((await ctx.io.lstat(path))?.links ?? 1) : 1;
    if (links > 1) {
      skip(hardLinkReason(links));
      continue;
    }
    files.push({ path, piDid, target, current: last.after });
  }
  return { markId, files, skipped };
}
