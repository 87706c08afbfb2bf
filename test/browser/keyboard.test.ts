// Keyboard and focus: the focus goes somewhere useful after every action that removes it
// (Allow, Deny, a chat switch, New chat, closing the history, Stop once the run ends, a removed
// chip or image, a branch switch, Compact now, Escape in the edit box, Jump to latest; never
// <body>), the meter's details keep the Tab inside, a waiting approval is one
// keystroke (or one command) away, Allow/Deny have shortcuts, and the history dialog keeps
// the focus inside and answers arrow keys, Home/End and type-ahead.
import * as assert from "node:assert/strict";
import type { QueuedInput } from "../../src/shared/protocol";
import { makePng } from "../support/png";
import { type ChatPage, useChatPage } from "./harness";
import { SAMPLE_CHANGE, Script, stateOf, toolCall } from "./script";

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

  it("Alt+A and Alt+D answer the first card waiting from the message box too; with none waiting they do nothing", async () => {
    await pendingEdits(chat, ["f", "g"]);
    const box = chat.page.getByRole("textbox", { name: "Message to Pi" });
    await box.focus();
    await chat.page.keyboard.press("Alt+A");
    assert.deepEqual(
      (await chat.postedOf("approval/decide")).map((m) => [m.toolCallId, m.decision]),
      [["f", "allow"]],
    );
    await box.focus();
    await chat.page.keyboard.press("Alt+D");
    assert.deepEqual(
      (await chat.postedOf("approval/decide")).map((m) => [m.toolCallId, m.decision]),
      [
        ["f", "allow"],
        ["g", "deny"],
      ],
    );
    await chat.clearPosted();
    await chat.snapshot();
    await box.focus();
    await box.fill("draft");
    await chat.page.keyboard.press("Alt+A");
    assert.deepEqual(await chat.postedOf("approval/decide"), [], "no card waits: nothing is decided");
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

/** A chat of thirty short turns: taller than the view, so it can be scrolled away from the end. */
function thirtyTurns() {
  const script = new Script();
  for (let turn = 0; turn < 30; turn++)
    script
      .start()
      .user(`Question ${turn}`)
      .assistant([{ type: "text", text: `Answer ${turn}` }])
      .end();
  return stateOf(script.take());
}

/** A run_command call waiting for its approval (with a rule to offer). */
const askToRun = (script: Script, id: string, command: string) =>
  script
    .toolStart(id, "run_command", { command })
    .raw({ type: "approval/request", toolCallId: id, toolName: "run_command", command, cwd: ".", suggestedRules: [command] });

function queued(id: string, text: string): QueuedInput {
  return { id, kind: "followUp", text, attachments: [], imageCount: 0 };
}

/** Where the focus is: the element's tag and name, and the card or group it is in; "BODY" when it fell to the page. */
const at = (chat: ChatPage) =>
  chat.page.evaluate(() => {
    const el = document.activeElement;
    return {
      tag: el?.tagName ?? "",
      name: el?.getAttribute("aria-label") ?? el?.childNodes[0]?.textContent?.trim() ?? "",
      card: el?.closest("[data-item]")?.getAttribute("data-item") ?? null,
    };
  });

const COMPOSER = { tag: "TEXTAREA", name: "Message to Pi", card: null };

describe("focus never falls to <body> (one rule: the same card's next control, the next approval, else the composer)", function () {
  const page = useChatPage();
  let chat: ChatPage;
  beforeEach(() => {
    chat = page();
  });

  it("a command card's Allow, Always allow, Enter in its reason box and Deny: the next waiting approval, then the composer", async () => {
    const script = new Script()
      .start()
      .user("Run them.")
      .assistant(["c1", "c2", "c3", "c4"].map((id) => toolCall(id, "run_command", { command: `npm run ${id}` })));
    for (const id of ["c1", "c2", "c3", "c4"]) askToRun(script, id, `npm run ${id}`);
    await chat.events(script.take());
    const card = (id: string) => chat.page.locator(`.command-card[data-item="${id}"]`);
    await card("c1").getByRole("button", { name: "Allow", exact: true }).focus();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await at(chat), { tag: "BUTTON", name: "Allow", card: "c2" }, "Allow: the next command waiting");
    await card("c2").getByRole("button", { name: "Always allow in this workspace" }).focus();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await at(chat), { tag: "BUTTON", name: "Allow", card: "c3" }, "Always allow: the next one (c1's answer is not back yet)");
    await chat.events([{ type: "approval/decided", toolCallId: "c1", decision: "allowed" }]);
    const reason = card("c3").getByRole("textbox", { name: /reason/i });
    await reason.fill("not this one");
    await reason.press("Enter");
    assert.deepEqual(await at(chat), { tag: "BUTTON", name: "Allow", card: "c4" }, "Enter in the reason box: the next one");
    await card("c4").getByRole("button", { name: "Deny", exact: true }).focus();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await at(chat), COMPOSER, "Deny on the last: the composer");
    await chat.events([
      { type: "approval/decided", toolCallId: "c2", decision: "allowed", rule: "npm" },
      { type: "approval/decided", toolCallId: "c3", decision: "denied", reason: "not this one" },
      { type: "approval/decided", toolCallId: "c4", decision: "denied" },
    ]);
    assert.deepEqual(await at(chat), COMPOSER, "and it stays there when the cards stop asking");
    assert.deepEqual(
      (await chat.postedOf("approval/decide")).map((m) => [m.toolCallId, m.decision]),
      [
        ["c1", "allow"],
        ["c2", "allowAlways"],
        ["c3", "deny"],
        ["c4", "deny"],
      ],
    );
  });

  it("a waiting command is reached as its announcement says (Alt+Shift+A), and Alt+A / Alt+D answer it", async () => {
    const script = new Script()
      .start()
      .user("Run them.")
      .assistant(["k1", "k2"].map((id) => toolCall(id, "run_command", { command: `npm run ${id}` })));
    for (const id of ["k1", "k2"]) askToRun(script, id, `npm run ${id}`);
    await chat.events(script.take());
    await chat.page.getByRole("textbox", { name: "Message to Pi" }).focus();
    await chat.page.keyboard.press("Alt+Shift+A");
    assert.deepEqual(await at(chat), { tag: "BUTTON", name: "Allow", card: "k1" }, "Alt+Shift+A: the first command waiting");
    await chat.page.keyboard.press("Alt+A");
    assert.deepEqual(await at(chat), { tag: "BUTTON", name: "Allow", card: "k2" }, "Alt+A allowed it: the next one");
    await chat.page.keyboard.press("Alt+D");
    assert.deepEqual(await at(chat), COMPOSER, "Alt+D denied the last: the composer");
    assert.deepEqual(
      (await chat.postedOf("approval/decide")).map((m) => [m.toolCallId, m.decision]),
      [
        ["k1", "allow"],
        ["k2", "deny"],
      ],
    );
  });

  it("Stop in the composer, once the run ends: the composer", async () => {
    await chat.events(new Script().start().user("Go").take());
    await chat.page.getByRole("button", { name: "Stop", exact: true }).focus();
    await chat.page.keyboard.press("Enter");
    await chat.events(
      new Script()
        .assistant([{ type: "text", text: "Stopped here" }], { extra: { stopReason: "aborted" } })
        .end()
        .take(),
    );
    assert.deepEqual(await at(chat), COMPOSER);
  });

  it("Stop the command on its card, once the run ends: the same card's next control", async () => {
    const script = new Script()
      .start()
      .user("Test.")
      .assistant([toolCall("cmd", "run_command", { command: "npm test" })])
      .toolStart("cmd", "run_command", { command: "npm test" })
      .raw({ type: "tool/progress", toolCallId: "cmd", details: { progress: { tail: ["> test"], lines: 1, elapsedMs: 500 } } });
    await chat.events(script.take());
    await chat.page.getByRole("button", { name: "Stop the command" }).focus();
    await chat.page.keyboard.press("Enter");
    await chat.events(
      script
        .toolEnd("cmd", "run_command", {
          text: "$ npm test\nStopped.",
          details: { command: "npm test", cwd: ".", via: "process", end: "stopped", exitCode: null, durationMs: 900, totalLines: 1 },
        })
        .take(),
    );
    assert.deepEqual(await at(chat), { tag: "SUMMARY", name: "Output (1 lines)", card: "cmd" });
  });

  it("Stop on a !command's card, once it ends (the card keeps no control): the composer at once, never <body>", async () => {
    const started = {
      role: "bashExecution",
      command: "sleep 9",
      output: "",
      exitCode: null,
      cancelled: false,
      truncated: false,
      excludeFromContext: false,
      timestamp: 1,
    };
    await chat.events(
      new Script()
        .start()
        .raw({ type: "chat/runState", running: true })
        .agent({ type: "message_start", message: started as never })
        .raw({ type: "command/progress", tail: ["working"], elapsedMs: 300 })
        .take(),
    );
    await chat.page.getByRole("button", { name: "Stop the command" }).focus();
    await chat.page.keyboard.press("Enter");
    await chat.events(
      new Script()
        .agent({ type: "message_end", message: { ...started, output: "working", cancelled: true, durationMs: 400 } as never })
        .raw({ type: "chat/runState", running: false })
        .take(),
    );
    await chat.frames(2);
    assert.deepEqual(await at(chat), COMPOSER);
  });

  it("Stop on Compacting…, once the summary replaces it: the composer at once, never <body>", async () => {
    const script = new Script()
      .start()
      .user("q")
      .assistant([{ type: "text", text: "a" }])
      .raw({ type: "compaction/start", trigger: "manual" });
    await chat.events(script.take());
    await chat.page.locator(".summary-running").getByRole("button", { name: "Stop" }).focus();
    const summary = {
      role: "compactionSummary",
      summary: "s",
      keptMessageCount: 1,
      summarizedMessageCount: 1,
      tokensBefore: 10,
      tokensAfter: 2,
      readFiles: [],
      modifiedFiles: [],
      trigger: "manual",
      timestamp: 10,
    };
    await chat.events(
      script
        .raw({ type: "compaction/end", status: "done" })
        .message(summary as never)
        .end()
        .take(),
    );
    await chat.frames(2);
    assert.deepEqual(await at(chat), COMPOSER);
  });

  it("the view's page getting the focus (VS Code's focus-view command) puts it in the composer", async () => {
    await chat.page.evaluate(() => {
      (document.activeElement as HTMLElement | null)?.blur();
      window.dispatchEvent(new FocusEvent("focus"));
    });
    assert.deepEqual(await at(chat), COMPOSER);
  });

  it("removing a queue chip: the next chip's Remove, after the last one the composer; Send now: the composer", async () => {
    await chat.events(new Script().start().user("Go").take());
    await chat.events([{ type: "queue/changed", kept: false, items: [queued("q1", "first"), queued("q2", "second")] }]);
    await chat.page.getByRole("button", { name: "Remove Follow-up: first" }).focus();
    await chat.page.keyboard.press("Enter");
    await chat.events([{ type: "queue/changed", kept: false, items: [queued("q2", "second")] }]);
    assert.deepEqual(await at(chat), { tag: "BUTTON", name: "Remove Follow-up: second", card: null });
    await chat.page.keyboard.press("Enter");
    await chat.events([{ type: "queue/changed", kept: false, items: [] }]);
    assert.deepEqual(await at(chat), COMPOSER, "the last chip removed");

    await chat.events([{ type: "queue/changed", kept: false, items: [queued("q3", "third")] }]);
    await chat.events([{ type: "queue/changed", kept: true, items: [queued("q3", "third")] }, ...new Script().end().take()]);
    await chat.page.getByRole("button", { name: "Send now" }).focus();
    await chat.page.keyboard.press("Enter");
    await chat.events([{ type: "queue/changed", kept: false, items: [] }, ...new Script().start().user("third").take()]);
    assert.deepEqual(await at(chat), COMPOSER, "Send now");
  });

  it("a branch switch, once the view redraws: the same switcher's other button", async () => {
    const script = new Script();
    script.message({ role: "system", content: "You are Pi Chat." } as never);
    script
      .user("first prompt")
      .assistant([{ type: "text", text: "first answer" }])
      .user("second prompt")
      .assistant([{ type: "text", text: "second answer" }])
      .raw({ type: "branch/forks", from: 0, forks: [{ messageIndex: 3, showAt: 3, index: 0, count: 2 }] });
    await chat.snapshot(stateOf(script.take()));
    await chat.page.getByRole("button", { name: "Next version of this message" }).focus();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.postedOf("branch/switch"), [{ type: "branch/switch", v: 1, messageIndex: 3, to: 1 }]);
    await chat.events([
      { type: "branch/rewind", keep: 3 },
      ...new Script()
        .user("other prompt")
        .assistant([{ type: "text", text: "other answer" }])
        .take(),
      { type: "branch/forks", from: 3, forks: [{ messageIndex: 3, showAt: 3, index: 1, count: 2 }] },
    ]);
    assert.deepEqual(await at(chat), { tag: "BUTTON", name: "Previous version of this message", card: "m3" });
  });

  it("Remove image: the next image's Remove, after the last one the composer", async () => {
    await chat.snapshot(undefined, { status: { imageInput: true } });
    await chat.page.evaluate(
      async (specs) => {
        const data = new DataTransfer();
        for (const s of specs) data.items.add(new File([Uint8Array.from(atob(s.b64), (c) => c.charCodeAt(0))], s.name, { type: "image/png" }));
        document.querySelector("[data-composer-input]")!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
      },
      [
        { name: "a.png", b64: makePng(8, 8, 1).toString("base64") },
        { name: "b.png", b64: makePng(8, 8, 2).toString("base64") },
      ],
    );
    await chat.page.locator(".image-strip .image-thumb").nth(1).waitFor();
    await chat.page.getByRole("button", { name: "Remove image a.png" }).focus();
    await chat.page.keyboard.press("Enter");
    await chat.frames(2);
    assert.deepEqual(await at(chat), { tag: "BUTTON", name: "Remove image b.png", card: null });
    await chat.page.keyboard.press("Enter");
    await chat.frames(2);
    assert.deepEqual(await at(chat), COMPOSER);
  });

  it("Compact now in the meter's details: back on the meter", async () => {
    await chat.events([{ type: "context/meter", meter: METER }]);
    await chat.page.getByTestId("context-meter").focus();
    await chat.page.keyboard.press("Enter");
    const compact = chat.page.getByRole("dialog", { name: "Context and usage" }).getByRole("button", { name: "Compact now" });
    await compact.focus();
    await chat.page.keyboard.press("Enter");
    await chat.frames(2);
    assert.equal(await chat.page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "context-meter");
    assert.deepEqual(await chat.postedOf("workbench/runCommand"), [{ type: "workbench/runCommand", v: 1, command: "compact" }]);
  });

  it("Escape in the edit-message box: back on Edit", async () => {
    await chat.events(
      new Script()
        .start()
        .user("a prompt")
        .assistant([{ type: "text", text: "an answer" }])
        .end()
        .take(),
    );
    await chat.page.getByRole("button", { name: "Edit this message" }).focus();
    await chat.page.keyboard.press("Enter");
    await chat.page.getByRole("textbox", { name: "Edit your message" }).waitFor();
    await chat.page.keyboard.press("Escape");
    await chat.frames(2);
    assert.deepEqual(await at(chat), { tag: "BUTTON", name: "Edit this message", card: "m0" });
  });

  it("Jump to latest: the composer (no approval waits)", async () => {
    await chat.snapshot(thirtyTurns());
    await chat.page.locator(".scroller").evaluate((el) => el.scrollTo({ top: 0 }));
    const jump = chat.page.getByRole("button", { name: "Jump to latest" });
    await jump.waitFor();
    await jump.focus();
    await chat.page.keyboard.press("Enter");
    await chat.frames(2);
    assert.deepEqual(await at(chat), COMPOSER);
  });

  it("sending while scrolled up brings the prompt, and the card Pi then waits on, into sight", async () => {
    await chat.snapshot(thirtyTurns());
    const scroller = chat.page.locator(".scroller");
    await scroller.evaluate((el) => el.scrollTo({ top: 0 }));
    await chat.page.getByRole("button", { name: "Jump to latest" }).waitFor();
    const box = chat.page.getByRole("textbox", { name: "Message to Pi" });
    await box.fill("Change the port.");
    await box.press("Enter");
    assert.equal((await chat.postedOf("chat/send")).length, 1);
    // The host's echo of the prompt, then an edit that waits for the user.
    await chat.events(new Script().start().user("Change the port.").take());
    await pendingEdits(chat, ["late"]);
    await chat.frames(2);
    const inSight = (selector: string) =>
      chat.page.evaluate((sel) => {
        const view = document.querySelector(".scroller")!.getBoundingClientRect();
        const el = Array.from(document.querySelectorAll(sel)).at(-1)?.getBoundingClientRect();
        return el !== undefined && el.bottom > view.top && el.top < view.bottom;
      }, selector);
    assert.equal(await inSight(".item.user"), true, "the prompt just sent is in sight");
    assert.equal(await inSight('[data-approval="pending"]'), true, "the card waiting is in sight");
    assert.equal(await chat.page.getByRole("button", { name: "Jump to latest" }).count(), 0);
  });
});

