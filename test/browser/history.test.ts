// The view's history dialog in the real webview bundle: what the user does there is what reaches
// the host (the messages posted), by mouse and by keyboard.
import * as assert from "node:assert/strict";
import { type ChatPage, focusReaches, useChatPage } from "./harness";

const chats = [
  { id: "chat-1", title: "Default port", updatedAt: Date.now() },
  { id: "chat-2", title: "Refactor the loader", updatedAt: Date.now() - 86_400_000 * 3 },
];

describe("the history dialog in the webview", function () {
  const page = useChatPage({ snapshot: false });
  let chat: ChatPage;
  beforeEach(() => {
    chat = page();
  });

  it("after a delete it says “Chat … deleted” with Undo, which posts history/undoDelete; the notice goes when the chat is listed again", async () => {
    await chat.snapshot(undefined, { chats, chatId: "chat-1", title: "Default port" });
    await chat.send([{ type: "history/show" }]);
    const history = chat.page.getByRole("dialog", { name: "Chat history" });
    await chat.send([
      { type: "history/list", chats: [chats[0]!] },
      { type: "history/deleted", chatId: "chat-2", title: "Refactor the loader" },
    ]);
    const notice = history.locator(".history-deleted");
    assert.equal((await notice.innerText()).replace(/\s+/g, " ").trim(), "Chat “Refactor the loader” deleted Undo");
    await chat.clearPosted();
    await notice.getByRole("button", { name: "Undo" }).click();
    assert.deepEqual(await chat.posted(), [{ type: "history/undoDelete", v: 1, chatId: "chat-2" }]);
    assert.ok(await history.evaluate((dialog) => dialog.contains(document.activeElement)), "the focus stays in the dialog");
    await chat.send([{ type: "history/list", chats }]);
    assert.equal(await history.locator(".history-deleted").count(), 0);
    assert.equal(await history.locator(".history-item").count(), 2);
  });

  it("deleting the chat on screen and Undo replace the chat behind the dialog: the focus stays in the dialog, not in the composer", async () => {
    await chat.snapshot(undefined, { chats, chatId: "chat-1", title: "Default port" });
    await chat.send([{ type: "history/show" }]);
    const history = chat.page.getByRole("dialog", { name: "Chat history" });
    const inDialog = () => history.evaluate((dialog) => dialog.contains(document.activeElement));
    await chat.page.keyboard.press("Delete");
    // What the host answers: a new chat on screen in its place, the list without it, the notice.
    await chat.snapshot(undefined, { chats: [chats[1]!], chatId: "chat-new", title: "New chat" });
    await chat.send([{ type: "history/deleted", chatId: "chat-1", title: "Default port" }]);
    await chat.frames(2);
    assert.ok(await inDialog(), "after Delete the focus is still in the dialog");
    assert.equal(await chat.page.locator("textarea[aria-label='Message to Pi']").evaluate((el) => el === document.activeElement), false);

    await history.getByRole("button", { name: "Undo" }).click();
    // Undo: the list has it again, and it is back on screen.
    await chat.send([{ type: "history/list", chats }]);
    await chat.snapshot(undefined, { chats, chatId: "chat-1", title: "Default port" });
    await chat.frames(2);
    assert.ok(await inDialog(), "after Undo the focus is still in the dialog");
    await chat.page.keyboard.press("Escape");
    assert.equal(await history.count(), 0);
    assert.equal(await focusReaches(chat.page.locator("textarea[aria-label='Message to Pi']")), true, "Escape: to the composer");
  });

  it("a long title is cut with an ellipsis and keeps its date beside it on one line, focused or not", async () => {
    // As long as a model-written title gets (60 characters); the dialog is at most 340 px wide.
    const long = [
      { id: "chat-1", title: "Why the dev server on port 3000 refuses connections in Docker", updatedAt: Date.now() },
      { id: "chat-2", title: "Refactor the loader", updatedAt: Date.now() - 86_400_000 * 3 },
    ];
    await chat.snapshot(undefined, { chats: long, chatId: "chat-2", title: "Refactor the loader" });
    await chat.send([{ type: "history/show" }]);
    const history = chat.page.getByRole("dialog", { name: "Chat history" });
    await history.locator(".history-item").first().waitFor();
    for (const focused of [false, true]) {
      if (focused) await history.locator(".history-item").first().focus();
      const rows = await history.locator(".history-item").evaluateAll((items) =>
        items.map((item) => {
          const title = item.querySelector(".history-title")!;
          const date = item.querySelector(".history-date")!;
          return {
            // On one line: the date's middle is within the title's box (baseline-aligned, smaller type).
            sameLine: (() => {
              const t = title.getBoundingClientRect();
              const d = date.getBoundingClientRect();
              return d.top + d.height / 2 > t.top && d.top + d.height / 2 < t.bottom;
            })(),
            cut: title.scrollWidth > title.clientWidth,
            height: Math.round(item.getBoundingClientRect().height),
          };
        }),
      );
      const where = focused ? "with the focus on it" : "without the focus";
      assert.ok(rows[0]!.sameLine, `the long title's date is on its line ${where}`);
      assert.ok(rows[0]!.cut, "the long title is cut (ellipsis)");
      assert.equal(rows[0]!.height, rows[1]!.height, `the long title's row is as high as a short one's ${where}`);
    }
  });

  const three = [
    { id: "chat-1", title: "Default port", updatedAt: Date.now() },
    { id: "chat-2", title: "Refactor the loader", updatedAt: Date.now() - 1000 },
    { id: "chat-3", title: "Tests for the server", updatedAt: Date.now() - 2000 },
  ];
  const focusedRow = (): Promise<string> =>
    chat.page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (el?.classList.contains("history-search")) return "search box";
      return el?.closest("li")?.querySelector(".history-title")?.textContent ?? `outside: ${el?.tagName}`;
    });
  /**
   * Where the focus is once it has moved: the dialog moves it after drawing (the current chat when
   * it opens, the row again after a rename box goes, the next row after a delete), a frame later.
   * Waits in the page for the focus to reach `expected`; if it never does, tells where it is instead.
   */
  const focusSettlesOn = async (expected: string): Promise<string> => {
    try {
      await chat.page.waitForFunction((title) => {
        const el = document.activeElement as HTMLElement | null;
        const where = el?.classList.contains("history-search") ? "search box" : el?.closest("li")?.querySelector(".history-title")?.textContent;
        return where === title;
      }, expected);
    } catch {
      // The page's own time-out: the assertion below says where the focus went.
    }
    return focusedRow();
  };
  const focusOnRow = async (title: string): Promise<void> => assert.equal(await focusSettlesOn(title), title);

  it("keys on a chat: F2 renames in place (Enter keeps, Escape cancels), Delete deletes, Enter opens; the focus moves to the next chat", async () => {
    await chat.snapshot(undefined, { chats: three, chatId: "chat-1", title: "Default port" });
    await chat.send([{ type: "history/show" }]);
    const history = chat.page.getByRole("dialog", { name: "Chat history" });
    await chat.clearPosted();
    await focusOnRow("Default port");
    await chat.page.keyboard.press("ArrowDown");
    assert.equal(await focusSettlesOn("Refactor the loader"), "Refactor the loader");

    await chat.page.keyboard.press("F2");
    const box = history.getByRole("textbox", { name: "New title for Refactor the loader" });
    assert.equal(await box.inputValue(), "Refactor the loader");
    await chat.page.waitForFunction(() => document.activeElement?.classList.contains("history-rename"));
    assert.ok(
      await box.evaluate((el: HTMLInputElement) => el === document.activeElement && el.selectionEnd! - el.selectionStart! === el.value.length),
      "focused, all selected",
    );
    await chat.page.keyboard.type("Loader cleanup");
    await chat.page.keyboard.press("Escape");
    assert.equal(await history.count(), 1, "Escape in the box cancels the rename, not the dialog");
    assert.equal(await focusSettlesOn("Refactor the loader"), "Refactor the loader");
    await chat.page.keyboard.press("F2");
    await chat.page.waitForFunction(() => document.activeElement?.classList.contains("history-rename"));
    await chat.page.keyboard.type("Loader cleanup");
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.posted(), [{ type: "history/rename", v: 1, chatId: "chat-2", title: "Loader cleanup" }]);
    await chat.send([{ type: "history/list", chats: [three[0]!, { ...three[1]!, title: "Loader cleanup" }, three[2]!] }]);
    assert.equal(await focusSettlesOn("Loader cleanup"), "Loader cleanup", "the renamed chat keeps the focus");

    await chat.clearPosted();
    await chat.page.keyboard.press("Delete");
    assert.deepEqual(await chat.posted(), [{ type: "chat/delete", v: 1, chatId: "chat-2" }]);
    await chat.send([{ type: "history/list", chats: [three[0]!, three[2]!] }]);
    assert.equal(await focusSettlesOn("Tests for the server"), "Tests for the server", "the focus goes to the chat after the deleted one");

    await chat.clearPosted();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.posted(), [{ type: "chat/switch", v: 1, chatId: "chat-3" }]);
    assert.equal(await history.count(), 0, "opening a chat closes the dialog");
  });

  it("the search box asks the host (the view reads no file) and lists what it answers, with the words around a match; Up/Down and Ctrl+F move between box and list", async () => {
    await chat.snapshot(undefined, { chats: three, chatId: "chat-1", title: "Default port" });
    await chat.send([{ type: "history/show" }]);
    const history = chat.page.getByRole("dialog", { name: "Chat history" });
    await focusOnRow("Default port");
    await chat.page.keyboard.press("ArrowUp");
    assert.equal(await focusSettlesOn("search box"), "search box", "Up from the first chat");
    await chat.page.keyboard.press("ArrowDown");
    assert.equal(await focusSettlesOn("Default port"), "Default port");
    await chat.page.keyboard.press("Control+f");
    assert.equal(await focusSettlesOn("search box"), "search box");
    const search = history.getByRole("searchbox", { name: "Search chats: titles and message text" });

    await chat.clearPosted();
    await chat.page.keyboard.type("serv");
    assert.equal(await history.locator(".history-search-state").innerText(), "Searching…");
    // Asked once the typing pauses, for what the box holds then.
    await chat.page.waitForFunction(() => window.__posted.some((m) => (m as { type?: string }).type === "history/search"));
    assert.deepEqual(await chat.postedOf("history/search"), [{ type: "history/search", v: 1, query: "serv" }]);
    // An answer to an older query is not shown.
    await chat.send([{ type: "history/results", query: "ser", hits: [{ chatId: "chat-1" }], complete: true }]);
    assert.equal(await history.locator(".history-item").count(), 0);
    await chat.send([{ type: "history/results", query: "serv", hits: [{ chatId: "chat-3" }], complete: false }]);
    assert.deepEqual(await history.locator(".history-title").allInnerTexts(), ["Tests for the server"]);
    assert.equal(await history.locator(".history-search-state").innerText(), "Searching…");
    await chat.send([
      {
        type: "history/results",
        query: "serv",
        hits: [{ chatId: "chat-3" }, { chatId: "chat-1", snippet: "…the dev server listens on 3000" }, { chatId: "no-such-chat" }],
        complete: true,
      },
    ]);
    assert.deepEqual(await history.locator(".history-title").allInnerTexts(), ["Tests for the server", "Default port"]);
    assert.equal(await history.locator(".history-snippet").innerText(), "…the dev server listens on 3000");
    assert.equal(await history.locator(".history-search-state").innerText(), "2 chats found");
    await chat.page.keyboard.press("ArrowDown");
    assert.equal(await focusSettlesOn("Tests for the server"), "Tests for the server");

    await chat.clearPosted();
    await history.locator("li").nth(1).hover();
    await history.getByRole("button", { name: "Export chat Default port to Markdown" }).click();
    assert.deepEqual(await chat.posted(), [{ type: "history/export", v: 1, chatId: "chat-1" }]);
    await chat.clearPosted();
    await history.getByRole("button", { name: "Continue chat Default port in the pi CLI" }).click();
    assert.deepEqual(await chat.posted(), [{ type: "history/continueInPi", v: 1, chatId: "chat-1" }]);
    await search.fill("");
    assert.equal(await history.locator(".history-item").count(), 3, "an empty box lists every chat again");
  });
});
