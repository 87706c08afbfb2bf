// One window's checkpoints: the journals of its chats, the command baseline, and one lock that
// puts every recorded write, command walk and restore in a single order (a restore never runs
// while Pi writes, and a journal's order is the order things happened on disk).
import type { AgentTool } from "@earendil-works/pi-agent-core";
import type { WalkRules } from "../tools/workspace-walk";
import type { WorkspaceFileSystem } from "../tools/workspace-fs";
import { type CommandChange, type StatWalk, WorkspaceBaseline } from "./baseline";
import { planRestore, type RestorePlan } from "./plan";
import { executeRestore, recoverRestore, type RecoveryReport, type RestoreOutcome, type StepHook } from "./restore";
import { CheckpointStorage, sha256 } from "./storage";
import { ABSENT, type ChangeSource, type CheckpointIo, type FileState, type JournalEntry, MAX_CHECKPOINT_FILE_BYTES } from "./types";

export interface CheckpointsOptions {
  /** The extension's storage folder (checkpoints go in its `checkpoints/`). */
  readonly storageRoot: string;
  readonly io: CheckpointIo;
  /** The walk rules the tools use (files.exclude). */
  readonly rules?: () => WalkRules;
  readonly maxFileBytes?: number;
  readonly log?: (line: string) => void;
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

  constructor(private readonly options: CheckpointsOptions) {
    this.storage = new CheckpointStorage(options.storageRoot);
    this.io = options.io;
    this.rules = options.rules ?? (() => ({}));
    this.maxFileBytes = options.maxFileBytes ?? MAX_CHECKPOINT_FILE_BYTES;
    this.baseline = new WorkspaceBaseline(options.io, this.storage, this.rules, this.maxFileBytes);
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
  }

  /** What is at `path` on disk now, kept when it is a file within the cap. */
  private async diskState(path: string): Promise<FileState> {
    const st = await this.io.lstat(path);
    if (!st) return ABSENT;
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
      }
      const after = await this.diskState(path).catch((e: unknown): FileState => ({ unknown: `could not be read (${String(e)})` }));
      await this.storage.append(chatId, [{ t: "change", path, before, after, by, at: Date.now() }]);
      return result;
    });
  }

  /** Before a command: a snapshot (the baseline updated where files changed). */
  beforeCommand(): Promise<{ walk: StatWalk; savedOutside: Set<string> }> {
    const savedOutside = new Set<string>();
    this.commandWatches.add(savedOutside);
    return this.warm().then(() => this.locked(async () => ({ walk: await this.baseline.snapshot(), savedOutside })));
  }

  /** After a command: its changes go in the chat's journal. Not awaited by the tool (queued under the lock). */
  afterCommand(chatId: string, before: { walk: StatWalk; savedOutside: Set<string> }): Promise<CommandChange[]> {
    return this.locked(async () => {
      this.commandWatches.delete(before.savedOutside);
      const changes = (await this.baseline.changesSince(before.walk)).filter((c) => !before.savedOutside.has(c.path));
      const at = Date.now();
      await this.storage.append(
        chatId,
        changes.map((c) => ({ t: "change", path: c.path, before: c.before, after: c.after, by: "command", at })),
      );
      return changes;
    });
  }

  /** What a restore to `markId` would do; undefined: the chat has no such checkpoint. */
  plan(chatId: string, markId: string): Promise<RestorePlan | undefined> {
    return this.locked(() => this.planNow(chatId, markId));
  }

  private async planNow(chatId: string, markId: string): Promise<RestorePlan | undefined> {
    return planRestore(await this.storage.journal(chatId), markId, {
      io: this.io,
      rules: this.rules,
      hasBlob: (h) => this.storage.hasBlob(h),
      maxFileBytes: this.maxFileBytes,
    });
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
      return executeRestore(checked, {
        io: this.io,
        storage: this.storage,
        chatId,
        maxFileBytes: this.maxFileBytes,
        ...(this.afterRestoreStep ? { afterStep: this.afterRestoreStep } : {}),
      });
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
      return this.storage.collectGarbage(this.baseline.hashes());
    });
  }

  collectGarbage(): Promise<number> {
    return this.locked(() => this.storage.collectGarbage(this.baseline.hashes()));
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
    return this.checkpoints.append(this.chatId, [{ t: "mark", id: messageId, at: Date.now() }]);
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
      try {
        return await tool.execute(...args);
      } finally {
        void this.checkpoints.afterCommand(this.chatId, before).catch(() => undefined);
      }
    };
    return { ...tool, execute };
  }
}

export { sha256 };
