// One window's checkpoints: the journals of its chats, the command baseline, and one lock that
// puts every recorded write, command walk and restore in a single order (a restore never runs
// while Pi writes, and a journal's order is the order things happened on disk).
import type { AgentTool } from "@earendil-works/pi-agent-core";
import { isSecretFile } from "../permissions/protected-paths";
import type { WalkRules } from "../tools/workspace-walk";
import type { WorkspaceFileSystem } from "../tools/workspace-fs";
import { type ChangeFeed, type CommandChange, type SeenFile, type StatWalk, sameStat, WorkspaceBaseline } from "./baseline";
import { planRestore, type RestorePlan } from "./plan";
import { executeRestore, recoverRestore, type RecoveryReport, type RestoreOutcome, type StepHook } from "./restore";
import { CheckpointStorage, sha256 } from "./storage";
import {
  ABSENT,
  type ChangeSource,
  type CheckpointIo,
  type FileState,
  isAbsent,
  type JournalEntry,
  MAX_CHECKPOINT_FILE_BYTES,
  SECRET_STATE,
  sameState,
} from "./types";

/**
 * A background command still running after its tool call returned: what its last scan saw, and
 * the paths something else accounted for since (Pi's writes, other commands' recorded changes, a
 * restore, a save in VS Code): those are never put down to the command.
 */
interface BackgroundWatch {
  readonly chatId: string;
  seen: Map<string, SeenFile>;
  readonly touched: Set<string>;
}

/** What a command's record needs from before it ran. */
export interface CommandBefore {
  readonly walk: StatWalk;
  /** Paths saved in VS Code (not by Pi) while it ran. */
  readonly savedOutside: Set<string>;
  /** The file system's clock when it started (absent: unknown). */
  readonly startedAt?: number;
}

export interface CheckpointsOptions {
  /** The extension's storage folder (checkpoints go in its `checkpoints/`). */
  readonly storageRoot: string;
  readonly io: CheckpointIo;
  /** The walk rules the tools use (files.exclude). */
  readonly rules?: () => WalkRules;
  readonly maxFileBytes?: number;
  readonly log?: (line: string) => void;
  /**
   * What already watches the files (the host: VS Code's watcher): with it, a command's "before"
   * re-stats only the paths named since the last look, and the walk is the fallback.
   */
  readonly changes?: ChangeFeed;
}

export class Checkpoints {
  readonly storage: CheckpointStorage;
  readonly io: CheckpointIo;
  readonly baseline: WorkspaceBaseline;
  private readonly rules: () => WalkRules;
  private readonly maxFileBytes: number;
  private tail: Promise<unknown> = Promise.resolve();
  private warming: Promise<unknown> | undefined;
  /** Paths written outside Pi while a command ran (the host reports saves): left out of the command's changes. */
  private readonly commandWatches = new Set<Set<string>>();
  /** Paths Pi is writing right now (their saves are Pi's own). */
  private readonly writing = new Set<string>();
  /** Test seam: after each restore step. */
  afterRestoreStep: StepHook | undefined;
  /** Background commands still running, by their id (the tool call's). */
  private readonly backgroundWatches = new Map<string, BackgroundWatch>();
  /** Background commands that ended before their tool call's walk was recorded (that walk covers them). */
  private readonly endedEarly = new Set<string>();
  /** A refresh of the tracked tree from the feed's events is queued. */
  private refreshQueued = false;
  private readonly unfollow: (() => void) | undefined;

  constructor(private readonly options: CheckpointsOptions) {
    this.storage = new CheckpointStorage(options.storageRoot);
    this.io = options.io;
    this.rules = options.rules ?? (() => ({}));
    this.maxFileBytes = options.maxFileBytes ?? MAX_CHECKPOINT_FILE_BYTES;
    this.baseline = new WorkspaceBaseline(options.io, this.storage, this.rules, this.maxFileBytes);
    this.unfollow = options.changes ? this.baseline.follow(options.changes, () => this.scheduleRefresh()) : undefined;
  }

  /** Stops following the change feed. */
  dispose(): void {
    this.unfollow?.();
  }

  /**
   * Applies the feed's events to the tracked tree in the background, under the lock, so the next
   * command's "before" has little left to stat. Never while a command runs: its "before" contents
   * must stay as they were when it started (its own walk after it catches everything up).
   */
  private scheduleRefresh(): void {
    if (this.refreshQueued || this.commandWatches.size > 0) return;
    this.refreshQueued = true;
    void this.locked(async () => {
      this.refreshQueued = false;
      if (this.commandWatches.size === 0) await this.baseline.refresh();
    }).catch((e: unknown) => this.options.log?.(`checkpoints: refresh from file events failed: ${String(e)}`));
  }

