// What the agent holds of a compacted chat (agentProjection): the model must get exactly what it
// got when the agent held the whole path, and the figures about it must not change; only
// pi-agent-core's per-prompt work shrinks to the projection's size (P21 measures that).
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { ChatPath } from "../../../src/core/session/chat-path";
import { agentProjection, applyCompaction, latestCompaction, summarizedBy } from "../../../src/core/context/compaction";
import { convertToLlm, transformContext } from "../../../src/core/context-policy";
import { SUMMARY_SYSTEM_PROMPT } from "../../../src/core/context/summary-prompt";
import { deepFreeze } from "../../support/freeze";
import { chatWorld } from "../../support/chat-world";
import { createScriptedModel, textOf, type ScriptStep } from "../../support/scripted-model";
import { assistant, call, conversation, result, summaryMessage, text, user } from "./messages";

const toolsChanged: AgentMessage = { role: "system", content: "", timestamp: 3 };

/** Paths a chat can have: summaries keeping more or fewer messages, system messages before and after the cut, an older summary inside the kept part. */
function paths(): { name: string; path: AgentMessage[] }[] {
  const out: { name: string; path: AgentMessage[] }[] = [];
  const plain = conversation(6, 50);
  out.push({ name: "no summary", path: plain });
  const one = conversation(8, 50);
  one.splice(5, 0, toolsChanged);
  one.push(summaryMessage({ keptMessageCount: 4 }), user("after"), assistant("a"));
  out.push({ name: "one summary, a system message before the cut", path: one });
  const two = conversation(8, 50);
  two.push(summaryMessage({ keptMessageCount: 6, summary: "first" }), user("x"), call("c1", "read_file", { path: "a.ts" }), result("c1", "read_file", "text"));
  two.push(toolsChanged, summaryMessage({ keptMessageCount: 5, summary: "second" }), user("after second"));
  out.push({ name: "an older summary and a system message inside the kept part", path: two });
  const keepsAll = conversation(2, 50);
  keepsAll.push(summaryMessage({ keptMessageCount: 50 }), user("after"));
  out.push({ name: "a summary keeping more than there is", path: keepsAll });
  const noSystem = conversation(5, 50).slice(1);
  noSystem.push(summaryMessage({ keptMessageCount: 3 }));
  out.push({ name: "no system message, the summary last", path: noSystem });
  return out;
}

describe("agentProjection: what the agent holds of a compacted path", () => {
  for (const { name, path } of paths()) {
    it(`${name}: the model's view of the projection is the view of the path`, () => {
      deepFreeze(path);
      const projection = agentProjection(path);
      const fromPath = applyCompaction(path);
      const fromProjection = applyCompaction(projection);
      assert.equal(fromProjection.messages.length, fromPath.messages.length);
      fromPath.messages.forEach((m, i) => assert.equal(fromProjection.messages[i], m, `message ${i} is the path's own object`));
      assert.deepEqual(transformContext(projection, { maxContextTokens: 1_000_000 }), transformContext(path, { maxContextTokens: 1_000_000 }));
      const latest = latestCompaction(path);
      assert.equal(summarizedBy(path, latest?.index ?? -1), fromPath.summarized, "the count of the summary is the view's");
      if (latest) {
        const systemsBefore = path.slice(0, latest.firstKeptIndex).filter((m) => m.role === "system").length;
        assert.equal(projection.length, systemsBefore + path.length - latest.firstKeptIndex, "only the system messages before the kept part stay of it");
      } else assert.deepEqual(projection, path);
    });
  }

  it("is bounded by what follows the cut: a 10,000-message path compacted near its end projects to a few dozen", () => {
    const path = conversation(5_000, 5);
    path.push(summaryMessage({ keptMessageCount: 10 }), user("after"));
    assert.equal(agentProjection(path).length, 1 + 10 + 2);
  });
});

