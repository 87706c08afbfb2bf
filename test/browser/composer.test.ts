// The composer and the protocol around it: Enter sends, Shift+Enter is a new line, Stop and
// Escape stop a run, attachments, focus, the draft kept in webview state; the header; and
// the sequence check (a gap asks for a resync and drops everything until the next snapshot).
import * as assert from "node:assert/strict";
import { ChatPage, focusReaches, useChatPage } from "./harness";
import { Script, stateOf } from "./script";

describe("composer, header and protocol", function () {
  const page = useChatPage({ snapshot: false });
  let chat: ChatPage;
  beforeEach(() => {
    chat = page();
  });

  it("posts ready once on load", async () => {
    assert.deepEqual(await chat.posted(), [{ type: "view/ready", v: 1 }]);
  });

  it("sends with Enter, adds a line with Shift+Enter, and keeps Send disabled while empty", async () => {
    await chat.snapshot();
    const input = chat.page.getByRole("textbox", { name: "Message to Pi" });
    const send = chat.page.getByRole("button", { name: "Send" });
    assert.equal(await send.isDisabled(), true, "empty: disabled");
    await input.click();
    await chat.page.keyboard.press("Enter");
    await input.pressSequentially("   ");
    assert.equal(await send.isDisabled(), true, "blank: disabled");
    await input.fill("");
    await input.pressSequentially("first line");
    await chat.page.keyboard.press("Shift+Enter");
    await input.pressSequentially("second line");
    assert.equal(await input.inputValue(), "first line\nsecond line");
    assert.equal(await send.isDisabled(), false);
    await chat.clearPosted();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.posted(), [{ type: "chat/send", v: 1, text: "first line\nsecond line" }]);
    assert.equal(await input.inputValue(), "", "the draft is cleared after sending");

    await input.pressSequentially("by button");
    await send.click();
    assert.deepEqual(
      (await chat.postedOf("chat/send")).map((m) => m.text),
      ["first line\nsecond line", "by button"],
    );
  });

  it("shows Stop while running; Stop and Escape post stop; Enter queues a follow-up then instead of sending", async () => {
    await chat.snapshot();
    await chat.events(new Script().start().user("Go").take());
    const stop = chat.page.getByRole("button", { name: "Stop" });
    assert.equal(await stop.count(), 1);
    assert.equal(await chat.page.getByRole("button", { name: "Send" }).count(), 0);
    await chat.clearPosted();
    await stop.click();
    const input = chat.page.getByRole("textbox", { name: "Message to Pi" });
    await input.pressSequentially("queued thought");
    await chat.page.keyboard.press("Escape");
    assert.equal(await input.inputValue(), "queued thought", "Escape stops and keeps the draft");
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.posted(), [
      { type: "chat/stop", v: 1 },
      { type: "chat/stop", v: 1 },
      { type: "queue/add", v: 1, kind: "followUp", text: "queued thought" },
    ]);

    await chat.events(new Script().end().take());
    assert.equal(await stop.count(), 0);
    await chat.clearPosted();
    await chat.page.keyboard.press("Escape");
    assert.deepEqual(await chat.posted(), [], "Escape when idle posts nothing");
  });

  it("while Pi works, the longer hint in the empty box is shown whole in a narrow sidebar, and the box is one line again after", async () => {
    const narrow = await ChatPage.open({ width: 300, height: 600 });
    try {
      await narrow.snapshot();
      const input = narrow.page.getByRole("textbox", { name: "Message to Pi" });
      const fits = () => input.evaluate((el) => ({ scroll: el.scrollHeight, client: el.clientHeight, hint: (el as HTMLTextAreaElement).placeholder }));
      const idle = await fits();
      await narrow.events(new Script().start().user("Go").take());
      const running = await fits();
      assert.match(running.hint, /Pi is working/);
      assert.ok(running.scroll <= running.client, `the hint is not cut (${running.scroll} px of text in ${running.client} px)`);
      await narrow.events(new Script().end().take());
      assert.equal((await fits()).client, idle.client, "back to its height when idle");
    } finally {
      await narrow.close();
    }
  });

  it("typing a !command says what Enter will do, whole, in a default-width sidebar: whether Pi gets the output is the part that matters", async () => {
    const narrow = await ChatPage.open({ width: 300, height: 600 });
    try {
      await narrow.snapshot();
      const input = narrow.page.getByRole("textbox", { name: "Message to Pi" });
      const hint = narrow.page.locator(".composer .hint");
      const shown = () =>
        hint.evaluate((el) => ({ text: (el as HTMLElement).innerText, cut: el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight }));
      await input.fill("!npm test");
      assert.deepEqual(await shown(), { text: "Runs in the workspace now; Pi sees the output with your next message", cut: false });
      await input.fill("!!npm test");
      assert.deepEqual(await shown(), { text: "Runs in the workspace now; the output is not sent to Pi", cut: false });
    } finally {
      await narrow.close();
    }
  });

  it("a !command the host did not run (no folder picked) comes back into the box, but never over a new draft", async () => {
    await chat.snapshot();
    const input = chat.page.getByRole("textbox", { name: "Message to Pi" });
    await input.click();
    await input.pressSequentially("!npm test");
    await chat.page.keyboard.press("Enter");
    assert.equal(await input.inputValue(), "", "cleared on send");
    await chat.page.getByRole("button", { name: "Attach images" }).focus();
    await chat.send([{ type: "composer/restore", text: "!npm test" }]);
    assert.equal(await input.inputValue(), "!npm test");
    assert.equal(await focusReaches(input), true, "the focus is back in the box");

    await input.fill("something new");
    await chat.send([{ type: "composer/restore", text: "!npm test" }]);
    assert.equal(await input.inputValue(), "something new", "what was typed since stays");
  });

  it("keeps the draft in webview state across a reload (the view hidden and shown)", async () => {
    await chat.snapshot();
    await chat.page.getByRole("textbox", { name: "Message to Pi" }).pressSequentially("half a thought");
    assert.deepEqual(await chat.postedOf("chat/send"), [], "the draft never goes to the host");
    await chat.page.reload();
    await chat.page.waitForFunction(() => window.__posted.some((m) => (m as { type?: string }).type === "view/ready"));
    chat.seq = -1;
    await chat.snapshot();
    assert.equal(await chat.page.getByRole("textbox", { name: "Message to Pi" }).inputValue(), "half a thought");
  });

  it("shows attachment chips with a remove button, and focuses the composer on request", async () => {
    await chat.snapshot(undefined, { attachments: [{ path: "src/config.ts", range: { startLine: 2, endLine: 4 } }] });
    await chat.send([{ type: "composer/attachments", attachments: [{ path: "src/config.ts", range: { startLine: 2, endLine: 4 } }, { path: "README.md" }] }]);
    const chips = chat.page.locator(".composer .chip");
    assert.equal(await chips.count(), 2);
    assert.match(await chips.nth(0).innerText(), /src\/config\.ts\s*L2–4/);
    await chat.clearPosted();
    await chat.page.getByRole("button", { name: "Remove README.md" }).click();
    assert.deepEqual(await chat.posted(), [{ type: "composer/removeAttachment", v: 1, index: 1 }]);

    await chat.page.getByRole("button", { name: /^Model/ }).focus();
    await chat.send([{ type: "view/focus" }]);
    assert.equal(await chat.page.evaluate(() => document.activeElement?.getAttribute("aria-label")), "Message to Pi");
  });

  it("header: title and model only (New chat and History are VS Code's view title actions); history switch and delete; storage warning", async () => {
    const chats = [
      { id: "chat-1", title: "Default port", updatedAt: Date.now() },
      { id: "chat-2", title: "Refactor the loader", updatedAt: Date.now() - 86_400_000 * 3 },
    ];
    await chat.snapshot(undefined, { chats, title: "Default port", status: { storage: "globalFallback" } });
    assert.equal(await chat.page.getByRole("heading", { level: 1 }).innerText(), "Default port");
    assert.deepEqual(
      await chat.page.locator(".header button").evaluateAll((els) => els.map((e) => e.getAttribute("aria-label"))),
      ["Model: anthropic/claude-sonnet-4-5. Change this chat's model"],
      "one set of actions: no New chat or History here",
    );
    assert.equal(await chat.page.locator(".header .header-meter").count(), 1, "a slot for the context meter");
    assert.match(await chat.page.locator(".banner-warning").innerText(), /global storage/);
    await chat.clearPosted();
    await chat.page.getByRole("button", { name: /^Model: anthropic\/claude-sonnet-4-5/ }).click();
    await chat.send([{ type: "history/show" }]);
    const history = chat.page.getByRole("dialog", { name: "Chat history" });
    assert.equal(await history.locator(".history-item").count(), 2);
    await history.getByRole("button", { name: /^Refactor the loader/ }).click();
    assert.equal(await history.count(), 0, "the menu closes after switching");
    await chat.send([{ type: "history/show" }]);
    // No confirmation: the host moves the chat to the trash and offers Undo.
    await history.getByRole("button", { name: "Delete chat Refactor the loader" }).click();
    await chat.page.keyboard.press("Escape");
    assert.equal(await history.count(), 0, "Escape closes the menu");
    assert.deepEqual(await chat.posted(), [
      { type: "workbench/runCommand", v: 1, command: "selectChatModel" },
      { type: "chat/switch", v: 1, chatId: "chat-2" },
      { type: "chat/delete", v: 1, chatId: "chat-2" },
    ]);
    await chat.send([{ type: "view/status", status: { modelLabel: "openai/gpt-4.1", storage: "workspace", canContinue: false, editsAllowedForChat: true } }]);
    assert.equal(await chat.page.locator(".banner-warning").count(), 0);
    assert.equal(await chat.page.locator(".model-label").innerText(), "openai/gpt-4.1");
    assert.match(await chat.page.locator(".composer .hint").innerText(), /Edits are allowed for this chat/);
    // A new chat gets its title with the chat list the host posts after the first answer.
    await chat.snapshot(undefined, { chatId: "chat-3", title: "New chat", chats });
    assert.equal(await chat.page.getByRole("heading", { level: 1 }).innerText(), "New chat");
    await chat.send([{ type: "history/list", chats: [{ id: "chat-3", title: "Where the port is set", updatedAt: Date.now() }, ...chats] }]);
    assert.equal(await chat.page.getByRole("heading", { level: 1 }).innerText(), "Where the port is set");
  });

  it("offers Continue when the last turn was interrupted", async () => {
    await chat.snapshot(undefined, { status: { canContinue: true } });
    await chat.clearPosted();
    await chat.page.getByRole("button", { name: "Continue" }).click();
    assert.deepEqual(await chat.posted(), [{ type: "chat/continue", v: 1 }]);
  });

  it("asks for a resync on a sequence gap and ignores messages until the next snapshot", async () => {
    await chat.snapshot();
    await chat.events(new Script().start().user("one").take());
    const before = await chat.page.evaluate(() => window.__piChatTest!.lastSeq());
    assert.equal(before, chat.seq);
    await chat.clearPosted();

    // seq jumps by two: a gap.
    await chat.postRaw([
      { type: "chat/event", v: 1, seq: chat.seq + 2, event: { type: "message/start", message: { role: "user", content: "lost", timestamp: 1 } } },
    ]);
    await chat.page.waitForFunction(() => window.__posted.length > 0);
    assert.deepEqual(await chat.posted(), [{ type: "view/resync", v: 1, lastSeq: before }]);
    // Everything until the snapshot is ignored, even the message that would have been next.
    await chat.postRaw([
      { type: "chat/event", v: 1, seq: before + 1, event: { type: "message/start", message: { role: "user", content: "ignored", timestamp: 1 } } },
      { type: "view/status", v: 1, seq: before + 2, status: { modelLabel: "x/ignored", storage: "workspace", canContinue: false, editsAllowedForChat: false } },
    ]);
    await chat.frames(3);
    assert.equal(await chat.page.evaluate(() => window.__piChatTest!.lastSeq()), before);
    assert.equal(await chat.page.getByText("ignored").count(), 0);
    assert.equal((await chat.postedOf("view/resync")).length, 1, "one resync per gap");

    // Junk is ignored without a resync: no type, unknown type, no numeric seq, another version.
    await chat.postRaw(["hello", null, { type: "nope", v: 1, seq: 1 }, { type: "view/focus", v: 1 }, { type: "view/focus", v: 2, seq: before + 1 }]);

    chat.seq = 40;
    await chat.snapshot(stateOf(new Script().user("restored").take()));
    assert.equal(await chat.page.evaluate(() => window.__piChatTest!.lastSeq()), 41);
    assert.equal(await chat.page.locator(".user", { hasText: "restored" }).count(), 1);
    assert.equal(await chat.page.locator(".user", { hasText: "one" }).count(), 0, "the snapshot replaced the chat");
    await chat.events(new Script().start().user("after resync").take());
    assert.equal(await chat.page.locator(".user", { hasText: "after resync" }).count(), 1);
    assert.equal((await chat.postedOf("view/resync")).length, 1);
  });

  it("exposes the test hooks only on a test page", async () => {
    assert.equal(await chat.page.evaluate(() => typeof window.__piChatTest), "object");
    const plain = await ChatPage.open({ testMode: false });
    try {
      assert.equal(await plain.page.evaluate(() => typeof window.__piChatTest), "undefined");
    } finally {
      await plain.close();
    }
  });
});
