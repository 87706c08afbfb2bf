// hasChildren: what the terminal path asks every half second while a typed command runs, to tell
// a run VS Code lost track of (nothing below the shell any more) from one still running.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { hasChildren } from "../../../src/core/shell/process-tree";

describe("process tree: hasChildren", () => {
  it("is true while a shell runs a command, false once it ran it and waits", async () => {
    // A shell that runs `sleep 1` in the foreground, then waits on its own input (nothing below it).
    const shell = spawn("bash", ["-c", "sleep 1; read -r _"], { stdio: ["pipe", "ignore", "ignore"] });
    try {
      const pid = shell.pid!;
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(hasChildren(pid), true, "sleep runs below the shell");
      await new Promise((r) => setTimeout(r, 1200));
      assert.equal(hasChildren(pid), false, "nothing below the shell once sleep ended");
    } finally {
      shell.kill("SIGKILL");
    }
  });
});
