// A command's "before" from a change feed (what already watches the files) on a real temp folder:
// the paths the feed names are stat'ed again instead of walking the tree, and the walk stays the
// fallback whenever the feed cannot be trusted: it dropped an event, it overflowed, an ignore file
// or the excludes changed. The feed is driven by hand so each fault (late, dropped, lost) is exact.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChangeFeed, type ChangeListener, Checkpoints, type CheckpointIo, createNodeCheckpointIo, type FileState } from "../../../src/core/checkpoints";
import type { WalkRules } from "../../../src/core/tools";

/** A watcher driven by the test: it reports what it is told to, when it is told to. */
class HandFeed implements ChangeFeed {
  private listener: ChangeListener | undefined;
  subscribe(listener: ChangeListener): () => void {
    this.listener = listener;
    return () => {
      this.listener = undefined;
    };
  }
  report(...paths: string[]): void {
    this.listener?.changed(paths);
  }
  overflow(): void {
    this.listener?.lost("overflow");
  }
}

interface World {
  ws: string;
  feed: HandFeed;
  checkpoints: Checkpoints;
  rules: WalkRules;
  /** Folders listed by the checkpoints' I/O since the last reset (a walk lists every folder). */
  listed: string[];
  write(rel: string, content: string): void;
  remove(rel: string): void;
  cleanup(): void;
}

function makeWorld(): World {
  const base = mkdtempSync(join(tmpdir(), "pi-chat-change-feed-"));
  const ws = join(base, "ws");
  mkdirSync(ws);
  const feed = new HandFeed();
  const listed: string[] = [];
  const disk = createNodeCheckpointIo([{ name: "ws", root: ws }]);
  const io: CheckpointIo = {
    ...disk,
    statDirectory: (p) => {
      listed.push(p);
      return disk.statDirectory!(p);
    },
  };
  const world: World = {
    ws,
    feed,
    rules: {},
    listed,
    checkpoints: undefined as unknown as Checkpoints,
    write(rel, content) {
      const full = join(ws, rel);
      mkdirSync(join(full, ".."), { recursive: true });
      writeFileSync(full, content);
    },
    remove: (rel) => unlinkSync(join(ws, rel)),
    cleanup: () => {
      world.checkpoints.dispose();
      rmSync(base, { recursive: true, force: true });
    },
  };
  world.checkpoints = new Checkpoints({ storageRoot: join(base, "storage"), io, changes: feed, rules: () => world.rules });
  return world;
}

const hashOf = (text: string): FileState => ({ hash: createHash("sha256").update(text).digest("hex"), size: Buffer.byteLength(text), kept: true });

/** A command between a before and an after look; returns what was recorded, by path, and how the before was known. */
async function command(
  w: World,
  run: () => void,
): Promise<{ changes: Record<string, { before: FileState; after: FileState }>; source: string; listed: number; beforePaths: Set<string> }> {
  w.listed.length = 0;
  const before = await w.checkpoints.beforeCommand();
  const listed = w.listed.length;
  const source = w.checkpoints.baseline.lastSnapshot.source;
  run();
  const changes = await w.checkpoints.afterCommand("chat", before);
  return {
    changes: Object.fromEntries(changes.map((c) => [c.path, { before: c.before, after: c.after }])),
    source,
    listed,
    beforePaths: new Set(before.walk.keys()),
  };
}

