// run_command through a whole chat (faux model, real processes on the child-process path):
// the gate asks on one card whatever the approval mode, a rule skips the question only when it
// covers every part, a denial reaches the model, Stop ends the tree and the chat goes on, and
// in restricted mode the tool is not offered at all.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { ChatService } from "../../../src/core/chat-service";
import { NodeCommandRunner } from "../../../src/core/shell/node-runner";
import { isRunning } from "../../../src/core/shell/process-tree";
import type { CommandApprovalRequest, CommandDecision } from "../../../src/core/permissions/command-gate";
import { createNodeWorkspaceFs } from "../../../src/core/tools";
import { createNodeTranscriptStorage, TranscriptStore } from "../../../src/core/transcript";
import { chatItems } from "../../../src/shared/reducer";
import type { ToolItem } from "../../../src/shared/chat-items";
import { createScriptedModel, reply, textOf, type ScriptedModel } from "../../support/scripted-model";
import { tempDir } from "../../support/temp";

function world(
  model: ScriptedModel,
  decide: (r: CommandApprovalRequest, signal: AbortSignal | undefined) => Promise<CommandDecision>,
  options: { enabled?: boolean; rules?: string[]; approvalMode?: "ask" | "auto" } = {},
) {
  const ws = tempDir("ws");
  const storage = tempDir("storage");
  mkdirSync(join(ws.path, "pkg"));
  writeFileSync(join(ws.path, "pkg", "marker.txt"), "here\n");
  const asked: CommandApprovalRequest[] = [];
  const rules = [...(options.rules ?? [])];
  const runner = new NodeCommandRunner();
  const service = new ChatService({
    store: new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storage.path), { indexFlushDelayMs: 0 }),
    fs: createNodeWorkspaceFs(ws.path),
    workspaceRoot: ws.path,
    resolveModel: async () => model.binding,
    approver: async () => ({ decision: "allow" }),
    approvalMode: () => options.approvalMode ?? "auto",
    commands: {
      runner: () => runner,
      enabled: () => options.enabled ?? true,
      rules: { list: () => rules, add: async (r) => void rules.push(r) },
      approver: (request, signal) => {
        asked.push(request);
        return decide(request, signal);
      },
      defaultTimeoutSeconds: () => 30,
      logRoot: join(storage.path, "command-output"),
    },
  });
  return {
    ws: ws.path,
    service,
    asked,
    rules,
    async cleanup() {
      await service.dispose();
      await runner.dispose();
      ws.cleanup();
      storage.cleanup();
    },
  };
}

const toolResults = (messages: readonly (AgentMessage | Message)[]) => messages.filter((m) => m.role === "toolResult");
const lastToolText = (messages: readonly (AgentMessage | Message)[]) => {
  const r = toolResults(messages).pop();
  return r && r.role === "toolResult" ? r.content.map((c) => (c.type === "text" ? c.text : "")).join("") : "";
};

