// What a command's environment holds, with real processes on the child-process path: no
// BASH_ENV/ENV (a file they name would run before every command), no API key variables Pi Chat
// reads, bash without profile or rc files; the terminal path asks VS Code to remove the same.
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NodeCommandRunner, shellStartupFlags } from "../../../src/core/shell/node-runner";
import { runCommandOnce } from "../../../src/core/shell/run";
import { terminalEnvironment } from "../../../src/core/shell/runner";
import { tempDir } from "../../support/temp";

describe("commands: the environment", function () {
  this.timeout(30_000);

  it("a BASH_ENV or ENV file from the host is not run, and the API key variables are not there", async () => {
    const dir = tempDir("env");
    const marker = join(dir.path, "sourced");
    const script = join(dir.path, "bashenv.sh");
    writeFileSync(script, `touch ${JSON.stringify(marker)}\n`);
    const saved = { BASH_ENV: process.env.BASH_ENV, ENV: process.env.ENV, OPENAI_API_KEY: process.env.OPENAI_API_KEY };
    process.env.BASH_ENV = script;
    process.env.ENV = script;
    process.env.OPENAI_API_KEY = "env-key-0123456789abcdef";
    const runner = new NodeCommandRunner({ removeEnv: ["OPENAI_API_KEY"] });
    try {
      const result = await runCommandOnce({
        runner,
        command: 'echo "key=[$OPENAI_API_KEY] bashenv=[$BASH_ENV] env=[$ENV]"',
        cwd: dir.path,
        timeoutMs: 20_000,
      });
      assert.equal(result.output.text, "key=[] bashenv=[] env=[]");
      assert.equal(existsSync(marker), false, "the BASH_ENV file ran");
      const sh = await runCommandOnce({ runner: new NodeCommandRunner({ shell: "/bin/sh" }), command: "echo sh", cwd: dir.path, timeoutMs: 20_000 });
      assert.equal(sh.output.text, "sh");
      assert.equal(existsSync(marker), false, "the ENV file ran under sh");
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await runner.dispose();
      dir.cleanup();
    }
  });

  it("bash starts without profile and rc files; sh gets no such flags", () => {
    assert.deepEqual(shellStartupFlags("/bin/bash"), ["--noprofile", "--norc"]);
    assert.deepEqual(shellStartupFlags("/usr/bin/bash"), ["--noprofile", "--norc"]);
    assert.deepEqual(shellStartupFlags("/bin/sh"), []);
  });

  it("a terminal is created with BASH_ENV, ENV and the key variables removed (null), and nobody at the keyboard", () => {
    const env = terminalEnvironment(["OPENAI_API_KEY"]);
    assert.equal(env.BASH_ENV, null);
    assert.equal(env.ENV, null);
    assert.equal(env.OPENAI_API_KEY, null);
    assert.equal(env.CI, "1");
  });
});
