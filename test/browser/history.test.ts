// The view's history dialog in the real webview bundle: what the user does there is what reaches
// the host (the messages posted), by mouse and by keyboard.
import * as assert from "node:assert/strict";
import { ChatPage, useChatPage } from "./harness";

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

  it("after a delete it says “Chat … deleted” with Undo, which posts undoDelete; the notice goes when the chat is listed again", async () => {
    await chat.snapshot(undefined, { chats, chatId: "chat-1", title: "Default port" });
    await chat.send([{ type: "showHistory" }]);
    const history = chat.page.getByRole("dialog", { name: "Chat history" });
    await chat.send([
      { type: "chats", chats: [chats[0]!] },
      { type: "chatDeleted", chatId: "chat-2", title: "Refactor the loader" },
    ]);
    const notice = history.getByRole("status");
    assert.equal((await notice.innerText()).replace(/\s+/g, " ").trim(), "Chat “Refactor the loader” deleted Undo");
    await chat.clearPosted();
    await notice.getByRole("button", { name: "Undo" }).click();
    assert.deepEqual(await chat.posted(), [{ type: "undoDelete", v: 1, chatId: "chat-2" }]);
    assert.ok(await history.evaluate((dialog) => dialog.contains(document.activeElement)), "the focus stays in the dialog");
    await chat.send([{ type: "chats", chats }]);
    assert.equal(await history.getByRole("status").count(), 0);
    assert.equal(await history.locator(".history-item").count(), 2);
  });
});
