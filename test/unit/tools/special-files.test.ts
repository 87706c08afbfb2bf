// Files that are not what they seemed when they were checked: a FIFO swapped in after `stat`, a
// read that never ends (a hung network drive), a file that grows past the cap, a file with a second
// name (hard link) that may lie outside the workspace. None may hang a tool, hold Stop, read
// without bound, or let an edit change a file through a name nobody checked.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createEditFileTool, createNodeWorkspaceFs, createReadFileTool, proposeEdit, applyEdit, type WorkspaceFileSystem } from "../../../src/core/tools";
import { makeSandbox, rejection, SECRET, textOf, type Sandbox } from "./helpers";

function mkfifo(path: string): void {
  execFileSync("mkfifo", [path]);
}

describe("special files and slow reads", function () {
  // Every case here ends in milliseconds when it works; a hang is what the mocha timeout catches.
  this.timeout(5_000);
  let s: Sandbox;
  let fs: WorkspaceFileSystem;
  beforeEach(() => {
    s = makeSandbox();
    fs = createNodeWorkspaceFs(s.ws);
  });
  afterEach(() => s.cleanup());

  it("a FIFO is refused by read_file and edit_file without waiting for a writer", async () => {
    mkfifo(join(s.ws, "pipe"));
    const read = await rejection(() => createReadFileTool(fs).execute("c1", { path: "pipe" }));
    assert.equal(read.code, "not_a_file");
    const edit = await rejection(() => createEditFileTool(fs).execute("c2", { path: "pipe", oldText: "a", newText: "b" }));
    assert.equal(edit.code, "not_a_file");
  });

  it("a file that turns into a FIFO after stat is refused, not read forever", async () => {
    const file = s.write("data.txt", "hello\n");
    // The swap happens right after the tool's stat said "file": the race, made certain.
    const racing: WorkspaceFileSystem = {
      ...fs,
      async stat(path) {
        const info = await fs.stat(path);
        if (path === "data.txt") {
          unlinkSync(file);
          mkfifo(file);
        }
        return info;
      },
    };
    const error = await rejection(() => createReadFileTool(racing).execute("c1", { path: "data.txt" }));
    assert.equal(error.code, "not_a_file");
    assert.match(error.message, /data\.txt is not a regular file/);
  });

  it("the file system reads no more than it is allowed, even when the file grew after stat", async () => {
    s.write("big.txt", "x".repeat(1024 * 1024));
    const error = await rejection(() => fs.readFile("big.txt", { maxBytes: 1000 }));
    assert.equal((error as { code?: string }).code, "too_large");
    const grown: WorkspaceFileSystem = {
      ...fs,
      async stat(path) {
        const info = await fs.stat(path);
        s.write("small.txt", "y".repeat(64 * 1024));
        return info;
      },
    };
    s.write("small.txt", "tiny\n");
    const grew = await rejection(() => createReadFileTool(grown, { maxFileBytes: 1000 }).execute("c1", { path: "small.txt" }));
    assert.equal(grew.code, "too_large");
  });

  it("Stop ends a read that the file system never finishes", async () => {
    s.write("slow.txt", "hello\n");
    let started!: () => void;
    const reading = new Promise<void>((resolve) => (started = resolve));
    // A network drive that stopped answering: the read neither resolves nor rejects.
    const hung: WorkspaceFileSystem = {
      ...fs,
      readFile() {
        started();
        return new Promise<Uint8Array>(() => undefined);
      },
    };
    const controller = new AbortController();
    const result = createReadFileTool(hung).execute("c1", { path: "slow.txt" }, controller.signal);
    await reading;
    controller.abort();
    const error = await rejection(() => result);
    assert.equal(error.code, "aborted");
  });

  it("a read that takes too long is given up with a reason the model can read", async () => {
    s.write("slow.txt", "hello\n");
    const hung: WorkspaceFileSystem = { ...fs, readFile: () => new Promise<Uint8Array>(() => undefined) };
    const error = await rejection(() => createReadFileTool(hung, { readTimeoutMs: 50 }).execute("c1", { path: "slow.txt" }));
    assert.equal(error.code, "timeout");
    assert.match(error.message, /Reading slow\.txt took longer than/);
    const edit = await rejection(() => createEditFileTool(hung, { readTimeoutMs: 50 }).execute("c2", { path: "slow.txt", oldText: "hello", newText: "bye" }));
    assert.equal(edit.code, "timeout");
  });

  it("the Node file system itself honours the abort signal", async () => {
    s.write("a.txt", "hello\n");
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(() => fs.readFile("a.txt", { signal: controller.signal }));
    assert.equal((error as { code?: string }).code, "aborted");
  });

  describe("hard links", () => {
    it("edit_file and read_file refuse a file with a second name (here: the secret outside), and say why", async () => {
      const outside = join(s.outside, "secret.txt");
      linkSync(outside, join(s.ws, "innocent.txt"));
      // Its other name may be outside the workspace: reading it would show an outside file.
      const readError = await rejection(() => createReadFileTool(fs).execute("c1", { path: "innocent.txt" }));
      assert.equal(readError.code, "hard_linked");
      assert.ok(!readError.message.includes(SECRET));
      const error = await rejection(() => createEditFileTool(fs).execute("c2", { path: "innocent.txt", oldText: SECRET, newText: "pwned" }));
      assert.equal(error.code, "hard_linked");
      assert.match(error.message, /innocent\.txt has 2 hard links/);
      assert.equal(readFileSync(outside, "utf8"), `${SECRET}\n`);
    });

    it("a second name added between the proposal and the write stops the write", async () => {
      s.write("config.ts", "port = 3000\n");
      const proposal = await proposeEdit(fs, s.ws, { path: "config.ts", oldText: "3000", newText: "8080" });
      linkSync(join(s.ws, "config.ts"), join(s.outside, "config-alias.ts"));
      const error = await rejection(() => applyEdit(fs, proposal));
      assert.equal(error.code, "hard_linked");
      assert.equal(readFileSync(join(s.outside, "config-alias.ts"), "utf8"), "port = 3000\n");
    });

    it("an ordinary file is edited as before", async () => {
      s.write("config.ts", "port = 3000\n");
      writeFileSync(join(s.outside, "unrelated.ts"), "x");
      await createEditFileTool(fs).execute("c1", { path: "config.ts", oldText: "3000", newText: "8080" });
      assert.equal(s.read("config.ts").toString(), "port = 8080\n");
    });
  });
});

