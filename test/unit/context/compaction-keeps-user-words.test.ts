// What a compaction keeps of the user, and what the user is told when turns are left out:
// the user's first prompt (the goal) and newest ones verbatim beside the model's summary, through
// several compactions; trimming with compaction off says so once, with "Compact now".
import assert from "node:assert/strict";
import { fauxAssistantMessage, type Message } from "@earendil-works/pi-ai";
import { compactionSummaryFact, userWordsFact } from "../../../src/core/context/app-message-facts";
import { SUMMARY_SYSTEM_PROMPT } from "../../../src/core/context/summary-prompt";
import { keptUserWords, USER_WORDS_MAX_CHARS_EACH } from "../../../src/core/context/user-words";
import type { CompactionSummaryMessage } from "../../../src/core/messages";
import { chatItems } from "../../../src/shared/reducer";
import { chatWorld } from "../../support/chat-world";
import { createScriptedModel, textOf, type ScriptStep } from "../../support/scripted-model";
import { assistant, summaryMessage, text, user } from "./messages";

const GOAL = "Goal: migrate the billing service to Postgres. The deploy code is PINEAPPLE-42; never touch tests/legacy.";

function isSummaryRequest(request: Message[]): boolean {
  return request[0]?.role === "system" && textOf(request[0]) === SUMMARY_SYSTEM_PROMPT;
}

describe("compaction keeps the user's own words", () => {
  it("keeps the first prompt and the newest that fit, in order, each cut at its head", () => {
    const long = `${"x".repeat(USER_WORDS_MAX_CHARS_EACH)} tail that is cut`;
    const summarized = [user(GOAL), assistant("ok"), user("second"), user(long), user("no, use port 8080 instead")];
    const words = keptUserWords(undefined, summarized, 1_000);
    assert.equal(words[0], GOAL);
    assert.deepEqual(
      words.slice(1).map((w) => w.slice(0, 20)),
      ["second", "x".repeat(20), "no, use port 8080 in"],
    );
    assert.ok(!words[2]!.includes("tail that is cut") && words[2]!.endsWith("[…]"));
    // A smaller budget drops the oldest after the goal first.
    const tight = keptUserWords(undefined, summarized, 40);
    assert.deepEqual(tight, [GOAL, "no, use port 8080 instead"]);
    // The previous summary's words come first: the goal of the chat stays the first prompt ever.
    assert.equal(keptUserWords(["the very first goal"], [user("later")], 1_000)[0], "the very first goal");
  });

  it("the model reads them before the summary (said first; the summary is the current state), told that they are verbatim", () => {
    const message = summaryMessage({ keptMessageCount: 0, userMessages: [GOAL, "no, use port 8080 instead"] }) as CompactionSummaryMessage;
    const fact = compactionSummaryFact(message);
    assert.match(fact, /compacted into the summary below/);
    assert.ok(fact.includes(GOAL) && fact.includes("no, use port 8080 instead"));
    assert.match(userWordsFact(message.userMessages) ?? "", /verbatim/);
    assert.equal(userWordsFact([]), undefined);
  });

  it("through three compactions of a long chat, every request after them carries the goal word for word", async () => {
    const small = createScriptedModel({ model: { id: "small", contextWindow: 8_000, maxTokens: 1_000 } });
    const world = chatWorld({ resolveModel: async () => small.binding });
    try {
      const session = world.service.newChat();
      const step: ScriptStep = (request) =>
        isSummaryRequest(request) ? fauxAssistantMessage("## Goal\nsomething about a database") : fauxAssistantMessage(`answer ${text(250)}`);
      for (let i = 0; i < 200; i++) small.push(step);
      await session.prompt(`${GOAL} ${text(200)}`);
      let turn = 1;
      while (session.messages.filter((m) => m.role === "compactionSummary").length < 3 && turn < 60) {
        await session.prompt(`question ${turn} ${text(300)}`);
        turn++;
      }
      assert.equal(session.messages.filter((m) => m.role === "compactionSummary").length, 3, `three compactions in ${turn} turns`);
      await session.prompt("What is the deploy code?");
      const last = small.requests.filter((r) => !isSummaryRequest(r)).at(-1)!;
      const sent = last.map(textOf).join("\n");
      assert.ok(sent.includes(GOAL), "the goal is in the request, verbatim");
      assert.ok(!sent.includes("earlier messages of this conversation are not shown"), "nothing was trimmed");
    } finally {
      await world.cleanup();
    }
  });
});

describe("trimming is never silent", () => {
  it("with compaction off, the first trimmed request adds one notice offering Compact now; the next ones add none", async () => {
    const small = createScriptedModel({ model: { id: "small", contextWindow: 8_000, maxTokens: 1_000 } });
    const world = chatWorld({ resolveModel: async () => small.binding, compaction: () => ({ enabled: false }) });
    try {
      const session = world.service.newChat();
      for (let i = 0; i < 40; i++) small.push(() => fauxAssistantMessage(`answer ${text(300)}`));
      let turn = 0;
      const trimmedRequest = () => small.requests.some((r) => r.some((m) => textOf(m).includes("are not shown, to fit the context window")));
      while (!trimmedRequest() && turn < 30) {
        await session.prompt(`question ${turn} ${text(300)}`);
        turn++;
      }
      assert.ok(trimmedRequest(), "the chat outgrew the window");
      for (let i = 0; i < 3; i++) await session.prompt(`more ${i} ${text(300)}`);
      const notices = chatItems(session.viewState).filter((i) => i.kind === "notice" && /left out of the request/.test(i.text));
      assert.equal(notices.length, 1, "one notice for the stretch of trimmed requests");
      const notice = notices[0]!;
      assert.ok(notice.kind === "notice" && notice.fixCommand === "compact", "it offers Compact now");
      assert.match(notice.kind === "notice" ? notice.text : "", /Compaction is off/);
      assert.equal(session.messages.filter((m) => m.role === "compactionSummary").length, 0);
    } finally {
      await world.cleanup();
    }
  });
});
