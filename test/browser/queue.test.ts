// Follow-ups and steering in the real webview bundle: the composer stays usable while Pi writes,
// Enter queues a follow-up, Alt+Enter and the Steer button steer, the chips come from the host's
// queue events and each can be removed; after Stop the queue stays with Send now / Clear.
import * as assert from "node:assert/strict";
import type { QueuedInput } from "../../src/shared/protocol";
import { type ChatPage, useChatPage } from "./harness";
import { Script } from "./script";

function queued(id: string, kind: QueuedInput["kind"], text: string, extra: Partial<QueuedInput> = {}): QueuedInput {
  return { id, kind, text, attachments: [], imageCount: 0, ...extra };
}

describe("follow-ups and steering in the webview", function () {
  const page = useChatPage();
  let chat: ChatPage;
  beforeEach(() => {
    chat = page();
  });

  it("while Pi writes, Enter queues a follow-up and Alt+Enter (or Steer) steers; the draft is cleared each time", async () => {
    await chat.events(new Script().start().user("Go").take());
    const input = chat.page.getByRole("textbox", { name: "Message to Pi" });
    assert.equal(await input.isEditable(), true, "the composer stays usable during the run");
    const steer = chat.page.getByRole("button", { name: "Steer" });
    const follow = chat.page.getByRole("button", { name: "Queue follow-up" });
    assert.equal(await steer.isDisabled(), true, "nothing to steer with yet");
    await chat.clearPosted();

    await input.pressSequentially("then run the tests");
    await chat.page.keyboard.press("Enter");
    assert.equal(await input.inputValue(), "");
    await input.pressSequentially("use vitest, not jest");
    await chat.page.keyboard.press("Alt+Enter");
    await input.pressSequentially("and lint");
    await steer.click();
    await input.pressSequentially("last");
    await follow.click();
    assert.deepEqual(await chat.posted(), [
      { type: "queue/add", v: 1, kind: "followUp", text: "then run the tests" },
      { type: "queue/add", v: 1, kind: "steer", text: "use vitest, not jest" },
      { type: "queue/add", v: 1, kind: "steer", text: "and lint" },
      { type: "queue/add", v: 1, kind: "followUp", text: "last" },
    ]);
    assert.equal(await chat.page.getByRole("button", { name: "Send" }).count(), 0, "Send is for when Pi is idle");
  });

  it("shows one chip per queued message in the host's order; removing one posts unqueue with its id; delivered ones go", async () => {
    await chat.events(new Script().start().user("Go").take());
    await chat.events([
      {
        type: "queue/changed",
        kept: false,
        items: [
          queued("q1", "followUp", "then run the tests", { attachments: [{ path: "src/a.ts" }] }),
          queued("q2", "steer", "use vitest", { imageCount: 2 }),
        ],
      },
    ]);
    const chips = chat.page.getByRole("region", { name: "Queued messages" }).getByRole("listitem");
    assert.deepEqual(
      (await chips.allTextContents()).map((t) => t.replace(/\s+/g, " ").trim()),
      ["Follow-upthen run the tests1 file", "Steeruse vitest2 images"],
    );
    await chat.clearPosted();
    await chat.page.getByRole("button", { name: "Remove Steer: use vitest (2 images)" }).click();
    assert.deepEqual(await chat.posted(), [{ type: "queue/remove", v: 1, id: "q2" }]);
    // The host answers with the queue as it is now; a delivered message leaves it the same way.
    await chat.events([
      { type: "queue/changed", kept: false, items: [queued("q1", "followUp", "then run the tests", { attachments: [{ path: "src/a.ts" }] })] },
    ]);
    assert.equal(await chips.count(), 1);
    await chat.events([{ type: "queue/changed", kept: false, items: [] }]);
    assert.equal(await chat.page.getByRole("region", { name: "Queued messages" }).count(), 0);
  });

  it("after Stop the queue stays: it says so, and offers Send now and Clear", async () => {
    await chat.events(new Script().start().user("Go").take());
    await chat.events([{ type: "queue/changed", kept: false, items: [queued("q1", "followUp", "next"), queued("q2", "followUp", "and then")] }]);
    assert.equal(await chat.page.getByRole("button", { name: "Send now" }).count(), 0, "nothing to decide while the run goes");
    await chat.events([
      { type: "queue/changed", kept: true, items: [queued("q1", "followUp", "next"), queued("q2", "followUp", "and then")] },
      ...new Script().end().take(),
    ]);
    const region = chat.page.getByRole("region", { name: "Queued messages" });
    assert.match((await region.getByRole("status").textContent()) ?? "", /Stopped\. Your 2 queued messages were not sent\./);
    await chat.clearPosted();
    await region.getByRole("button", { name: "Send now" }).click();
    await region.getByRole("button", { name: "Clear" }).click();
    assert.deepEqual(await chat.posted(), [
      { type: "queue/sendNow", v: 1 },
      { type: "queue/clear", v: 1 },
    ]);
  });
});
