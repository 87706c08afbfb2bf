// Keyboard and focus: the focus goes somewhere useful after every action that removes it
// (Allow, Deny, a chat switch, New chat, closing the history), a waiting approval is one
// keystroke (or one command) away, Allow/Deny have shortcuts, and the history dialog keeps
// the focus inside and answers arrow keys, Home/End and type-ahead.
import * as assert from "node:assert/strict";
import { type ChatPage, useChatPage } from "./harness";
import { SAMPLE_CHANGE, Script, toolCall } from "./script";

const focused = (chat: ChatPage) =>
  chat.page.evaluate(() => {
    const el = document.activeElement;
    // A button's own words (its shortcut hint is aria-hidden).
    return {
      name: el?.getAttribute("aria-label") ?? el?.childNodes[0]?.textContent?.trim() ?? "",
      decision: el?.getAttribute("data-decision") ?? null,
      card: el?.closest("[data-item]")?.getAttribute("data-item") ?? null,
      tag: el?.tagName ?? "",
    };
  });

async function pendingEdits(chat: ChatPage, ids: string[]): Promise<void> {
  const script = new Script()
    .start()
    .user("Change both files.")
    .assistant(ids.map((id) => toolCall(id, "edit_file", { path: `src/${id}.ts` })));
  for (const id of ids) {
    script
      .toolStart(id, "edit_file", { path: `src/${id}.ts` })
      .raw({ type: "approval/request", toolCallId: id, toolName: "edit_file", path: `src/${id}.ts`, diff: SAMPLE_CHANGE });
  }
  await chat.events(script.take());
}

