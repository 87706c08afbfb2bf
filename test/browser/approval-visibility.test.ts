// Approval cards show all of what runs, in the real webview bundle: characters a reader cannot
// see (bidi overrides, zero-width, line separators) are shown as their escapes on command and MCP
// cards, and MCP arguments the host folded for the card open whole with a "Show all" button a
// keyboard reaches and a screen reader can name.
import * as assert from "node:assert/strict";
import { cardArguments } from "../../src/core/mcp/gate";
import { type ChatPage, useChatPage } from "./harness";
import { Script, toolCall } from "./script";

/** Any character the cards must never show raw. */
const HIDDEN = /[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2028\u2029\ufeff]/;

describe("approval cards show all of what runs", function () {
  const page = useChatPage();
  let chat: ChatPage;
  beforeEach(() => {
    chat = page();
  });

  it("a command with a bidi override, a zero-width space and a line separator shows each as its escape", async () => {
    // Shown raw, U+202E turns "txt.exe" around so the line reads as if it ended in ".txt".
    const command = "cat notes\u202Etxt.exe && echo a\u2028b\u200B";
    const script = new Script()
      .start()
      .user("Go")
      .assistant([toolCall("cmd-bidi", "run_command", { command })])
      .toolStart("cmd-bidi", "run_command", { command })
      .raw({ type: "approval/request", toolCallId: "cmd-bidi", toolName: "run_command", command, cwd: ".", suggestedRules: [] });
    await chat.events(script.take());
    const card = chat.page.locator('.command-card[data-item="cmd-bidi"]');
    const line = await card.locator(".command-line").innerText();
    assert.equal(line, "$ cat notes\\u202Etxt.exe && echo a\\u2028b\\u200B");
    assert.doesNotMatch(line, HIDDEN);
    assert.deepEqual(await card.locator(".command-line .hidden-char").allInnerTexts(), ["\\u202E", "\\u2028", "\\u200B"]);
    assert.equal(await card.locator(".hidden-char").first().getAttribute("title"), "Invisible character U+202E");
    const label = (await card.getAttribute("aria-label")) ?? "";
    assert.match(label, /notes\\u202Etxt\.exe/);
    assert.doesNotMatch(label, HIDDEN);
    // Allowed by a rule holding the same characters: the decision line shows them as escapes too.
    await chat.events(script.raw({ type: "approval/decided", toolCallId: "cmd-bidi", decision: "allowed", rule: "cat notes\u202Etxt.exe" }).take());
    assert.equal(await card.locator(".command-decision code").innerText(), "cat notes\\u202Etxt.exe");
  });

  it("an MCP tool and server named with hidden characters show them as escapes, on the card and its button", async () => {
    const server = "every\u200Bthing";
    const tool = "read\u202Efdp.exe";
    const name = `mcp__${server}__${tool}`;
    const script = new Script()
      .start()
      .user("Go")
      .assistant([toolCall("mcp-bidi", name, { path: "a" })])
      .toolStart("mcp-bidi", name, { path: "a" })
      .raw({
        type: "approval/request",
        toolCallId: "mcp-bidi",
        toolName: name,
        mcp: { server, tool, arguments: cardArguments({ path: "a" }), annotations: [] },
      });
    await chat.events(script.take());
    const card = chat.page.locator('.mcp-card[data-item="mcp-bidi"]');
    const head = await card.locator(".tool-name").innerText();
    assert.equal(head, "every\\u200Bthing / read\\u202Efdp.exe");
    assert.doesNotMatch((await card.innerText()) + ((await card.getAttribute("aria-label")) ?? ""), HIDDEN);
    assert.equal(await card.getByRole("button", { name: "Always allow every\\u200Bthing/read\\u202Efdp.exe in this workspace" }).count(), 1);
  });

  it("MCP arguments folded at 400 characters open whole with Show all, from the keyboard, and fold again", async () => {
    const long = `${"a".repeat(399)}TAIL-${"b".repeat(600)}-END`;
    const args = { text: long, note: "short" };
    const script = new Script()
      .start()
      .user("Go")
      .assistant([toolCall("mcp-long", "mcp__docs__write", args)])
      .toolStart("mcp-long", "mcp__docs__write", args)
      .raw({
        type: "approval/request",
        toolCallId: "mcp-long",
        toolName: "mcp__docs__write",
        mcp: { server: "docs", tool: "write", arguments: cardArguments(args), annotations: [] },
      });
    await chat.events(script.take());
    const card = chat.page.locator('.mcp-card[data-item="mcp-long"]');
    const pre = card.locator(".mcp-arguments");
    assert.doesNotMatch(await pre.innerText(), /-END/, "the host folded the long value");
    const whole = JSON.stringify(args, null, 2);
    const button = card.getByRole("button", { name: `Show all arguments (${whole.length.toLocaleString("en-US")} characters)` });
    assert.equal(await button.getAttribute("aria-expanded"), "false");
    assert.equal(await button.getAttribute("aria-controls"), await pre.getAttribute("id"));
    await button.focus();
    await chat.page.keyboard.press("Enter");
    assert.equal(await pre.innerText(), whole);
    const fold = card.getByRole("button", { name: "Fold long values again" });
    assert.equal(await fold.getAttribute("aria-expanded"), "true");
    await chat.page.keyboard.press("Space");
    assert.doesNotMatch(await pre.innerText(), /-END/);
  });
});
