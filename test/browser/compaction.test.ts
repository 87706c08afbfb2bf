// The compaction summary item ("Compacting…" with Stop, then the figures, expandable to the
// summary and the file lists), the summarized items marked above it, and the context meter in
// the header (warning colour, details, Compact now / Show model context).
import * as assert from "node:assert/strict";
import type { CompactionSummaryMessage } from "../../src/core/messages";
import type { ContextMeter } from "../../src/shared/context-meter";
import { ChatPage, useChatPage } from "./harness";
import { Script } from "./script";

const summaryMessage: CompactionSummaryMessage = {
  role: "compactionSummary",
  summary: "## Goal\nMove the dev server to **port 8080**.\n\n## Critical Facts\n- the function is called `launchDevServer`",
  keptMessageCount: 2,
  summarizedMessageCount: 36,
  tokensBefore: 48_210,
  tokensAfter: 2_130,
  readFiles: ["src/config.ts"],
  modifiedFiles: ["src/server.ts"],
  trigger: "threshold",
  timestamp: 10,
};

describe("compaction and the context meter", function () {
  const page = useChatPage();
  let chat: ChatPage;
  beforeEach(() => {
    chat = page();
  });

  it("shows Compacting… with Stop, then the summary item; earlier items are marked summarized, kept ones are not", async () => {
    const script = new Script()
      .start()
      .user("First question, long ago")
      .assistant([{ type: "text", text: "First answer" }])
      .user("Second question")
      .assistant([{ type: "text", text: "Second answer" }])
      .raw({ type: "compaction/start", trigger: "threshold" });
    await chat.events(script.take());

    const running = chat.page.locator(".summary-running");
    assert.match(await running.innerText(), /Compacting…/);
    await chat.clearPosted();
    await running.getByRole("button", { name: "Stop" }).click();
    assert.deepEqual(await chat.posted(), [{ type: "chat/stop", v: 1 }]);

    await chat.events(script.raw({ type: "compaction/end", status: "done" }).message(summaryMessage).end().take());
    assert.equal(await chat.page.locator(".summary-running").count(), 0, "the running item is replaced");
    const item = chat.page.locator(".summary").first();
    assert.match(await item.innerText(), /Compacted 48,210 → 2,130 tokens · 36 messages/);
    assert.equal(await item.locator("details").getAttribute("open"), null, "collapsed until opened");
    assert.equal(await item.locator(".md").isVisible(), false);
    await item.locator("summary").click();
    assert.equal(await item.locator(".md strong").innerText(), "port 8080", "the summary is rendered as markdown");
    assert.match(await item.locator(".summary-files").first().innerText(), /Files read\s+src\/config\.ts/);
    assert.match(await item.locator(".summary-files").nth(1).innerText(), /Files modified\s+src\/server\.ts/);

    // Messages m0..m1 are summarized (the summary keeps the two messages before it: m2, m3).
    const marked = await chat.page.locator("[data-summarized] [data-item]").evaluateAll((els) => els.map((e) => e.getAttribute("data-item")));
    assert.deepEqual(marked, ["m0", "m1"]);
    assert.equal(await chat.page.locator('[data-item="m2"]').count(), 1);
    assert.equal(await chat.page.locator('[data-summarized] [data-item="m2"]').count(), 0);
  });

  it("a cancelled compaction removes the Compacting… item and adds nothing", async () => {
    await chat.events(new Script().start().user("q").raw({ type: "compaction/start", trigger: "manual" }).take());
    assert.equal(await chat.page.locator(".summary-running").count(), 1);
    await chat.events(new Script().raw({ type: "compaction/end", status: "cancelled" }).end().take());
    assert.equal(await chat.page.locator(".summary").count(), 0);
    assert.equal(await chat.page.locator("[data-summarized]").count(), 0);
  });

  it("a window nobody said is shown as unknown, in the label and the accessible name, with the setting that sets it", async () => {
    const meter: ContextMeter = {
      tokens: 2_321,
      estimated: true,
      windowUnknown: true,
      chat: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 },
      priced: false,
    };
    // A server without usage: the meter shows once an answer came.
    await chat.events(
      new Script()
        .start()
        .user("Hello")
        .assistant([{ type: "text", text: "Hi." }])
        .end()
        .take(),
    );
    await chat.events([{ type: "context/meter", meter }]);
    const button = chat.page.getByTestId("context-meter");
    assert.equal(await button.innerText(), "~2.3k / window unknown");
    const name = (await button.getAttribute("aria-label")) ?? "";
    assert.ok(name.startsWith("~2.3k / window unknown"), name);
    assert.match(name, /the model's context window is unknown/);
    assert.doesNotMatch(name, /%|of \d/, "no share of a made-up total");
    assert.equal(await button.locator(".meter-bar").count(), 0, "no fill bar without a window");
    await button.click();
    const details = chat.page.getByRole("dialog", { name: "Context and usage" });
    assert.match(await details.getByTestId("meter-window-unknown").innerText(), /did not say its context window.*piChat\.contextWindow/s);
  });

  it("lean mode shows quietly on the meter, in its accessible name too; MCP tools only listed are counted apart", async () => {
    // The meter shows once a request reached the model (usage counted).
    const usage = { input: 400, output: 20, cacheRead: 0, cacheWrite: 0, cost: 0 };
    const fixed = { instructions: 160, tools: 236, toolCount: 5, mcpTools: 0, mcpToolCount: 0, mcpListedCount: 44 };
    await chat.events([{ type: "context/meter", meter: { tokens: 420, estimated: true, window: 8_192, priced: false, chat: usage, lean: true, fixed } }]);
    const button = chat.page.getByTestId("context-meter");
    assert.match(await button.innerText(), /^~420 \/ 8\.2k\s+lean$/);
    const name = (await button.getAttribute("aria-label")) ?? "";
    assert.match(name, /^~420 \/ 8\.2k lean: .*lean mode on/);
    await button.click();
    const details = chat.page.getByRole("dialog", { name: "Context and usage" });
    assert.match(await details.getByTestId("meter-fixed").innerText(), /44 more MCP tools only listed by name \(loaded on demand\)/);
    await chat.page.keyboard.press("Escape");
    await chat.events([{ type: "context/meter", meter: { tokens: 420, estimated: true, window: 200_000, priced: false, chat: usage } }]);
    await chat.page.getByTestId("meter-lean").waitFor({ state: "detached", timeout: 5_000 });
    assert.equal(await chat.page.getByTestId("meter-lean").count(), 0, "not lean: not said");
  });

  it("the meter shows used / window, turns to the warning colour from 80 %, and opens its details", async () => {
    const meter: ContextMeter = {
      tokens: 41_210,
      estimated: false,
      window: 200_000,
      threshold: 183_616,
      lastTurn: { input: 40_000, output: 1_210, cacheRead: 0, cacheWrite: 0, cost: 0.1382 },
      chat: { input: 90_000, output: 3_000, cacheRead: 12_000, cacheWrite: 4_000, cost: 0.4 },
      priced: true,
      reduced: { kind: "compacted", tokensBefore: 48_210, tokensAfter: 2_130, messages: 36 },
    };
    await chat.events([{ type: "context/meter", meter }]);
    const button = chat.page.getByTestId("context-meter");
    assert.equal(await button.innerText(), "41.2k / 200k");
    assert.doesNotMatch((await button.getAttribute("class")) ?? "", /meter-warn/);

    await chat.events([{ type: "context/meter", meter: { ...meter, tokens: 170_000 } }]);
    assert.match((await button.getAttribute("class")) ?? "", /meter-warn/);
    const [warn, normal] = await Promise.all([
      button.evaluate((el) => getComputedStyle(el).color),
      chat.page.locator(".model-button").evaluate((el) => getComputedStyle(el).color),
    ]);
    assert.notEqual(warn, normal, "the warning colour differs");

    await button.click();
    const details = chat.page.getByRole("dialog", { name: "Context and usage" });
    assert.match(await details.innerText(), /Cost\s+\$0\.14\s+\$0\.40/);
    assert.match(await details.getByTestId("meter-reduced").innerText(), /36 earlier messages are summarized/);
    // When it compacts, in the settings' terms.
    assert.match(await details.innerText(), /Compacts above 183,616 tokens: the window less what piChat\.compaction\.reserveTokens keeps/);
    await chat.clearPosted();
    await details.getByRole("button", { name: "Show model context" }).click();
    assert.deepEqual(await chat.posted(), [{ type: "workbench/runCommand", v: 1, command: "showModelContext" }]);
    await button.click();
    // The panel takes the focus once it is drawn (next animation frame); Escape is meant for it.
    await chat.page.waitForFunction(() => document.querySelector('[role="dialog"]')?.contains(document.activeElement) === true);
    await chat.page.keyboard.press("Escape");
    // The view renders on the next animation frame: wait for that, then check.
    await details.waitFor({ state: "detached", timeout: 5_000 }).catch(() => undefined);
    assert.equal(await details.count(), 0, "Escape closes it");
    assert.equal(await chat.page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "context-meter", "and gives the focus back");

    // A model without prices: no cost row, and it says why.
    await chat.events([{ type: "context/meter", meter: { ...meter, priced: false } }]);
    await button.click();
    assert.doesNotMatch(await details.innerText(), /Cost/);
    assert.match(await details.innerText(), /No prices are known/);
  });

  it("in a default-width sidebar the model button shows the model's name whole, and says where it runs", async () => {
    const narrow = await ChatPage.open({ width: 300, height: 500 });
    try {
      const detail = "Local server (OpenAI-compatible) at http://localhost:11434/v1 · local-model";
      await narrow.snapshot(undefined, { title: "Default port of the dev server", status: { modelLabel: "local-model", modelDetail: detail } });
      await narrow.send([
        {
          type: "chat/event",
          event: {
            type: "context/meter",
            meter: { tokens: 309, estimated: false, window: 32_768, priced: false, chat: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: 0 } },
          },
        },
      ]);
      const label = narrow.page.locator(".model-label");
      // Beside the title and the meter the model's name is whole; the title gives way.
      assert.equal(await label.evaluate((el) => (el as HTMLElement).innerText), "local-model");
      assert.equal(await label.evaluate((el) => el.scrollWidth > el.clientWidth), false);
      assert.equal(
        await narrow.page.locator(".model-button").getAttribute("aria-label"),
        `Model: local-model (${detail}). Change this chat's model`,
        "where it runs is said to a screen reader",
      );
      assert.match(
        (await narrow.page.locator(".model-button").getAttribute("title")) ?? "",
        /^local-model \(Local server .*\): this chat's model/,
        "and in the tooltip",
      );
    } finally {
      await narrow.close();
    }
  });

  it("in a narrow sidebar the title keeps a few words, and the meter's details drop down from the header", async () => {
    const narrow = await ChatPage.open({ width: 260, height: 500 });
    try {
      await narrow.snapshot(undefined, {
        title: "Move the dev server to port 8080 and keep 3000",
        status: { modelLabel: "openai-compatible/qwen2.5-coder-32b-instruct" },
      });
      await narrow.send([
        {
          type: "chat/event",
          event: {
            type: "context/meter",
            meter: { tokens: 164_300, estimated: false, window: 200_000, priced: false, chat: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: 0 } },
          },
        },
      ]);
      const title = await narrow.page.locator(".header-title").boundingBox();
      assert.ok(title && title.width >= 60, `the title is ${title?.width} px wide`);
      // The model's name gives way (ellipsis) rather than push the header past the sidebar's edge.
      const button = await narrow.page.locator(".model-button").boundingBox();
      assert.ok(button && button.x + button.width <= 260, `the model button ends at ${button && button.x + button.width} px, inside 260`);
      const overflow = await narrow.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(overflow, 0, "the view does not scroll sideways");
      const header = await narrow.page.locator(".header").boundingBox();
      await narrow.page.getByTestId("context-meter").click();
      const details = narrow.page.getByRole("dialog", { name: "Context and usage" });
      await details.waitFor();
      const box = await details.boundingBox();
      assert.ok(
        header && box && Math.abs(box.y - (header.y + header.height)) <= 4,
        `the details open under the header (header ends at ${header && header.y + header.height}, details at ${box?.y})`,
      );
      assert.ok(box && box.x >= 0 && box.x + box.width <= 260, "and fit the sidebar's width");
      assert.equal(await narrow.page.evaluate(() => document.scrollingElement?.scrollTop ?? 0), 0, "nothing scrolled to show them");
      await narrow.assertClean();
    } finally {
      await narrow.close();
    }
  });
});