describe("keyboard and focus", function () {
  const page = useChatPage();
  let chat: ChatPage;
  beforeEach(() => {
    chat = page();
  });

  it("after Allow the focus goes to the next approval waiting, after the last one to the composer", async () => {
    await pendingEdits(chat, ["a", "b"]);
    await chat.page.locator('.tool[data-item="a"]').getByRole("button", { name: "Allow", exact: true }).click();
    assert.deepEqual(await focused(chat), { name: "Allow", decision: "allow", card: "b", tag: "BUTTON" });
    await chat.events([{ type: "approval/decided", toolCallId: "a", decision: "allowed" }]);
    await chat.page.keyboard.press("Enter");
    assert.equal((await focused(chat)).name, "Message to Pi", "the last answer puts the focus back in the composer");
    await chat.events([{ type: "approval/decided", toolCallId: "b", decision: "allowed" }]);
    assert.equal((await focused(chat)).name, "Message to Pi", "and it stays there when the card stops asking");
    assert.deepEqual(
      (await chat.postedOf("approval/decide")).map((m) => [m.toolCallId, m.decision]),
      [
        ["a", "allow"],
        ["b", "allow"],
      ],
    );
  });

  it("after Deny (typed reason, Enter) the focus goes to the composer, not to <body>", async () => {
    await pendingEdits(chat, ["c"]);
    const reason = chat.page.locator('.tool[data-item="c"]').getByRole("textbox", { name: /reason/i });
    await reason.fill("not now");
    await reason.press("Enter");
    await chat.events([{ type: "approval/decided", toolCallId: "c", decision: "denied", reason: "not now" }]);
    assert.equal((await focused(chat)).name, "Message to Pi");
    assert.deepEqual(await chat.postedOf("approval/decide"), [{ type: "approval/decide", v: 1, toolCallId: "c", decision: "deny", reason: "not now" }]);
  });

  it("Alt+Shift+A goes from the composer to the approval; Alt+A allows, Alt+D denies; the shortcuts are on the buttons", async () => {
    await pendingEdits(chat, ["d", "e"]);
    await chat.page.getByRole("textbox", { name: "Message to Pi" }).focus();
    await chat.page.keyboard.press("Alt+Shift+A");
    assert.deepEqual(await focused(chat), { name: "Allow", decision: "allow", card: "d", tag: "BUTTON" });
    const allow = chat.page.locator('.tool[data-item="d"] button[data-decision="allow"]');
    assert.equal(await allow.getAttribute("aria-keyshortcuts"), "Alt+A");
    assert.match(await allow.innerText(), /Alt\+A/, "the shortcut is shown on the card");
    await chat.page.keyboard.press("Alt+A");
    assert.equal((await focused(chat)).card, "e");
    await chat.page.keyboard.press("Alt+D");
    assert.deepEqual(
      (await chat.postedOf("approval/decide")).map((m) => [m.toolCallId, m.decision]),
      [
        ["d", "allow"],
        ["e", "deny"],
      ],
    );
    assert.equal((await focused(chat)).name, "Message to Pi");
  });

  it("the Go to Pending Approval command (a focus message) reaches the approval, or the composer when none waits", async () => {
    await chat.page.getByRole("button", { name: /^Model/ }).focus();
    await chat.send([{ type: "view/focus", target: "approval" }]);
    assert.equal((await focused(chat)).name, "Message to Pi");
    await pendingEdits(chat, ["f"]);
    await chat.send([{ type: "view/focus", target: "approval" }]);
    assert.deepEqual(await focused(chat), { name: "Allow", decision: "allow", card: "f", tag: "BUTTON" });
  });

  it("after a chat switch and after New chat the focus is in the composer", async () => {
    await chat.events(
      new Script()
        .start()
        .user("Hello")
        .assistant([{ type: "text", text: "Hi." }])
        .end()
        .take(),
    );
    await chat.page.getByRole("button", { name: /^Model/ }).focus();
    await chat.snapshot(undefined, { chatId: "chat-2", title: "Other chat" });
    assert.equal((await focused(chat)).name, "Message to Pi", "after switching");
    await chat.page.getByRole("button", { name: /^Model/ }).focus();
    await chat.snapshot(undefined, { chatId: "chat-new", title: "" });
    assert.equal((await focused(chat)).name, "Message to Pi", "after New chat");
  });

  it("the history dialog keeps the focus, answers arrows, Home/End and type-ahead, and Escape returns to the composer", async () => {
    const now = Date.now();
    const chats = [
      { id: "chat-1", title: "Default port", updatedAt: now },
      { id: "chat-2", title: "Refactor the loader", updatedAt: now - 1000 },
      { id: "chat-3", title: "Rename the config", updatedAt: now - 2000 },
      { id: "chat-4", title: "Tests for the server", updatedAt: now - 3000 },
    ];
    await chat.snapshot(undefined, { chats, chatId: "chat-1", title: "Default port" });
    await chat.send([{ type: "history/show" }]);
    const dialog = chat.page.getByRole("dialog", { name: "Chat history" });
    assert.equal(await dialog.getAttribute("aria-modal"), "true");
    const title = () =>
      chat.page.evaluate(
        () => document.activeElement?.closest("li")?.querySelector(".history-title")?.textContent ?? `outside: ${document.activeElement?.tagName}`,
      );
    assert.equal(await title(), "Default port", "opens on the current chat");
    await chat.page.keyboard.press("ArrowDown");
    assert.equal(await title(), "Refactor the loader");
    await chat.page.keyboard.press("End");
    assert.equal(await title(), "Tests for the server");
    await chat.page.keyboard.press("Home");
    assert.equal(await title(), "Default port");
    await chat.page.keyboard.press("r");
    assert.equal(await title(), "Refactor the loader", "type-ahead: first title starting with r");
    await chat.page.keyboard.press("r");
    assert.equal(await title(), "Rename the config", "again: the next one");
    await chat.page.keyboard.press("ArrowUp");
    assert.equal(await title(), "Refactor the loader");
    // Tab: 8 buttons in the dialog; 20 presses either way never leave it.
    for (let i = 0; i < 20; i++) {
      await chat.page.keyboard.press(i % 3 === 0 ? "Shift+Tab" : "Tab");
      assert.equal(await chat.page.evaluate(() => !!document.activeElement?.closest('[role="dialog"]')), true, `Tab ${i} stays inside`);
    }
    await chat.page.keyboard.press("Escape");
    assert.equal(await dialog.count(), 0);
    assert.equal((await focused(chat)).name, "Message to Pi", "closing puts the focus back where the user types");
  });
});
