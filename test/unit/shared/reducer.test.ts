import assert from "node:assert/strict";
import type { AgentEvent, AgentMessage } from "@earendil-works/pi-agent-core";
import type { AssistantMessage } from "@earendil-works/pi-ai";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ChatService } from "../../../src/core/chat-service";
import { createNodeWorkspaceFs } from "../../../src/core/tools";
import { createNodeTranscriptStorage, TranscriptStore } from "../../../src/core/transcript";
import { AgentEventEncoder, mergeDeltas } from "../../../src/shared/event-encoder";
import type { ChatEvent } from "../../../src/shared/protocol";
import type { StructuredDiff } from "../../../src/shared/structured-diff";
import { chatItems, emptyChatState, reduce, stateFromTranscript, type ChatState } from "../../../src/shared/reducer";
import { deepFreeze } from "../../support/freeze";
import { createScriptedModel, reply } from "../../support/scripted-model";
import { tempDir } from "../../support/temp";

const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
function assistant(content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"] = "stop"): AssistantMessage {
  return { role: "assistant", content, api: "faux", provider: "faux", model: "m", usage, stopReason, timestamp: 10 };
}

function reduceAll(events: readonly ChatEvent[], from: ChatState = emptyChatState): ChatState {
  return events.reduce((s, e) => reduce(s, e), from);
}

/** The hunks of an edit that replaces line 1, `before`, with `after`. */
function oneLineChange(before: string, after: string): StructuredDiff {
  return {
    kind: "hunks",
    hunks: [
      {
        oldStart: 1,
        oldLines: 1,
        newStart: 1,
        newLines: 1,
        lines: [`-${before}`, `+${after}`],
      },
    ],
  };
}

const ONE_LINE = oneLineChange("a", "b");

