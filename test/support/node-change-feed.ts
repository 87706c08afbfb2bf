// A change feed over Node's recursive fs.watch, for the unit tests and the benchmark: the same
// events a real watcher gives (late, coalesced, sometimes none), so the checkpoints' fallback is
// exercised as it is in VS Code. `settled()` waits for a probe file's event: every change made
// before it has been reported (one watcher, events in order).
import { type FSWatcher, unlinkSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ChangeFeed, ChangeListener } from "../../src/core/checkpoints";

export class NodeChangeFeed implements ChangeFeed {
  private readonly listeners = new Set<ChangeListener>();
  private readonly watcher: FSWatcher;
  private probes = 0;
  private readonly waiting = new Map<string, () => void>();

  constructor(private readonly root: string) {
    this.watcher = watch(root, { recursive: true }, (_event, name) => {
      if (name === null) {
        for (const l of this.listeners) l.lost("the watcher gave no name");
        return;
      }
      const path = name.split("\\").join("/");
      const probe = this.waiting.get(path);
      if (probe) {
        probe();
        return;
      }
      if (path.startsWith(".pi-chat-probe-")) return;
      for (const l of this.listeners) l.changed([path]);
    });
    this.watcher.on("error", (e) => {
      for (const l of this.listeners) l.lost(String(e));
    });
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once the watcher reported a file written now: every earlier change was reported before it. */
  async settled(): Promise<void> {
    const name = `.pi-chat-probe-${++this.probes}`;
    const seen = new Promise<void>((resolve) => this.waiting.set(name, resolve));
    writeFileSync(join(this.root, name), "");
    await seen;
    this.waiting.delete(name);
    unlinkSync(join(this.root, name));
  }

  /** As if the watcher overflowed: the listeners are told events were lost (the benchmark's fallback figure). */
  lose(reason: string): void {
    for (const l of this.listeners) l.lost(reason);
  }

  close(): void {
    this.watcher.close();
  }
}
