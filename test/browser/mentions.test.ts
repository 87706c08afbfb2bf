// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${2:-x} is pi's template syntax, written literally on purpose
// The composer's `@` and `/` lists over the real bundle: the list opens, filters (the host's
// answers are computed here with the same shared matcher the host runs), is driven by keys and
// mouse, takes a mention as a token that deletes as one unit, Escape closes it keeping the text,
// and what is sent names the mentions; files dropped from VS Code's explorer and tabs, a pasted
// path offered as a mention, one file's problems, and a template expanded in the box.
import * as assert from "node:assert/strict";
import type { ChatPage } from "./harness";
import { focusReaches, useChatPage } from "./harness";
import { expandTemplate, parseArguments } from "../../src/shared/prompt-templates";
import { answerMentions, dropResources, openCommandList, pasteText, WORKSPACE_URI } from "./mention-helpers";
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
    // An action is sent as typed: the host runs it.
    await input().fill("");
    await input().pressSequentially("/new");
    await chat.page.keyboard.press("Escape");
    await chat.clearPosted();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.postedOf("chat/send"), [{ type: "chat/send", v: 1, text: "/new" }]);
    assert.deepEqual(await chat.postedOf("composer/expandTemplate"), []);
  });

  it("Enter on /template args puts the expanded template in the box to read and edit; the next Enter sends it as it reads", async () => {
    await openCommandList(chat);
    await input().pressSequentially(`review src/a.ts "error handling" doesn't matter`);
    await chat.clearPosted();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.postedOf("chat/send"), [], "nothing is sent before the user saw the text");
    const [asked] = await chat.postedOf("composer/expandTemplate");
    assert.ok(asked, "the composer asked the host to expand the template");
    assert.equal(asked.text, `/review src/a.ts "error handling" doesn't matter`);
    // The host's answer, computed with the same shared functions the host runs (pi's rules).
    const body = "Review $1, focusing on ${2:-correctness}. Rest: ${@:3}.";
    const expanded = expandTemplate(body, parseArguments(`src/a.ts "error handling" doesn't matter`));
    assert.equal(expanded, "Review src/a.ts, focusing on error handling. Rest: doesn't matter.");
    await chat.send([{ type: "composer/expanded", requestId: asked.requestId, name: "review", text: expanded }]);
    assert.equal(await input().inputValue(), expanded);
    assert.equal(await focusReaches(input()), true, "the focus stays in the box");
    // One undoable edit: Ctrl+Z gives the command back, Ctrl+Shift+Z the expansion.
    await chat.page.keyboard.press("Control+z");
    assert.equal(await input().inputValue(), `/review src/a.ts "error handling" doesn't matter`);
    await chat.page.keyboard.press("Control+Shift+z");
    assert.equal(await input().inputValue(), expanded);
    await input().press("End");
    await input().pressSequentially(" Thanks.");
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.postedOf("chat/send"), [{ type: "chat/send", v: 1, text: `${expanded} Thanks.`, verbatim: true }]);
    assert.equal(await input().inputValue(), "");

    // A name the host does not know as a template (the list was not read): sent as typed.
    await input().fill("");
    await chat.send([{ type: "composer/commands", commands: [], notes: [] }]);
    await input().pressSequentially("/unknown thing");
    await chat.page.keyboard.press("Escape");
    await chat.clearPosted();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.postedOf("chat/send"), [{ type: "chat/send", v: 1, text: "/unknown thing" }]);
  });

  it("a template the host expanded after a plain send comes back into the box; Enter then sends it as it reads", async () => {
    await chat.send([{ type: "composer/restore", text: "!rm -rf ~", expanded: "cleanup" }]);
    assert.equal(await input().inputValue(), "!rm -rf ~");
    assert.equal(await focusReaches(input()), true, "the focus is in the box");
    assert.match((await chat.page.locator("[data-live=polite]").textContent()) ?? "", /Expanded \/cleanup: read or edit it/);
    await chat.clearPosted();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.postedOf("chat/send"), [{ type: "chat/send", v: 1, text: "!rm -rf ~", verbatim: true }]);
    // A plain restore (a command whose folder pick was dismissed) is taken back as typed: a command again.
    await chat.send([{ type: "composer/restore", text: "!npm test" }]);
    await chat.clearPosted();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.postedOf("chat/send"), [{ type: "chat/send", v: 1, text: "!npm test" }]);
  });

  it("files dropped from VS Code's explorer become mentions once the host checked them; what it refused is said", async () => {
    await input().click();
    await input().pressSequentially("look at");
    // As the explorer puts them: every URI in application/vnd.code.uri-list, the first in text/uri-list.
    const uris = [`${WORKSPACE_URI}/server/config.ts`, `${WORKSPACE_URI}/server`, "file:///etc/passwd"];
    const took = await dropResources(chat, {
      "application/vnd.code.uri-list": uris.join("\r\n"),
      "text/uri-list": uris[0]!,
      resourceurls: JSON.stringify([uris[0], uris[2]]),
      "text/plain": "server/config.ts",
    });
    assert.deepEqual(took, { over: true, dropped: true }, "the composer takes the drag and the drop");
    const [asked] = await chat.postedOf("mention/paths");
    assert.deepEqual(asked && { origin: asked.origin, items: asked.items }, { origin: "drop", items: uris });
    await chat.send([
      {
        type: "mention/pathsResolved",
        requestId: asked!.requestId,
        origin: "drop",
        refs: [
          { kind: "file", path: "server/config.ts" },
          { kind: "folder", path: "server" },
        ],
        refused: ['"file:///etc/passwd" is outside the workspace folders'],
      },
    ]);
    assert.equal(await input().inputValue(), "look at @server/config.ts @server/ ");
    const chips = chat.page.getByRole("list", { name: "Mentioned" });
    assert.equal(await chips.getByText("@server/config.ts").count(), 1);
    assert.equal(await chips.getByText("@server/", { exact: true }).count(), 1);
    assert.match(
      await chat.page.getByRole("status").filter({ hasText: "Not mentioned" }).innerText(),
      /file:\/\/\/etc\/passwd" is outside the workspace folders/,
    );
    // A tab dragged alone (VS Code's codeeditors and text/uri-list only) is taken too.
    await chat.clearPosted();
    await dropResources(chat, {
      codeeditors: JSON.stringify([{ resource: `${WORKSPACE_URI}/src/server.ts` }]),
      "text/uri-list": `${WORKSPACE_URI}/src/server.ts`,
    });
    const [tab] = await chat.postedOf("mention/paths");
    assert.deepEqual(tab?.items, [`${WORKSPACE_URI}/src/server.ts`]);
    await chat.send([
      { type: "mention/pathsResolved", requestId: tab!.requestId, origin: "drop", refs: [{ kind: "file", path: "src/server.ts" }], refused: [] },
    ]);
    assert.equal(await input().inputValue(), "look at @server/config.ts @server/ @src/server.ts ");
    assert.equal(await chat.page.getByText("Not mentioned").count(), 0, "a clean drop clears the note");
    await chat.clearPosted();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual((await chat.postedOf("chat/send"))[0]?.mentions, [
      { kind: "file", path: "server/config.ts" },
      { kind: "folder", path: "server" },
      { kind: "file", path: "src/server.ts" },
    ]);
  });

  it("a web link dropped on the composer is not taken as a file", async () => {
    await input().click();
    await chat.clearPosted();
    const took = await dropResources(chat, { "text/uri-list": "https://example.com/page", "text/plain": "https://example.com/page" });
    assert.equal(took.dropped, false, "the textarea's own drop inserts the link's text");
    assert.deepEqual(await chat.postedOf("mention/paths"), []);
  });

  it("a pasted path that exists is pasted as it is, then offered as a mention, by keyboard", async () => {
    await input().click();
    await input().pressSequentially("why does ");
    await chat.clearPosted();
    assert.equal(await pasteText(chat, "server/config.ts"), false, "the paste is never blocked");
    assert.equal(await input().inputValue(), "why does server/config.ts", "nor altered");
    const [asked] = await chat.postedOf("mention/paths");
    assert.deepEqual(asked && { origin: asked.origin, items: asked.items }, { origin: "paste", items: ["server/config.ts"] });
    await chat.send([
      { type: "mention/pathsResolved", requestId: asked!.requestId, origin: "paste", refs: [{ kind: "file", path: "server/config.ts" }], refused: [] },
    ]);
    const offer = chat.page.getByRole("group", { name: "Pasted path" });
    assert.match(await offer.innerText(), /Mention server\/config\.ts\?/);
    await input().pressSequentially(" fail");
    // Tab from the box reaches the offer's button; Enter takes it.
    await chat.page.keyboard.press("Tab");
    assert.equal(await chat.page.evaluate(() => document.activeElement?.textContent), "Mention it");
    await chat.page.keyboard.press("Enter");
    assert.equal(await input().inputValue(), "why does @server/config.ts fail");
    assert.equal(await offer.count(), 0);
    assert.equal(await chat.page.getByRole("list", { name: "Mentioned" }).getByText("@server/config.ts").count(), 1);
    assert.equal(await focusReaches(input()), true, "the focus goes back to the box");
    await chat.page.keyboard.press("Control+z");
    assert.equal(await input().inputValue(), "why does server/config.ts fail", "taking it is one undoable edit");

    // Text that is not a path is not asked about; a path the host does not find offers nothing.
    await input().fill("");
    await chat.clearPosted();
    await pasteText(chat, "hello there, how are you");
    assert.deepEqual(await chat.postedOf("mention/paths"), []);
    await pasteText(chat, " src/missing.ts");
    const [missing] = await chat.postedOf("mention/paths");
    await chat.send([
      { type: "mention/pathsResolved", requestId: missing!.requestId, origin: "paste", refs: [], refused: ['"src/missing.ts" does not exist'] },
    ]);
    assert.equal(await offer.count(), 0);
    assert.equal(await chat.page.getByText("Not mentioned").count(), 0, "a paste that is not a path is not an error");
  });

  it("one file's problems: @problems:path rows from the host are taken as that file's problems", async () => {
    await input().click();
    await input().pressSequentially("fix @problems:conf");
    const [query] = (await chat.postedOf("mention/query")).slice(-1);
    assert.equal(query?.query, "problems:conf");
    await chat.send([
      {
        type: "mention/results",
        requestId: query!.requestId,
        options: [{ ref: { kind: "problems", path: "server/config.ts" }, label: "problems:server/config.ts", detail: "1 error, 0 warnings in this file" }],
        indexing: false,
        truncated: false,
      },
    ]);
    assert.match(await options().first().innerText(), /@problems:server\/config\.ts\s+1 error, 0 warnings in this file/);
    await chat.page.keyboard.press("Enter");
    assert.equal(await input().inputValue(), "fix @problems:server/config.ts ");
    await chat.clearPosted();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual((await chat.postedOf("chat/send"))[0]?.mentions, [{ kind: "problems", path: "server/config.ts" }]);
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
