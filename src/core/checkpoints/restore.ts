// Carrying out a restore, crash-safe, and finishing one a crash cut off.
//
// 1. Everything about to be overwritten or deleted is saved as a blob (flushed), and the targets'
//    blobs are read and checked against their hashes.
// 2. `restore-pending.json` lists every step (path, what is there, what goes there) and is
//    flushed before the first change.
// 3. The steps run one file at a time; each file is checked again just before it is changed.
// 4. The journal gets the restore's changes and a `restored` line (flushed), then the pending file
//    is removed.
// At the next start, a pending file whose restore has no `restored` line is rolled back: every
// file a step touched is put back to what the pending file saved (that is also what a half-written
// file gets), so nothing is left half-done; the user is told.
import { randomUUID } from "node:crypto";
import { isInsideGitDir, isSecretFile } from "../permissions/protected-paths";
import { currentState, type PlannedFile, type RestorePlan, type SkippedFile } from "./plan";
import { sha256, type CheckpointStorage } from "./storage";
import {
  ABSENT,
  type CheckpointIo,
  type FileState,
  hardLinkReason,
  isAbsent,
  isFileState,
  isStoredFileState,
  isStoredPath,
  type JournalEntry,
  MAX_CHECKPOINT_FILE_BYTES,
  sameState,
} from "./types";

export interface RestoreStep {
  readonly path: string;
  /** What was there (saved: its blob exists). */
  readonly from: FileState;
  /** What the restore puts there. */
  readonly to: FileState;
}

export interface PendingRestore {
  readonly version: 1;
  readonly restoreId: string;
  readonly chatId: string;
  readonly markId: string;
  readonly steps: readonly RestoreStep[];
}

export interface RestoreOutcome {
  /** The mark a Redo restores to (the files as they were just before this restore). */
  readonly redoMarkId: string;
  readonly restored: readonly PlannedFile[];
  readonly deleted: readonly PlannedFile[];
  readonly skipped: readonly SkippedFile[];
}

/** Test seam: called after each step is done (a crash test throws from it). */
export type StepHook = (index: number, step: RestoreStep) => void | Promise<void>;

export interface RestoreContext {
  readonly io: CheckpointIo;
  readonly storage: CheckpointStorage;
  readonly chatId: string;
  readonly maxFileBytes?: number;
  readonly afterStep?: StepHook;
}

async function apply(io: CheckpointIo, storage: CheckpointStorage, path: string, to: FileState): Promise<void> {
  if (isAbsent(to)) {
    await io.deleteFile(path);
    return;
  }
  if (!isFileState(to)) throw new Error(`${path}: nothing known to write`);
  const bytes = await storage.getBlob(to.hash);
  if (!bytes) throw new Error(`${path}: its saved content is missing or damaged`);
  // Checked last, right before the write: a link made after the plan is not written through either.
  const links = (await io.lstat(path))?.links ?? 1;
  if (links > 1) throw new Error(hardLinkReason(links));
  await io.writeFile(path, bytes);
}

/** Runs the plan (the caller holds the checkpoints lock and planned just now). */
export async function executeRestore(plan: RestorePlan, ctx: RestoreContext): Promise<RestoreOutcome> {
  const { io, storage } = ctx;
  const maxFileBytes = ctx.maxFileBytes ?? MAX_CHECKPOINT_FILE_BYTES;
  const skipped: SkippedFile[] = [...plan.skipped];
  const steps: RestoreStep[] = [];
  const planned: PlannedFile[] = [];
  // 1. Save what will be replaced; check the targets are whole.
  for (const file of plan.files) {
    let from: FileState = ABSENT;
    if (isFileState(file.current)) {
      const bytes = await io.readFile(file.path, maxFileBytes).catch(() => undefined);
      if (!bytes || sha256(bytes) !== file.current.hash) {
        skipped.push({ path: file.path, piDid: file.piDid, reason: "changed while the restore was prepared" });
        continue;
      }
      from = { hash: await storage.putBlob(bytes, true), size: bytes.length, kept: true };
    }
    if (isFileState(file.target) && !(await storage.getBlob(file.target.hash))) {
      skipped.push({ path: file.path, piDid: file.piDid, reason: "its saved content is missing or damaged" });
      continue;
    }
    steps.push({ path: file.path, from, to: file.target });
    planned.push(file);
  }
  const restoreId = randomUUID();
  const redoMarkId = `restore:${restoreId}`;
  // 2. The pending record, flushed, before the first change.
  const pending: PendingRestore = { version: 1, restoreId, chatId: ctx.chatId, markId: plan.markId, steps };
  await storage.writePending(pending);
  // 3. One file at a time, each checked again right before it changes.
  const done: { step: RestoreStep; after: FileState; file: PlannedFile }[] = [];
  for (const [i, step] of steps.entries()) {
    const file = planned[i]!;
    if (io.isDirty(step.path)) {
      skipped.push({ path: step.path, piDid: file.piDid, reason: "open with unsaved changes; save or revert it, then restore again" });
      continue;
    }
    // A folder on the way may have become a symlink since the plan: never write through one.
    if (!(await io.plainPath(step.path).catch(() => false))) {
      skipped.push({ path: step.path, piDid: file.piDid, reason: "reached through a symbolic link now" });
      continue;
    }
    const now = await currentState(io, step.path, step.from, maxFileBytes).catch(() => ({ why: "could not be read" }));
    if ("why" in now || !sameState(now, step.from)) {
      skipped.push({ path: step.path, piDid: file.piDid, reason: "changed while the restore ran" });
      continue;
    }
    try {
      await apply(io, storage, step.path, step.to);
    } catch (error) {
      skipped.push({ path: step.path, piDid: file.piDid, reason: `could not be changed (${error instanceof Error ? error.message : String(error)})` });
      continue;
    }
    done.push({ step, after: step.to, file });
    await ctx.afterStep?.(i, step);
  }
  // 4. The journal says what was done; then the pending record goes.
  const at = Date.now();
  const entries: JournalEntry[] = [
    { t: "mark", id: redoMarkId, at },
    ...done.map(({ step, after }): JournalEntry => ({ t: "change", path: step.path, before: step.from, after, by: "restore", at })),
    { t: "restored", restore: restoreId, toMark: plan.markId, at },
  ];
  await storage.append(ctx.chatId, entries, true);
  await storage.clearPending();
  return {
    redoMarkId,
    restored: done.filter((d) => !isAbsent(d.step.to)).map((d) => d.file),
    deleted: done.filter((d) => isAbsent(d.step.to)).map((d) => d.file),
    skipped,
  };
}

