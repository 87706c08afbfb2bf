// What a command changed: a stat walk of the workspace before and after the run (size, mtime,
// inode per file, with the ignore rules the tools use, `.git` and node_modules never entered),
// and the content only of files whose stat changed. The baseline keeps each file's hash (and
// bytes, up to the cap, in the blob store) from the last walk, so a walk after the first one reads
// only what changed since: its cost is a readdir and an lstat per file, plus the changed files.
// The first walk of a session reads every file; `warm()` starts it early, off the command's path.
import type { WalkRules } from "../tools/workspace-walk";
import { isSecretFile } from "../permissions/protected-paths";
import { IgnoreRules } from "../tools/workspace-walk";
import { type CheckpointStorage, sha256 } from "./storage";
import { ABSENT, type CheckpointIo, type EntryStat, type FileState, MAX_CHECKPOINT_FILE_BYTES, SECRET_STATE, sameState } from "./types";

/** Content kept by one window's baseline, at most: past it, changed files are recorded without their bytes. */
export const BASELINE_BUDGET_BYTES = 512 * 1024 * 1024;
/** Files read at the same time during a walk. */
const READ_CONCURRENCY = 16;
/** A walk stops after this many files (a huge tree gets no command checkpoints past it: `truncated`). */
export const MAX_BASELINE_FILES = 200_000;

interface Known {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
  readonly state: FileState;
}

/** The files of one walk, by path. */
export type StatWalk = Map<string, EntryStat>;

/** One file of a background command's last scan: its stat then, and its content then. */
export interface SeenFile {
  readonly stat: EntryStat;
  readonly state: FileState;
}

export interface CommandChange {
  readonly path: string;
  readonly before: FileState;
  readonly after: FileState;
}

export function sameStat(a: EntryStat | Known, b: EntryStat | Known): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}

async function inBatches<T>(items: readonly T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

export class WorkspaceBaseline {
  private readonly known = new Map<string, Known>();
  private storedBytes = 0;
  /** The last walk stopped at MAX_BASELINE_FILES. */
  truncated = false;

  constructor(
    private readonly io: CheckpointIo,
    private readonly storage: CheckpointStorage,
    private readonly rules: () => WalkRules,
    private readonly maxFileBytes = MAX_CHECKPOINT_FILE_BYTES,
    private readonly budgetBytes = BASELINE_BUDGET_BYTES,
  ) {}

  /** The hashes the baseline refers to (kept through a garbage collection). */
  hashes(): string[] {
    return [...this.known.values()].flatMap((k) => ("hash" in k.state && k.state.kept ? [k.state.hash] : []));
  }

  /** Every regular file the tools would see, with its lstat; symlinks and ignored entries left out. */
  // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one walk of the tree; the ignore, symlink and size checks share its state
  async walk(): Promise<StatWalk> {
    const rules = new IgnoreRules({ readFile: (p) => this.io.readFile(p, 1024 * 1024) }, this.rules());
    const out: StatWalk = new Map();
    let queue = ["."];
    this.truncated = false;
    while (queue.length > 0) {
      const next: string[] = [];
      for (const [n, dir] of queue.entries()) {
        // The synchronous lstats of a folder are short; between folders other work gets its turn.
        if (n % 8 === 7) await new Promise((resolve) => setImmediate(resolve));
        const listed = this.io.statDirectory
          ? await this.io.statDirectory(dir).catch(() => undefined)
          : await this.io.readDirectory(dir).then(
              (entries) => ({ entries, files: undefined }),
              () => undefined,
            );
        if (!listed) continue;
        await rules.enter(dir, listed.entries);
        const files: string[] = [];
        for (const e of listed.entries) {
          const path = dir === "." ? e.name : `${dir}/${e.name}`;
          if (rules.skips(path, e.type)) continue;
          if (e.type === "directory") next.push(path);
          else if (e.type !== "file") continue;
          const st = listed.files?.get(e.name);
          if (st) out.set(path, st);
          else if (!listed.files) files.push(path);
        }
        await inBatches(files, 64, async (path) => {
          const st = await this.io.lstat(path).catch(() => undefined);
          if (st?.type === "file") out.set(path, st);
        });
        if (out.size > MAX_BASELINE_FILES) {
          this.truncated = true;
          return out;
        }
      }
      queue = next;
    }
    return out;
  }

  /** The content state of a file whose stat is `st`: from the baseline when the stat is the same, else read (and kept up to the cap). */
  async stateOf(path: string, st: EntryStat): Promise<FileState> {
    const k = this.known.get(path);
    if (k && sameStat(k, st)) return k.state;
    const state = await this.read(path, st);
    this.known.set(path, { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, state });
    return state;
  }

  private async read(path: string, st: EntryStat): Promise<FileState> {
    if (isSecretFile(path)) return SECRET_STATE;
    if (st.size > this.maxFileBytes) return { unknown: `larger than ${Math.round(this.maxFileBytes / (1024 * 1024))} MB, not kept` };
    let bytes: Uint8Array;
    try {
      bytes = await this.io.readFile(path, this.maxFileBytes);
    } catch {
      return { unknown: "could not be read" };
    }
    if (this.storedBytes + bytes.length > this.budgetBytes) {
      return { hash: sha256(bytes), size: bytes.length, kept: false };
    }
    const hash = await this.storage.putBlob(bytes);
    this.storedBytes += bytes.length;
    return { hash, size: bytes.length, kept: true };
  }

  /** A walk with every file's content known (read only where the stat changed since the baseline). */
  async snapshot(): Promise<StatWalk> {
    const walk = await this.walk();
    await inBatches([...walk.entries()], READ_CONCURRENCY, async ([path, st]) => {
      await this.stateOf(path, st);
    });
    return walk;
  }

  /**
   * The content states of the files of `walk` as the baseline knows them (stat and state), for a
   * background command's later scans; a file the baseline has not read with this stat is "unknown".
   */
  capture(walk: StatWalk): Map<string, SeenFile> {
    const seen = new Map<string, SeenFile>();
    for (const [path, st] of walk) {
      const k = this.known.get(path);
      seen.set(path, { stat: st, state: k && sameStat(k, st) ? k.state : { unknown: "its earlier content was not kept" } });
    }
    return seen;
  }

  /** What changed between `before` (a snapshot) and `after` (a walk, now by default): created, modified (content differs) and deleted files. */
  async changesSince(before: StatWalk, walked?: StatWalk): Promise<CommandChange[]> {
    const after = walked ?? (await this.walk());
    const changes: CommandChange[] = [];
    const beforeState = (path: string, st: EntryStat): FileState => {
      const k = this.known.get(path);
      return k && sameStat(k, st) ? k.state : { unknown: "its earlier content was not kept" };
    };
    const changed: [string, EntryStat][] = [];
    for (const [path, st] of after) {
      const was = before.get(path);
      if (!was || !sameStat(was, st)) changed.push([path, st]);
    }
    // The before states are read from the baseline before stateOf replaces them with the new ones.
    const befores = new Map(changed.map(([path]) => [path, before.has(path) ? beforeState(path, before.get(path)!) : ABSENT]));
    await inBatches(changed, READ_CONCURRENCY, async ([path, st]) => {
      const b = befores.get(path)!;
      const a = await this.stateOf(path, st);
      if (!sameState(a, b)) changes.push({ path, before: b, after: a });
    });
    for (const [path, st] of before) {
      if (after.has(path)) continue;
      const b = beforeState(path, st);
      this.known.delete(path);
      changes.push({ path, before: b, after: ABSENT });
    }
    changes.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
    return changes;
  }
}
