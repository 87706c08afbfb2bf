// Compaction in a running chat (pi-ai's faux provider, a real transcript store on disk):
// overflow → compact → retry once → a second overflow ends in a notice; Stop during a
// compaction leaves the file byte-identical; a full context is compacted after the turn;
// a new chat can start from a summary.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, type Message } from "@earendil-works/pi-ai";
import type { ChatSession } from "../../../src/core/session";
import { SUMMARY_SYSTEM_PROMPT } from "../../../src/core/context/summary-prompt";
import { chatItems } from "../../../src/shared/reducer";
import type { ChatEvent } from "../../../src/shared/protocol";
import { chatWorld, type ChatWorld } from "../../support/chat-world";
import { createScriptedModel, reply, textOf, type ScriptedModel, type ScriptStep } from "../../support/scripted-model";
import { text } from "./messages";

const OVERFLOW = "prompt is too long: 213462 tokens > 200000 maximum";

function isSummaryRequest(request: Message[]): boolean {
  return request[0]?.role === "system" && textOf(request[0]) === SUMMARY_SYSTEM_PROMPT;
}

const overflow: ScriptStep = () => fauxAssistantMessage([], { stopReason: "error", errorMessage: OVERFLOW });
const summary =
  (body: string): ScriptStep =>
  (request) => {
    assert.ok(isSummaryRequest(request), "expected the summary request here");
    return fauxAssistantMessage(`## Goal\n${body}`);
  };

async function chatWithHistory(world: ChatWorld, model: ScriptedModel, turns: number): Promise<ChatSession> {
  const session = world.service.newChat();
  for (let i = 0; i < turns; i++) {
    model.push(reply.text(`answer ${i} ${text(150)}`));
    await session.prompt(`question ${i} ${text(150)}`);
  }
  return session;
}

function chatFile(world: ChatWorld, session: ChatSession): string {
  return join(world.storageDir, "chats", `${session.id}.jsonl`);
}

