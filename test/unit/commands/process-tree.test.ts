// hasChildren: what the terminal path asks every half second while a typed command runs, to tell
// a run VS Code lost track of (nothing below the shell any more) from one still running.
import { spawn } from "node:child_process";
import { hasChildren } from "../../../src/core/shell/process-tree";
import { waitFor } from "../../support/wait-for";

describe("process tree: hasChildren", () => {
  it("is true while a shell runs a command, false once it ran it and waits", async () => {
    // A shell that runs `head -n 1` in the foreground until the test writes a line, then waits on
    // its own input (nothing below it): the test decides when the command ends, not a clock.
    const shell = spawn("bash", ["-c", "head -n 1 >/dev/null; read -r _"], { stdio: ["pipe", "ignore", "ignore"] });
    try {
      const pid = shell.pid!;
      await waitFor("head to run below the shell", () => hasChildren(pid));
      shell.stdin.write("done\n");
      await waitFor("nothing below the shell once head ended", () => !hasChildren(pid));
    } finally {
      shell.kill("SIGKILL");
    }
  });
});