describe("a compacted chat whose agent holds the projection", () => {
  const isSummaryRequest = (request: Parameters<ScriptStep>[0]) => request[0]?.role === "system" && textOf(request[0]) === SUMMARY_SYSTEM_PROMPT;

  it("sends what the policy makes of the whole path, and counts what the summary stands for; after a reopen and a retry too", async () => {
    const small = createScriptedModel({ model: { id: "small", contextWindow: 8_000, maxTokens: 1_000 } });
    const smart: ScriptStep = (request) =>
      isSummaryRequest(request) ? fauxAssistantMessage("## Goal\nsummary of the long chat") : fauxAssistantMessage(`answer ${text(300)}`);
    for (let i = 0; i < 120; i++) small.push(smart);
    const world = chatWorld({ resolveModel: async () => small.binding });
    try {
      const session = world.service.newChat();
      for (let turn = 0; turn < 40 && !session.messages.some((m) => m.role === "compactionSummary"); turn++)
        await session.prompt(`question ${turn} ${text(300)}`);
      assert.ok(
        session.messages.some((m) => m.role === "compactionSummary"),
        "the chat was compacted",
      );
      // A few more turns after the summary, on the projection.
      for (let turn = 0; turn < 3; turn++) await session.prompt(`later ${turn}`);

      const sameAsPolicy = (s: typeof session, label: string) => {
        const request = small.requests[small.requests.length - 1]!;
        // The last request answered the last prompt: the path without that answer is what it was built from.
        const built = s.messages.slice(0, -1);
        const expected = convertToLlm(transformContext(built, { maxContextTokens: 1_000_000 }));
        assert.deepEqual(
          request.map((m) => m.role),
          expected.map((m) => m.role),
          `${label}: the request has the policy's messages`,
        );
        assert.deepEqual(request.map(textOf), expected.map(textOf), `${label}: and their words`);
        const summarized = applyCompaction(built).summarized;
        assert.ok(summarized > 3, `${label}: the summary stands for several messages (${summarized})`);
        assert.equal(s.context.lastRequest?.view.summarized, summarized, `${label}: the request's record counts them on the path`);
        assert.equal(s.context.lastRequest?.view.transcriptMessages, built.length, `${label}: and the transcript's length`);
      };
      sameAsPolicy(session, "live");

      const reopened = world.reopen();
      const opened = await reopened.open(session.id);
      assert.ok(opened.ok);
      await opened.session.prompt("after the restart");
      sameAsPolicy(opened.session, "reopened");

      // Retry the last answer: the path is cut and the agent holds the projection of what is left.
      const last = opened.session.messages.length - 1;
      await opened.session.retry(last);
      sameAsPolicy(opened.session, "retried");
      assert.equal(opened.session.messages.filter((m) => m.role === "user" && textOf(m) === "after the restart").length, 1);
    } finally {
      await world.cleanup();
    }
  });
});

describe("ChatPath: the path and what the agent holds of it, in step", () => {
  it("through the session's messages, the agent's own, a summary, a cut and a switch, the agent holds the path's projection", () => {
    const path = new ChatPath(conversation(20, 20));
    const agent = { state: { messages: path.projection() } };
    path.hold(agent);
    const inStep = (label: string) => assert.deepEqual(agent.state.messages, agentProjection(path.messages), label);
    inStep("at the start");
    path.add(user("a notice of the session's own"));
    inStep("after a message of the session's");
    // The agent pushes its own message, then tells (message_end): the path takes it once.
    const answer = assistant("the agent's answer");
    agent.state.messages.push(answer);
    path.addedByAgent(answer);
    assert.equal(path.messages.filter((m) => m === answer).length, 1);
    inStep("after the agent's message");
    path.add(summaryMessage({ keptMessageCount: 6 }));
    inStep("after a summary");
    assert.ok(agent.state.messages.length < path.messages.length / 3, "the agent holds much less than the path");
    const kept = path.messages.length;
    path.add(user("after the summary"));
    path.set(kept - 10, []);
    inStep("after a cut before the summary");
    assert.equal(agent.state.messages.length, path.messages.length, "no summary on the path: the agent holds all of it");
    path.set(kept - 10, [summaryMessage({ keptMessageCount: 4 }), user("another branch")]);
    inStep("after a switch to a branch with its own summary");
  });

  it("an agent that put a system message first: the path has it first too", () => {
    const path = new ChatPath(conversation(3, 20).slice(1));
    const systemFirst: AgentMessage = { role: "system", content: "prompt", timestamp: 0 };
    path.hold({ state: { messages: [systemFirst, ...path.projection()] } });
    assert.equal(path.messages[0], systemFirst);
  });
});