describe("reducer", () => {
  it("a streamed answer of 1,000 deltas is one assistant card with the whole text", () => {
    const encoder = new AgentEventEncoder();
    const words = Array.from({ length: 1000 }, (_, i) => `w${i} `);
    const final = assistant([{ type: "text", text: words.join("") }]);
    const partial = assistant([]);
    const agentEvents: AgentEvent[] = [
      { type: "message_start", message: partial },
      { type: "message_update", message: partial, assistantMessageEvent: { type: "text_start", contentIndex: 0, partial } },
      ...words.map(
        (w): AgentEvent => ({ type: "message_update", message: partial, assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: w, partial } }),
      ),
      { type: "message_end", message: final },
    ];
    const events = agentEvents.flatMap((e) => encoder.encode(e));
    assert.equal(events.filter((e) => e.type === "message/delta").length, 1000);
    let state = emptyChatState;
    let cardsWhileStreaming = 0;
    for (const e of events) {
      state = reduce(state, e);
      cardsWhileStreaming = Math.max(cardsWhileStreaming, chatItems(state).filter((i) => i.kind === "assistant").length);
    }
    const items = chatItems(state);
    assert.equal(items.length, 1);
    assert.equal(cardsWhileStreaming, 1, "updates replace the same card, never append");
    const card = items[0]!;
    assert.ok(card.kind === "assistant");
    assert.equal(card.isStreaming, false);
    assert.equal(card.blocks[0]?.text, words.join(""));
    // The end event did not repeat the text the deltas already carried.
    const end = events[events.length - 1]!;
    assert.ok(end.type === "message/end" && end.elided?.includes(0));
    assert.ok(!JSON.stringify(end).includes("w999"));
    // Merging deltas for transport gives the same result.
    assert.deepEqual(chatItems(reduceAll(mergeDeltas(events))), items);
  });

  it("keeps the final text when it differs from what was streamed", () => {
    const encoder = new AgentEventEncoder();
    const partial = assistant([]);
    const events = [
      { type: "message_start", message: partial },
      { type: "message_update", message: partial, assistantMessageEvent: { type: "text_start", contentIndex: 0, partial } },
      { type: "message_update", message: partial, assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "draft", partial } },
      { type: "message_end", message: assistant([{ type: "text", text: "corrected" }]) },
    ] satisfies AgentEvent[];
    const state = reduceAll(events.flatMap((e) => encoder.encode(e)));
    const card = chatItems(state)[0];
    assert.ok(card?.kind === "assistant" && card.blocks[0]?.text === "corrected");
  });

  it("is pure: frozen states and events go in, new states come out", () => {
    const events: ChatEvent[] = deepFreeze([
      { type: "message/start", message: { role: "system", content: "sys", timestamp: 0 } },
      { type: "message/end", message: { role: "system", content: "sys", timestamp: 0 } },
      { type: "message/start", message: { role: "user", content: "hi", timestamp: 1 } },
      { type: "message/end", message: { role: "user", content: "hi", timestamp: 1 } },
      { type: "message/start", message: assistant([]) },
      { type: "message/blockStart", index: 0, block: "thinking" },
      { type: "message/delta", index: 0, text: "hmm" },
      { type: "message/blockStart", index: 1, block: "toolCall" },
      {
        type: "message/end",
        message: assistant(
          [
            { type: "thinking", thinking: "hmm", thinkingSignature: "sig" },
            { type: "toolCall", id: "t1", name: "edit_file", arguments: { path: "a" } },
          ],
          "toolUse",
        ),
      },
      { type: "tool/start", toolCallId: "t1", toolName: "edit_file", args: { path: "a" } },
      { type: "approval/request", toolCallId: "t1", toolName: "edit_file", path: "a", diff: { kind: "secret", changedLines: 1 } },
      { type: "approval/decided", toolCallId: "t1", decision: "allowed" },
    ]);
    let state: ChatState = deepFreeze(emptyChatState);
    for (const e of events) {
      const before = JSON.stringify(state);
      const next = reduce(state, e);
      assert.equal(JSON.stringify(state), before);
      state = deepFreeze(next);
    }
    const items = chatItems(state);
    assert.deepEqual(
      items.map((i) => i.kind),
      ["user", "assistant", "tool"],
      "one card for the edit; the system message never becomes an item",
    );
    const tool = items[2]!;
    assert.ok(tool.kind === "tool" && tool.approval?.state === "allowed" && tool.status === "running");
    assert.deepEqual(tool.kind === "tool" && tool.approval, {
      kind: "approval",
      id: "approval:t1",
      toolCallId: "t1",
      toolName: "edit_file",
      state: "allowed",
      path: "a",
      diff: { kind: "secret", changedLines: 1 },
    });
  });

  it("replaying a saved transcript gives the same items as the live run (tools, approval, denial)", async () => {
    const ws = tempDir("ws");
    const storage = tempDir("st");
    let service: ChatService | undefined;
    try {
      mkdirSync(join(ws.path, "src"));
      writeFileSync(join(ws.path, "src/config.ts"), "export const port = 3000;\n");
      const model = createScriptedModel();
      let decisions = 0;
      service = new ChatService({
        store: new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storage.path)),
        fs: createNodeWorkspaceFs(ws.path),
        resolveModel: async () => model.binding,
        approver: async () => (decisions++ === 0 ? { decision: "deny", reason: "no" } : { decision: "allow" }),
        approvalMode: () => "ask",
      });
      const session = service.newChat();
      const live: ChatEvent[] = [];
      session.onEvent((e) => live.push(e));
      model.push(reply.tool("read_file", { path: "src/config.ts" }, "r1"), reply.text("It is 3000.", "Let me think about ports."));
      await session.prompt("Port?");
      model.push(
        reply.tool("edit_file", { path: "src/config.ts", oldText: "3000", newText: "8080" }, "e1"),
        reply.tool("edit_file", { path: "src/config.ts", oldText: "3000", newText: "8080" }, "e2"),
        reply.text("Done."),
      );
      await session.prompt("Change it to 8080.");
      // What a webview would hold: the live events, merged for transport, through the reducer.
      const webview = chatItems(reduceAll(mergeDeltas(live)));
      const replayed = chatItems(stateFromTranscript(JSON.parse(JSON.stringify(session.messages)) as AgentMessage[]));
      assert.deepEqual(webview, replayed);
      // One card per call: the decision is on the edit's own card, live and restored alike.
      assert.deepEqual(
        webview.map((i) => i.kind),
        ["user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant", "tool", "assistant"],
      );
      const tools = webview.flatMap((i) => (i.kind === "tool" ? [i] : []));
      assert.deepEqual(
        tools.map((t) => [t.id, t.status, t.approval?.state]),
        [
          ["r1", "success", undefined],
          ["e1", "error", "denied"],
          ["e2", "success", "allowed"],
        ],
      );
      assert.equal(tools[1]!.approval?.reason, "no");
      // The edit's hunks: the live card got them from the gate's structuredPatch, the restored one
      // from the notice's and the result's saved text; the same hunks on the card and its result.
      const change = oneLineChange("export const port = 3000;", "export const port = 8080;");
      const requests = live.flatMap((e) => (e.type === "approval/request" ? [e] : []));
      assert.deepEqual(
        requests.map((r) => [r.toolCallId, r.diff]),
        [
          ["e1", change],
          ["e2", change],
        ],
        "the live question carried the hunks",
      );
      const restored = replayed.flatMap((i) => (i.kind === "tool" ? [i] : []));
      assert.deepEqual(restored[1]!.approval?.diff, change, "the denied edit, restored");
      assert.deepEqual(restored[2]!.approval?.diff, change, "the applied edit, restored");
      assert.deepEqual(restored[2]!.diff, change, "its result, restored");
      // The view never gets the diff text: not on the events, not in the restored items.
      const at = JSON.stringify(live).indexOf("@@");
      assert.equal(at, -1, JSON.stringify(live).slice(at - 300, at + 100));
      assert.equal(JSON.stringify(replayed).includes("@@"), false);
    } finally {
      await service?.dispose();
      ws.cleanup();
      storage.cleanup();
    }
  });

  it("one edit is one card: the request, the decision and a late notice all land on the call's card", () => {
    const call = assistant([{ type: "toolCall", id: "t1", name: "edit_file", arguments: { path: "a.ts" } }], "toolUse");
    let state = deepFreeze(
      reduceAll([
        { type: "message/start", message: { role: "user", content: "go", timestamp: 1 } },
        { type: "message/end", message: { role: "user", content: "go", timestamp: 1 } },
        { type: "message/start", message: call },
        { type: "message/end", message: call },
        { type: "tool/start", toolCallId: "t1", toolName: "edit_file", args: { path: "a.ts" } },
        { type: "approval/request", toolCallId: "t1", toolName: "edit_file", path: "a.ts", diff: ONE_LINE },
      ]),
    );
    const card = () => chatItems(state).filter((i) => i.kind === "tool");
    assert.equal(card().length, 1);
    assert.deepEqual(card()[0]!.kind === "tool" && [card()[0]!.status, card()[0]!.approval], [
      "pending",
      { kind: "approval", id: "approval:t1", toolCallId: "t1", toolName: "edit_file", state: "pending", path: "a.ts", diff: ONE_LINE },
    ]);
    // A follow-up user turn settles the card before the notice is saved: the notice still finds it.
    state = deepFreeze(
      reduceAll(
        [
          { type: "approval/decided", toolCallId: "t1", decision: "denied", reason: "no" },
          { type: "message/start", message: { role: "user", content: "later", timestamp: 2 } },
          { type: "message/end", message: { role: "user", content: "later", timestamp: 2 } },
          {
            type: "message/end",
            message: { role: "approvalNotice", toolCallId: "t1", toolName: "edit_file", decision: "denied", reason: "no", path: "a.ts", timestamp: 3 },
          },
        ],
        state,
      ),
    );
    assert.equal(card().length, 1, "still one card");
    assert.equal(
      state.live.some((i) => i.kind === "tool"),
      false,
      "the settled card was updated, not a new one added",
    );
    assert.deepEqual(card()[0]!.kind === "tool" && card()[0]!.approval, {
      kind: "approval",
      id: "approval:t1",
      toolCallId: "t1",
      toolName: "edit_file",
      state: "denied",
      path: "a.ts",
      diff: ONE_LINE,
      reason: "no",
    });
  });

  it("a cancelled request leaves the call's card without a question", () => {
    const call = assistant([{ type: "toolCall", id: "t2", name: "edit_file", arguments: { path: "a.ts" } }], "toolUse");
    const state = reduceAll([
      { type: "message/start", message: call },
      { type: "message/end", message: call },
      { type: "approval/request", toolCallId: "t2", toolName: "edit_file", path: "a.ts", diff: ONE_LINE },
      { type: "approval/cancelled", toolCallId: "t2" },
    ]);
    const tools = chatItems(state).filter((i) => i.kind === "tool");
    assert.equal(tools.length, 1);
    assert.equal(tools[0]!.kind === "tool" && tools[0]!.approval, undefined);
  });
});
