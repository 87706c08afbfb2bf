// Compaction on the path users take: the real extension, pi-ai's real OpenAI-compatible adapter,
// and a local server that streams and reports usage in its last chunk (as OpenAI, vLLM, llama.cpp
// and Ollama do). A 32k window, 70 long turns, a fact told in turn 1: the chat is summarized
// before any turn is left out, whether the server counts exactly, counts half or reports nothing,
// and the fact is still in the request after 70 turns and after the chat is read back from disk.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import { SUMMARY_SYSTEM_PROMPT } from "../../src/core/context/summary-prompt";
import type { PiChatTestApi } from "../../src/host/extension";
import { chatItems } from "../../src/shared/reducer";
import { promptTokensOf, type ChatCompletionRequest, type OpenAIServer, type ServerStep, type UsageMode } from "../support/openai-server";
import { startChatView } from "./helpers";

const FACT = "Remember this for later: the deploy code is PINEAPPLE-42.";
const NOT_SHOWN = "earlier messages of this conversation are not shown";
const TURNS = 70;
/** The window, set with piChat.contextWindow: the scripted server does not say one (the meter would say "unknown"). */
const WINDOW = 32_768;
const WORDS = "the cache layout handler returns a token stream while the widget budget index module waits for review of the parser queue schema".split(" ");

/** ~`tokens` tokens of prose (4 characters a token), different for each `seed`. */
function prose(seed: number, tokens: number): string {
  const out: string[] = [];
  let length = 0;
  for (let i = 0; length < tokens * 4; i++) {
    const word = WORDS[(seed * 7 + i * 13 + Math.floor(i / WORDS.length)) % WORDS.length]!;
    out.push(word);
    length += word.length + 1;
  }
  return out.join(" ");
}

function contentText(message: ChatCompletionRequest["messages"][number] | undefined): string {
  const c = message?.content;
  return typeof c === "string" ? c : Array.isArray(c) ? c.map((p) => p.text ?? "").join("") : "";
}

function isSummaryRequest(body: ChatCompletionRequest): boolean {
  return contentText(body.messages[0]) === SUMMARY_SYSTEM_PROMPT;
}

function requestText(body: ChatCompletionRequest): string {
  return body.messages.map(contentText).join("\n");
}

/** Answers a chat request with ~500 tokens, a summary request with a summary that knows nothing of the fact. */
const model: ServerStep = (body) =>
  isSummaryRequest(body)
    ? { text: "## Goal\nTune the cache layout.\n\n## Progress\n### Done\n- [x] Reviewed the parser queue.\n\n## Next Steps\n1. Go on with the review." }
    : { text: `Noted. ${prose(body.messages.length, 500)}` };