const METER = {
  tokens: 164_300,
  estimated: false,
  window: 200_000,
  priced: false,
  chat: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: 0 },
};

describe("the meter's details are a real dialog", function () {
  const page = useChatPage();

  it("the meter's name starts with what it shows; Tab stays in the details; Escape returns to the meter; no empty header cell", async () => {
    const chat = page();
    await chat.events([{ type: "context/meter", meter: METER }]);
    const meter = chat.page.getByTestId("context-meter");
    const shown = await meter.innerText();
    assert.equal(shown, "164k / 200k");
    assert.ok(((await meter.getAttribute("aria-label")) ?? "").startsWith(shown), "label in name");
    await meter.focus();
    await chat.page.keyboard.press("Enter");
    const dialog = chat.page.getByRole("dialog", { name: "Context and usage" });
    await dialog.waitFor();
    for (let i = 0; i < 6; i++) {
      await chat.page.keyboard.press(i % 2 === 0 ? "Tab" : "Shift+Tab");
      await chat.page.keyboard.press("Tab");
      assert.equal(await chat.page.evaluate(() => !!document.activeElement?.closest('[role="dialog"]')), true, `Tab ${i} stays inside`);
    }
    const headers = await dialog.locator("th").allTextContents();
    assert.ok(
      headers.every((h) => h.trim() !== ""),
      `every header cell names its column or row: ${JSON.stringify(headers)}`,
    );
    await chat.page.keyboard.press("Escape");
    await chat.frames(2);
    assert.equal(await dialog.count(), 0);
    assert.equal(await chat.page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "context-meter");
  });
});
