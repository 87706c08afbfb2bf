// The windowed message list over a 2,000-message chat (issue 30): scrolled end to end every
// message comes into view and the DOM stays small; the keyboard reaches every message, the
// focused one stays (the same node, still focused) while the rows around it come and go, and Tab
// from it goes on to the next message, not to whatever is drawn; no announcement on scroll.
import * as assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { stateFromTranscript } from "../../src/shared/reducer";
import { ChatPage } from "./harness";
import { assistantMessage, userMessage } from "./script";

declare global {
  interface Element {
    __marker?: string;
  }
}

const TURNS = 1000;

function transcript(turns: number): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (let i = 0; i < turns; i++) {
    messages.push(userMessage(`Question ${i}: what does f${i} do?`));
    // Answers of different heights, so estimates and measurements differ.
    const extra = i % 7 === 0 ? `\n\n\`\`\`ts\nconst v${i} = f${i}();\n// ${"long line ".repeat(20)}\n\`\`\`` : "";
    messages.push(assistantMessage([{ type: "text", text: `Answer ${i}: \`f${i}\` returns **${i * 2}**.\n\n- it is pure\n- it is fast${extra}` }]));
  }
  return messages;
}

/**
 * The most elements the document may hold at any point of the walks below: the composer, the
 * header and a viewport's worth of rows plus 1,200 px above and below (420×760 px); the walks
 * log the most they saw (507 when this bound was set: about twice that).
 */
const DOM_BOUND = 1000;

/** Elements in the document now. */
function elementCount(chat: ChatPage): Promise<number> {
  return chat.page.evaluate(() => document.getElementsByTagName("*").length);
}

/**
 * Scrolls the view by a step of `fraction` of its height until it reaches the end in that
 * direction, two frames per step; returns every message seen in view and the largest DOM.
 */
async function walk(chat: ChatPage, dir: 1 | -1, fraction = 0.9): Promise<{ seen: string[]; maxElements: number; steps: number }> {
  return chat.page.evaluate(
    async ({ dir, fraction }) => {
      const box = document.querySelector<HTMLElement>(".scroller")!;
      const frame = () => new Promise<void>((done) => requestAnimationFrame(() => done()));
      const seen = new Set<string>();
      let maxElements = 0;
      let steps = 0;
      let stuck = 0;
      for (;;) {
        const view = box.getBoundingClientRect();
        for (const el of document.querySelectorAll<HTMLElement>(".chat-content [data-item]")) {
          const r = el.getBoundingClientRect();
          if (r.bottom > view.top && r.top < view.bottom && r.height > 0) seen.add(el.dataset.item!);
        }
        maxElements = Math.max(maxElements, document.getElementsByTagName("*").length);
        const before = box.scrollTop;
        box.scrollTop += dir * box.clientHeight * fraction;
        await frame();
        await frame();
        steps++;
        // The end: the scroll position did not move for a few steps (the list may still settle).
        stuck = Math.abs(box.scrollTop - before) < 1 ? stuck + 1 : 0;
        if (stuck >= 3 || steps > 5000) break;
      }
      return { seen: [...seen], maxElements, steps };
    },
    { dir, fraction },
  );
}