describe("files near the size cap", () => {
  let s: Sandbox;
  beforeEach(() => (s = makeSandbox()));
  afterEach(() => s.cleanup());

  it("edit_file refuses a file over its 5 MB cap and says what to do; read_file still pages through it", async () => {
    const fs = createNodeWorkspaceFs(s.ws);
    const line = "const filler = 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx';\n";
    s.write("big.ts", `UNIQUE\n${line.repeat(Math.ceil((6 * 1024 * 1024) / line.length))}`);
    const error = await rejection(() => createEditFileTool(fs).execute("c1", { path: "big.ts", oldText: "UNIQUE", newText: "CHANGED" }));
    assert.equal(error.code, "too_large");
    assert.match(error.message, /the limit is 5 MB\).*ask the user to make the change/);
    const read = await createReadFileTool(fs).execute("c2", { path: "big.ts", limit: 1 });
    assert.match(textOf(read), /^UNIQUE\n/);
  });

  it("the diff of an edit near the cap covers the changed lines, numbered as in the whole file", async () => {
    const fs = createNodeWorkspaceFs(s.ws);
    const lines = Array.from({ length: 60_000 }, (_, i) => `const value${i} = ${i}; // ${"x".repeat(40)}`);
    s.write("near-cap.ts", `${lines.join("\n")}\n`);
    const proposal = await proposeEdit(fs, s.ws, { path: "near-cap.ts", oldText: "const value30000 = 30000;", newText: "const value30000 = 8080;" });
    assert.equal(proposal.details.hunks.length, 1);
    assert.equal(proposal.details.firstChangedLine, 30_001);
    assert.deepEqual(
      proposal.details.hunks[0]!.lines.filter((l) => l.startsWith("-") || l.startsWith("+")),
      [`-const value30000 = 30000; // ${"x".repeat(40)}`, `+const value30000 = 8080; // ${"x".repeat(40)}`],
    );
  });
});
