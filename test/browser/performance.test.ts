// A long chat: a snapshot of 2,000 items renders (opened at the bottom, only the rows near the
// view in the DOM), and a streamed delta then touches only the streaming card: settled items keep
// their very DOM nodes and see no mutation at all.
import * as assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { stateFromTranscript } from "../../src/shared/reducer";
import { ChatPage } from "./harness";
import { assistantMessage, Script, userMessage } from "./script";

declare global {
  interface Element {
    __marker?: string;
  }
}

function transcript(turns: number): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (let i = 0; i < turns; i++) {
    messages.push(userMessage(`Question ${i}: what does function f${i} do?`));
    messages.push(
      assistantMessage([
        { type: "text", text: `Answer ${i}: \`f${i}\` returns **${i * 2}**.\n\n- it is pure\n- it is fast\n\n\`\`\`ts\nf${i}() === ${i * 2}\n\`\`\`` },
      ]),
    );
  }
  return messages;
}

describe("long chats", function () {
  this.timeout(60_000);
  let chat: ChatPage;
  afterEach(async () => {
    await chat.assertClean();
    await chat.close();
  });

  it("renders a 2,000-item snapshot, then a delta changes only the streaming card", async () => {
    chat = await ChatPage.open();
    const state = stateFromTranscript(transcript(1000));
    await chat.snapshot(state);
    assert.equal(await chat.page.evaluate(() => window.__piChatTest?.itemCount()), 2000);
    // Opened at the bottom: the last rows are drawn, the rows far above are blank space until scrolled near.
    assert.equal(await chat.page.locator('[data-item="m1999"]').isVisible(), true, "the last answer is in view");
    const rows = await chat.page.locator("[data-row]").count();
    assert.ok(rows > 0 && rows <= 60, `only the rows near the view are drawn (${rows} of 2,000)`);
    assert.equal(await chat.page.locator('[data-item="m0"]').count(), 0, "far rows wait");

    // Scrolled to the top, the first row is drawn; "Jump to latest" brings the view back.
    await chat.page.locator(".scroller").evaluate((el) => (el.scrollTop = 0));
    await chat.page.locator('[data-item="m0"]').waitFor();
    await chat.page.getByRole("button", { name: "Jump to latest" }).click();
    await chat.frames(2);
    assert.equal(await chat.page.getByRole("button", { name: "Jump to latest" }).count(), 0);
    assert.equal(await chat.page.locator('[data-item="m1999"]').isVisible(), true);

    const script = new Script().start().user("One more question");
    script.assistant([{ type: "text", text: "Streaming " + "word ".repeat(400) }], { chunk: 10, open: true });
    const events = script.take();
    const firstDelta = events.findIndex((e) => e.type === "message/delta");
    await chat.events(events.slice(0, firstDelta + 1));

    // Mark settled nodes (drawn rows near the bottom, the just-settled user message) and watch for mutations.
    const markedIds = ["m1990", "m1991", "m1995", "m1998", "m1999", "m2000"];
    await chat.page.evaluate((ids) => {
      for (const id of ids) {
        const el = document.querySelector(`[data-item="${id}"]`);
        if (!el) throw new Error(`no item ${id}`);
        el.__marker = id;
      }
      const streaming = document.querySelector(".assistant.streaming");
      const outside: string[] = [];
      (window as unknown as { __outside: string[] }).__outside = outside;
      new MutationObserver((records) => {
        for (const r of records) {
          const target = r.target instanceof Element ? r.target : r.target.parentElement;
          if (streaming && (streaming === target || streaming.contains(target))) continue;
          if (target?.closest(".composer, [aria-live]")) continue;
          outside.push(`${r.type} ${target?.className ?? "?"}`);
        }
      }).observe(document.querySelector(".chat-content")!, { subtree: true, childList: true, characterData: true, attributes: true });
    }, markedIds);

    const streamingId = await chat.page.locator(".assistant.streaming").getAttribute("data-item");
    const rest = events.slice(firstDelta + 1);
    for (let i = 0; i < 20; i++) await chat.events(rest.slice(i, i + 1));
    await chat.frames(2);

    const check = await chat.page.evaluate(
      ({ ids, streamingId }) => ({
        same: ids.map((id) => document.querySelector(`[data-item="${id}"]`)?.__marker === id),
        outside: (window as unknown as { __outside: string[] }).__outside,
        streamingText: document.querySelector(`[data-item="${streamingId}"] .md`)?.textContent ?? "",
        cards: document.querySelectorAll(".assistant.streaming").length,
      }),
      { ids: markedIds, streamingId },
    );
    assert.deepEqual(
      check.same,
      markedIds.map(() => true),
      "settled items keep their DOM nodes",
    );
    assert.deepEqual(check.outside, [], "no mutation outside the streaming card");
    assert.equal(check.cards, 1);
    assert.ok(check.streamingText.startsWith("Streaming word word"), check.streamingText.slice(0, 40));
    assert.equal(await chat.page.evaluate(() => window.__piChatTest?.itemCount()), 2002);

    // What a delta costs at 2,000 items against 10 is a benchmark (npm run bench, P4), not a test:
    // the structure above (settled nodes untouched, one streaming card) is what keeps it flat.
  });
});
