// VS Code's file-system watcher feeds the checkpoints in the real extension host: once it has
// named every change a walk found, a command's before comes from its events (no walk), a file the
// user changed before the command is in the before with the user's content, and what the command
// writes is recorded as the command's, with that content as its before; a change the watcher has
// not reported yet when the command starts is still not the command's.
import * as assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import { sha256 } from "../../src/core/checkpoints";
import { useChatView, waitFor } from "./helpers";

describe("checkpoints: VS Code's watcher feeds a command's before", function () {
  this.timeout(120_000);
  const chat = useChatView();
  const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const dir = join(root, "cp-watch");
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("takes the before from the watcher's events: the user's change before the command is its before, the command's writes are its own", async () => {
    const checkpoints = chat().api.checkpoints?.checkpoints;
    assert.ok(checkpoints, "a folder on disk has checkpoints");
    const named = new Set<string>();
    checkpoints.baseline.onNamed = (paths) => {
      for (const p of paths) named.add(p);
    };
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    writeFileSync(join(dir, "a.txt"), "a0\n");
    await checkpoints.warm();
    const first = await checkpoints.beforeCommand();
    await checkpoints.afterCommand("watcher-test", first);
    await waitFor("the watcher to have named every change a walk found", () => checkpoints.baseline.walkReason() === undefined);

    // What the watcher named for the first write must not stand for the user's change: wait for a new name.
    named.clear();
    writeFileSync(join(dir, "a.txt"), "a-user\n");
    await waitFor("the watcher to name the user's change", () => named.has("cp-watch/a.txt"));
    const before = await checkpoints.beforeCommand();
    assert.deepEqual(checkpoints.baseline.lastSnapshot, { source: "events" }, "no walk before the command");
    writeFileSync(join(dir, "a.txt"), "a-command\n");
    writeFileSync(join(dir, "b.txt"), "b-command\n");
    const changes = await checkpoints.afterCommand("watcher-test", before);
    const hash = (text: string) => ({ hash: sha256(new TextEncoder().encode(text)), size: text.length, kept: true });
    assert.deepEqual(
      changes.filter((c) => c.path.startsWith("cp-watch/")).map((c) => [c.path, c.before, c.after]),
      [
        ["cp-watch/a.txt", hash("a-user\n"), hash("a-command\n")],
        ["cp-watch/b.txt", { absent: true }, hash("b-command\n")],
      ],
    );
    checkpoints.baseline.onNamed = undefined;
  });

  it("a change made outside VS Code just before a command, its watcher event not yet come, is not the command's", async () => {
    const checkpoints = chat().api.checkpoints?.checkpoints;
    assert.ok(checkpoints, "a folder on disk has checkpoints");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, "out"), { recursive: true });
    writeFileSync(join(dir, "a.txt"), "a0\n");
    writeFileSync(join(dir, "old.txt"), "old\n");
    await checkpoints.warm();
    await checkpoints.afterCommand("watcher-test-late", await checkpoints.beforeCommand());
    await waitFor("the watcher to have named every change a walk found", () => checkpoints.baseline.walkReason() === undefined);
    // The watcher as late as on a busy machine: nothing below is reported before the command.
    checkpoints.baseline.holdEvents();
    try {
      writeFileSync(join(dir, "a.txt"), "a-user\n");
      writeFileSync(join(dir, "mine.txt"), "mine\n");
      mkdirSync(join(dir, "sub"));
      writeFileSync(join(dir, "sub", "y.txt"), "y\n");
      rmSync(join(dir, "old.txt"));
      const before = await checkpoints.beforeCommand();
      assert.deepEqual(checkpoints.baseline.lastSnapshot, { source: "events" }, "the before came from the watcher, which had reported none of it");
      // The command writes in a folder of its own: a removal is told by its folder's stamp, and a
      // folder the command also changes cannot tell (docs/checkpoints.md, Limits).
      writeFileSync(join(dir, "out", "b.txt"), "b-command\n");
      const changes = await checkpoints.afterCommand("watcher-test-late", before);
      assert.deepEqual(
        changes.filter((c) => c.path.startsWith("cp-watch/")).map((c) => c.path),
        ["cp-watch/out/b.txt"],
        "the user's changes before the command are not the command's",
      );
    } finally {
      checkpoints.baseline.releaseEvents();
    }
  });
});
