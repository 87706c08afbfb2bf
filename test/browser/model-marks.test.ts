// Every item in the real webview bundle is marked by what the model receives of it: its group is
// named by it ("Pi gets this as shown", "Not sent to Pi: …", "Pi gets this as the approved plan's
// text"), a quiet mark says it for every kind but the common one, and that one shows on focus.
import * as assert from "node:assert/strict";
import { useChatPage } from "./harness";
import { Script, stateOf } from "./script";

describe("model marks in the webview: what the model receives of each item", function () {
  const page = useChatPage();

  it("each item's group is named by what the model gets of it; the mark shows it quietly, the common case on keyboard focus", async () => {
    const chat = page();
    await chat.events(
      new Script()
        .start()
        .user("Read the config")
        .assistant([{ type: "text", text: "The port is 3000." }])
        .message({ role: "localNotice", level: "info", text: "Retrying after the error.", timestamp: 3 })
        .message({
          role: "bashExecution",
          command: "git log",
          output: "abc",
          exitCode: 0,
          cancelled: false,
          truncated: false,
          excludeFromContext: true,
          timestamp: 4,
        })
        .message({ role: "modeChanged", mode: "plan", timestamp: 5 })
        .message({ role: "planApproved", toolCallId: "call_plan", plan: "## Goal\nFix it.", edited: true, timestamp: 6 })
        .assistant([{ type: "text", text: "Stopped half" }], { extra: { stopReason: "aborted" } })
        .end()
        .take(),
    );
    const group = (name: string) => chat.page.getByRole("group", { name, exact: true });
    assert.equal(await group("Pi gets this as shown").count(), 2, "the prompt and the answer");
    assert.equal(await group("Not sent to Pi: a notice is shown only to you").count(), 1);
    assert.equal(await group("Not sent to Pi: a !! command is kept from Pi").count(), 1);
    assert.equal(await group("Pi gets this as a sentence saying what the mode allows").count(), 1);
    assert.equal(await group("Pi gets this as the approved plan's text").count(), 1);
    assert.equal(await group("Not sent to Pi: a failed or stopped answer is not sent back").count(), 1);

    // The quiet words under the marked items; none under the ones sent as shown.
    const words = await chat.page.locator(".model-mark-text").allTextContents();
    assert.deepEqual(words, ["not sent to Pi", "not sent to Pi", "sent to Pi in another form", "sent to Pi in another form", "not sent to Pi"]);
    assert.equal(await chat.page.getByText("not sent to Pi", { exact: true }).first().getAttribute("aria-hidden"), null);
    assert.equal(await chat.page.locator(".model-mark").first().getAttribute("aria-hidden"), "true", "the group's name says it once");

    // The common case's mark shows only while its item has the focus (keyboard) or the pointer.
    const prompt = group("Pi gets this as shown").first();
    const mark = prompt.locator(":scope > .model-mark");
    assert.equal(await mark.isVisible(), false, "quiet until asked");
    const copy = prompt.getByRole("button").first();
    await copy.focus();
    assert.equal(await mark.isVisible(), true, "shown while the item has the keyboard focus");
    assert.equal(await mark.getAttribute("title"), "Pi gets this as shown");
  });

  it("Show Model Context's link: the host's view/focus on an item draws its row if it is far off, and gives it the keyboard focus", async () => {
    const chat = page();
    const script = new Script();
    for (let turn = 0; turn < 150; turn++) script.user(`Question ${turn}`).assistant([{ type: "text", text: `Answer ${turn}.\n\n${"Words. ".repeat(40)}` }]);
    await chat.snapshot(stateOf(script.take()), { chatId: "long", title: "Long" });
    assert.equal(await chat.page.locator('[data-item="m1"]').count(), 0, "the first turn is far off, not drawn");
    const focused = () => chat.page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.item);
    await chat.send([{ type: "view/focus", target: "item", itemId: "m1" }]);
    await chat.page.waitForFunction(() => (document.activeElement as HTMLElement | null)?.dataset.item === "m1");
    assert.match((await chat.page.locator('[data-item="m1"]').textContent()) ?? "", /Answer 0\./);
    assert.equal(await chat.page.locator('[data-item="m1"]').isVisible(), true);
    // The next ask, another item; a chat item that is not there is said, the focus stays.
    await chat.send([{ type: "view/focus", target: "item", itemId: "m299" }]);
    await chat.page.waitForFunction(() => (document.activeElement as HTMLElement | null)?.dataset.item === "m299");
    await chat.send([{ type: "view/focus", target: "item", itemId: "m9999" }]);
    assert.equal(await focused(), "m299");
  });
});
