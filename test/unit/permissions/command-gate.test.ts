// The run_command gate with real files: under cmd.exe (Windows, judged here on Linux) no rule
// applies, the card says why and "always allow" saves nothing; a command holding an option that
// always asks is offered no rule and a rule sent for it anyway is not saved; a word a rule
// covers that leads outside the workspace through a symlink asks.
import assert from "node:assert/strict";
import type { ChatEvent } from "../../../src/shared/protocol";
import { gateCommand, type CommandApprovalRequest, type CommandDecision, type CommandGateDeps } from "../../../src/core/permissions/command-gate";
import { NO_RULES_ON_WINDOWS, type CommandShell } from "../../../src/core/permissions/command-rules";
import { singleFolder } from "../../../src/core/shell/command-folders";
import { createNodeWorkspaceFs } from "../../../src/core/tools";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../support/temp";

function gate(shell: CommandShell, rules: string[], decide: (r: CommandApprovalRequest) => CommandDecision, ws = tempDir("gate")) {
  const events: ChatEvent[] = [];
  const asked: CommandApprovalRequest[] = [];
  const deps: CommandGateDeps = {
    chatId: "c",
    fs: createNodeWorkspaceFs(ws.path),
    folders: singleFolder(ws.path),
    enabled: () => true,
    rules: { list: () => rules, add: async (r) => void rules.push(r) },
    approver: async (request) => {
      asked.push(request);
      return decide(request);
    },
    emit: (e) => events.push(e),
    record: () => undefined,
    shell,
  };
  return { deps, events, asked, rules, cleanup: ws.cleanup };
}

describe("command gate", () => {
  it("under cmd.exe every command asks, the card says why, and 'always allow' saves nothing", async () => {
    const g = gate("cmd", ["npm test"], () => ({ decision: "allowAlways", rule: "npm test" }));
    try {
      const result = await gateCommand("t1", { command: "npm test 'a & calc'" }, g.deps, undefined);
      assert.equal(result, undefined, "allowed once by the user");
      assert.equal(g.asked.length, 1, "the rule 'npm test' did not skip the question");
      assert.deepEqual(g.asked[0]!.suggestedRules, []);
      assert.equal(g.asked[0]!.ruleNote, NO_RULES_ON_WINDOWS);
      const request = g.events.find((e) => e.type === "approval/request");
      assert.ok(request && request.type === "approval/request" && request.ruleNote === NO_RULES_ON_WINDOWS);
      assert.deepEqual(g.rules, ["npm test"], "nothing saved");
    } finally {
      g.cleanup();
    }
  });

  it("a command with an option that always asks is offered no rule, and a rule sent anyway is not saved", async () => {
    const g = gate("posix", ["npm test"], () => ({ decision: "allowAlways", rule: "npm test *" }));
    try {
      await gateCommand("t2", { command: "npm test --node-options=--require=./x.js" }, g.deps, undefined);
      assert.equal(g.asked.length, 1);
      assert.deepEqual(g.asked[0]!.suggestedRules, []);
      assert.match(g.asked[0]!.ruleNote ?? "", /--node-options/);
      assert.deepEqual(g.rules, ["npm test"], "'npm test *' does not cover it, so it is not saved");
    } finally {
      g.cleanup();
    }
  });

  it("a path a rule covers that leads outside the workspace through a symlink asks, and no rule is offered for it", async () => {
    const outside = tempDir("gate-outside");
    const ws = tempDir("gate-links");
    try {
      writeFileSync(join(outside.path, "id_rsa"), "secret");
      writeFileSync(join(ws.path, "README.md"), "hello");
      mkdirSync(join(ws.path, "docs"));
      // A repository can ship both: a folder link out of the workspace, and a file swapped for one after the rule was saved.
      symlinkSync(outside.path, join(ws.path, "notes"));
      symlinkSync(join(outside.path, "id_rsa"), join(ws.path, "docs", "guide.md"));
      const g = gate("posix", ["cat *", "cat docs/guide.md", "cat README.md"], () => ({ decision: "deny" }), ws);
      const cases: [command: string, asks: boolean][] = [
        ["cat README.md", false],
        ["cat notes/id_rsa", true],
        ["cat docs/guide.md", true],
        ["cat --show=notes/id_rsa", true],
        ["cat docs/missing.md", false],
      ];
      for (const [i, [command, asks]] of cases.entries()) {
        const before = g.asked.length;
        await gateCommand(`s${i}`, { command }, g.deps, undefined);
        assert.equal(g.asked.length > before, asks, `${command} ${asks ? "asks" : "runs by a rule"}`);
        if (asks) {
          assert.deepEqual(g.asked.at(-1)!.suggestedRules, []);
          assert.match(g.asked.at(-1)!.ruleNote ?? "", /leads outside the workspace through a symlink/);
        }
      }
    } finally {
      ws.cleanup();
      outside.cleanup();
    }
  });
});
