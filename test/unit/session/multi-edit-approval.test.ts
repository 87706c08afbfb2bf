// Several edits in one edit_file call are one change for the user: one approval showing one diff,
// one write; a call with one bad edit is refused before anyone is asked, and writes nothing.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolResultMessage } from "@earendil-works/pi-ai";
import { chatWorld, CONFIG, type ChatWorld } from "../../support/chat-world";
import { createScriptedModel, reply, textOf, type ScriptedModel } from "../../support/scripted-model";

describe("edit_file with several edits, through the session's gate", () => {
  let w: ChatWorld & { model: ScriptedModel };
  beforeEach(() => {
    const model = createScriptedModel();
    w = { ...chatWorld({ resolveModel: async () => model.binding }), model };
  });
  afterEach(() => w.cleanup());

  it("asks once, with one diff holding every edit, and writes them all", async () => {
    const edits = [
      { oldText: 'host: "localhost"', newText: 'host: "0.0.0.0"' },
      { oldText: "port: 3000", newText: "port: 8080" },
    ];
    w.model.push(reply.tool("edit_file", { path: "src/config.ts", edits }, "m1"), reply.text("Done."));
    await w.service.newChat().prompt("Listen on all interfaces, port 8080.");
    assert.equal(w.approvals.length, 1);
    const diff = w.approvals[0]!.diff;
    assert.match(diff, /^- {2}host: "localhost",$/m);
    assert.match(diff, /^\+ {2}host: "0\.0\.0\.0",$/m);
    assert.match(diff, /^- {2}port: 3000,$/m);
    assert.match(diff, /^\+ {2}port: 8080,$/m);
    assert.equal(readFileSync(join(w.workspace, "src/config.ts"), "utf8"), CONFIG.replace("localhost", "0.0.0.0").replace("3000", "8080"));
  });

  it("refuses the whole call when one edit does not match: nobody is asked, nothing is written", async () => {
    const edits = [
      { oldText: "port: 3000", newText: "port: 8080" },
      { oldText: "timeout: 5", newText: "timeout: 10" },
    ];
    w.model.push(reply.tool("edit_file", { path: "src/config.ts", edits }, "m1"), reply.text("Sorry."));
    await w.service.newChat().prompt("Port 8080 and timeout 10.");
    assert.equal(w.approvals.length, 0);
    const result = w.model.requests[1]!.find((m): m is ToolResultMessage => m.role === "toolResult");
    assert.ok(result?.isError);
    assert.match(textOf(result), /edits\[1\]\.oldText was not found in src\/config\.ts/);
    assert.equal(readFileSync(join(w.workspace, "src/config.ts"), "utf8"), CONFIG);
  });
});
