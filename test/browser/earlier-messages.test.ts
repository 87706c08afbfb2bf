// A restored long chat shows its newest messages; the earlier ones are asked for when the view is
// scrolled near them (or with the button, by keyboard), and arrive above without moving what the
// user is reading.
import * as assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { earlierItems, restoredState } from "../../src/shared/reducer";
import { ChatPage } from "./harness";
import { assistantMessage, userMessage } from "./script";

function transcript(turns: number): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (let i = 0; i < turns; i++) {
    messages.push(userMessage(`Question ${i}: what does f${i} do?`));
    messages.push(assistantMessage([{ type: "text", text: `Answer ${i}: \`f${i}\` returns **${i * 2}**.\n\n- it is pure\n- it is fast` }]));
  }
  return messages;
}

/** The top of an item relative to the scroller's visible top (px). */
async function topInView(chat: ChatPage, id: string): Promise<number> {
  return chat.page.evaluate((itemId) => {
    const item = document.querySelector(`[data-item="${itemId}"]`)!;
    return item.getBoundingClientRect().top - document.querySelector(".scroller")!.getBoundingClientRect().top;
  }, id);
}

describe("a restored long chat: earlier messages on request", function () {
  this.timeout(60_000);
  const messages = transcript(1000);
  const state = restoredState(messages);
  const count = state.earlier ?? 0;
  let chat: ChatPage;
  afterEach(async () => {
    await chat.assertClean();
    await chat.close();
  });

  it("asks for them when scrolled near the top, and they come above what was on screen, which stays put", async () => {
    assert.ok(count > 1000, "most of the chat is left for later");
    chat = await ChatPage.open();
    await chat.snapshot(state);
    const button = chat.page.getByRole("button", { name: `Show ${count.toLocaleString("en-US")} earlier messages` });
    const buttonBottom = await button.evaluate((el) => el.getBoundingClientRect().bottom - document.querySelector(".scroller")!.getBoundingClientRect().top);
    assert.ok(buttonBottom < -5000, `the view opens at the bottom, far from it (${buttonBottom} px)`);
    assert.equal((await chat.postedOf("chat/loadEarlier")).length, 0, "nothing asked while at the bottom");
    assert.equal(await chat.page.evaluate(() => window.__piChatTest?.itemCount()), 2000 - count);

    // Scrolled up to the first restored message: the view asks once.
    const first = `m${count}`;
    await chat.page.locator(".scroller").evaluate((el) => (el.scrollTop = 0));
    await chat.page.locator(`[data-item="${first}"]`).waitFor();
    await chat.page.waitForFunction(() => window.__posted.some((m) => (m as { type?: string }).type === "chat/loadEarlier"));
    await chat.frames(4);
    assert.equal((await chat.postedOf("chat/loadEarlier")).length, 1, "asked once");
    await chat.page.getByRole("button", { name: /^Loading .* earlier messages…$/ }).waitFor();
    // Reading the first restored message, a little down from the top.
    await chat.page.locator(".scroller").evaluate((el, id) => {
      const item = el.querySelector(`[data-item="${id}"]`)!;
      el.scrollTop += item.getBoundingClientRect().top - el.getBoundingClientRect().top - 120;
    }, first);
    await chat.frames(4);
    const before = await topInView(chat, first);
    await chat.frames(4);
    assert.equal(await topInView(chat, first), before, "settled before the answer");

    await chat.events([{ type: "items/earlier", count, items: earlierItems(messages, count) }]);
    await chat.frames(4);
    assert.equal(await chat.page.evaluate(() => window.__piChatTest?.itemCount()), 2000, "the whole chat");
    assert.equal(await chat.page.getByRole("button", { name: /earlier messages/ }).count(), 0, "the button is gone");
    assert.ok(Math.abs((await topInView(chat, first)) - before) <= 2, `the message read stays in place (${before} → ${await topInView(chat, first)})`);
    // And once the chunks above it were drawn and their sizes settled: the scroll height and the
    // number of chunks still to draw hold still for 10 frames in a row.
    await chat.page.waitForFunction(
      () => {
        const scroller = document.querySelector(".scroller")!;
        const layout = `${scroller.scrollHeight}/${document.querySelectorAll(".chunk-pending").length}`;
        const w = window as unknown as { __layout?: string; __stillFrames?: number };
        w.__stillFrames = layout === w.__layout ? (w.__stillFrames ?? 0) + 1 : 0;
        w.__layout = layout;
        return w.__stillFrames >= 10;
      },
      undefined,
      { polling: "raf" },
    );
    assert.ok(Math.abs((await topInView(chat, first)) - before) <= 2, `and stays (${before} → ${await topInView(chat, first)})`);
    assert.equal(await chat.page.getByRole("button", { name: "Jump to latest" }).isVisible(), true, "still away from the bottom");

    // The earliest message is there to scroll to.
    await chat.page.locator(".scroller").evaluate((el) => (el.scrollTop = 0));
    await chat.page.locator('[data-item="m0"]').waitFor();
    assert.match((await chat.page.locator('[data-item="m0"]').textContent()) ?? "", /Question 0/);
  });

  it("by keyboard: the button asks, then the first message it was above takes the focus, and it is announced", async () => {
    chat = await ChatPage.open();
    await chat.snapshot(state);
    const button = chat.page.getByRole("button", { name: `Show ${count.toLocaleString("en-US")} earlier messages` });
    await button.focus();
    await chat.page.keyboard.press("Enter");
    await chat.page.waitForFunction(() => window.__posted.some((m) => (m as { type?: string }).type === "chat/loadEarlier"));
    await chat.events([{ type: "items/earlier", count, items: earlierItems(messages, count) }]);
    assert.equal(await chat.page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.item), `m${count}`);
    const polite = await chat.page.locator('[data-live="polite"]').textContent();
    assert.match(polite ?? "", new RegExp(`Showing ${count.toLocaleString("en-US")} earlier messages`));
  });

  it("back at the newest, the view lets go of them and asks for them again (by count) when scrolled near", async () => {
    chat = await ChatPage.open();
    await chat.snapshot(state);
    await chat.page.getByRole("button", { name: /^Show .* earlier messages$/ }).click();
    await chat.events([{ type: "items/earlier", count, items: earlierItems(messages, count) }]);
    assert.equal(await chat.page.evaluate(() => window.__piChatTest?.itemCount()), 2000);
    // Back to the newest: the earlier items go, the button is back.
    await chat.page.getByRole("button", { name: "Jump to latest" }).click();
    await chat.page.locator(".scroller").evaluate((el) => el.dispatchEvent(new Event("scroll")));
    await chat.page.waitForFunction((n) => window.__piChatTest?.itemCount() === n, 2000 - count);
    await chat.page.getByRole("button", { name: `Show ${count.toLocaleString("en-US")} earlier messages` }).waitFor({ state: "attached" });
    // Scrolled up again: asked for with their count, and they come back.
    await chat.clearPosted();
    await chat.page.locator(".scroller").evaluate((el) => (el.scrollTop = 0));
    await chat.page.waitForFunction(() => window.__posted.some((m) => (m as { type?: string }).type === "chat/loadEarlier"));
    assert.deepEqual(
      (await chat.postedOf("chat/loadEarlier")).map((m) => m.count),
      [count],
    );
    await chat.events([{ type: "items/earlier", count, items: earlierItems(messages, count) }]);
    assert.equal(await chat.page.evaluate(() => window.__piChatTest?.itemCount()), 2000);
    await chat.page.locator(".scroller").evaluate((el) => (el.scrollTop = 0));
    await chat.page.locator('[data-item="m0"]').waitFor();
  });

  it("an answer for another count (the path changed since) is ignored, and the view can ask again", async () => {
    chat = await ChatPage.open();
    await chat.snapshot(state);
    await chat.page.getByRole("button", { name: /^Show .* earlier messages$/ }).click();
    await chat.events([{ type: "items/earlier", count: count - 2, items: earlierItems(messages, count - 2) }]);
    assert.equal(await chat.page.evaluate(() => window.__piChatTest?.itemCount()), 2000 - count, "nothing was put first");
    // The path was cut below the restored part: fewer earlier messages, and (nothing else left
    // to show, so in view) a new ask at once.
    await chat.clearPosted();
    await chat.events([{ type: "branch/rewind", keep: 10 }]);
    await chat.page.getByRole("button", { name: "Loading 10 earlier messages…" }).waitFor();
    assert.equal(await chat.page.getByText("Ask Pi about your code").count(), 0, "not an empty chat");
    assert.equal((await chat.postedOf("chat/loadEarlier")).length, 1);
    await chat.events([{ type: "items/earlier", count: 10, items: earlierItems(messages.slice(0, 10), 10) }]);
    assert.equal(await chat.page.evaluate(() => window.__piChatTest?.itemCount()), 10);
  });
});
