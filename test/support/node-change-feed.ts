// A change feed over inotify (Node's fs.watch, one watch per folder, as VS Code's watcher does on
// Linux), for the benchmark: the same events a real watcher gives (late, coalesced, sometimes
// none), so the checkpoints' fallback is exercised as it is in VS Code. Node's own recursive
// fs.watch is not used: on Linux it polls every file, which does not scale to 100,000 files.
// `settled()` waits for a probe file's event: every change made before it has been reported (one
// inotify queue, events in order).
import { type FSWatcher, readdirSync, unlinkSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ChangeFeed, ChangeListener } from "../../src/core/checkpoints";

/** Folders not watched: VS Code's default files.watcherExclude skips their insides too. */
const UNWATCHED = new Set([".git", "node_modules"]);

export class NodeChangeFeed implements ChangeFeed {
  private readonly listeners = new Set<ChangeListener>();
  private readonly watchers = new Map<string, FSWatcher>();
  private probes = 0;
  private readonly waiting = new Map<string, () => void>();

  constructor(private readonly root: string) {
    this.watchTree("");
  }

  /** Watches `rel` and every folder below it. */
  private watchTree(rel: string): void {
    if (this.watchers.has(rel)) return;
    const abs = rel === "" ? this.root : join(this.root, rel);
    let entries: import("node:fs").Dirent[];
    try {
      const watcher = watch(abs, (_event, name) => this.event(rel, name));
      watcher.on("error", () => this.unwatch(rel));
      this.watchers.set(rel, watcher);
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      return; // gone meanwhile
    }
    for (const e of entries) if (e.isDirectory() && !UNWATCHED.has(e.name)) this.watchTree(rel === "" ? e.name : `${rel}/${e.name}`);
  }

  private unwatch(rel: string): void {
    for (const [path, watcher] of this.watchers) {
      if (path === rel || path.startsWith(`${rel}/`)) {
        watcher.close();
        this.watchers.delete(path);
      }
    }
  }

  private event(dir: string, name: string | null): void {
    if (name === null) {
      for (const l of this.listeners) l.lost("the watcher gave no name");
      return;
    }
    const path = dir === "" ? name : `${dir}/${name}`;
    const probe = this.waiting.get(path);
    if (probe) {
      probe();
      return;
    }
    if (path.startsWith(".pi-chat-probe-")) return;
    // A new folder is watched (what was written in it before the watch is named by the folder's event).
    if (!UNWATCHED.has(name)) {
      try {
        if (readdirSync(join(this.root, path)) !== undefined) this.watchTree(path);
      } catch {
        this.unwatch(path);
      }
    }
    for (const l of this.listeners) l.changed([path]);
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once the watcher reported a file written now: every earlier change was reported before it. */
  async settled(): Promise<void> {
    const name = `.pi-chat-probe-${++this.probes}`;
    let timer: NodeJS.Timeout | undefined;
    const seen = new Promise<void>((resolve, reject) => {
      this.waiting.set(name, resolve);
      // A benchmark must not hang holding the machine's lock: a watcher that never answers fails it.
      timer = setTimeout(() => reject(new Error("the watcher did not report a probe file within 20 s")), 20_000);
    });
    writeFileSync(join(this.root, name), "");
    try {
      await seen;
    } finally {
      clearTimeout(timer);
      this.waiting.delete(name);
      unlinkSync(join(this.root, name));
    }
  }

  /** As if the watcher overflowed: the listeners are told events were lost (the benchmark's fallback figure). */
  lose(reason: string): void {
    for (const l of this.listeners) l.lost(reason);
  }

  close(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}