  /** Runs `fn` after everything queued before it (and before everything queued after). */
  private locked<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Resolves once everything queued so far is done (tests, the benchmark). */
  idle(): Promise<void> {
    return this.locked(async () => undefined);
  }

  forChat(chatId: string): ChatCheckpoints {
    return new ChatCheckpoints(this, chatId);
  }

  /**
   * Starts the first baseline walk in the background, outside the lock: edits are not held up by
   * it (the baseline is keyed by stat, so a file an edit changes meanwhile is simply read again by
   * the next walk). The first command waits for it rather than walk twice.
   */
  warm(): Promise<unknown> {
    // After what is queued now (a clean-up at activation must not remove blobs the walk just kept).
    this.warming ??= this.idle()
      .then(() => this.baseline.snapshot())
      .catch((e: unknown) => this.options.log?.(`checkpoints: baseline walk failed: ${String(e)}`));
    return this.warming;
  }

  append(chatId: string, entries: readonly JournalEntry[]): Promise<void> {
    return this.locked(() => this.storage.append(chatId, entries));
  }

  /** The host saw `path` saved (by a person or another extension): not a command's doing. */
  noteSave(path: string): void {
    if (this.writing.has(path)) return;
    for (const watch of this.commandWatches) watch.add(path);
    for (const watch of this.backgroundWatches.values()) watch.touched.add(path);
  }

  /** Paths a record accounted for: a running background command is not given them. */
  private accounted(paths: Iterable<string>, except?: BackgroundWatch): void {
    for (const watch of this.backgroundWatches.values()) if (watch !== except) for (const p of paths) watch.touched.add(p);
  }

  /** What is at `path` on disk now, kept when it is a file within the cap. */
  private async diskState(path: string): Promise<FileState> {
    const st = await this.io.lstat(path);
    if (!st) return ABSENT;
    if (isSecretFile(path)) return SECRET_STATE;
    if (st.type !== "file") return { unknown: st.type === "symlink" ? "a symbolic link" : "not a regular file" };
    if (st.size > this.maxFileBytes) {
      return { unknown: `larger than ${Math.round(this.maxFileBytes / (1024 * 1024))} MB, not kept` };
    }
    const bytes = await this.io.readFile(path, this.maxFileBytes);
    return { hash: await this.storage.putBlob(bytes), size: bytes.length, kept: true };
  }

  /** Records one write of Pi's: what the file was before (kept), the write, what it is after. */
  recordWrite<T>(chatId: string, by: ChangeSource, path: string, write: () => Promise<T>): Promise<T> {
    return this.locked(async () => {
      const before = await this.diskState(path).catch((e: unknown): FileState => ({ unknown: `could not be read (${String(e)})` }));
      this.writing.add(path);
      let result: T;
      try {
        result = await write();
      } finally {
        this.writing.delete(path);
        this.baseline.written(path);
        this.scheduleRefresh();
      }
      const after = await this.diskState(path).catch((e: unknown): FileState => ({ unknown: `could not be read (${String(e)})` }));
      await this.storage.append(chatId, [{ t: "change", path, before, after, by, at: Date.now() }]);
      this.accounted([path]);
      return result;
    });
  }

  /**
   * Before a command: a snapshot (the baseline updated where files changed), and the file
   * system's clock after it: what was last changed before that is not the command's.
   */
  beforeCommand(): Promise<CommandBefore> {
    const savedOutside = new Set<string>();
    this.commandWatches.add(savedOutside);
    return this.warm().then(() =>
      this.locked(async () => {
        const walk = await this.baseline.snapshot();
        const startedAt = await this.storage.clock().catch((e: unknown) => {
          // Without the clock the before must be a walk's: the watcher's delay would count.
          this.options.log?.(`checkpoints: no clock (${String(e)})`);
          this.baseline.distrustFor("the checkpoints' clock could not be read");
          return undefined;
        });
        return startedAt === undefined ? { walk, savedOutside } : { walk, savedOutside, startedAt };
      }),
    );
  }