describe("the windowed message list (a 2,000-message chat)", function () {
  this.timeout(240_000);
  const state = stateFromTranscript(transcript(TURNS));
  const all = Array.from({ length: 2 * TURNS }, (_, i) => `m${i}`);
  let chat: ChatPage;
  afterEach(async () => {
    await chat.assertClean();
    await chat.close();
  });

  it("scrolled end to end, every message comes into view; the DOM stays under the bound; nothing is announced", async () => {
    chat = await ChatPage.open();
    await chat.snapshot(state);
    assert.equal(await chat.page.evaluate(() => window.__piChatTest?.itemCount()), 2 * TURNS);
    await chat.page.evaluate(() => {
      const w = window as unknown as { __said: string[] };
      w.__said = [];
      const observer = new MutationObserver((records) => {
        for (const r of records) for (const n of r.addedNodes) w.__said.push(n.textContent ?? "");
      });
      for (const region of document.querySelectorAll("[data-live]")) observer.observe(region, { subtree: true, childList: true, characterData: true });
    });
    const opened = await elementCount(chat);
    assert.ok(opened < DOM_BOUND, `opened: ${opened} elements`);

    const up = await walk(chat, -1);
    assert.equal(await chat.page.locator(".scroller").evaluate((el) => el.scrollTop), 0, "reached the top");
    const missingUp = all.filter((id) => !up.seen.includes(id));
    assert.deepEqual(missingUp, [], `every message seen on the way up (${up.steps} steps)`);
    assert.ok(up.maxElements < DOM_BOUND, `at most ${up.maxElements} elements on the way up`);

    const down = await walk(chat, 1);
    const missingDown = all.filter((id) => !down.seen.includes(id));
    assert.deepEqual(missingDown, [], "and on the way down");
    assert.ok(down.maxElements < DOM_BOUND, `at most ${down.maxElements} elements on the way down`);
    console.log(`      elements: ${opened} opened, at most ${up.maxElements} scrolling up, ${down.maxElements} down (bound ${DOM_BOUND})`);
    assert.equal(await chat.page.locator('[data-item="m1999"]').isVisible(), true, "back at the newest");
    assert.equal(await chat.page.getByRole("button", { name: "Jump to latest" }).count(), 0, "following again at the bottom");
    assert.deepEqual(await chat.page.evaluate(() => (window as unknown as { __said: string[] }).__said), [], "rows coming and going say nothing");
  });

  it("the scrollbar holds still: once every row was measured, a second walk changes no height", async () => {
    chat = await ChatPage.open();
    await chat.snapshot(state);
    await walk(chat, -1, 1.5);
    await walk(chat, 1, 1.5);
    const height = await chat.page.locator(".scroller").evaluate((el) => el.scrollHeight);
    await walk(chat, -1, 1.5);
    assert.equal(await chat.page.locator(".scroller").evaluate((el) => el.scrollHeight), height);
  });

  it("by keyboard: Page Down goes through every message in order, each drawn before it takes the focus", async () => {
    chat = await ChatPage.open();
    await chat.snapshot(state);
    await chat.page.locator(".scroller").evaluate((el) => (el.scrollTop = 0));
    await chat.page.locator('[data-item="m0"]').waitFor();
    await chat.page.locator('[data-item="m0"]').evaluate((el: HTMLElement) => {
      el.tabIndex = -1;
      el.focus();
    });
    const reached: string[] = ["m0"];
    let maxElements = 0;
    for (let i = 1; i < 2 * TURNS; i++) {
      await chat.page.keyboard.press("PageDown");
      await chat.page.waitForFunction((id) => (document.activeElement as HTMLElement | null)?.dataset.item === id, `m${i}`, { polling: "raf" });
      reached.push(`m${i}`);
      if (i % 100 === 0) maxElements = Math.max(maxElements, await elementCount(chat));
    }
    assert.deepEqual(reached, all);
    assert.ok(maxElements < DOM_BOUND, `at most ${maxElements} elements`);
    assert.equal(await chat.page.locator('[data-item="m1999"]').isVisible(), true, "the last message is in view");
    // And back up with the arrow keys on the message, a few.
    for (let i = 1998; i >= 1990; i--) {
      await chat.page.keyboard.press("ArrowUp");
      await chat.page.waitForFunction((id) => (document.activeElement as HTMLElement | null)?.dataset.item === id, `m${i}`, { polling: "raf" });
    }
  });

  it("a focused message keeps its node and the focus while the view goes to the other end and back; Tab goes on from it", async () => {
    chat = await ChatPage.open();
    await chat.snapshot(state);
    await chat.page.locator(".scroller").evaluate((el) => (el.scrollTop = 0));
    await chat.page.locator('[data-item="m1"]').waitFor();
    // The Copy button of the second message (the first answer).
    const copy = chat.page.locator('[data-item="m1"]').getByRole("button", { name: "Copy answer" });
    await copy.focus();
    await copy.evaluate((el) => (el.__marker = "held"));
    const rowsAtTop = await chat.page.evaluate(() => [...document.querySelectorAll<HTMLElement>("[data-row]")].map((r) => r.dataset.row!));

    await walk(chat, 1, 1.5);
    const check = await chat.page.evaluate(() => ({
      same: (document.activeElement as Element | null)?.__marker === "held",
      connected: document.activeElement?.isConnected === true,
      rows: [...document.querySelectorAll<HTMLElement>("[data-row]")].map((r) => r.dataset.row!),
      newest: document.querySelector('[data-item="m1999"]') !== null,
    }));
    assert.equal(check.same, true, "the very button still has the focus");
    assert.equal(check.connected, true);
    assert.equal(check.newest, true, "the view is at the newest messages");
    assert.ok(check.rows.includes("m1"), "its row is still drawn");
    const stayed = rowsAtTop.filter((r) => check.rows.includes(r));
    assert.deepEqual(stayed, ["m1"], "every other row at the top went");
    assert.ok((await elementCount(chat)) < DOM_BOUND);

    // Tab from it: the next control in the chat (the same answer's Retry, then the next
    // message's), not the first control of the rows drawn at the bottom.
    const tabTo = async (key: string, back = false) => {
      await chat.page.keyboard.press(back ? "Shift+Tab" : "Tab");
      await chat.page.waitForFunction((k) => document.activeElement?.closest<HTMLElement>("[data-row]")?.dataset.row === k, key, { polling: "raf" });
    };
    await tabTo("m1");
    assert.match((await chat.page.evaluate(() => document.activeElement?.getAttribute("aria-label"))) ?? "", /^Retry/);
    await tabTo("m2");
    await tabTo("m1", true);
    // Walk the keyboard on from there: rows 2 … 6 in order, each drawn when reached.
    let last = 1;
    for (let i = 0; i < 20 && last < 6; i++) {
      await chat.page.keyboard.press("Tab");
      await chat.page.waitForFunction(
        (prev) => {
          const row = document.activeElement?.closest<HTMLElement>("[data-row]")?.dataset.row;
          return row !== undefined && Number(row.slice(1)) >= prev;
        },
        last,
        { polling: "raf" },
      );
      const row = await chat.page.evaluate(() => document.activeElement?.closest<HTMLElement>("[data-row]")?.dataset.row ?? "");
      const n = Number(row.slice(1));
      assert.ok(n === last || n === last + 1, `Tab went from m${last} to ${row}`);
      last = n;
    }
    assert.equal(last, 6);
  });
});
