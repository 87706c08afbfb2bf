// Checkpoints on real temp folders: what Pi wrote is recorded (edit_file through the real tool,
// commands through the before/after walk), a restore puts back only what still holds what Pi
// left, deletes only what Pi created, skips everything else with its reason, keeps bytes exact
// (CRLF, BOM, binary), never follows a symlink, and a restore cut off half-way is rolled back.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Checkpoints, createNodeCheckpointIo, type RestorePlan } from "../../../src/core/checkpoints";
import { createEditFileTool, createNodeWorkspaceFs } from "../../../src/core/tools";

interface World {
  base: string;
  ws: string;
  storage: string;
  dirty: Set<string>;
  checkpoints: Checkpoints;
  write(rel: string, content: string | Uint8Array): void;
  read(rel: string): Buffer;
  cleanup(): void;
}

function makeWorld(maxFileBytes?: number): World {
  const base = mkdtempSync(join(tmpdir(), "pi-chat-checkpoints-"));
  const ws = join(base, "ws");
  const storage = join(base, "storage");
  mkdirSync(ws);
  mkdirSync(storage);
  const dirty = new Set<string>();
  const io = createNodeCheckpointIo([{ name: "ws", root: ws }], (p) => dirty.has(p));
  const world: World = {
    base,
    ws,
    storage,
    dirty,
    checkpoints: new Checkpoints({ storageRoot: storage, io, ...(maxFileBytes !== undefined ? { maxFileBytes } : {}) }),
    write(rel, content) {
      const full = join(ws, rel);
      mkdirSync(join(full, ".."), { recursive: true });
      writeFileSync(full, content);
    },
    read: (rel) => readFileSync(join(ws, rel)),
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
  return world;
}

/** A fresh Checkpoints over the same storage and folder: what the next activation sees. */
function reopen(w: World): Checkpoints {
  return new Checkpoints({ storageRoot: w.storage, io: createNodeCheckpointIo([{ name: "ws", root: w.ws }], (p) => w.dirty.has(p)) });
}

async function editWithTool(w: World, chatId: string, path: string, oldText: string, newText: string): Promise<void> {
  const fs = w.checkpoints.forChat(chatId).recordingFs(createNodeWorkspaceFs(w.ws));
  await createEditFileTool(fs).execute(`call-${Math.random()}`, { path, oldText, newText });
}

/** A "command": whatever `run` does to the folder, between the before and after walks. */
async function command(w: World, chatId: string, run: () => void): Promise<void> {
  const before = await w.checkpoints.beforeCommand();
  run();
  await w.checkpoints.afterCommand(chatId, before);
}

const byPath = (plan: RestorePlan | undefined) => ({
  files: Object.fromEntries((plan?.files ?? []).map((f) => [f.path, f.piDid])),
  skipped: Object.fromEntries((plan?.skipped ?? []).map((s) => [s.path, s.reason])),
});

describe("checkpoints: record and restore", function () {
  this.timeout(20_000);
  let w: World;
  beforeEach(() => {
    w = makeWorld();
  });
  afterEach(() => w.cleanup());

  it("restores what Pi changed, deletes only Pi's new files, skips the user's edit, and Redo brings back the bytes", async () => {
    w.write(".gitignore", "build/\n");
    w.write("a.ts", "export const a = 1;\n");
    w.write("b.ts", "export const b = 1;\n");
    w.write("d.txt", "d before\n");
    w.write("e.txt", "e before\n");
    w.write("untouched.txt", "keep my mtime\n");
    w.write("build/out.js", "ignored before\n");
    const untouchedMtime = statSync(join(w.ws, "untouched.txt")).mtimeMs;
    const chat = w.checkpoints.forChat("chat1");
    await chat.mark("m1");
    await editWithTool(w, "chat1", "a.ts", "1", "2");
    await editWithTool(w, "chat1", "b.ts", "1", "2");
    await command(w, "chat1", () => {
      w.write("c.ts", "created by pi\n");
      w.write("d.txt", "d after\n");
      unlinkSync(join(w.ws, "e.txt"));
      w.write("build/out.js", "ignored after\n");
    });
    // The user edits one of Pi's files and creates their own.
    w.write("a.ts", "export const a = 'mine';\n");
    w.write("mine.txt", "my own file\n");

    const plan = await w.checkpoints.plan("chat1", "m1");
    const seen = byPath(plan);
    assert.deepEqual(seen.files, { "b.ts": "modified", "c.ts": "created", "d.txt": "modified", "e.txt": "deleted" });
    assert.deepEqual(Object.keys(seen.skipped), ["a.ts"]);
    assert.match(seen.skipped["a.ts"]!, /changed since Pi wrote it/);

    const piState = { b: w.read("b.ts"), c: w.read("c.ts"), d: w.read("d.txt") };
    const outcome = await w.checkpoints.restore("chat1", "m1", plan);
    assert.ok(outcome);
    assert.deepEqual(outcome.restored.map((f) => f.path).sort(), ["b.ts", "d.txt", "e.txt"]);
    assert.deepEqual(
      outcome.deleted.map((f) => f.path),
      ["c.ts"],
    );
    assert.equal(w.read("b.ts").toString(), "export const b = 1;\n");
    assert.equal(w.read("d.txt").toString(), "d before\n");
    assert.equal(w.read("e.txt").toString(), "e before\n");
    assert.equal(existsSync(join(w.ws, "c.ts")), false);
    assert.equal(w.read("a.ts").toString(), "export const a = 'mine';\n", "the user's edit stays");
    assert.equal(w.read("mine.txt").toString(), "my own file\n");
    assert.equal(w.read("build/out.js").toString(), "ignored after\n", "ignored files are never touched");
    assert.equal(statSync(join(w.ws, "untouched.txt")).mtimeMs, untouchedMtime);

    const redo = await w.checkpoints.restore("chat1", outcome.redoMarkId);
    assert.ok(redo);
    assert.deepEqual(w.read("b.ts"), piState.b);
    assert.deepEqual(w.read("c.ts"), piState.c);
    assert.deepEqual(w.read("d.txt"), piState.d);
    assert.equal(existsSync(join(w.ws, "e.txt")), false);
    assert.equal(w.read("a.ts").toString(), "export const a = 'mine';\n");
    // And restoring to m1 again works after the redo (the journal composes).
    const again = await w.checkpoints.restore("chat1", "m1");
    assert.deepEqual(again?.restored.map((f) => f.path).sort(), ["b.ts", "d.txt", "e.txt"]);
  });

  it("keeps CRLF, BOM and binary bytes exact", async () => {
    const crlf = Buffer.from("\uFEFFline one\r\nline two\r\n", "utf8");
    const binary = Buffer.from([0, 255, 1, 254, 13, 10, 0, 0, 0x89, 0x50]);
    w.write("crlf.txt", crlf);
    w.write("blob.bin", binary);
    await w.checkpoints.forChat("c").mark("m");
    await editWithTool(w, "c", "crlf.txt", "line one", "line 1");
    assert.notDeepEqual(w.read("crlf.txt"), crlf);
    await command(w, "c", () => w.write("blob.bin", Buffer.from([1, 2, 3])));
    const out = await w.checkpoints.restore("c", "m");
    assert.equal(out?.restored.length, 2);
    assert.deepEqual(w.read("crlf.txt"), crlf);
    assert.deepEqual(w.read("blob.bin"), binary);
  });

  it("deletes a file Pi created only while it holds what Pi wrote", async () => {
    await w.checkpoints.forChat("c").mark("m");
    await command(w, "c", () => {
      w.write("new1.txt", "pi\n");
      w.write("new2.txt", "pi\n");
    });
    w.write("new2.txt", "the user took it over\n");
    const out = await w.checkpoints.restore("c", "m");
    assert.deepEqual(
      out?.deleted.map((f) => f.path),
      ["new1.txt"],
    );
    assert.deepEqual(
      out?.skipped.map((s) => s.path),
      ["new2.txt"],
    );
    assert.equal(w.read("new2.txt").toString(), "the user took it over\n");
  });

  it("never follows a symlink and skips a file replaced by a folder", async () => {
    w.write("linked.txt", "before\n");
    w.write("folder.txt", "before\n");
    w.write("dir/inner.txt", "before\n");
    const outside = join(w.base, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "inner.txt"), "outside, never written\n");
    await w.checkpoints.forChat("c").mark("m");
    await command(w, "c", () => {
      w.write("linked.txt", "after\n");
      w.write("folder.txt", "after\n");
      w.write("dir/inner.txt", "after\n");
    });
    // linked.txt becomes a symlink to a file holding Pi's bytes; folder.txt a folder; dir a link out.
    writeFileSync(join(w.base, "target.txt"), "after\n");
    unlinkSync(join(w.ws, "linked.txt"));
    symlinkSync(join(w.base, "target.txt"), join(w.ws, "linked.txt"));
    unlinkSync(join(w.ws, "folder.txt"));
    mkdirSync(join(w.ws, "folder.txt"));
    rmSync(join(w.ws, "dir"), { recursive: true });
    writeFileSync(join(outside, "inner.txt"), "after\n");
    symlinkSync(outside, join(w.ws, "dir"));
    const plan = await w.checkpoints.plan("c", "m");
    const seen = byPath(plan);
    assert.deepEqual(seen.files, {});
    assert.match(seen.skipped["linked.txt"]!, /symbolic link/);
    assert.match(seen.skipped["folder.txt"]!, /a folder is there/);
    assert.match(seen.skipped["dir/inner.txt"]!, /symbolic link/);
    await w.checkpoints.restore("c", "m");
    assert.equal(readFileSync(join(w.base, "target.txt"), "utf8"), "after\n");
    assert.equal(readFileSync(join(outside, "inner.txt"), "utf8"), "after\n");
  });

  it("a 10 MB file is not kept, and the plan says it cannot be restored", async () => {
    const big = Buffer.alloc(10 * 1024 * 1024, 7);
    w.write("big.dat", big);
    await w.checkpoints.forChat("c").mark("m");
    await command(w, "c", () => w.write("big.dat", Buffer.alloc(10 * 1024 * 1024, 8)));
    const plan = await w.checkpoints.plan("c", "m");
    assert.deepEqual(plan?.files, []);
    assert.match(byPath(plan).skipped["big.dat"]!, /larger than 5 MB/);
  });

  it("skips a file open with unsaved changes, and one changed between Pi's changes", async () => {
    w.write("open.ts", "x = 1\n");
    w.write("chain.ts", "y = 1\n");
    await w.checkpoints.forChat("c").mark("m");
    await editWithTool(w, "c", "open.ts", "1", "2");
    await editWithTool(w, "c", "chain.ts", "1", "2");
    w.write("chain.ts", "y = 2 // the user\n");
    await editWithTool(w, "c", "chain.ts", "// the user", "// and pi");
    w.dirty.add("open.ts");
    const seen = byPath(await w.checkpoints.plan("c", "m"));
    assert.deepEqual(seen.files, {});
    assert.match(seen.skipped["open.ts"]!, /unsaved changes/);
    assert.match(seen.skipped["chain.ts"]!, /changed outside Pi between Pi's changes/);
  });

  it("a file changed after the preview is skipped, not overwritten unseen", async () => {
    w.write("f.txt", "one\n");
    await w.checkpoints.forChat("c").mark("m");
    await editWithTool(w, "c", "f.txt", "one", "two");
    const plan = await w.checkpoints.plan("c", "m");
    w.write("f.txt", "three\n");
    const out = await w.checkpoints.restore("c", "m", plan);
    assert.equal(out?.restored.length, 0);
    assert.equal(w.read("f.txt").toString(), "three\n");
  });

  it("an unknown checkpoint plans nothing; deleting a chat frees its blobs", async () => {
    assert.equal(await w.checkpoints.plan("c", "nope"), undefined);
    w.write("f.txt", `head\n${"one\n".repeat(1000)}`);
    await w.checkpoints.forChat("c").mark("m");
    await editWithTool(w, "c", "f.txt", "head", "top");
    const before = await w.checkpoints.storage.blobBytes();
    assert.ok(before >= 4000);
    await w.checkpoints.forget("c");
    assert.ok((await w.checkpoints.storage.blobBytes()) < before);
    assert.deepEqual(await w.checkpoints.storage.journal("c"), []);
  });
});

describe("checkpoints: a background command's later changes", function () {
  this.timeout(20_000);
  let w: World;
  beforeEach(() => {
    w = makeWorld();
  });
  afterEach(() => w.cleanup());

  it("are recorded at the chat's next mark and at its end, never the user's save or Pi's own edit meanwhile", async () => {
    w.write("a.txt", "a0\n");
    w.write("b.txt", "b0\n");
    w.write("c.txt", "c0\n");
    await w.checkpoints.forChat("c1").mark("m1");
    // The tool call: it starts, writes x.txt, returns while the process goes on.
    const before = await w.checkpoints.beforeCommand();
    w.write("x.txt", "x1\n");
    await w.checkpoints.afterCommand("c1", before, "bg1");
    assert.equal(w.checkpoints.watchedBackground, 1);
    // After the turn: the command writes a.txt; Pi edits b.txt; the user saves c.txt in VS Code.
    w.write("a.txt", "a1 by the command\n");
    await editWithTool(w, "c1", "b.txt", "b0", "b1 by pi");
    w.checkpoints.noteSave("c.txt");
    w.write("c.txt", "c1 by the user\n");
    // A new prompt: what the command wrote so far is put before its mark.
    await w.checkpoints.forChat("c1").mark("m2");
    w.write("d.txt", "d1 by the command\n");
    w.write("a.txt", "a2 by the command, later\n");
    await w.checkpoints.forChat("c1").backgroundEnded("bg1");
    assert.equal(w.checkpoints.watchedBackground, 0);

    const journal = await w.checkpoints.storage.journal("c1");
    assert.deepEqual(
      journal.map((e) => (e.t === "mark" ? `mark ${e.id}` : e.t === "change" ? `${e.by} ${e.path}` : e.t)),
      ["mark m1", "command x.txt", "edit b.txt", "command a.txt", "mark m2", "command a.txt", "command d.txt"],
    );
    assert.deepEqual(byPath(await w.checkpoints.plan("c1", "m2")), { files: { "a.txt": "modified", "d.txt": "created" }, skipped: {} });
    assert.deepEqual(byPath(await w.checkpoints.plan("c1", "m1")), {
      files: { "a.txt": "modified", "b.txt": "modified", "d.txt": "created", "x.txt": "created" },
      skipped: {},
    });
    await w.checkpoints.restore("c1", "m1");
    assert.equal(w.read("a.txt").toString(), "a0\n");
    assert.equal(w.read("b.txt").toString(), "b0\n");
    assert.equal(w.read("c.txt").toString(), "c1 by the user\n", "the user's save is never the command's");
    assert.equal(existsSync(join(w.ws, "d.txt")), false);
    assert.equal(existsSync(join(w.ws, "x.txt")), false);
  });

  it("one that ended before its tool call's walk was recorded needs no watch: that walk has it all", async () => {
    const before = await w.checkpoints.beforeCommand();
    w.write("done.txt", "written before it ended\n");
    await w.checkpoints.forChat("c1").backgroundEnded("bg2");
    await w.checkpoints.afterCommand("c1", before, "bg2");
    assert.equal(w.checkpoints.watchedBackground, 0);
    assert.deepEqual(
      (await w.checkpoints.storage.journal("c1")).map((e) => (e.t === "change" ? e.path : e.t)),
      ["done.txt"],
    );
  });
});

describe("checkpoints: several folders", function () {
  this.timeout(20_000);
  it("records and restores in every folder of a multi-root workspace, by folder name", async () => {
    const base = mkdtempSync(join(tmpdir(), "pi-chat-checkpoints-mr-"));
    try {
      const app = join(base, "app");
      const server = join(base, "server");
      mkdirSync(join(app, "src"), { recursive: true });
      mkdirSync(server);
      writeFileSync(join(app, "src", "main.ts"), "main 1\n");
      writeFileSync(join(server, "config.ts"), "config 1\n");
      const io = createNodeCheckpointIo([
        { name: "app", root: app },
        { name: "server", root: server },
      ]);
      const checkpoints = new Checkpoints({ storageRoot: join(base, "storage"), io });
      await checkpoints.forChat("c").mark("m");
      const before = await checkpoints.beforeCommand();
      writeFileSync(join(app, "src", "main.ts"), "main 2\n");
      writeFileSync(join(server, "config.ts"), "config 2\n");
      writeFileSync(join(server, "new.ts"), "new\n");
      await checkpoints.afterCommand("c", before);
      const plan = await checkpoints.plan("c", "m");
      assert.deepEqual(
        plan?.files.map((f) => [f.path, f.piDid]),
        [
          ["app/src/main.ts", "modified"],
          ["server/config.ts", "modified"],
          ["server/new.ts", "created"],
        ],
      );
      await checkpoints.restore("c", "m", plan);
      assert.equal(readFileSync(join(app, "src", "main.ts"), "utf8"), "main 1\n");
      assert.equal(readFileSync(join(server, "config.ts"), "utf8"), "config 1\n");
      assert.equal(existsSync(join(server, "new.ts")), false);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe("checkpoints: a restore cut off half-way", function () {
  this.timeout(20_000);
  let w: World;
  beforeEach(() => {
    w = makeWorld();
  });
  afterEach(() => w.cleanup());

  async function prepare(): Promise<void> {
    w.write("one.txt", "one before\n");
    w.write("two.txt", "two before\n");
    await w.checkpoints.forChat("c").mark("m");
    await command(w, "c", () => {
      w.write("one.txt", "one by pi\n");
      w.write("two.txt", "two by pi\n");
      w.write("three.txt", "three by pi\n");
    });
  }

  it("is rolled back at the next start: every file as it was before the restore, none half-written", async () => {
    await prepare();
    // The "crash": after the first file is written, the second is left half-written and the run stops.
    w.checkpoints.afterRestoreStep = (index) => {
      if (index === 0) {
        w.write("three.txt", "thr");
        throw new Error("host killed");
      }
    };
    await assert.rejects(w.checkpoints.restore("c", "m"), /host killed/);
    assert.equal(w.read("one.txt").toString(), "one before\n", "the first step did run");
    assert.ok(existsSync(join(w.storage, "checkpoints", "restore-pending.json")));

    const next = reopen(w);
    const report = await next.recover();
    assert.equal(report?.outcome, "rolledBack");
    assert.deepEqual([...(report?.putBack ?? [])].sort(), ["one.txt", "three.txt"]);
    assert.equal(w.read("one.txt").toString(), "one by pi\n");
    assert.equal(w.read("two.txt").toString(), "two by pi\n");
    assert.equal(w.read("three.txt").toString(), "three by pi\n");
    assert.equal(existsSync(join(w.storage, "checkpoints", "restore-pending.json")), false);
    assert.equal(await next.recover(), undefined, "once only");
    // The journal has no trace of the cut-off restore: restoring again works in full.
    const out = await next.restore("c", "m");
    assert.deepEqual(out?.restored.map((f) => f.path).sort(), ["one.txt", "two.txt"]);
    assert.deepEqual(
      out?.deleted.map((f) => f.path),
      ["three.txt"],
    );
  });

  it("a restore that finished but left its pending record is reported completed, files untouched", async () => {
    await prepare();
    const out = await w.checkpoints.restore("c", "m");
    assert.ok(out);
    // As if the crash came between the journal line and the pending record's removal.
    const journal = await w.checkpoints.storage.journal("c");
    const done = journal.find((e) => e.t === "restored");
    assert.ok(done && done.t === "restored");
    await w.checkpoints.storage.writePending({ version: 1, restoreId: done.restore, chatId: "c", markId: "m", steps: [] });
    const report = await reopen(w).recover();
    assert.equal(report?.outcome, "completed");
    assert.equal(w.read("one.txt").toString(), "one before\n");
  });
});