describe("run_command in a chat", function () {
  this.timeout(30_000);

  it("asks (even in auto mode) with the command and folder, runs in that folder and returns the output", async () => {
    const model = createScriptedModel();
    const w = world(model, async () => ({ decision: "allow" }), { approvalMode: "auto" });
    try {
      const session = w.service.newChat();
      model.push(reply.tool("run_command", { command: "cat marker.txt && pwd", cwd: "pkg" }, "call_1"), reply.text("It says here."));
      await session.prompt("What does pkg/marker.txt say?");
      assert.equal(w.asked.length, 1);
      assert.equal(w.asked[0]!.command, "cat marker.txt && pwd");
      assert.equal(w.asked[0]!.cwd, "pkg");
      assert.deepEqual(w.asked[0]!.suggestedRules, ["cat marker.txt", "pwd"]);
      const text = lastToolText(model.requests[1]!);
      assert.match(text, /^\$ cat marker\.txt && pwd\nExit code 0 after/);
      assert.ok(text.includes(`here\n${join(w.ws, "pkg")}`), text);
      // One card: the tool item carries its own approval; there is no separate approval item.
      const items = chatItems(session.viewState);
      const card = items.find((i): i is ToolItem => i.kind === "tool" && i.id === "call_1")!;
      assert.equal(card.approval?.state, "allowed");
      assert.equal(card.approval?.command, "cat marker.txt && pwd");
      assert.equal(items.filter((i) => i.kind === "tool" && i.id === "call_1").length, 1, "one card for the command");
      const details = card.details as { exitCode: number; via: string; logFile?: string };
      assert.equal(details.exitCode, 0);
      assert.equal(details.via, "process");
      assert.ok(details.logFile?.startsWith(join(w.ws, "..")) || details.logFile, "the whole output has a log file");
      // The model learns the decision.
      assert.ok(model.requests[1]!.some((m) => m.role === "user" && /allowed the run_command call call_1/.test(textOf(m))));
    } finally {
      await w.cleanup();
    }
  });

  it("a denial runs nothing and tells the model the reason", async () => {
    const model = createScriptedModel();
    const w = world(model, async () => ({ decision: "deny", reason: "not now" }));
    try {
      const session = w.service.newChat();
      model.push(reply.tool("run_command", { command: "touch created.txt" }, "call_d"), reply.text("OK."));
      await session.prompt("Create a file.");
      const { existsSync } = await import("node:fs");
      assert.equal(existsSync(join(w.ws, "created.txt")), false);
      assert.match(lastToolText(model.requests[1]!), /denied this command: "not now"/);
    } finally {
      await w.cleanup();
    }
  });

  it("a rule that covers every part skips the question; one part not covered asks", async () => {
    const model = createScriptedModel();
    const w = world(model, async () => ({ decision: "deny" }), { rules: ["echo one", "pwd"] });
    try {
      const session = w.service.newChat();
      model.push(
        reply.tool("run_command", { command: "echo one && pwd" }, "call_r1"),
        reply.tool("run_command", { command: "echo two && touch x" }, "call_r2"),
        reply.text("Done."),
      );
      await session.prompt("Go.");
      assert.deepEqual(
        w.asked.map((a) => a.command),
        ["echo two && touch x"],
      );
      assert.deepEqual(w.asked[0]!.suggestedRules, ["echo two", "touch x"], "only the parts without a rule are suggested");
      const card = chatItems(session.viewState).find((i): i is ToolItem => i.kind === "tool" && i.id === "call_r1")!;
      assert.equal(card.approval?.rule, "echo one, pwd");
    } finally {
      await w.cleanup();
    }
  });

  it("'always allow' saves the command exactly: the same command does not ask again, one with more words does", async () => {
    const model = createScriptedModel();
    const w = world(model, async (r) => ({ decision: "allowAlways", rule: r.suggestedRules.join("\n") }));
    try {
      const session = w.service.newChat();
      model.push(reply.tool("run_command", { command: "echo hello" }, "c1"), reply.tool("run_command", { command: "echo again" }, "c2"), reply.text("Done."));
      await session.prompt("Go.");
      assert.equal(w.asked.length, 2, "'echo again' is not covered by 'echo hello'");
      assert.deepEqual(w.rules, ["echo hello", "echo again"]);
      model.push(
        reply.tool("run_command", { command: "echo hello" }, "c3"),
        reply.tool("run_command", { command: "echo hello world" }, "c4"),
        reply.text("Done."),
      );
      await session.prompt("Again.");
      assert.deepEqual(
        w.asked.map((a) => a.command),
        ["echo hello", "echo again", "echo hello world"],
        "'echo hello' ran by its rule; 'echo hello world' is more than the rule names",
      );
    } finally {
      await w.cleanup();
    }
  });

  it("Stop ends the command and its children; the result says so with the output so far; the chat goes on", async () => {
    const model = createScriptedModel();
    const w = world(model, async () => ({ decision: "allow" }));
    try {
      const session = w.service.newChat();
      model.push(reply.tool("run_command", { command: `echo started; bash -c 'sleep 300 & echo "gc=$!"; wait'` }, "c_stop"));
      let grandchild = 0;
      session.onEvent((e) => {
        if (e.type !== "tool/progress") return;
        const tail = ((e.details as { progress?: { tail?: string[] } }).progress?.tail ?? []).join("\n");
        const m = /gc=(\d+)/.exec(tail);
        if (m && !grandchild) {
          grandchild = Number(m[1]);
          session.abort();
        }
      });
      await session.prompt("Run it.");
      assert.ok(grandchild > 0);
      assert.equal(isRunning(grandchild), false, "the grandchild still runs");
      const text = lastToolText(session.messages);
      assert.match(text, /Stopped by the user after \d/);
      assert.match(text, /started/);
      model.push(reply.text("Fine."));
      await session.prompt("Never mind.");
      assert.equal(textOf(model.requests[model.requests.length - 1]!.at(-1) as Message), "Never mind.");
    } finally {
      await w.cleanup();
    }
  });

  it("a background run's question says it stays in the background, with the ready line Pi waits for; a plain run's does not", async () => {
    const model = createScriptedModel();
    let session: ReturnType<ChatService["newChat"]> | undefined;
    const seen: unknown[] = [];
    const w = world(model, async (request) => {
      const card = chatItems(session!.viewState).find((i): i is ToolItem => i.kind === "tool" && i.id === request.toolCallId);
      seen.push(card?.approval?.background);
      return { decision: "allow" };
    });
    try {
      session = w.service.newChat();
      model.push(
        reply.tool("run_command", { command: "echo listening now; sleep 30", background: true, readyPattern: "listening" }, "call_bgq"),
        reply.tool("run_command", { command: "echo plain" }, "call_plain"),
        reply.text("ok"),
      );
      await session.prompt("go");
      assert.deepEqual(seen, [{ readyPattern: "listening" }, undefined]);
    } finally {
      await session?.stopBackground("vscodeClosed");
      await w.cleanup();
    }
  });

  it("in restricted mode the tool is not offered and a call is refused", async () => {
    const model = createScriptedModel();
    const w = world(model, async () => ({ decision: "allow" }), { enabled: false });
    try {
      const session = w.service.newChat();
      model.push(reply.tool("run_command", { command: "touch pwned" }, "c_r"), reply.text("OK."));
      await session.prompt("Try.");
      assert.equal(w.asked.length, 0);
      const { existsSync } = await import("node:fs");
      assert.equal(existsSync(join(w.ws, "pwned")), false);
      const agentTools = (session as unknown as { agent: { state: { tools: { name: string }[] } } }).agent.state.tools.map((t) => t.name);
      assert.ok(!agentTools.includes("run_command"), agentTools.join(","));
    } finally {
      await w.cleanup();
    }
  });
});