  /**
   * After a command: its changes go in the chat's journal. Not awaited by the tool (queued under the
   * lock). `backgroundId`: the command goes on running; what it changes later is recorded by
   * scans (at each of the chat's marks, and when it ends: `backgroundEnded`).
   */
  afterCommand(chatId: string, before: CommandBefore, backgroundId?: string): Promise<CommandChange[]> {
    return this.locked(async () => {
      this.commandWatches.delete(before.savedOutside);
      const walk = await this.baseline.walk();
      const changes = (await this.baseline.changesSince(before.walk, walk, before.startedAt)).filter((c) => !before.savedOutside.has(c.path));
      if (before.startedAt !== undefined) await this.checkClock(changes, walk);
      const at = Date.now();
      await this.storage.append(
        chatId,
        changes.map((c) => ({ t: "change", path: c.path, before: c.before, after: c.after, by: "command", at })),
      );
      this.accounted(changes.map((c) => c.path));
      if (backgroundId !== undefined && !this.endedEarly.delete(backgroundId)) {
        this.backgroundWatches.set(backgroundId, { chatId, seen: this.baseline.capture(walk), touched: new Set() });
      }
      // Events that came while it ran waited for its walk; the rest are applied now.
      this.scheduleRefresh();
      return changes;
    });
  }

  /**
   * A change stamped later than the clock now: the workspace's file system keeps another clock
   * (a network share), so a stamp cannot tell before from during: the before is a walk from now on.
   */
  private async checkClock(changes: readonly CommandChange[], walk: StatWalk): Promise<void> {
    const now = await this.storage.clock().catch(() => undefined);
    const ahead = now === undefined ? undefined : changes.find((c) => (walk.get(c.path)?.ctimeMs ?? 0) > now);
    if (!ahead) return;
    this.options.log?.(`checkpoints: ${ahead.path} is stamped after this machine's clock; the look before a command walks from now on`);
    this.baseline.distrustFor("the workspace's file system stamps changes by another clock");
  }

  /** A background command ended (exited or stopped, its whole tree gone): its last changes are recorded. */
  backgroundEnded(id: string): Promise<CommandChange[]> {
    return this.locked(async () => {
      const watch = this.backgroundWatches.get(id);
      if (!watch) {
        this.endedEarly.add(id);
        return [];
      }
      this.backgroundWatches.delete(id);
      return this.scanBackground(watch);
    });
  }

  /** Running background commands whose changes are watched (tests, the docs' figures). */
  get watchedBackground(): number {
    return this.backgroundWatches.size;
  }

  /**
   * What a background command changed since its last scan: files whose stat moved, with content
   * that differs, and that nothing else accounted for meanwhile. Recorded as the command's (the
   * caller holds the lock).
   */
  private async scanBackground(watch: BackgroundWatch): Promise<CommandChange[]> {
    const now = await this.baseline.walk();
    const changes: CommandChange[] = [];
    const next = new Map(watch.seen);
    for (const [path, st] of now) {
      const was = watch.seen.get(path);
      if (was && sameStat(was.stat, st)) continue;
      const after = await this.baseline.stateOf(path, st);
      next.set(path, { stat: st, state: after });
      if (watch.touched.has(path)) continue;
      const before = was ? was.state : ABSENT;
      if (!sameState(before, after)) changes.push({ path, before, after });
    }
    for (const [path, was] of watch.seen) {
      if (now.has(path)) continue;
      next.delete(path);
      if (!watch.touched.has(path) && !isAbsent(was.state)) changes.push({ path, before: was.state, after: ABSENT });
    }
    watch.seen = next;
    watch.touched.clear();
    changes.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
    const at = Date.now();
    await this.storage.append(
      watch.chatId,
      changes.map((c) => ({ t: "change", path: c.path, before: c.before, after: c.after, by: "command", at })),
    );
    this.accounted(
      changes.map((c) => c.path),
      watch,
    );
    return changes;
  }

  /**
   * A user message of `chatId` marks a checkpoint. The chat's background commands still running
   * are scanned first, so what they changed before it is recorded before the mark.
   */
  mark(chatId: string, messageId: string): Promise<void> {
    return this.locked(async () => {
      for (const watch of this.backgroundWatches.values()) if (watch.chatId === chatId) await this.scanBackground(watch);
      await this.storage.append(chatId, [{ t: "mark", id: messageId, at: Date.now() }]);
    });
  }

  /** Hashes a running background command's last scan refers to (its "before" contents). */
  private watchedHashes(): string[] {
    const out: string[] = [];
    for (const watch of this.backgroundWatches.values()) for (const f of watch.seen.values()) if ("hash" in f.state && f.state.kept) out.push(f.state.hash);
    return out;
  }

  /** What a restore to `markId` would do; undefined: the chat has no such checkpoint. */
  plan(chatId: string, markId: string): Promise<RestorePlan | undefined> {
    return this.locked(() => this.planNow(chatId, markId));
  }

