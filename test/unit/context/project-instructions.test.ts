// AGENTS.md / CLAUDE.md into the system prompt: real files in temporary folders, the real
// session over a scripted model, and what each request carried.
import assert from "node:assert/strict";
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { getCurrentSystemPrompt, type SystemMessage } from "@earendil-works/pi-ai";
import {
  loadProjectInstructions,
  PROJECT_INSTRUCTIONS_SECTION,
  withProjectInstructions,
  type InstructionFolder,
} from "../../../src/core/context/project-instructions";
import { createNodeWorkspaceFs } from "../../../src/core/tools";
import { chatWorld } from "../../support/chat-world";
import { deepFreeze } from "../../support/freeze";
import { createScriptedModel, reply } from "../../support/scripted-model";
import { tempDir } from "../../support/temp";

function folder(name: string, files: Record<string, string>): { folder: InstructionFolder; path: string; cleanup: () => void } {
  const dir = tempDir(`instr-${name}`);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir.path, file), text);
  return { folder: { name, fs: createNodeWorkspaceFs(dir.path) }, path: dir.path, cleanup: dir.cleanup };
}

describe("project instructions (AGENTS.md / CLAUDE.md)", () => {
  const cleanups: (() => void | Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });
  const make = (name: string, files: Record<string, string>) => {
    const f = folder(name, files);
    cleanups.push(f.cleanup);
    return f;
  };

  it("reads AGENTS.md under a heading naming the file, and prefers it to CLAUDE.md", async () => {
    const a = make("app", { "AGENTS.md": "Use tabs.\nRun npm test.\n", "CLAUDE.md": "Use spaces." });
    const loaded = await loadProjectInstructions([a.folder]);
    assert.match(loaded.section ?? "", /^## AGENTS\.md\n\nUse tabs\.\nRun npm test\.$/m);
    assert.doesNotMatch(loaded.section ?? "", /Use spaces/);
    assert.deepEqual(
      loaded.files.map((f) => f.file),
      ["AGENTS.md"],
    );
  });

  it("uses CLAUDE.md where there is no AGENTS.md, names each folder when there are several, skips folders without either", async () => {
    const a = make("web", { "CLAUDE.md": "Web rules." });
    const b = make("api", { "AGENTS.md": "Api rules." });
    const c = make("docs", { "README.md": "not instructions" });
    const loaded = await loadProjectInstructions([a.folder, b.folder, c.folder]);
    assert.match(loaded.section ?? "", /## CLAUDE\.md \(workspace folder "web"\)\n\nWeb rules\./);
    assert.match(loaded.section ?? "", /## AGENTS\.md \(workspace folder "api"\)\n\nApi rules\./);
    assert.doesNotMatch(loaded.section ?? "", /not instructions/);
    assert.equal(loaded.files.length, 2);
  });

  it("no file: no section, and the request view is the input unchanged", async () => {
    const a = make("empty", {});
    const loaded = await loadProjectInstructions([a.folder]);
    assert.equal(loaded.section, undefined);
    const messages: AgentMessage[] = [{ role: "system", content: "base", timestamp: 0 }];
    assert.deepEqual(withProjectInstructions(messages, loaded.section), messages);
  });

  it("cuts at a line boundary over the cap and says which lines were left out", async () => {
    const lines = Array.from({ length: 100 }, (_, i) => `rule ${i + 1}: ${"x".repeat(30)}`);
    const a = make("big", { "AGENTS.md": lines.join("\n") });
    const loaded = await loadProjectInstructions([a.folder], { maxBytes: 1000 });
    const section = loaded.section ?? "";
    assert.match(section, /rule 1: x+/);
    assert.doesNotMatch(section, /rule 100:/);
    const kept = lines.filter((l) => section.includes(`${l}\n`) || section.includes(`${l}\n\n[`)).length;
    assert.ok(kept > 10 && kept < 100, `kept ${kept} lines`);
    assert.match(section, new RegExp(`Only the first ${kept} of 100 lines of AGENTS\\.md .* lines ${kept + 1}-100 were left out`));
    assert.ok(loaded.files[0]!.includedBytes <= 1000);
    assert.ok(loaded.files[0]!.omitted);
  });

  it("does not follow a symlink out of the folder, nor read a directory named AGENTS.md", async () => {
    const outside = make("outside", { "secret.md": "TOP SECRET" });
    const a = make("linked", {});
    symlinkSync(join(outside.path, "secret.md"), join(a.path, "AGENTS.md"));
    const b = make("dir", {});
    mkdirSync(join(b.path, "AGENTS.md"));
    writeFileSync(join(b.path, "CLAUDE.md"), "claude rules");
    const loaded = await loadProjectInstructions([a.folder, b.folder]);
    assert.doesNotMatch(loaded.section ?? "", /TOP SECRET/);
    assert.match(loaded.section ?? "", /claude rules/);
  });

  it("does not read an AGENTS.md that is a hard link (it may name a file outside the folder)", async () => {
    const outside = make("outside-hard", { "secret.md": "TOP SECRET" });
    const a = make("hard", { "CLAUDE.md": "claude rules" });
    linkSync(join(outside.path, "secret.md"), join(a.path, "AGENTS.md"));
    const loaded = await loadProjectInstructions([a.folder]);
    assert.doesNotMatch(loaded.section ?? "", /TOP SECRET/);
    assert.match(loaded.section ?? "", /claude rules/);
  });

  it("puts the section on a copy of the leading system message (deep-frozen input)", () => {
    const input = deepFreeze<AgentMessage[]>([
      { role: "system", content: "base prompt", timestamp: 0 },
      { role: "user", content: "hi", timestamp: 1 },
    ]);
    const out = withProjectInstructions(input, "# Project instructions\n\n## AGENTS.md\n\nbe brief");
    assert.equal((out[0] as SystemMessage).sections?.[PROJECT_INSTRUCTIONS_SECTION], "# Project instructions\n\n## AGENTS.md\n\nbe brief");
    assert.equal(out[1], input[1]);
    assert.match(getCurrentSystemPrompt(out as never), /base prompt[\s\S]*be brief/);
  });

  it("reaches every request of a real session, and an edit to the file counts from the next request", async () => {
    const model = createScriptedModel();
    // The same step the host wires, over the Node file system.
    const w = chatWorld({
      resolveModel: async () => model.binding,
      extendContext: (workspace) => async (messages) =>
        withProjectInstructions(messages, (await loadProjectInstructions([{ name: "ws", fs: createNodeWorkspaceFs(workspace) }])).section),
    });
    cleanups.push(() => w.cleanup());
    writeFileSync(join(w.workspace, "AGENTS.md"), "Always answer in French.\n");
    const session = w.service.newChat();
    model.push(reply.text("Bonjour."));
    await session.prompt("hello");
    writeFileSync(join(w.workspace, "AGENTS.md"), "Always answer in German.\n");
    model.push(reply.text("Hallo."));
    await session.prompt("hello again");
    const prompts = model.requests.map((r) => getCurrentSystemPrompt(r));
    assert.match(prompts[0]!, /## AGENTS\.md\n\nAlways answer in French\./);
    assert.match(prompts[1]!, /Always answer in German\./);
    assert.doesNotMatch(prompts[1]!, /French/);
    // Not saved into the transcript: the system prompt there is the base one.
    assert.doesNotMatch(JSON.stringify(session.messages), /answer in/);
  });
});
