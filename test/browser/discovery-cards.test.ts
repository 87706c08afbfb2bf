// The discovery tools' cards: what was asked, how many results, and results that open the file
// (at the line, for search) when clicked; folders of a listing are not links.
import * as assert from "node:assert/strict";
import { type ChatPage, useChatPage } from "./harness";
import { Script, toolCall } from "./script";

describe("discovery cards (search, find_files, list_files)", function () {
  const page = useChatPage();
  let chat: ChatPage;
  beforeEach(() => {
    chat = page();
  });

  it("search: the query, the count, and each match opening its file at its line", async () => {
    const args = { query: "port", include: "**/*.ts" };
    const details = {
      query: "port",
      regex: false,
      caseSensitive: false,
      include: "**/*.ts",
      path: ".",
      matches: [
        { path: "api/src/config.ts", line: 3, column: 3, text: "port: 3000," },
        { path: "web/src/main.ts", line: 12, column: 9, text: "listen(port);" },
      ],
      total: 130,
      incomplete: false,
      truncated: true,
      engine: "ripgrep",
    };
    const script = new Script()
      .start()
      .user("Where is the port configured?")
      .assistant([toolCall("s1", "search", args)])
      .toolStart("s1", "search", args)
      .toolEnd("s1", "search", { text: "api/src/config.ts:3:3: port: 3000,\nweb/src/main.ts:12:9: listen(port);", details })
      .end();
    await chat.events(script.take());
    const card = chat.page.locator('.tool[data-item="s1"]');
    assert.equal(await card.locator(".tool-arg").innerText(), '"port" (**/*.ts)');
    assert.equal(await card.locator(".discovery-count").innerText(), "130 matches");
    assert.equal(await card.locator(".discovery-row").count(), 2);
    assert.deepEqual(await card.locator(".discovery-link").allInnerTexts(), ["api/src/config.ts:3", "web/src/main.ts:12"]);
    assert.deepEqual(await card.locator(".discovery-text").allInnerTexts(), ["port: 3000,", "listen(port);"]);
    await chat.clearPosted();
    await card.locator(".discovery-link").nth(1).click();
    assert.deepEqual(await chat.posted(), [{ type: "editor/openFile", v: 1, path: "web/src/main.ts", line: 12 }]);
  });

  it("find_files and list_files: files are links, folders are not", async () => {
    const script = new Script()
      .start()
      .user("What is there?")
      .assistant([toolCall("f1", "find_files", { pattern: "*.json" }), toolCall("l1", "list_files", { path: "api" })])
      .toolStart("f1", "find_files", { pattern: "*.json" })
      .toolEnd("f1", "find_files", {
        text: "package.json",
        details: { pattern: "*.json", path: ".", files: ["package.json", "api/tsconfig.json"], total: 2, truncated: false },
      })
      .toolStart("l1", "list_files", { path: "api" })
      .toolEnd("l1", "list_files", {
        text: "src/\n  config.ts",
        details: {
          path: "api",
          depth: 3,
          entries: [
            { path: "api/src", type: "directory" },
            { path: "api/src/config.ts", type: "file" },
          ],
          total: 40,
          truncated: true,
        },
      })
      .end();
    await chat.events(script.take());
    const find = chat.page.locator('.tool[data-item="f1"]');
    assert.equal(await find.locator(".tool-arg").innerText(), "*.json");
    assert.equal(await find.locator(".discovery-count").innerText(), "2 files");
    assert.deepEqual(await find.locator(".discovery-link").allInnerTexts(), ["package.json", "api/tsconfig.json"]);
    const list = chat.page.locator('.tool[data-item="l1"]');
    assert.equal(await list.locator(".tool-arg").innerText(), "api");
    assert.equal(await list.locator(".discovery-count").innerText(), "2 entries of 40");
    assert.deepEqual(await list.locator(".discovery-folder").allInnerTexts(), ["api/src/"]);
    assert.deepEqual(await list.locator(".discovery-link").allInnerTexts(), ["api/src/config.ts"]);
    await chat.clearPosted();
    await list.locator(".discovery-link").click();
    await find.locator(".discovery-link").first().click();
    assert.deepEqual(await chat.posted(), [
      { type: "editor/openFile", v: 1, path: "api/src/config.ts" },
      { type: "editor/openFile", v: 1, path: "package.json" },
    ]);
  });
});
