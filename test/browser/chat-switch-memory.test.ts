// New Chat (or any other chat) lets go of the chat it replaces: after the switch and a GC, the
// renderer's heap holds none of the old chat's text and no DOM of its rows. Read from a real V8
// heap snapshot (CDP HeapProfiler) of the real bundle in Chromium, so any holder counts: the
// client's state, the markdown and highlight caches, component closures, a map of code blocks
// waiting for the host's word on Apply to file, listeners.
import * as assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { CDPSession } from "playwright-core";
import { restoredState } from "../../src/shared/reducer";
import { ChatPage } from "./harness";
import { assistantMessage, userMessage } from "./script";

/** In every message of the old chat, and in nothing else the page has. */
const MARK = "Qzx7OldChat";

function transcript(turns: number): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (let i = 0; i < turns; i++) {
    messages.push(userMessage(`${MARK} question ${i}: how do I start f${i}?`));
    messages.push(
      assistantMessage([
        {
          type: "text",
          text: `${MARK} answer ${i}: call it **once**.\n\n\`\`\`ts src/f${i}.ts\nexport function f${i}(port: number): string {\n  return "${MARK}-code-${i}" + port;\n}\n\`\`\`\n\n- it is pure\n- it is fast`,
        },
      ]),
    );
  }
  return messages;
}

interface HeapCensus {
  /** Strings holding the old chat's mark. */
  marked: number;
  /** Nodes the snapshot says are detached from the document (V8's `detachedness` = 2). */
  detached: number;
  /** highlight.js's compiled modes (each compiled grammar has them; class names of the development build). */
  compiledModes: number;
}

/** A V8 heap snapshot of the page after three full GCs, counted. */
async function census(cdp: CDPSession): Promise<HeapCensus> {
  for (let i = 0; i < 3; i++) await cdp.send("HeapProfiler.collectGarbage");
  const chunks: string[] = [];
  const onChunk = (e: { chunk: string }) => chunks.push(e.chunk);
  cdp.on("HeapProfiler.addHeapSnapshotChunk", onChunk);
  await cdp.send("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
  cdp.off("HeapProfiler.addHeapSnapshotChunk", onChunk);
  const snapshot = JSON.parse(chunks.join("")) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf("type");
  const nameAt = fields.indexOf("name");
  const detachedAt = fields.indexOf("detachedness");
  assert.ok(detachedAt >= 0, "this Chromium's snapshots say which nodes are detached");
  const types = snapshot.snapshot.meta.node_types[0];
  let marked = 0;
  let detached = 0;
  let compiledModes = 0;
  for (let i = 0; i < snapshot.nodes.length; i += width) {
    const type = types[snapshot.nodes[i + typeAt]!];
    if ((type === "string" || type === "concatenated string" || type === "sliced string") && snapshot.strings[snapshot.nodes[i + nameAt]!]!.includes(MARK))
      marked++;
    if (snapshot.nodes[i + detachedAt] === 2) detached++;
    if (type === "object" && snapshot.strings[snapshot.nodes[i + nameAt]!] === "ResumableMultiRegex") compiledModes++;
  }
  return { marked, detached, compiledModes };
}

describe("a chat switched away from is let go of", function () {
  this.timeout(90_000);
  let chat: ChatPage;
  afterEach(async () => {
    await chat.assertClean();
    await chat.close();
  });

  it("after New Chat and a GC, no string of the old chat and no DOM of its rows is left in the heap", async () => {
    chat = await ChatPage.open();
    const cdp = await chat.page.context().newCDPSession(chat.page);
    // What an empty view holds detached by itself (the baseline for the count below).
    await chat.snapshot(undefined, { chatId: "empty-first" });
    const before = await census(cdp);
    assert.equal(before.marked, 0, "the mark is in nothing before the old chat is shown");

    await chat.snapshot(restoredState(transcript(150)), { chatId: "old" });
    // Drawn, highlighted, and scrolled through (rows come and go, markdown is cached).
    await chat.page.locator("pre > code.md-hl").first().waitFor();
    await chat.page.locator(".scroller").evaluate(async (el) => {
      for (let i = 0; i < 12; i++) {
        el.scrollTop -= el.clientHeight * 2;
        await new Promise((r) => requestAnimationFrame(r));
      }
      el.scrollTop = el.scrollHeight;
      await new Promise((r) => requestAnimationFrame(r));
    });
    await chat.frames(3);
    // Apply to file on the last block, and the host's word on it: the block keeps its status line.
    await chat.page.locator("button.md-apply").last().click();
    const [apply] = await chat.postedOf("editor/applyCode");
    assert.ok(apply?.requestId !== undefined, "Apply to file asked the host, with a request number");
    await chat.send([{ type: "editor/codeApplied", requestId: apply.requestId, path: "src/f149.ts", state: "applied" }]);
    await chat.page.locator(".md-code-status-text", { hasText: "Applied to src/f149.ts" }).waitFor();
    const shown = await census(cdp);
    assert.ok(shown.marked > 0, `the census sees the old chat while it is shown (${shown.marked} strings)`);

    // New Chat: the host sends an empty chat's snapshot under a new id.
    await chat.snapshot(undefined, { chatId: "new" });
    await chat.page.locator(".empty-title").waitFor();
    // Not the view's: this page's record of what it posted (the Apply request carries the block's
    // code), and V8's RegExp statics (RegExp.lastMatch: the subject of the last regex run, one
    // string whichever ran last), reset by running one.
    await chat.clearPosted();
    await chat.page.evaluate(() => /x/.exec("x"));
    const after = await census(cdp);
    assert.equal(after.marked, 0, `strings of the old chat still held after New Chat (${after.marked})`);
    assert.ok(after.detached <= before.detached, `detached DOM nodes after New Chat: ${after.detached}, an empty view has ${before.detached}`);
    await cdp.detach();
  });

  it("the highlighter's compiled grammars go with the chat, and the next chat's blocks are still never drawn plain", async () => {
    chat = await ChatPage.open();
    const cdp = await chat.page.context().newCDPSession(chat.page);
    await chat.snapshot(restoredState(transcript(20)), { chatId: "old" });
    await chat.page.locator("pre > code.md-hl").first().waitFor();
    const shown = await census(cdp);
    assert.ok(shown.compiledModes > 0, `the census sees the compiled TypeScript grammar (${shown.compiledModes} modes)`);

    await chat.snapshot(undefined, { chatId: "new" });
    const after = await census(cdp);
    assert.equal(after.compiledModes, 0, "compiled grammars after New Chat");

    // Every frame from here on: a finished block with a language must never be painted plain.
    await chat.page.evaluate(() => {
      const w = window as unknown as { __plainFrames: number };
      w.__plainFrames = 0;
      const check = () => {
        const plain = [...document.querySelectorAll('pre > code[class*="language-"]:not(.md-hl)')].filter((c) => !c.closest(".md-open"));
        if (plain.length > 0) w.__plainFrames++;
        requestAnimationFrame(check);
      };
      requestAnimationFrame(check);
    });
    await chat.snapshot(restoredState(transcript(3)), { chatId: "next" });
    await chat.page.locator("pre > code.md-hl").first().waitFor();
    await chat.frames(3);
    assert.equal(await chat.page.locator("pre > code:not(.md-hl)").count(), 0, "every block of the next chat is highlighted");
    assert.equal(await chat.page.evaluate(() => (window as unknown as { __plainFrames: number }).__plainFrames), 0, "frames that showed a block plain");
    const again = await census(cdp);
    assert.ok(again.compiledModes > 0, "compiled again for the next chat");
    await cdp.detach();
  });
});