describe("compaction in a chat", () => {
  let world: ChatWorld;
  let model: ScriptedModel;
  beforeEach(() => {
    model = createScriptedModel();
    world = chatWorld({ resolveModel: async () => model.binding, compaction: () => ({ keepRecentTokens: 400 }) });
  });
  afterEach(() => world.cleanup());

  it("a context-overflow error is compacted and retried once, with the summary in the retry", async () => {
    const session = await chatWithHistory(world, model, 4);
    model.push(overflow, summary("Keep going with the tests"), reply.text("Answered after compacting."));
    await session.prompt("and now?");
    const roles = session.messages.slice(-4).map((m) => m.role);
    assert.deepEqual(roles, ["user", "assistant", "compactionSummary", "assistant"]);
    const compaction = session.messages.find((m) => m.role === "compactionSummary");
    assert.equal(compaction?.role === "compactionSummary" && compaction.trigger, "overflow");
    const retry = model.requests[model.requests.length - 1]!;
    assert.match(textOf(retry[1]), /compacted into the summary below[\s\S]*Keep going with the tests/);
    assert.equal(textOf([...retry].reverse().find((m) => m.role === "user")), "and now?", "the retry still asks the user's question");
    assert.ok(!session.messages.some((m) => m.role === "localNotice" && m.level === "error"), "no error notice: it was handled");
    assert.equal(model.pending(), 0);
  });

  it("a second overflow after the retry ends in a notice offering Compact and New Chat from Summary; the chat stays usable", async () => {
    const session = await chatWithHistory(world, model, 4);
    model.push(overflow, summary("first"), overflow);
    await session.prompt("and now?");
    const last = session.messages[session.messages.length - 1]!;
    assert.equal(last.role, "localNotice");
    assert.ok(last.role === "localNotice" && last.fix?.includes("Pi Chat: Compact Chat") && last.fix.includes("Pi Chat: New Chat from Summary"));
    assert.equal(session.messages.filter((m) => m.role === "compactionSummary").length, 1, "compacted once, retried once");
    assert.equal(model.pending(), 0, "no third request");
    model.push(reply.text("Still here."));
    await session.prompt("hello?");
    assert.equal(textOf(session.messages[session.messages.length - 1] as Message), "Still here.");
  });

  it("Stop during a compaction leaves the transcript file byte-identical", async () => {
    const slow = createScriptedModel({ tokensPerSecond: 20 });
    let active = model;
    const w = chatWorld({ resolveModel: async () => active.binding, compaction: () => ({ keepRecentTokens: 400 }) });
    try {
      const session = await chatWithHistory(w, model, 4);
      active = slow;
      const before = readFileSync(chatFile(w, session));
      const messagesBefore = session.messages.length;
      slow.push(summary(text(2_000)));
      const events: ChatEvent[] = [];
      session.onEvent((e) => {
        events.push(e);
        if (e.type === "compaction/start") setTimeout(() => session.abort(), 50);
      });
      const outcome = await session.compact("keep the API design");
      assert.equal(outcome.status, "cancelled");
      assert.deepEqual(readFileSync(chatFile(w, session)), before);
      assert.equal(session.messages.length, messagesBefore);
      assert.ok(events.some((e) => e.type === "compaction/end" && e.status === "cancelled"));
      assert.ok(!chatItems(session.viewState).some((i) => i.kind === "summary"), "the Compacting… item is gone");
      // And the chat goes on.
      slow.push(reply.text("ok"));
      await session.prompt("next");
    } finally {
      await w.cleanup();
    }
  });

  it("by hand, with words on what to keep: the summary request carries them; the item shows the figures", async () => {
    const session = await chatWithHistory(world, model, 4);
    let prompt = "";
    model.push((request) => {
      prompt = textOf(request[1]);
      return fauxAssistantMessage("## Goal\nAPI design kept");
    });
    const outcome = await session.compact("keep the API design");
    assert.equal(outcome.status, "done");
    assert.match(prompt, /keep in particular: keep the API design/);
    assert.match(prompt, /<conversation>[\s\S]*question 0/);
    const item = chatItems(session.viewState).find((i) => i.kind === "summary");
    assert.ok(item && item.kind === "summary" && item.state === "done" && item.trigger === "manual");
    assert.ok(item.kind === "summary" && item.tokensBefore! > item.tokensAfter!);
    const marked = chatItems(session.viewState).filter((i) => i.summarized);
    assert.ok(marked.length > 0 && marked.some((i) => i.kind === "user"), "summarized items are marked");
    assert.equal(session.viewState.meter?.reduced?.kind, "compacted");
  });

  it("a context over the threshold is compacted after the turn; the next request is summary + kept + new", async () => {
    const small = createScriptedModel({ model: { id: "small", contextWindow: 8_000, maxTokens: 1_000 } });
    const w = chatWorld({ resolveModel: async () => small.binding });
    try {
      const session = w.service.newChat();
      // One step per request, whichever it is: an answer, or a summary.
      const smart: ScriptStep = (request) =>
        isSummaryRequest(request) ? fauxAssistantMessage("## Goal\nsummary of the long chat") : fauxAssistantMessage(`answer ${text(300)}`);
      for (let i = 0; i < 80; i++) small.push(smart);
      let turn = 0;
      while (!session.messages.some((m) => m.role === "compactionSummary") && turn < 30) {
        await session.prompt(`question ${turn} ${text(300)}`);
        turn++;
      }
      const compaction = session.messages.find((m) => m.role === "compactionSummary");
      assert.ok(compaction && compaction.role === "compactionSummary" && compaction.trigger === "threshold");
      await session.prompt("next question");
      const request = small.requests[small.requests.length - 1]!;
      assert.equal(request[0]!.role, "system");
      assert.match(textOf(request[1]), /compacted into the summary below/);
      assert.equal(textOf(request[request.length - 1]), "next question");
    } finally {
      await w.cleanup();
    }
  });

  it("New Chat from Summary: the new chat's model gets the system prompt, the summary and the new prompt", async () => {
    const session = await chatWithHistory(world, model, 4);
    model.push(summary("carry this on"));
    await session.compact();
    const opened = await world.service.newChatFromSummary(session.id);
    assert.ok(opened.ok);
    const fresh = opened.session;
    assert.deepEqual(
      fresh.messages.map((m) => m.role),
      ["system", "compactionSummary"],
    );
    model.push(reply.text("continuing"));
    await fresh.prompt("where were we?");
    const request = model.requests[model.requests.length - 1]!;
    assert.deepEqual(
      request.map((m) => m.role),
      ["system", "user", "user"],
    );
    assert.match(textOf(request[1]), /carry this on/);
  });
});
