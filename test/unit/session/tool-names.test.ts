// One table of tool names (src/shared/tool-names.ts): every tool a chat session can give its agent
// has a row, no row names a tool the session never builds, the gates decide exactly the tools the
// table says they gate (and keep out those needing commands in Restricted Mode), the cards' words
// come from the table, and the docs' tool table agrees with it.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createToolbox } from "../../../src/core/session/session-tools";
import type { ChatSessionOptions } from "../../../src/core/session/types";
import { createNodeWorkspaceFs } from "../../../src/core/tools";
import type { ChatMode } from "../../../src/shared/app-messages";
import { TOOL_NAMES, toolGateKind, toolRow, type ToolNameRow } from "../../../src/shared/tool-names";
import { DISCOVERY_TOOLS } from "../../../webview/cards/discovery-cards";
import { toolVerb } from "../../../webview/cards/tool-text";
import { tempDir } from "../../support/temp";

const ROWS = TOOL_NAMES as Record<string, ToolNameRow>;

function toolbox(commandsOn: boolean, mode: ChatMode = "act") {
  const ws = tempDir("tool-names");
  const options: ChatSessionOptions = {
    id: "chat",
    messages: [],
    systemPrompt: "test",
    fs: createNodeWorkspaceFs(ws.path),
    workspaceRoot: ws.path,
    resolveModel: async () => {
      throw new Error("no model in this test");
    },
    approver: async () => ({ decision: "allow" }),
    approvalMode: () => "ask",
    persist: async () => "node",
    commands: {
      runner: () => {
        throw new Error("no command runs in this test");
      },
      enabled: () => commandsOn,
      rules: { list: () => [], add: async () => undefined },
      approver: async () => ({ decision: "deny" }),
      defaultTimeoutSeconds: () => 30,
    },
  };
  const box = createToolbox({
    id: "chat",
    options,
    acceptsImages: () => false,
    emit: () => undefined,
    record: () => undefined,
    transcript: () => [],
    mode: () => mode,
  });
  return { box, cleanup: () => ws.cleanup() };
}

describe("tool names: one table for the cards, the gates and the docs", () => {
  it("every tool the session can build has a row, and every row is a tool it builds", () => {
    const { box, cleanup } = toolbox(true);
    try {
      const built = box.tools.map((t) => t.name).sort();
      const missing = built.filter((name) => toolRow(name) === undefined);
      assert.deepEqual(missing, [], `tools without a row in src/shared/tool-names.ts: ${missing.join(", ")}`);
      assert.deepEqual(built, Object.keys(ROWS).sort(), "a row names a tool the session never builds");
    } finally {
      cleanup();
    }
  });

  it("each gate decides exactly the tools the table says it gates; MCP tools by their prefix", () => {
    const { box, cleanup } = toolbox(true);
    try {
      const gateOf = (name: string) => box.gates.rows.find((row) => row.matches(name))?.kind;
      for (const [name, row] of Object.entries(ROWS)) assert.equal(gateOf(name), row.gated, `${name}: gated by ${gateOf(name)}, the table says ${row.gated}`);
      assert.equal(gateOf("mcp__server__tool"), "mcp");
      assert.equal(toolGateKind("mcp__server__tool"), "mcp");
      for (const row of box.gates.rows) assert.ok(["plan", "edit", "command", "mcp"].includes(row.kind));
    } finally {
      cleanup();
    }
  });

  it("in plan mode exactly the tools the table marks are offered; any other call is refused first, by the plan row, without asking", async () => {
    const { box, cleanup } = toolbox(true, "plan");
    try {
      const offered = box.gates.offered(box.tools).map((t) => t.name);
      const marked = Object.entries(ROWS).flatMap(([name, row]) => (row.inPlanMode ? [name] : []));
      assert.deepEqual(offered.sort(), marked.sort());
      assert.ok(!offered.includes("edit_file") && !offered.includes("run_command"));
      for (const name of ["edit_file", "run_command", "command_output", "mcp__server__write"]) {
        assert.equal(box.gates.rows.find((row) => row.matches(name))?.kind, "plan", `${name} is decided by plan mode`);
        const decided = await box.gates.beforeToolCall(
          { toolCall: { type: "toolCall", id: "c1", name, arguments: {} }, args: {} } as unknown as Parameters<typeof box.gates.beforeToolCall>[0],
          undefined,
        );
        assert.equal(decided?.block, true);
        assert.match(decided?.reason ?? "", new RegExp(`plan mode: ${name} was not run`));
      }
      for (const name of marked) assert.notEqual(box.gates.rows.find((row) => row.matches(name))?.kind, "plan");
    } finally {
      cleanup();
    }
  });

  it("where commands may not run, exactly the tools that need them are left out of the run", () => {
    const { box, cleanup } = toolbox(false);
    try {
      const offered = box.gates.offered(box.tools).map((t) => t.name);
      // Act mode also leaves out what only plan mode needs.
      const needing = Object.entries(ROWS).flatMap(([name, row]) => (row.needsCommands || row.onlyInPlanMode ? [name] : []));
      assert.deepEqual(
        box.tools.map((t) => t.name).filter((name) => !offered.includes(name)),
        needing,
      );
    } finally {
      cleanup();
    }
  });

  it("the cards' words and the discovery set come from the table", () => {
    for (const [name, row] of Object.entries(ROWS)) assert.equal(toolVerb(name), row.verb ?? name);
    assert.deepEqual(
      [...DISCOVERY_TOOLS].sort(),
      Object.keys(ROWS)
        .filter((name) => ROWS[name]!.card === "discovery")
        .sort(),
    );
  });

  it("the docs' tool table (docs/features.md, The tools) agrees with the table", () => {
    const doc = readFileSync(join(__dirname, "../../../../docs/features.md"), "utf8");
    const section = doc.slice(doc.indexOf("## The tools"));
    const rows = [...section.matchAll(/^\| `([a-z_]+)` \| (\w+) \| (\w+) \| (\w+) \| (\w+) \|$/gm)].map((m) => ({
      name: m[1]!,
      card: m[2],
      gate: m[3],
      commands: m[4],
      plan: m[5],
    }));
    assert.deepEqual(rows.map((r) => r.name).sort(), Object.keys(ROWS).sort(), "docs/features.md lists other tools than src/shared/tool-names.ts");
    for (const r of rows) {
      const row = ROWS[r.name]!;
      assert.equal(r.card, row.card, `${r.name}: card`);
      assert.equal(r.gate, row.gated ?? "no", `${r.name}: gate`);
      assert.equal(r.commands, row.needsCommands ? "yes" : "no", `${r.name}: needs commands`);
      assert.equal(r.plan, row.onlyInPlanMode ? "only" : row.inPlanMode ? "yes" : "no", `${r.name}: in plan mode`);
    }
  });
});
