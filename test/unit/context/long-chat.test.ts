// A scripted 60-turn chat through an 8k window: a value set and then changed in the first turns
// (a port, a function name) is still answered correctly at turn 60 because the summaries carried
// it. The scripted model answers only from what its request contains, and the scripted
// summarizer writes only what its request contains, so a fact that a summary dropped is gone.
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { fauxAssistantMessage, type Message } from "@earendil-works/pi-ai";
import { contextBudget, DEFAULT_COMPACTION_SETTINGS } from "../../../src/core/context/compaction";
import { SUMMARY_SYSTEM_PROMPT } from "../../../src/core/context/summary-prompt";
import { estimateLlmMessageTokens } from "../../../src/core/context/tokens";
import { convertToLlm, transformContext } from "../../../src/core/context-policy";
import { createNodeTranscriptStorage, TranscriptStore } from "../../../src/core/transcript";
import { chatItems } from "../../../src/shared/reducer";
import { chatWorld, type ChatWorld } from "../../support/chat-world";
import { createScriptedModel, textOf, type ScriptedModel, type ScriptStep } from "../../support/scripted-model";

const WINDOW = 8_000;
const TURNS = 60;
const PORT = /the port is (\d+)/gi;
const FUNCTION = /the function is called (\w+)/gi;

function lastMatch(text: string, pattern: RegExp): string | undefined {
  let last: string | undefined;
  for (const m of text.matchAll(pattern)) last = m[1];
  return last;
}

/** Deterministic filler that reads like prose and never mentions ports or functions. */
function filler(seed: number, words: number): string {
  const vocabulary = ["render", "cache", "layout", "token", "stream", "widget", "budget", "index", "module", "review", "branch", "parser", "queue", "schema"];
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(vocabulary[(seed * 7 + i * 13 + ((i * i) % 5)) % vocabulary.length]!);
  return out.join(" ");
}

function requestText(request: Message[]): string {
  return request.map((m) => textOf(m)).join("\n\n");
}

function isSummaryRequest(request: Message[]): boolean {
  return request[0]?.role === "system" && textOf(request[0]) === SUMMARY_SYSTEM_PROMPT;
}

/** Answers from the request alone: the summarizer keeps the current facts, the assistant reports them. */
const model: ScriptStep = (request) => {
  const all = requestText(request);
  if (isSummaryRequest(request)) {
    const port = lastMatch(all, PORT);
    const fn = lastMatch(all, FUNCTION);
    const facts = [port ? `- For the dev server, the port is ${port}.` : "", fn ? `- The entry point: the function is called ${fn}.` : ""]
      .filter(Boolean)
      .join("\n");
    return fauxAssistantMessage(
      `## Goal\nSet up and tune the dev server.\n\n## Progress\n### Done\n- [x] Discussed ${filler(3, 20)}\n\n## Critical Facts\n${facts || "- (none)"}`,
    );
  }
  const question = textOf([...request].reverse().find((m) => m.role === "user"));
  if (question.includes("Which port")) {
    return fauxAssistantMessage(`We use port ${lastMatch(all, PORT) ?? "unknown"} and the function ${lastMatch(all, FUNCTION) ?? "unknown"}.`);
  }
  return fauxAssistantMessage(`Noted. ${filler(question.length, 180)}`);
};

function prompts(): string[] {
  const out = [
    `Our dev server: the port is 3000. ${filler(1, 60)}`,
    `Its entry point: the function is called startServer. ${filler(2, 60)}`,
    `Change of plan: the port is 8080 now. ${filler(3, 60)}`,
    `Rename it: the function is called launchDevServer now. ${filler(4, 60)}`,
  ];
  for (let i = out.length; i < TURNS - 1; i++) out.push(`Step ${i}: ${filler(i, 110)}`);
  out.push("Which port and which function name do we use now?");
  return out;
}

describe("a long chat with a small window (scripted, 60 turns, 8k tokens)", function () {
  this.timeout(120_000);
  let scripted: ScriptedModel;
  let world: ChatWorld;
  before(() => {
    scripted = createScriptedModel({ model: { id: "small-8k", contextWindow: WINDOW, maxTokens: 1_024 } });
    world = chatWorld({ resolveModel: async () => scripted.binding });
  });
  after(() => world.cleanup());

  it("answers turn 60 from the summaries, never sends more than the window minus the reserve, and restores the same state", async () => {
    for (let i = 0; i < 400; i++) scripted.push(model);
    const session = world.service.newChat();
    for (const prompt of prompts()) await session.prompt(prompt);

    // The answer: the changed values, carried by the summaries.
    const answer = session.messages[session.messages.length - 1]!;
    assert.equal(answer.role, "assistant");
    assert.equal(textOf(answer as Message), "We use port 8080 and the function launchDevServer.");
    const lastRequest = scripted.requests[scripted.requests.length - 1]!;
    assert.ok(!requestText(lastRequest).includes("Change of plan"), "turn 3 itself is no longer sent: the summary carried the port");
    const compactions = session.messages.filter((m) => m.role === "compactionSummary");
    assert.ok(compactions.length >= 3, `${compactions.length} compactions`);
    assert.ok(compactions.every((m) => m.role === "compactionSummary" && m.trigger === "threshold"));

    // No request passed the window minus the reserve: by the provider's count and by ours.
    const systemTokens = estimateLlmMessageTokens(session.messages[0] as Message);
    const budget = contextBudget(WINDOW, 1_024, DEFAULT_COMPACTION_SETTINGS, systemTokens);
    for (const m of session.messages) {
      if (m.role !== "assistant") continue;
      const sent = m.usage.input + m.usage.cacheRead + m.usage.cacheWrite;
      assert.ok(sent <= budget.threshold, `a request of ${sent} tokens > ${budget.threshold}`);
    }
    for (const request of scripted.requests) {
      const estimate = request.reduce((n, m) => n + estimateLlmMessageTokens(m), 0);
      assert.ok(estimate + budget.maxOutputTokens <= WINDOW, `request + answer ${estimate} + ${budget.maxOutputTokens} > ${WINDOW}`);
    }

    // The file on disk still holds every message.
    await world.service.flush();
    const store = new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(world.storageDir));
    const loaded = await store.load(session.id);
    assert.ok(loaded.ok);
    assert.deepEqual(loaded.messages, session.messages);
    assert.equal(loaded.messages.filter((m) => m.role === "user").length, TURNS);

    // A reload gives the same summary items and the same next request.
    const reopened = world.reopen();
    const restored = await reopened.open(session.id);
    assert.ok(restored.ok);
    const summaries = (s: typeof session) => chatItems(s.viewState).filter((i) => i.kind === "summary");
    assert.deepEqual(summaries(restored.session), summaries(session));
    assert.deepEqual(
      chatItems(restored.session.viewState).map((i) => [i.id, i.summarized ?? false]),
      chatItems(session.viewState).map((i) => [i.id, i.summarized ?? false]),
      "the same items are marked summarized",
    );
    const view = (messages: readonly AgentMessage[]) => convertToLlm(transformContext(messages, { maxContextTokens: budget.threshold }));
    assert.deepEqual(view(restored.session.messages), view(session.messages));
    const before = scripted.requests.length;
    await restored.session.prompt("Which port and which function name do we use now?");
    const next = scripted.requests.slice(before).find((r) => !isSummaryRequest(r))!;
    assert.deepEqual(next.slice(0, -1), structuredClone(view(session.messages)));
    assert.equal(textOf(restored.session.messages[restored.session.messages.length - 1] as Message), "We use port 8080 and the function launchDevServer.");
  });
});
