// Stopping a run at any point leaves a transcript the next request can be built from:
// no tool call without its result, no partial message saved.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { ChatService } from "../../../src/core/chat-service";
import type { EditApprover } from "../../../src/core/session";
import { createNodeWorkspaceFs } from "../../../src/core/tools";
import { createNodeTranscriptStorage, TranscriptStore } from "../../../src/core/transcript";
import { chatItems } from "../../../src/shared/reducer";
import { createScriptedModel, reply, type ScriptedModel } from "../../support/scripted-model";
import { tempDir } from "../../support/temp";

function danglingToolCalls(messages: readonly (Message | AgentMessage)[]): string[] {
  const results = new Set(messages.flatMap((m) => (m.role === "toolResult" ? [m.toolCallId] : [])));
  return messages.flatMap((m) => (m.role === "assistant" ? m.content.flatMap((c) => (c.type === "toolCall" && !results.has(c.id) ? [c.id] : [])) : []));
}

function setup(model: ScriptedModel, approver: EditApprover) {
  const ws = tempDir("ws");
  const storage = tempDir("storage");
  mkdirSync(join(ws.path, "src"));
  writeFileSync(join(ws.path, "src/config.ts"), "export const port = 3000;\n");
  const store = new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storage.path), { indexFlushDelayMs: 0 });
  const service = new ChatService({
    store,
    fs: createNodeWorkspaceFs(ws.path),
    resolveModel: async () => model.binding,
    approver,
    approvalMode: () => "ask",
  });
  const cleanup = async () => {
    // Disposed first: no index write may still be under way when the folders go.
    await service.dispose();
    ws.cleanup();
    storage.cleanup();
  };
  return { ws, storage, store, service, cleanup };
}

describe("abort", () => {
  it("while streaming: the aborted message is saved final, and the next request works", async () => {
    const model = createScriptedModel({ tokensPerSecond: 200 });
    const t = setup(model, async () => ({ decision: "allow" }));
    try {
      const session = t.service.newChat();
      model.push(reply.text("word ".repeat(2000)));
      let deltas = 0;
      session.onEvent((e) => {
        if (e.type === "message/delta" && ++deltas === 5) session.abort();
      });
      await session.prompt("Write a lot.");
      const last = session.messages[session.messages.length - 1];
      assert.equal(last?.role, "assistant");
      assert.equal(last.role === "assistant" && last.stopReason, "aborted");
      assert.ok(deltas >= 5);
      assert.equal(session.viewState.running, false);

      model.push(reply.text("Short answer."));
      await session.prompt("Shorter, please.");
      const request = model.requests[1]!;
      assert.deepEqual(danglingToolCalls(request), []);
      assert.equal(request[request.length - 1]?.role, "user");

      const loaded = await t.store.load(session.id);
      assert.ok(loaded.ok);
      assert.equal(loaded.damaged, undefined);
      assert.deepEqual(loaded.messages, JSON.parse(JSON.stringify(session.messages)));
    } finally {
      await t.cleanup();
    }
  });

  it("while a tool waits for approval: the call gets a result, the file is untouched, the next request is valid", async () => {
    const model = createScriptedModel();
    let asked = 0;
    const t = setup(model, (_request, signal) => {
      asked++;
      return new Promise((_resolve, reject) => signal?.addEventListener("abort", () => reject(new Error("aborted"))));
    });
    try {
      const session = t.service.newChat();
      model.push(reply.tool("edit_file", { path: "src/config.ts", oldText: "3000", newText: "8080" }, "call_edit"));
      session.onEvent((e) => {
        if (e.type === "approval/request") setTimeout(() => session.abort(), 5);
      });
      await session.prompt("Change the port to 8080.");
      assert.equal(asked, 1);
      assert.equal(readFileSync(join(t.ws.path, "src/config.ts"), "utf8"), "export const port = 3000;\n");
      assert.deepEqual(danglingToolCalls(session.messages), [], "every call in the transcript has its result");
      assert.ok(!session.messages.some((m) => m.role === "approvalNotice"), "no decision was made, none is recorded");
      // The edit's card no longer asks: the question went with the run.
      const tools = chatItems(session.viewState).filter((i) => i.kind === "tool");
      assert.equal(tools.length, 1, "the edit keeps its one card");
      assert.ok(tools[0]!.kind === "tool" && tools[0]!.approval === undefined);

      model.push(reply.text("OK, stopped."));
      await session.prompt("Never mind.");
      assert.deepEqual(danglingToolCalls(model.requests[1]!), []);
      const loaded = await t.store.load(session.id);
      assert.ok(loaded.ok);
      assert.deepEqual(danglingToolCalls(loaded.messages), []);
    } finally {
      await t.cleanup();
    }
  });

  it("a transcript cut off after a tool call (a reload) continues with a synthetic result saved", async () => {
    const model = createScriptedModel();
    const t = setup(model, async () => ({ decision: "allow" }));
    try {
      const session = t.service.newChat();
      model.push(reply.tool("read_file", { path: "src/config.ts" }, "call_read"), reply.text("It is 3000."));
      await session.prompt("What is the port?");
      await t.service.dispose();
      // Simulate the crash: keep the file only up to the assistant tool call.
      const loaded = await t.store.load(session.id);
      assert.ok(loaded.ok);
      const cut = loaded.messages.slice(
        0,
        loaded.messages.findIndex((m) => m.role === "toolResult"),
      );
      const t2 = setup(model, async () => ({ decision: "allow" }));
      try {
        const store2 = t2.store;
        await store2.createChat({ id: "cutoff", messages: cut });
        const service2 = new ChatService({
          store: store2,
          fs: createNodeWorkspaceFs(t.ws.path),
          resolveModel: async () => model.binding,
          approver: async () => ({ decision: "allow" }),
          approvalMode: () => "ask",
        });
        const opened = await service2.open("cutoff");
        assert.ok(opened.ok);
        assert.equal(opened.session.canContinue, true);
        model.push(reply.text("Continuing: it is 3000."));
        await opened.session.continue();
        const request = model.requests[model.requests.length - 1]!;
        assert.deepEqual(danglingToolCalls(request), []);
        const reloaded = await store2.load("cutoff");
        assert.ok(reloaded.ok);
        assert.deepEqual(danglingToolCalls(reloaded.messages), [], "the repair itself was saved");
        assert.equal(opened.session.canContinue, false);
      } finally {
        await t2.cleanup();
      }
    } finally {
      await t.cleanup();
    }
  });
});
