// A streamed answer: many deltas end up as one assistant card with the whole text, rendered
// as markdown; thinking is collapsed; errors, notices and stop reasons are shown as such.
import * as assert from "node:assert/strict";
import { HostChannel } from "../../src/shared/host-channel";
import type { HostPost } from "../../src/shared/protocol";
import { emptyChatState } from "../../src/shared/reducer";
import { type ChatPage, defaultStatus, useChatPage } from "./harness";
import { assistantMessage, Script } from "./script";

const ANSWER = [
  "The default port is **3000**. Here is what the config does:",
  "",
  "1. reads `PORT` from the environment",
  "2. falls back to the default",
  "",
  "- host: `localhost`",
  "- retries: 3",
  "",
  "```ts",
  "export const config = { port: 3000 };",
  "```",
  "",
  "See [the config](src/config.ts#L2) for details.",
].join("\n");

describe("streaming answer", function () {
  const page = useChatPage();
  let chat: ChatPage;
  beforeEach(() => {
    chat = page();
  });

  it("renders many deltas into exactly one assistant card with the full text and markdown", async () => {
    const script = new Script().start().user("Read src/config.ts and tell me the default port.");
    await chat.events(script.take());
    // Stream the answer in 2-character deltas, posted in several batches while it renders.
    const events = script.assistant([{ type: "text", text: ANSWER }], { chunk: 2, open: true }).take();
    assert.ok(events.filter((e) => e.type === "message/delta").length > 100, "expected many deltas");
    for (let i = 0; i < events.length; i += 40) await chat.events(events.slice(i, i + 40));

    // While streaming: one card, marked as streaming, already showing markdown.
    assert.equal(await chat.page.locator(".assistant").count(), 1);
    assert.equal(await chat.page.locator(".assistant.streaming").count(), 1);
    assert.equal(await chat.page.locator(".assistant .md ol > li").count(), 2);

    // The end elides the text the view already has from the deltas (the real encoder decides).
    const ending = script
      .agent({ type: "message_end", message: assistantMessage([{ type: "text", text: ANSWER }]) })
      .end()
      .take();
    const end = ending.find((e) => e.type === "message/end");
    assert.ok(end?.type === "message/end" && end.elided?.includes(0), "the final text was elided");
    await chat.events(ending);

    const cards = chat.page.locator(".assistant");
    assert.equal(await cards.count(), 1, "one assistant card");
    assert.equal(await chat.page.locator(".assistant.streaming").count(), 0);
    const text = (await cards.first().innerText()).replace(/\s+/g, " ");
    assert.match(text, /The default port is 3000\. Here is what the config does:/);
    assert.match(text, /export const config = \{ port: 3000 \};/);
    assert.match(text, /See the config for details\./);
    assert.equal(await cards.locator("strong").innerText(), "3000");
    assert.equal(await cards.locator("ol > li").count(), 2);
    assert.equal(await cards.locator("ul > li").count(), 2);
    assert.equal(await cards.locator("pre > code.language-ts").innerText(), "export const config = { port: 3000 };");
    assert.equal(await cards.locator(".md-code-lang").innerText(), "ts");
    assert.equal(await chat.page.evaluate(() => window.__piChatTest?.itemCount()), 2);

    // A workspace link opens the file through the host.
    await cards.locator("a.md-file-link").click();
    const opened = await chat.postedOf("editor/openFile");
    assert.deepEqual(opened, [{ type: "editor/openFile", v: 1, path: "src/config.ts", line: 2 }]);
  });

  it("reads the host's compact delta frames, and a burst of them costs one render per frame", async () => {
    // The real HostChannel on a manual clock: every delta comes 40 ms after the last, so each is
    // posted at once, as `[index, text]` after another message and as a bare string after that.
    const posted: HostPost[] = [];
    let now = 0;
    const channel = new HostChannel((m) => posted.push(m), { now: () => now, schedule: () => () => {} });
    channel.send({ type: "view/snapshot", chatId: "frames", title: "Frames", state: emptyChatState, status: defaultStatus, chats: [], attachments: [] });
    const script = new Script().start().user("Stream it.");
    for (const event of script.take()) channel.sendEvent(event);
    await chat.postRaw(posted.splice(0));
    await chat.page.waitForFunction((s) => window.__piChatTest?.lastSeq() === s, channel.lastSeq);
    for (const event of script.assistant([{ type: "text", text: ANSWER }], { chunk: 2, open: true }).take()) {
      now += 40;
      channel.sendEvent(event);
    }
    channel.flush();
    const strings = posted.filter((m) => typeof m === "string").length;
    assert.ok(strings > 100, `continuations are bare strings (${strings})`);

    // All of them in one burst: each is its own message event, but the view renders once per frame.
    const { renders, frames } = await chat.page.evaluate(
      async ({ list, last }) => {
        const commitsBefore = window.__piChatTest!.commits();
        let frames = 0;
        let counting = true;
        const tick = () => {
          frames++;
          if (counting) requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
        for (const m of list) window.postMessage(m, "*");
        while (window.__piChatTest!.renderedSeq() !== last) await new Promise((r) => setTimeout(r, 5));
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        counting = false;
        return { renders: window.__piChatTest!.commits() - commitsBefore, frames };
      },
      { list: posted as unknown[], last: channel.lastSeq },
    );
    assert.ok(renders <= frames + 2, `${posted.length} frames in one burst rendered ${renders} times over ${frames} animation frames`);
    const text = (await chat.page.locator(".assistant").first().innerText()).replace(/\s+/g, " ");
    assert.match(text, /The default port is 3000\. Here is what the config does:/);
    assert.match(text, /See the config for details\./);
    await chat.assertClean();
  });

  it("shows thinking collapsed, redacted thinking as such, and an error answer as an error card", async () => {
    const script = new Script()
      .start()
      .user("Why?")
      .assistant([
        { type: "thinking", thinking: "The user asks why; check the config first." },
        { type: "thinking", thinking: "opaque-signature", redacted: true },
        { type: "text", text: "Because of the default." },
      ])
      .user("And now?")
      .assistant([{ type: "text", text: "Partial" }], { extra: { stopReason: "error", errorMessage: "429 rate limited: try again in 20s" } })
      .message({
        role: "localNotice",
        level: "error",
        text: "No API key for anthropic.",
        fix: "Run “Pi Chat: Set API Key”.",
        fixCommand: "setApiKey",
        detail: "429 rate limited: try again in 20s",
        timestamp: 1,
      })
      .message({ role: "localNotice", level: "info", text: "Mentions “Pi Chat: Select Model” in its words only.", timestamp: 2 })
      .end();
    await chat.events(script.take());

    const thinking = chat.page.locator("details.thinking");
    assert.equal(await thinking.count(), 1);
    assert.equal(await thinking.getAttribute("open"), null, "thinking starts collapsed");
    assert.equal(await thinking.locator(".thinking-text").isVisible(), false);
    await thinking.locator("summary").click();
    assert.equal(await thinking.locator(".thinking-text").innerText(), "The user asks why; check the config first.");
    assert.match(await chat.page.locator(".thinking.redacted").innerText(), /redacted/i);
    assert.equal(await chat.page.getByText("opaque-signature").count(), 0, "a redacted signature is never shown");

    // One card about the failure: the answer says only that it was cut off, the notice says the rest.
    assert.equal(await chat.page.locator(".assistant .error-card").count(), 0);
    assert.match(await chat.page.locator(".assistant .stopped").innerText(), /Cut off by the error below/);
    const notice = chat.page.locator(".notice-error");
    // The provider's words open on demand, inside the notice.
    assert.doesNotMatch(await notice.innerText(), /429 rate limited/);
    await notice.locator(".notice-detail summary").click();
    assert.match(await notice.innerText(), /What the server said[\s\S]*429 rate limited/);

    assert.match(await notice.innerText(), /No API key for anthropic\./);
    assert.match(await notice.locator(".notice-fix").innerText(), /Set API Key/);
    // The command the fix names is a button that runs it.
    await notice.getByRole("button", { name: "Set API Key" }).click();
    assert.ok((await chat.posted()).some((m) => m.type === "workbench/runCommand" && m.command === "setApiKey"));
    assert.equal(await chat.page.locator(".notice-info").count(), 1);
    assert.equal(await chat.page.locator(".notice-info button").count(), 0, "no fix command, no button: the words are not scanned for command titles");
  });

  it("shows a working indicator while a run has nothing else to show, and announces the run once, politely", async () => {
    await chat.events(new Script().start().user("Hello").take());
    assert.equal(await chat.page.locator(".working").count(), 1);
    const live = chat.page.locator("[aria-live=polite]");
    await chat.frames(2);
    assert.equal(await live.innerText(), "Pi is answering");
    await chat.events(new Script().assistant([{ type: "text", text: "Hi" }], { open: true }).take());
    assert.equal(await chat.page.locator(".working").count(), 0);
    assert.equal(await live.innerText(), "Pi is answering", "no second announcement while the answer streams");
    assert.equal(await chat.page.locator(".assistant").getAttribute("aria-busy"), "true");
  });

  it("follows the stream at the bottom, stops following when the user scrolls up, and jumps back", async () => {
    await chat.page.setViewportSize({ width: 420, height: 480 });
    const script = new Script().start().user("Write a lot");
    const long = Array.from({ length: 60 }, (_, i) => `Paragraph ${i}: ${"lorem ipsum ".repeat(6)}`).join("\n\n");
    const events = script.assistant([{ type: "text", text: long }], { chunk: 40, open: true }).take();
    const half = Math.floor(events.length / 2);
    for (let i = 0; i < half; i += 20) await chat.events(events.slice(i, Math.min(i + 20, half)));
    const gap = () => chat.page.locator(".scroller").evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
    assert.ok((await gap()) <= 2, `at the bottom while streaming (gap ${await gap()})`);
    assert.equal(await chat.page.getByRole("button", { name: "Jump to latest" }).count(), 0);

    await chat.page.locator(".scroller").hover();
    await chat.page.mouse.wheel(0, -600);
    await chat.page.waitForFunction(() => document.querySelector(".jump-button") !== null);
    const top = await chat.page.locator(".scroller").evaluate((el) => el.scrollTop);
    for (let i = half; i < events.length; i += 20) await chat.events(events.slice(i, i + 20));
    assert.equal(await chat.page.locator(".scroller").evaluate((el) => el.scrollTop), top, "the view stays where the user put it");
    assert.ok((await gap()) > 100);

    await chat.page.getByRole("button", { name: "Jump to latest" }).click();
    await chat.frames(2);
    assert.ok((await gap()) <= 2, "back at the bottom");
    await chat.events(
      new Script()
        .agent({
          type: "message_update",
          message: {} as never,
          assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: " more", partial: {} as never },
        })
        .take(),
    );
    assert.ok((await gap()) <= 2, "following again");
  });
});
