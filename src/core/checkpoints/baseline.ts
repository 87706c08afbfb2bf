// What a command changed: a stat walk of the workspace before and after the run (size, mtime,
// inode per file, with the ignore rules the tools use, `.git` and node_modules never entered),
// and the content only of files whose stat changed. The baseline keeps each file's hash (and
// bytes, up to the cap, in the blob store) from the last walk, so a walk after the first one reads
// only what changed since: its cost is a readdir and an lstat per file, plus the changed files.
// The first walk of a session reads every file; `warm()` starts it early, off the command's path.
// With a change feed (what already watches the files: VS Code's file-system watcher), the tree
// the last walk saw is kept current from the feed's events, and a snapshot only re-stats the paths
// named since; the walk stays the fallback whenever the feed cannot be trusted (none attached, it
// lost events, an ignore file or the excludes changed, or a walk saw a change it never reported).
import type { WalkRules } from "../tools/workspace-walk";
import { isSecretFile } from "../permissions/protected-paths";
import { IGNORE_FILE_NAMES, IgnoreRules } from "../tools/workspace-walk";
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

/** What already watches the files, injected (the host: VS Code's watcher; tests: by hand). */
export interface ChangeFeed {
  /** Starts reporting to `listener`; returns the way to stop. */
  subscribe(listener: ChangeListener): () => void;
  /** Why its events cannot be relied on now (a watcher told to skip visible files); undefined: they can. */
  untrusted?(): string | undefined;
}

export interface ChangeListener {
  /** Workspace paths (files or folders) created, changed or deleted. */
  changed(paths: readonly string[]): void;
  /** Events may have been dropped (an overflow, a watcher restarted): only a walk is right now. */
  lost(reason: string): void;
}