  private async planNow(chatId: string, markId: string): Promise<RestorePlan | undefined> {
    const { entries, damaged } = await this.storage.readJournal(chatId);
    if (damaged > 0) this.options.log?.(`checkpoints: ${damaged} damaged line(s) of chat ${chatId}'s journal skipped`);
    const plan = await planRestore(entries, markId, {
      io: this.io,
      rules: this.rules,
      hasBlob: (h) => this.storage.hasBlob(h),
      maxFileBytes: this.maxFileBytes,
    });
    return plan && damaged > 0 ? { ...plan, damagedLines: damaged } : plan;
  }

  /**
   * Restores to `markId`. Planned again under the lock; a file that is not exactly as in the
   * preview the user saw (`previewed`) is skipped rather than changed unseen.
   */
  restore(chatId: string, markId: string, previewed?: RestorePlan): Promise<RestoreOutcome | undefined> {
    return this.locked(async () => {
      const plan = await this.planNow(chatId, markId);
      if (!plan) return undefined;
      let checked = plan;
      if (previewed) {
        const seen = new Map(previewed.files.map((f) => [f.path, f]));
        const files = plan.files.filter((f) => {
          const p = seen.get(f.path);
          return p !== undefined && "hash" in p.current === "hash" in f.current && JSON.stringify(p.current) === JSON.stringify(f.current);
        });
        const unseen = plan.files
          .filter((f) => !files.includes(f))
          .map((f) => ({ path: f.path, piDid: f.piDid, reason: "changed after the preview was shown" }));
        checked = { ...plan, files, skipped: [...plan.skipped, ...unseen] };
      }
      const outcome = await executeRestore(checked, {
        io: this.io,
        storage: this.storage,
        chatId,
        maxFileBytes: this.maxFileBytes,
        ...(this.afterRestoreStep ? { afterStep: this.afterRestoreStep } : {}),
      });
      this.accounted([...outcome.restored, ...outcome.deleted].map((f) => f.path));
      return outcome;
    });
  }

  /** At activation: finishes (rolls back) a restore a crash cut off. */
  recover(): Promise<RecoveryReport | undefined> {
    return this.locked(() => recoverRestore(this.io, this.storage, this.maxFileBytes));
  }

  /** A chat was deleted for good: its journal goes, and the blobs nothing refers to. */
  forget(chatId: string): Promise<number> {
    return this.locked(async () => {
      await this.storage.deleteJournal(chatId);
      return this.storage.collectGarbage([...this.baseline.hashes(), ...this.watchedHashes()]);
    });
  }

  collectGarbage(): Promise<number> {
    return this.locked(() => this.storage.collectGarbage([...this.baseline.hashes(), ...this.watchedHashes()]));
  }
}

/** One chat's side: its marks, and wrappers that record what its tools write. */
export class ChatCheckpoints {
  constructor(
    readonly checkpoints: Checkpoints,
    readonly chatId: string,
  ) {}

  /** A user message was saved as `messageId`: the files as they are now are its checkpoint. */
  mark(messageId: string): Promise<void> {
    void this.checkpoints.warm();
    return this.checkpoints.mark(this.chatId, messageId);
  }

  /** A background command of this chat ended: what it changed since its last scan is recorded. */
  backgroundEnded(id: string): Promise<unknown> {
    return this.checkpoints.backgroundEnded(id);
  }

  /** The tools' file system, with every write recorded (edit_file writes through it). */
  recordingFs(fs: WorkspaceFileSystem): WorkspaceFileSystem {
    return {
      stat: (p) => fs.stat(p),
      readFile: (p, o) => fs.readFile(p, o),
      realPath: (p) => fs.realPath(p),
      readDirectory: (p) => fs.readDirectory(p),
      writeFile: (p, data) => this.checkpoints.recordWrite(this.chatId, "edit", p, () => fs.writeFile(p, data)),
    };
  }

  /** run_command, with a snapshot before and the changes recorded after (in the background: the result is not held up). */
  recordingCommandTool<T extends AgentTool>(tool: T): T {
    const execute: T["execute"] = async (...args) => {
      const before = await this.checkpoints.beforeCommand();
      let result: unknown;
      try {
        const out = await tool.execute(...args);
        result = out;
        return out;
      } finally {
        void this.checkpoints.afterCommand(this.chatId, before, backgroundIdOf(result)).catch(() => undefined);
      }
    };
    return { ...tool, execute };
  }
}

/** The id of a command the result says was started in the background (run_command's `details.background`). */
function backgroundIdOf(result: unknown): string | undefined {
  const details = typeof result === "object" && result !== null ? (result as { details?: unknown }).details : undefined;
  const background = typeof details === "object" && details !== null ? (details as { background?: unknown }).background : undefined;
  const id = typeof background === "object" && background !== null ? (background as { id?: unknown }).id : undefined;
  return typeof id === "string" ? id : undefined;
}

export { sha256 };
