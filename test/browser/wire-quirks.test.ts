// The cards for what local servers send on the wire, in the real webview bundle: an error chunk
// mid-stream ends as an error card with the server's words and Retry on the card (keyboard, spoken),
// the composer still usable; an answer cut at the token limit says so and offers Continue while it
// is the last turn; a meter without any reported usage says it is an estimate.
import * as assert from "node:assert/strict";
import type { ContextMeter } from "../../src/shared/context-meter";
import { useChatPage } from "./harness";
import { heard, listen } from "./live-heard";
import { Script } from "./script";

const PARSE_ERROR = "Failed to parse input at pos 17: <tool_call>{not json";

describe("local server quirks in the webview", function () {
  const page = useChatPage();

  it("an error mid-stream: the error card shows what the server said and Retry, reached and pressed by keyboard, announced; the composer stays usable", async () => {
    const chat = page();
    await listen(chat);
    const script = new Script()
      .start()
      .user("Tell me a story")
      .assistant([{ type: "text", text: "Once upon a time" }], { extra: { stopReason: "error", errorMessage: PARSE_ERROR } })
      .message({ role: "localNotice", level: "error", text: `${PARSE_ERROR} (model openai-compatible/local-model)`, fixCommand: "retry", timestamp: 3 })
      .end();
    for (const event of script.take()) await chat.events([event]);
    const card = chat.page.getByRole("note", { name: "Error" });
    assert.match((await card.textContent()) ?? "", /Failed to parse input at pos 17/);
    const retry = card.getByRole("button", { name: "Retry" });
    assert.equal(await retry.count(), 1, "Retry is on the error card");
    assert.match((await heard(chat)).join("\n"), /assertive: Failed to parse input.*Retry is on the card\./);
    // Tab from the card's text reaches Retry; Enter presses it.
    await chat.clearPosted();
    await retry.focus();
    assert.equal(await retry.evaluate((b) => b === document.activeElement && b.tabIndex >= 0), true);
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.posted(), [{ type: "chat/continue", v: 1 }]);
    // The chat stays usable: a new prompt can be typed and sent.
    const box = chat.page.getByRole("textbox", { name: "Message to Pi" });
    assert.equal(await box.isEditable(), true, "the composer takes a new prompt");
  });

  it("an answer cut at the token limit: said on the card, not a finished answer; Continue by keyboard while it is the last turn, announced", async () => {
    const chat = page();
    await listen(chat);
    const script = new Script()
      .start()
      .user("Tell me a long story")
      .assistant([{ type: "text", text: "Once upon a time there was a" }], { extra: { stopReason: "length" } })
      .end();
    for (const event of script.take()) await chat.events([event]);
    const answer = chat.page.locator(".item.assistant");
    assert.match((await answer.textContent()) ?? "", /Cut off at the token limit: this answer is not finished\./);
    const proceed = answer.getByRole("button", { name: "Continue this answer" });
    assert.equal(await proceed.count(), 1, "Continue is on the answer's card");
    assert.equal(await proceed.getAttribute("aria-describedby"), `cut-${await answer.getAttribute("data-item")}`);
    assert.equal(await chat.page.getByRole("region", { name: "Interrupted turn" }).count(), 0, "not the interrupted-turn bar");
    assert.match((await heard(chat)).join("\n"), /polite: Pi answered: .*cut off at the token limit, Continue is on the answer\)/);
    await chat.clearPosted();
    await proceed.focus();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.posted(), [{ type: "chat/continue", v: 1 }]);
    // Once the chat has gone on (the continued answer below it), the old card keeps its note but no button.
    const more = new Script()
      .start()
      .message({ role: "answerContinued", reason: "length", timestamp: 5 })
      .assistant([{ type: "text", text: " small dragon." }])
      .end();
    for (const event of more.take()) await chat.events([event]);
    assert.equal(await chat.page.getByRole("button", { name: "Continue this answer" }).count(), 0, "no Continue once the chat went on");
    assert.match((await chat.page.locator(".notice-info").last().textContent()) ?? "", /Continued the answer that was cut at the token limit\./);
  });

  it("a meter without reported usage says it is an estimate, in its label and its accessible name", async () => {
    const chat = page();
    const script = new Script()
      .start()
      .user("hi")
      .assistant([{ type: "text", text: "hello" }])
      .end();
    for (const event of script.take()) await chat.events([event]);
    const meter: ContextMeter = {
      tokens: 2_310,
      estimated: true,
      window: 4_096,
      chat: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 },
      priced: false,
    };
    await chat.events([{ type: "context/meter", meter }]);
    const button = chat.page.getByTestId("context-meter");
    assert.equal(await button.locator(".meter-label").textContent(), "~2.3k / 4.1k");
    assert.match((await button.getAttribute("aria-label")) ?? "", /^~2\.3k \/ 4\.1k: Context estimated at about 2,310 tokens of 4,096/);
  });
});
