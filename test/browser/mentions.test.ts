// The composer's `@` and `/` lists over the real bundle: the list opens, filters (the host's
// answers are computed here with the same shared matcher the host runs), is driven by keys and
// mouse, takes a mention as a token that deletes as one unit, Escape closes it keeping the text,
// and what is sent names the mentions.
import * as assert from "node:assert/strict";
import type { ChatPage } from "./harness";
import { useChatPage } from "./harness";
import { answerMentions, openCommandList } from "./mention-helpers";
import { Script, stateOf } from "./script";

describe("composer @ mentions and / commands", function () {
  const page = useChatPage();
  let chat: ChatPage;
  beforeEach(() => {
    chat = page();
  });

  const input = () => chat.page.getByRole("textbox", { name: "Message to Pi" });
  const options = () => chat.page.getByRole("option");

  it("@ opens the list; srvcfg finds server/config.ts; arrows and Enter take it as a token", async () => {
    await input().click();
    await input().pressSequentially("look at @");
    await answerMentions(chat);
    assert.equal(await chat.page.getByRole("listbox").count(), 1, "the list is open");
    assert.ok((await options().count()) >= 4, "the special mentions and the paths are listed");
    await input().pressSequentially("srvcfg");
    await answerMentions(chat);
    const labels = await options().allInnerTexts();
    const at = labels.findIndex((l) => l.startsWith("server/config.ts"));
    assert.ok(at >= 0, `server/config.ts is listed: ${labels.join(" | ")}`);
    assert.ok(!labels.some((l) => l.startsWith("README")), "paths that do not match are not listed");
    // The textarea keeps the focus and points at the active option; the arrows move it (and wrap).
    const active = async () => chat.page.locator(`#${await input().getAttribute("aria-activedescendant")}`);
    assert.equal(await (await active()).getAttribute("aria-selected"), "true");
    await chat.page.keyboard.press("ArrowUp");
    assert.equal(await (await active()).innerText(), labels[labels.length - 1], "ArrowUp from the first wraps to the last");
    await chat.page.keyboard.press("ArrowDown");
    for (let i = 0; i < at; i++) await chat.page.keyboard.press("ArrowDown");
    assert.ok((await (await active()).innerText()).startsWith("server/config.ts"));
    await chat.page.keyboard.press("Enter");
    assert.equal(await input().inputValue(), "look at @server/config.ts ");
    assert.equal(await chat.page.getByRole("listbox").count(), 0, "taking closes the list");
    assert.equal(await chat.page.getByRole("list", { name: "Mentioned" }).getByText("@server/config.ts").count(), 1, "a chip names it");
    await chat.clearPosted();
    await input().pressSequentially("please");
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.postedOf("chat/send"), [
      { type: "chat/send", v: 1, text: "look at @server/config.ts please", mentions: [{ kind: "file", path: "server/config.ts" }] },
    ]);
  });

  it("the token deletes as one unit with Backspace, and Ctrl+Z brings it back", async () => {
    await input().click();
    await input().pressSequentially("see @rout");
    await answerMentions(chat);
    await chat.page.keyboard.press("Tab");
    assert.equal(await input().inputValue(), "see @server/routes.ts ");
    await chat.page.keyboard.press("Backspace"); // the space
    await chat.page.keyboard.press("Backspace"); // the whole token
    assert.equal(await input().inputValue(), "see ");
    assert.equal(await chat.page.getByRole("list", { name: "Mentioned" }).count(), 0, "its chip is gone");
    await chat.page.keyboard.press("Control+z");
    assert.equal(await input().inputValue(), "see @server/routes.ts");
  });

  it("the mouse takes an option; a folder is mentioned as a folder; a chip's button removes its token", async () => {
    await input().click();
    await input().pressSequentially("@server");
    await answerMentions(chat);
    await options()
      .filter({ hasText: /^server\/$/ })
      .click();
    assert.equal(await input().inputValue(), "@server/ ");
    await input().pressSequentially("and @problems");
    await answerMentions(chat);
    await options().first().click();
    assert.equal(await input().inputValue(), "@server/ and @problems ");
    await chat.page.getByRole("button", { name: "Remove @server/" }).click();
    assert.equal(await input().inputValue(), "and @problems ");
    await chat.clearPosted();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual((await chat.postedOf("chat/send"))[0]?.mentions, [{ kind: "problems" }]);
  });

  it("Escape closes the list and keeps the text (and does not reopen it until the text changes)", async () => {
    await input().click();
    await input().pressSequentially("fix @conf");
    await answerMentions(chat);
    assert.equal(await chat.page.getByRole("listbox").count(), 1);
    await chat.page.keyboard.press("Escape");
    assert.equal(await chat.page.getByRole("listbox").count(), 0);
    assert.equal(await input().inputValue(), "fix @conf");
    assert.equal(await input().getAttribute("aria-activedescendant"), null);
    await chat.clearPosted();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.postedOf("chat/send"), [{ type: "chat/send", v: 1, text: "fix @conf" }], "plain text: no mention was taken");
  });

  it("/ lists the chat's commands and the templates, filtered; Enter takes one", async () => {
    await openCommandList(chat);
    const labels = await options().allInnerTexts();
    for (const name of ["/new", "/compact", "/model", "/export", "/history", "/review"]) {
      assert.ok(
        labels.some((l) => l.startsWith(name)),
        `${name} listed: ${labels.join(" | ")}`,
      );
    }
    assert.ok(
      labels.some((l) => l.includes("Review a file")),
      "with its description",
    );
    await input().pressSequentially("rev");
    assert.equal(await options().count(), 1);
    await chat.page.keyboard.press("Enter");
    assert.equal(await input().inputValue(), "/review ");
    await chat.clearPosted();
    await input().pressSequentially("src/a.ts");
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.postedOf("chat/send"), [{ type: "chat/send", v: 1, text: "/review src/a.ts" }]);
  });

  it("a restored chat shows what its mentions carried as chips, with what was cut", async () => {
    const script = new Script()
      .message({ role: "fileAttachment", path: "server", mention: "folder", timestamp: 1 })
      .message({
        role: "fileAttachment",
        path: "@changes",
        mention: "changes",
        text: "diff --git …",
        note: "3 changed files, 4,100 diff lines; cut to the first 2000 lines",
        timestamp: 1,
      })
      .user("review @server/ and @changes")
      .assistant([{ type: "text", text: "Done." }]);
    await chat.snapshot(stateOf(script.take()));
    const chips = chat.page.locator(".item.attachment");
    assert.equal(await chips.count(), 2);
    assert.match(await chips.nth(0).innerText(), /server/);
    assert.match(await chips.nth(1).innerText(), /@changes[\s\S]*cut to the first 2000 lines/);
    assert.equal(await chat.page.getByText("diff --git").count(), 0, "the diff itself is the model's, not shown as text");
  });
});