export interface RecoveryReport {
  readonly chatId: string;
  /** "completed": the restore had finished (only its pending record was left); "rolledBack": its files were put back. */
  readonly outcome: "completed" | "rolledBack";
  readonly putBack: readonly string[];
  /** Files that could not be put back, and why. */
  readonly problems: readonly { path: string; reason: string }[];
}

function isPending(value: unknown): value is PendingRestore {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Partial<PendingRestore>;
  return (
    v.version === 1 &&
    typeof v.restoreId === "string" &&
    typeof v.chatId === "string" &&
    /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/.test(v.chatId) &&
    typeof v.markId === "string" &&
    Array.isArray(v.steps)
  );
}

/**
 * Why a step of the pending record is not acted on, or undefined. The record is read back from
 * storage, so it gets the checks a plan gets: a path a restore may write (inside a folder, no
 * symlinked folder on the way, not in `.git`, not a secret file) and states of the right shape.
 */
async function stepRefusal(io: CheckpointIo, step: unknown): Promise<string | undefined> {
  if (typeof step !== "object" || step === null) return "not a step";
  const { path, from, to } = step as Record<string, unknown>;
  if (!isStoredPath(path) || !isStoredFileState(from) || !isStoredFileState(to)) return "not a step";
  if (isInsideGitDir(path)) return "inside .git, which a restore never touches";
  if (isSecretFile(path)) return "a secret file, which a restore never writes";
  if (!(await io.plainPath(path).catch(() => false))) return "not inside a workspace folder, or reached through a symbolic link";
  return undefined;
}

/** Finishes a restore a crash or a reload cut off: undefined when there was none. */
export async function recoverRestore(
  io: CheckpointIo,
  storage: CheckpointStorage,
  maxFileBytes = MAX_CHECKPOINT_FILE_BYTES,
): Promise<RecoveryReport | undefined> {
  const pending = await storage.readPending();
  if (pending === undefined) return undefined;
  if (!isPending(pending)) {
    await storage.clearPending();
    return { chatId: "", outcome: "rolledBack", putBack: [], problems: [{ path: "", reason: "the record of an interrupted restore was unreadable" }] };
  }
  const journal = await storage.journal(pending.chatId);
  if (journal.some((e) => e.t === "restored" && e.restore === pending.restoreId)) {
    await storage.clearPending();
    return { chatId: pending.chatId, outcome: "completed", putBack: [], problems: [] };
  }
  const putBack: string[] = [];
  const problems: { path: string; reason: string }[] = [];
  for (const step of [...pending.steps].reverse()) {
    const refused = await stepRefusal(io, step);
    if (refused) {
      problems.push({ path: typeof step?.path === "string" ? step.path.slice(0, 200) : "", reason: `left alone: ${refused}` });
      continue;
    }
    const now = await currentState(io, step.path, step.from, maxFileBytes).catch((e: unknown) => ({ why: String(e) }));
    if ("why" in now) {
      problems.push({ path: step.path, reason: now.why });
      continue;
    }
    if (sameState(now, step.from)) continue; // this step had not run
    // What the step wrote, or a half-written file: keep a copy, then put back what was saved.
    if (isFileState(now)) {
      const bytes = await io.readFile(step.path, maxFileBytes).catch(() => undefined);
      if (bytes) await storage.putBlob(bytes, true);
    }
    try {
      await apply(io, storage, step.path, step.from);
      putBack.push(step.path);
    } catch (error) {
      problems.push({ path: step.path, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  await storage.clearPending();
  return { chatId: pending.chatId, outcome: "rolledBack", putBack: putBack.reverse(), problems };
}