describe("checkpoints: a command's before from the change feed", function () {
  this.timeout(20_000);
  let w: World;
  beforeEach(async () => {
    w = makeWorld();
    w.write("a.ts", "a0\n");
    w.write("b.ts", "b0\n");
    w.write("src/c.ts", "c0\n");
    w.write("src/old.ts", "old\n");
    await w.checkpoints.warm();
  });
  afterEach(() => w.cleanup());

  it("finds the command's change the feed reports, without walking the tree before it", async () => {
    const first = await command(w, () => {});
    assert.equal(first.source, "events", "the feed was attached before the first walk, so the next look needs no walk");
    const run = await command(w, () => {
      w.write("b.ts", "b1\n");
      w.feed.report("b.ts");
    });
    assert.equal(run.source, "events");
    assert.equal(run.listed, 0, "no folder was listed before the command");
    assert.deepEqual(run.changes, { "b.ts": { before: hashOf("b0\n"), after: hashOf("b1\n") } });
  });

  it("finds the command's change the feed dropped (the walk after it), and the next command walks until the feed names it", async () => {
    const run = await command(w, () => w.write("b.ts", "b1\n")); // never reported
    assert.deepEqual(run.changes, { "b.ts": { before: hashOf("b0\n"), after: hashOf("b1\n") } });
    // The user changes a.ts and the feed drops that too: only a walk sees it before the next command.
    w.write("a.ts", "a-user\n");
    const next = await command(w, () => w.write("a.ts", "a-command\n"));
    assert.equal(next.source, "walk", "a feed that missed a change is not trusted");
    assert.deepEqual(next.changes, { "a.ts": { before: hashOf("a-user\n"), after: hashOf("a-command\n") } }, "the user's content is the command's before");
    // Once the feed has named every change the walks saw, it is trusted again.
    w.feed.report("b.ts", "a.ts");
    await w.checkpoints.idle();
    assert.equal((await command(w, () => {})).source, "events");
  });

  it("a folder the feed names late covers what a walk found below it", async () => {
    const run = await command(w, () => w.write("gen/deep/x.ts", "x\n")); // the folder's event comes late
    assert.deepEqual(Object.keys(run.changes), ["gen/deep/x.ts"]);
    w.feed.report("gen");
    await w.checkpoints.idle();
    const next = await command(w, () => {});
    assert.equal(next.source, "events", "the folder's event reported the file below it");
    assert.ok(next.beforePaths.has("gen/deep/x.ts"));
  });

  it("a file the user changed before the command, reported late (not yet applied), keeps its pre-command content", async () => {
    w.write("a.ts", "a-user\n");
    w.feed.report("a.ts"); // no wait: the before must stat it itself
    const run = await command(w, () => {
      w.write("a.ts", "a-command\n");
      w.feed.report("a.ts");
    });
    assert.equal(run.source, "events");
    assert.deepEqual(run.changes, { "a.ts": { before: hashOf("a-user\n"), after: hashOf("a-command\n") } });
  });

  it("a change the user made before the command, its event not yet come, is not the command's (CI's race)", async () => {
    assert.equal((await command(w, () => {})).source, "events");
    // Made outside VS Code just before the command; the watcher has not reported any of it yet.
    w.write("a.ts", "a-user\n");
    w.write("user-new.ts", "mine\n");
    w.write("user-dir/deep/y.ts", "y\n");
    w.remove("src/old.ts");
    const run = await command(w, () => {
      w.write("b.ts", "b-command\n");
      w.feed.report("b.ts");
    });
    assert.equal(run.source, "events", "the before came from the feed, which had not named the user's changes");
    assert.deepEqual(run.changes, { "b.ts": { before: hashOf("b0\n"), after: hashOf("b-command\n") } }, "only the command's write is the command's");
  });

  it("a change made in the same clock tick as the look before a command is still before it", async () => {
    // File stamps are coarse (a tick of a few ms): a write just before the look ties with a stamp read then.
    for (let i = 0; i < 20; i++) {
      w.write("a.ts", `a-user ${i}\n`); // its event comes only after the command
      const run = await command(w, () => {});
      assert.equal(run.source, "events");
      assert.deepEqual(run.changes, {}, `round ${i}: the user's change is not the command's`);
      w.feed.report("a.ts");
      await w.checkpoints.idle();
    }
  });

  it("Pi's own write before a command is in its before at once, whatever the watcher's delay", async () => {
    assert.equal((await command(w, () => {})).source, "events");
    await w.checkpoints.recordWrite("chat", "edit", "a.ts", async () => w.write("a.ts", "a-pi\n")); // its watcher event has not come
    const run = await command(w, () => {
      w.write("a.ts", "a-command\n");
      w.feed.report("a.ts");
    });
    assert.deepEqual(run.changes, { "a.ts": { before: hashOf("a-pi\n"), after: hashOf("a-command\n") } });
  });

  it("a change reported while another command runs is applied before the next one, with the user's content", async () => {
    const long = await w.checkpoints.beforeCommand(); // a command still running
    w.write("a.ts", "a-user\n");
    w.feed.report("a.ts");
    await w.checkpoints.idle(); // no refresh while a command runs
    const other = await command(w, () => {
      w.write("a.ts", "a-command\n");
      w.feed.report("a.ts");
    });
    assert.equal(other.source, "events");
    assert.deepEqual(other.changes["a.ts"], { before: hashOf("a-user\n"), after: hashOf("a-command\n") });
    await w.checkpoints.afterCommand("chat", long);
  });

  it("records deleted and created files, and a new folder the feed names only by its name", async () => {
    // The user's own before the command: in the baseline, not the command's.
    w.remove("b.ts");
    w.write("user-new.ts", "mine\n");
    w.write("user-dir/deep/y.ts", "y\n");
    w.feed.report("b.ts", "user-new.ts", "user-dir");
    const run = await command(w, () => {
      w.remove("src/old.ts");
      w.write("made.ts", "made\n");
      w.write("gen/deep/x.ts", "x\n");
      w.feed.report("src/old.ts", "made.ts", "gen");
    });
    assert.equal(run.source, "events");
    assert.ok(run.beforePaths.has("user-new.ts") && !run.beforePaths.has("b.ts"), "the user's delete and create are in the before");
    assert.ok(run.beforePaths.has("user-dir/deep/y.ts"), "a new folder named alone is walked");
    assert.deepEqual(run.changes, {
      "gen/deep/x.ts": { before: { absent: true }, after: hashOf("x\n") },
      "made.ts": { before: { absent: true }, after: hashOf("made\n") },
      "src/old.ts": { before: hashOf("old\n"), after: { absent: true } },
    });
    // A deleted folder named alone takes its files with it.
    rmSync(join(w.ws, "gen"), { recursive: true });
    w.feed.report("gen");
    const after = await command(w, () => {});
    assert.equal(after.source, "events");
    assert.ok(!after.beforePaths.has("gen/deep/x.ts"));
  });

  it("an overflowed feed falls back to the walk, which sees the change the feed lost", async () => {
    await command(w, () => w.write("b.ts", "b1\n")); // its event is lost too
    w.write("a.ts", "a-user\n"); // lost in the overflow
    w.feed.overflow();
    const run = await command(w, () => {
      w.write("a.ts", "a-command\n");
      w.feed.report("a.ts");
    });
    assert.equal(run.source, "walk");
    assert.ok(run.listed > 0);
    assert.deepEqual(run.changes, { "a.ts": { before: hashOf("a-user\n"), after: hashOf("a-command\n") } });
    assert.equal((await command(w, () => {})).source, "events", "the walk after an overflow restores the trust");
  });

  it("walks when an ignore file or the excludes change, and never tracks what the walk skips", async () => {
    w.write("node_modules/dep/index.js", "x\n");
    w.write("src/c.ts", "c1\n");
    w.feed.report("node_modules/dep/index.js", "src/c.ts");
    const quiet = await command(w, () => {});
    assert.equal(quiet.source, "events");
    assert.ok(!quiet.beforePaths.has("node_modules/dep/index.js"));
    w.write(".gitignore", "src/\n");
    w.feed.report(".gitignore");
    const ignored = await command(w, () => {});
    assert.equal(ignored.source, "walk");
    assert.ok(!ignored.beforePaths.has("src/c.ts"), "the new rule is applied");
    assert.equal((await command(w, () => {})).source, "events", "the walk after the new rule is trusted");
    w.rules = { excludes: ["b.ts"] };
    const excluded = await command(w, () => {});
    assert.equal(excluded.source, "walk");
    assert.ok(!excluded.beforePaths.has("b.ts"));
  });

  it("without a feed every before is a walk", async () => {
    const base = mkdtempSync(join(tmpdir(), "pi-chat-change-feed-"));
    try {
      const cp = new Checkpoints({ storageRoot: join(base, "s"), io: createNodeCheckpointIo([{ name: "ws", root: w.ws }]) });
      await cp.warm();
      await cp.beforeCommand();
      assert.equal(cp.baseline.lastSnapshot.source, "walk");
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