describe("compaction on the real path: OpenAI-compatible adapter over HTTP, 32k window (extension host)", function () {
  this.timeout(600_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;

  before(async () => {
    ({ server, api } = await startChatView({ chunkSize: 400 }));
    await vscode.workspace.getConfiguration("piChat").update("contextWindow", WINDOW, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.workspace.getConfiguration("piChat").update("contextWindow", undefined, vscode.ConfigurationTarget.Global);
    server.usageMode = "messages";
    await server?.close();
  });

  beforeEach(async () => {
    await vscode.commands.executeCommand("piChat.newChat");
  });

  /** Turn 1 tells the fact, then `turns - 1` long turns; returns the chat requests (summary requests apart) sent for them. */
  async function longChat(turns: number, step: ServerStep = model): Promise<{ chat: ChatCompletionRequest[]; summaries: ChatCompletionRequest[] }> {
    const first = server.chatRequests().length;
    for (let turn = 1; turn <= turns; turn++) {
      // Two steps: the answer, and a summary request if one comes before or after it.
      server.push(step, step);
      const text = turn === 1 ? `${FACT} ${prose(turn, 480)}` : `Turn ${turn}: ${prose(turn, 500)}`;
      await api.view.receive({ type: "chat/send", v: 1, text });
      // The spare step (no summary this turn) does not carry over to the next turn.
      server.clearPending();
    }
    const sent = server.chatRequests().slice(first);
    return { chat: sent.filter((b) => !isSummaryRequest(b)), summaries: sent.filter(isSummaryRequest) };
  }

  function assertNoneTrimmedAndAllFit(chat: readonly ChatCompletionRequest[], mode: UsageMode): void {
    chat.forEach((body, i) => {
      assert.ok(!requestText(body).includes(NOT_SHOWN), `${mode}: request ${i + 1} of ${chat.length} left turns out instead of compacting`);
      const size = promptTokensOf(body, "exact") + (body.max_tokens ?? 0);
      assert.ok(size <= WINDOW, `${mode}: request ${i + 1} with its answer budget is ${size} tokens, over the ${WINDOW}-token window`);
    });
  }

  for (const mode of ["exact", "half", "none"] as const) {
    it(`usage ${mode}: summarized before any turn is left out; the fact of turn 1 is in the request after ${TURNS} turns and after a reload`, async () => {
      server.usageMode = mode;
      const { chat, summaries } = await longChat(TURNS);
      assert.ok(summaries.length >= 1, `${mode}: at least one summary request (${summaries.length})`);
      assertNoneTrimmedAndAllFit(chat, mode);

      const session = api.screen.currentSession;
      const meter = session.viewState.meter;
      assert.ok(meter?.threshold && meter.window === WINDOW, "the meter knows the window and the threshold");
      console.log(
        `    [${mode}] ${summaries.length} compactions in ${TURNS} turns; meter at turn ${TURNS}: ${meter.tokens} / ${meter.window} (compacts at ${meter.threshold})`,
      );
      assert.equal(meter.reduced?.kind, "compacted", "the meter says the chat was summarized");

      server.push(model, model);
      await api.view.receive({ type: "chat/send", v: 1, text: "What is the deploy code?" });
      server.clearPending();
      const asked = server
        .chatRequests()
        .filter((b) => !isSummaryRequest(b))
        .at(-1)!;
      assert.ok(requestText(asked).includes(FACT), `${mode}: the fact of turn 1 is in the request after ${TURNS} turns`);
      assertNoneTrimmedAndAllFit([asked], mode);

      // Read back from disk, as after a reload of the window.
      const chatId = session.id;
      await api.screen.newChat();
      const reloaded = await api.screen.service.reload(chatId);
      assert.ok(reloaded.ok, "the chat reads back from its file");
      await api.screen.switchChat(chatId);
      assert.notEqual(api.screen.currentSession, session, "a new session, restored from the transcript");
      server.push(model, model);
      await api.view.receive({ type: "chat/send", v: 1, text: "And the deploy code again?" });
      server.clearPending();
      const again = server
        .chatRequests()
        .filter((b) => !isSummaryRequest(b))
        .at(-1)!;
      assert.ok(requestText(again).includes(FACT), `${mode}: the fact is in the request after the reload`);
      assertNoneTrimmedAndAllFit([again], mode);
    });
  }

  it("a summary that fails: the chat goes on trimmed with one notice offering Compact now; the next compaction removes the trim", async () => {
    server.usageMode = "exact";
    const failing: ServerStep = (body) => (isSummaryRequest(body) ? { status: 500 } : model(body));
    const { chat } = await longChat(45, failing);
    const trimmed = chat.filter((b) => requestText(b).includes(NOT_SHOWN));
    assert.ok(trimmed.length > 0, "with no summary, the oldest turns are left out (the fallback)");
    const items = chatItems(api.screen.currentSession.viewState);
    const notices = items.filter((i) => i.kind === "notice" && /could not be summarized/.test(i.text));
    assert.equal(notices.length, 1, "one notice for the failing summaries, not one a turn");
    const notice = notices[0]!;
    assert.ok(notice.kind === "notice" && notice.fixCommand === "compact", "it offers Compact now");
    assert.match(notice.kind === "notice" ? notice.text : "", /Scripted error 500|500/);
    assert.equal(api.screen.currentSession.viewState.meter?.reduced?.kind, "trimmed", "the meter says turns are left out");

    // Compact now, with the server answering again.
    server.push(model);
    const status = await vscode.commands.executeCommand("piChat.compact", { instructions: "" });
    assert.equal(status, "done");
    server.push(model, model);
    await api.view.receive({ type: "chat/send", v: 1, text: "What is the deploy code?" });
    server.clearPending();
    const next = server
      .chatRequests()
      .filter((b) => !isSummaryRequest(b))
      .at(-1)!;
    assert.ok(!requestText(next).includes(NOT_SHOWN), "after the compaction nothing is left out");
    assert.match(requestText(next), /compacted into the summary below/);
    assert.ok(requestText(next).includes(FACT), "the user's first message is carried by the summary");
  });
});
