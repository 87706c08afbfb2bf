// The view at 300 px, a sidebar's common width: the header keeps the chat's title and the model's
// name readable (the model may go to a second line), and the history's rows give the title their
// full width (the row's buttons go below it). Screenshots in out/test-artifacts (header-300.png,
// history-300.png).
import * as assert from "node:assert/strict";
import { join } from "node:path";
import { ChatPage, repoRoot } from "./harness";

const ARTIFACTS = join(repoRoot, "out/test-artifacts");
const TITLE = "What is the dev server's port?";
const MODEL = "fake-model-large-2";

/** True when the element shows all of its text (nothing cut by an ellipsis). */
function whole(chat: ChatPage, selector: string): Promise<boolean> {
  return chat.page
    .locator(selector)
    .first()
    .evaluate((el) => el.scrollWidth <= el.clientWidth + 1);
}

describe("the view at 300 px", function () {
  let chat: ChatPage;
  beforeEach(async () => {
    chat = await ChatPage.open({ width: 300, height: 640 });
  });
  afterEach(async () => {
    await chat.assertClean();
    await chat.close();
  });

  it("the header shows the chat's title and the model's name whole", async () => {
    await chat.snapshot(undefined, { title: TITLE, status: { modelLabel: MODEL } });
    await chat.page.locator(".header").screenshot({ path: join(ARTIFACTS, "header-300.png") });
    assert.equal(await whole(chat, ".header-title"), true, "the title is not cut");
    assert.equal(await whole(chat, ".model-label"), true, "the model's name is not cut");
  });

  it("the history's rows give the title the row's width", async () => {
    const now = Date.now();
    const chats = [
      { id: "c1", title: "Move the dev server to port 8080", updatedAt: now },
      { id: "c2", title: "Why does the loader fail on Windows?", updatedAt: now - 3_600_000 },
      { id: "c3", title: "Pelican hunt (pi session, 2026-01-02 03:04)", updatedAt: now - 86_400_000 },
    ];
    await chat.snapshot(undefined, { chats, chatId: "c1", title: chats[0]!.title });
    await chat.send([{ type: "history/show" }]);
    await chat.page.locator(".history").waitFor();
    await chat.page.locator(".history").screenshot({ path: join(ARTIFACTS, "history-300.png") });
    const widths = await chat.page.locator(".history-title").evaluateAll((els) => els.map((el) => ({ shown: el.clientWidth, whole: el.scrollWidth })));
    for (const w of widths) assert.ok(w.shown >= 190, `a title gets ${w.shown}px of a 300 px view`);
    assert.equal(await whole(chat, ".history-title"), true, "the first title is whole");
  });
});
