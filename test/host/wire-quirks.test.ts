// What real local servers do on the wire, through pi-ai's real openai-completions adapter over
// HTTP: an error chunk in the stream with no [DONE] (llama-server's answer when the model's output
// does not parse), an answer cut at the token limit (`finish_reason: "length"`), and a server that
// reports no usage. Each ends as a chat the user can go on with, from the card itself.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { AssistantItem, NoticeItem } from "../../src/shared/chat-items";
import { chatItems } from "../../src/shared/reducer";
import type { WireMessage } from "../support/openai-server";
import { useChatView } from "./helpers";

const PARSE_ERROR = "Failed to parse input at pos 17: <tool_call>{not json";

function textOf(message: WireMessage | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  return (content ?? []).map((part) => part.text ?? "").join("");
}

describe("what local servers send on the wire", function () {
  this.timeout(120_000);
  const view = useChatView();

  beforeEach(async () => {
    view().server.usageMode = "messages";
    await vscode.commands.executeCommand("piChat.newChat");
  });

  const items = () => chatItems(view().api.screen.currentSession.viewState);
  const send = (text: string) => view().api.view.receive({ type: "chat/send", v: 1, text });

  it("an error chunk mid-stream without [DONE]: an error card with the server's words and Retry on it; Retry retries; a new prompt works", async () => {
    const { server, api } = view();
    server.push(() => ({ text: "Once upon a time", streamError: { code: 500, message: PARSE_ERROR, type: "server_error" } }));
    await send("Tell me a story");
    const session = api.screen.currentSession;
    assert.equal(session.running, false, "the run ended");
    const notice = items().find((i): i is NoticeItem => i.kind === "notice" && i.level === "error");
    assert.ok(notice, "an error card");
    assert.match(`${notice.text}\n${notice.detail ?? ""}`, /Failed to parse input at pos 17/, "what the server said is on the card");
    const actions = [notice.fixCommand, ...(notice.moreFixCommands ?? [])];
    assert.ok(actions.includes("retry"), `Retry is on the error card (it offers ${JSON.stringify(actions)})`);
    // Retry is the card's button: it posts chat/continue, which asks again from the same prompt.
    server.push((body) => {
      const users = body.messages.filter((m) => m.role === "user");
      assert.equal(textOf(users.at(-1)), "Tell me a story", "the retry asks the failed turn's prompt again");
      assert.ok(!body.messages.some((m) => m.role === "assistant"), "the failed answer is not sent back");
      return { text: "Once upon a time, a cat." };
    });
    await api.view.receive({ type: "chat/continue", v: 1 });
    assert.match(JSON.stringify(session.messages.at(-1)), /a cat\./);
    // The chat stays usable: the next prompt is answered.
    server.push(() => ({ text: "The end." }));
    await send("And then?");
    assert.match(JSON.stringify(session.messages.at(-1)), /The end\./);
  });

  it('finish_reason "length": the answer is marked cut at the token limit with Continue; Continue tells the model and goes on', async () => {
    const { server, api } = view();
    server.push(() => ({ text: "Once upon a time there was a", finishReason: "length" }));
    await send("Tell me a long story");
    const session = api.screen.currentSession;
    const answer = items().find((i): i is AssistantItem => i.kind === "assistant");
    assert.equal(answer?.stopReason, "length", "the card knows the answer was cut at the token limit");
    assert.equal(session.canContinue, true, "a cut answer can be continued");
    assert.equal(session.interrupted, false, "Continue is on the answer's card, not the interrupted-turn bar");
    server.push((body) => {
      const last = body.messages.at(-1);
      assert.equal(last?.role, "user", "the model is asked in a user turn");
      assert.match(textOf(last), /token limit/, "the model is told its answer was cut at the token limit");
      const before = body.messages.at(-2);
      assert.equal(before?.role, "assistant");
      assert.match(textOf(before), /there was a$/, "the cut answer is sent back as it was");
      return { text: " small dragon." };
    });
    await api.view.receive({ type: "chat/continue", v: 1 });
    assert.match(JSON.stringify(session.messages.at(-1)), /small dragon\./);
    assert.equal(session.canContinue, false, "a finished answer has nothing to continue");
    assert.equal(server.pending(), 0);
  });

  it("a server that reports no usage: the meter shows our estimate of the context, marked as estimated", async () => {
    const { server, api } = view();
    server.usageMode = "none";
    server.push(() => ({ text: "A short story." }));
    await send("Tell me a short story");
    const meter = api.screen.currentSession.viewState.meter;
    assert.ok(meter, "a meter");
    assert.equal(meter.estimated, true, "marked as an estimate");
    assert.ok(meter.tokens > 100, `the estimate covers the system prompt and tools (${meter.tokens} tokens)`);
    assert.deepEqual([meter.chat.input, meter.chat.output], [0, 0], "no usage was made up");
  });
});