/** How the last snapshot knew the tree (tests and the log read it). */
export type SnapshotSource = "walk" | "events";

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
  /** Test seam: each batch of paths the feed names. */
  onNamed: ((paths: readonly string[]) => void) | undefined;
  /** How the last snapshot knew the tree, and why it walked when it did. */
  lastSnapshot: { source: SnapshotSource; why?: string } = { source: "walk", why: "no snapshot yet" };
  /** The tree as the last walk saw it, kept current from the feed's events (undefined: no walk yet). */
  private tracked: Map<string, EntryStat> | undefined;
  /** Folders the last walk entered, and the rules it entered them with (reused for the paths events name). */
  private entered = new Set<string>();
  private walkRules: IgnoreRules | undefined;
  private rulesKey = "";
  /** Paths the feed named and the baseline has not re-stated yet, with the event's number. */
  private readonly dirty = new Map<string, number>();
  /** Numbers events, losses and walks: what a walk covers is what was numbered before it began. */
  private seq = 0;
  /** The event number when the feed was attached; undefined: no feed. */
  private feedFrom: number | undefined;
  private feed: ChangeFeed | undefined;
  /** The last loss the feed reported. */
  private lostAt = -1;
  /** Why the feed is not trusted now (undefined: trusted). */
  private distrust: string | undefined = "no change feed";
  /** Paths a walk found changed that the feed had not named yet: it must name them before it is trusted again. */
  private readonly unreported = new Set<string>();
  /** Called when the feed named a path (a refresh is due). */
  private onDirty: (() => void) | undefined;
  private heldEvents: (readonly string[])[] | undefined;
  /** Why the feed is not trusted for the rest of the window, whatever the walks find. */
  private neverTrust: string | undefined;
  /** Paths named while some were unreported that may be folders (a folder's event covers what is below it). */
  private readonly namedFolders = new Set<string>();

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
  async walk(): Promise<StatWalk> {
    const startSeq = ++this.seq;
    const rulesNow = this.rules();
    const rules = new IgnoreRules({ readFile: (p) => this.io.readFile(p, 1024 * 1024) }, rulesNow);
    const out: StatWalk = new Map();
    const entered = new Set<string>();
    this.truncated = await this.walkFrom(["."], rules, out, entered);
    this.adopt(out, entered, rules, JSON.stringify(rulesNow), startSeq);
    return out;
  }

  /** Walks the folders of `queue` and below into `out`; true when it stopped at MAX_BASELINE_FILES. */
  // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one walk of the tree; the ignore, symlink and size checks share its state
  private async walkFrom(start: string[], rules: IgnoreRules, out: StatWalk, entered: Set<string>, onIgnoreFile?: () => void): Promise<boolean> {
    let queue = start;
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
        if (onIgnoreFile && listed.entries.some((e) => (IGNORE_FILE_NAMES as readonly string[]).includes(e.name))) onIgnoreFile();
        await rules.enter(dir, listed.entries);
        entered.add(dir);
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
        if (out.size > MAX_BASELINE_FILES) return true;
      }
      queue = next;
    }
    return false;
  }

  /**
   * A walk is the truth as of its start: it becomes the tracked tree, events numbered before it are
   * covered, and the feed is trusted when it was attached before the walk and lost nothing since.
   * What the walk found changed that the feed never named is noted: the feed must name it later.
   */
  private adopt(out: StatWalk, entered: Set<string>, rules: IgnoreRules, rulesKey: string, startSeq: number): void {
    const previous = this.tracked;
    this.sweepUnreported();
    // Only a trusted feed under the same rules owes reports (after a loss or a rule change, the walk's differences are expected).
    if (previous && this.feedFrom !== undefined && !this.distrust && rulesKey === this.rulesKey) {
      for (const [path, st] of out) {
        const was = previous.get(path);
        if ((!was || !sameStat(was, st)) && !this.namedAbove(path)) this.unreported.add(path);
      }
      for (const path of previous.keys()) if (!out.has(path) && !this.namedAbove(path)) this.unreported.add(path);
    }
    for (const [path, n] of this.dirty) if (n < startSeq) this.dirty.delete(path);
    if (this.truncated) {
      this.tracked = undefined;
      this.distrust = "the workspace has more files than a walk covers";
      return;
    }
    this.tracked = new Map(out);
    this.entered = entered;
    this.walkRules = rules;
    this.rulesKey = rulesKey;
    if (this.feedFrom === undefined) this.distrust = "no change feed";
    else if (this.feedFrom >= startSeq) this.distrust = "the feed was attached during the walk";
    else if (this.lostAt > startSeq) this.distrust = "the feed lost events during the walk";
    else this.distrust = undefined;
  }

  /** The feed named `path` or a folder above it, and the baseline has not applied it yet. */
  private namedAbove(path: string): boolean {
    if (this.dirty.has(path)) return true;
    for (let at = path.lastIndexOf("/"); at > 0; at = path.lastIndexOf("/", at - 1)) if (this.dirty.has(path.slice(0, at))) return true;
    return false;
  }

  /** Follows `feed`: its events keep the tracked tree current (`onDirty`: a path was named, a refresh is due). */
  follow(feed: ChangeFeed, onDirty: () => void): () => void {
    this.feedFrom = ++this.seq;
    this.feed = feed;
    this.distrust = "no walk since the feed was attached";
    this.onDirty = onDirty;
    return feed.subscribe({
      changed: (paths) => {
        if (this.heldEvents) this.heldEvents.push(paths);
        else this.named(paths);
      },
      lost: (reason) => this.lose(reason),
    });
  }

  /** Test seam: the feed's events held back, as late as a busy machine's watcher can be. */
  holdEvents(): void {
    this.heldEvents ??= [];
  }

  /** Test seam: the held events come now, in order. */
  releaseEvents(): void {
    const held = this.heldEvents ?? [];
    this.heldEvents = undefined;
    for (const paths of held) this.named(paths);
  }

  /** The feed named `paths`. */
  private named(paths: readonly string[]): void {
    this.onNamed?.(paths);
    const n = ++this.seq;
    for (const path of paths) {
      if (path === "." || path === "") {
        this.lose("the feed named the whole workspace");
        continue;
      }
      this.dirty.set(path, n);
      if (this.unreported.size === 0) continue;
      this.unreported.delete(path);
      // Maybe a folder: what a walk found below it is named too (swept when the reason is asked).
      if (!this.tracked?.has(path)) this.namedFolders.add(path);
    }
    this.onDirty?.();
  }

  private lose(reason: string): void {
    this.lostAt = ++this.seq;
    this.distrust = `the feed lost events (${reason})`;
    this.dirty.clear();
    // What it owed may be among what it lost: the next walk is the truth, owed nothing.
    this.unreported.clear();
    this.namedFolders.clear();
  }

  /** Why a snapshot would walk now (undefined: the feed's events suffice). */
  walkReason(): string | undefined {
    if (this.neverTrust) return this.neverTrust;
    if (this.distrust) return this.distrust;
    const blind = this.feed?.untrusted?.();
    if (blind) return blind;
    if (!this.tracked || !this.walkRules) return "no walk yet";
    if (JSON.stringify(this.rules()) !== this.rulesKey) return "the excludes changed";
    this.sweepUnreported();
    if (this.unreported.size > 0) return `the feed never named ${this.unreported.size} change(s) a walk found (e.g. ${[...this.unreported][0]})`;
    return undefined;
  }

  /** Unreported paths below a folder the feed named since are reported. */
  private sweepUnreported(): void {
    if (this.namedFolders.size === 0) return;
    for (const u of this.unreported) {
      for (let at = u.lastIndexOf("/"); at > 0; at = u.lastIndexOf("/", at - 1)) {
        if (this.namedFolders.has(u.slice(0, at))) {
          this.unreported.delete(u);
          break;
        }
      }
    }
    this.namedFolders.clear();
  }

  /**
   * Applies the paths the feed named since: each is stat'ed again (a folder: walked again; a
   * deleted one: its files dropped). An ignore file named, or met in a new folder, makes the feed
   * untrusted until the next walk (the rules changed). Only the tracked stats move here: contents are
   * read when a snapshot asks (so a command's "before" contents are never replaced under it).
   */
  // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the cases of one named path (ignored, new folder, file, folder, gone) share the walk's state
  async refresh(): Promise<void> {
    const tracked = this.tracked;
    const rules = this.walkRules;
    if (this.dirty.size === 0 || this.walkReason() || !tracked || !rules) return;
    const upto = this.seq;
    const named = [...this.dirty.keys()];
    const distrust = (why: string): void => {
      this.distrust = why;
    };
    const gone = new Set<string>();
    for (const path of named) {
      const name = path.slice(path.lastIndexOf("/") + 1);
      if ((IGNORE_FILE_NAMES as readonly string[]).includes(name)) return distrust(`an ignore file changed (${path})`);
      const target = this.firstUnentered(path, rules);
      if (target === undefined) continue; // inside a folder the walk skips
      const st = await this.io.lstat(target).catch(() => undefined);
      // A folder the walk knew: what was below it goes (or is walked again, below).
      if (this.entered.has(target)) gone.add(target);
      tracked.delete(target);
      if (st?.type === "file") {
        if (!rules.skips(target, "file")) tracked.set(target, st);
      } else if (st?.type === "directory" && !rules.skips(target, "directory")) {
        const found: StatWalk = new Map();
        const stopped = await this.walkFrom([target], rules, found, this.entered, () => distrust(`a folder with an ignore file appeared (${target})`));
        if (stopped) return distrust("the workspace has more files than a walk covers");
        for (const [p, s] of found) tracked.set(p, s);
        gone.delete(target);
        // Files under it the new walk did not find are gone.
        for (const p of [...tracked.keys()]) if (p.startsWith(`${target}/`) && !found.has(p)) tracked.delete(p);
      }
      if (this.distrust) return;
    }
    if (gone.size > 0) {
      for (const p of [...tracked.keys()]) {
        for (let at = p.lastIndexOf("/"); at > 0; at = p.lastIndexOf("/", at - 1)) {
          if (gone.has(p.slice(0, at))) {
            tracked.delete(p);
            break;
          }
        }
      }
      for (const dir of gone) for (const e of [...this.entered]) if (e === dir || e.startsWith(`${dir}/`)) this.entered.delete(e);
    }
    for (const [path, n] of this.dirty) if (n <= upto) this.dirty.delete(path);
  }

  /**
   * The path to stat again for a named `path`: itself, or its highest folder the last walk did not
   * enter (new: walked whole); undefined when a folder above it is one the walk skips.
   */
  private firstUnentered(path: string, rules: IgnoreRules): string | undefined {
    const parts = path.split("/");
    let dir = ".";
    for (let i = 0; i < parts.length - 1; i++) {
      const sub = i === 0 ? parts[0]! : `${dir}/${parts[i]}`;
      if (!this.entered.has(sub)) return rules.skips(sub, "directory") ? undefined : sub;
      dir = sub;
    }
    return rules.skips(path, "file") && rules.skips(path, "directory") ? undefined : path;
  }

  /**
   * `path` is gone and the folder it was in (or, gone too, the nearest one above still there) last
   * changed before `startedAt`: a removal changes its folder, so it went before then.
   */
  private async removedBefore(path: string, startedAt: number): Promise<boolean> {
    for (let at = path.lastIndexOf("/"); ; at = path.lastIndexOf("/", at - 1)) {
      const st = await this.io.lstat(at > 0 ? path.slice(0, at) : ".").catch(() => undefined);
      if (st?.type === "directory") return st.ctimeMs !== undefined && st.ctimeMs < startedAt;
      if (at <= 0) return false;
    }
  }

  /** Pi wrote `path` itself: it is stat'ed again at the next look, whatever the watcher's delay. */
  written(path: string): void {
    if (this.feedFrom !== undefined) this.dirty.set(path, ++this.seq);
  }

  /** The feed is never trusted again in this window (`why`: the file system's clock cannot tell before from during). */
  distrustFor(why: string): void {
    this.neverTrust ??= why;
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

  /**
   * The tree now with every file's content known (read only where the stat changed since the
   * baseline): from the tracked tree and the paths the feed named since when it is trusted, else
   * by a walk.
   */
  async snapshot(): Promise<StatWalk> {
    await this.refresh();
    const why = this.walkReason();
    const tracked = this.tracked;
    if (why || !tracked) {
      const walk = await this.walk();
      await inBatches([...walk.entries()], READ_CONCURRENCY, async ([path, st]) => {
        await this.stateOf(path, st);
      });
      this.lastSnapshot = { source: "walk", why: why ?? "no walk yet" };
      return walk;
    }
    const unread: [string, EntryStat][] = [];
    for (const [path, st] of tracked) {
      const k = this.known.get(path);
      if (!k || !sameStat(k, st)) unread.push([path, st]);
    }
    await inBatches(unread, READ_CONCURRENCY, async ([path, st]) => {
      await this.stateOf(path, st);
    });
    this.lastSnapshot = { source: "events" };
    return new Map(tracked);
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

  /**
   * What changed between `before` (a snapshot) and `after` (a walk, now by default): created,
   * modified (content differs) and deleted files. With `startedAt` (the file system's clock when
   * the command started), a file last changed before it, or gone from a folder last changed before
   * it, is left out whatever `before` said: that change was not the command's, only missed by the
   * before (a watcher's event still on its way, or a change behind the walk), so the result never
   * depends on how soon the watcher reports.
   */
  async changesSince(before: StatWalk, walked?: StatWalk, startedAt?: number): Promise<CommandChange[]> {
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
      if (startedAt !== undefined && st.ctimeMs !== undefined && st.ctimeMs < startedAt) return;
      if (!sameState(a, b)) changes.push({ path, before: b, after: a });
    });
    for (const [path, st] of before) {
      if (after.has(path)) continue;
      const b = beforeState(path, st);
      this.known.delete(path);
      if (startedAt !== undefined && (await this.removedBefore(path, startedAt))) continue;
      changes.push({ path, before: b, after: ABSENT });
    }
    changes.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
    return changes;
  }
}
