// An edit waiting for approval, hunk by hunk, from the keyboard: each hunk's Accept / Reject are
// toggle buttons in the Tab order, every choice is announced and posted to the host, the card
// draws the host's record (the editor's choices too), Allow says how many hunks it writes
// and posts exactly the rejected ones (with the reason typed), every hunk rejected leaves only
// Deny, a one-hunk edit has no per-hunk buttons, and the decided card names what was not written.
import * as assert from "node:assert/strict";
import { type ChatPage, useChatPage } from "./harness";
import { heard, listen } from "./live-heard";
import { SAMPLE_CHANGE, Script, THREE_HUNK_CHANGE, toolCall } from "./script";

const focusedName = (chat: ChatPage) =>
  chat.page.evaluate(() => {
    const el = document.activeElement;
    return el?.getAttribute("aria-label") ?? el?.childNodes[0]?.textContent?.trim() ?? "";
  });

/**
 * Where the focus is once it has reached `expected`: a box that takes the focus does so in an
 * effect after its render, so a busy machine may not have moved it yet when the key returns. If it
 * never gets there, says where it is instead.
 */
async function focusSettlesOn(chat: ChatPage, expected: string): Promise<string> {
  try {
    await chat.page.waitForFunction((name) => {
      const el = document.activeElement;
      return (el?.getAttribute("aria-label") ?? el?.childNodes[0]?.textContent?.trim() ?? "") === name;
    }, expected);
  } catch {
    // The page's own time-out: the assertion says where the focus went.
  }
  return focusedName(chat);
}

/** Waits until the live regions have said `count` things (an announcement made in an effect after a redraw). */
async function heardSettles(chat: ChatPage, count: number): Promise<void> {
  await chat.page.waitForFunction((n) => window.__heard.length >= n, count);
}

async function pendingEdit(chat: ChatPage, id: string, diff = THREE_HUNK_CHANGE): Promise<void> {
  const script = new Script()
    .start()
    .user("Change the settings.")
    .assistant([toolCall(id, "edit_file", { path: "src/settings.ts" })])
    .toolStart(id, "edit_file", { path: "src/settings.ts" })
    .raw({ type: "approval/request", toolCallId: id, toolName: "edit_file", path: "src/settings.ts", diff });
  await chat.events(script.take());
}

describe("hunk review on the edit card", function () {
  const page = useChatPage();
  let chat: ChatPage;
  beforeEach(() => {
    chat = page();
  });

  it("by keyboard: reject hunk 2, give a reason, Alt+A posts the rejected hunk and the reason", async () => {
    await pendingEdit(chat, "e1");
    const card = chat.page.locator('.tool[data-item="e1"]');
    assert.equal(await card.getByRole("group", { name: /^Hunk \d of 3$/ }).count(), 3, "one Accept/Reject pair per hunk");
    await listen(chat);
    // Alt+Shift+A goes to the waiting approval (its Allow); Shift+Tab walks back through the hunks.
    await chat.page.keyboard.press("Alt+Shift+A");
    assert.equal(await focusSettlesOn(chat, "Allow"), "Allow");
    const back: string[] = [];
    for (let i = 0; i < 5; i++) {
      await chat.page.keyboard.press("Shift+Tab");
      back.push(await focusedName(chat));
    }
    assert.deepEqual(back, ["Reason for denying (optional)", "Reject hunk 3", "Accept hunk 3", "Edit hunk 3", "Reject hunk 2"]);
    await chat.clearPosted();
    await chat.page.keyboard.press("Space");
    // The choice goes to the host, which keeps the one record the editor shows too; its answer redraws the card.
    assert.deepEqual(await chat.postedOf("approval/hunk"), [{ type: "approval/hunk", v: 1, toolCallId: "e1", hunk: 1, accept: false }]);
    await chat.events([{ type: "approval/hunks", toolCallId: "e1", rejectedHunks: [1] }]);
    const reject2 = card.getByRole("button", { name: "Reject hunk 2" });
    assert.equal(await reject2.getAttribute("aria-pressed"), "true");
    assert.equal(await card.getByRole("button", { name: "Accept hunk 2" }).getAttribute("aria-pressed"), "false");
    assert.equal(await card.locator(".diff-rejected.diff-add").count(), 1, "hunk 2's added line is struck through");
    assert.deepEqual(await heard(chat), ["polite: Hunk 2 rejected. Allow writes 2 of 3 hunks."]);
    assert.equal(await card.locator('button[data-decision="allow"]').evaluate((b) => b.childNodes[0]?.textContent), "Allow 2 of 3 hunks");

    // Back to the reason box (it now asks why these hunks are rejected), then Alt+A from inside the card.
    for (let i = 0; i < 4; i++) await chat.page.keyboard.press("Tab");
    assert.equal(await focusSettlesOn(chat, "Reason for rejecting hunks (optional)"), "Reason for rejecting hunks (optional)");
    await chat.page.keyboard.type("keep the old name");
    await chat.clearPosted();
    await chat.page.keyboard.press("Alt+A");
    assert.deepEqual(await chat.postedOf("approval/decide"), [
      { type: "approval/decide", v: 1, toolCallId: "e1", decision: "allow", reason: "keep the old name", rejectedHunks: [1] },
    ]);

    // The host's answer: the card says it was partly allowed and names the hunk not written.
    await chat.events([{ type: "approval/decided", toolCallId: "e1", decision: "allowed", reason: "keep the old name", rejectedHunks: [1] }]);
    assert.equal(await card.locator(".decision-allowed").innerText(), "Partly allowed");
    assert.equal(await card.locator(".approval-reason").innerText(), "Hunk 2 rejected, not written: keep the old name");
    assert.equal(await card.getByRole("button", { name: /hunk/i }).count(), 0, "no hunk buttons once decided");
  });

  it("the card follows the host's record (a choice made in the editor, announced), and Allow with every hunk accepted posts no hunk list", async () => {
    await pendingEdit(chat, "e2");
    const card = chat.page.locator('.tool[data-item="e2"]');
    await card.getByRole("button", { name: "Reject hunk 1" }).click();
    await chat.events([{ type: "approval/hunks", toolCallId: "e2", rejectedHunks: [0] }]);
    assert.equal(await card.getByRole("button", { name: "Accept hunk 1" }).getAttribute("aria-pressed"), "false");
    await chat.clearPosted();
    await listen(chat);
    await card.getByRole("button", { name: "Accept hunk 1" }).press("Enter");
    assert.deepEqual(await chat.postedOf("approval/hunk"), [{ type: "approval/hunk", v: 1, toolCallId: "e2", hunk: 0, accept: true }]);
    await chat.events([{ type: "approval/hunks", toolCallId: "e2", rejectedHunks: [] }]);
    assert.equal(await card.getByRole("button", { name: "Accept hunk 1" }).getAttribute("aria-pressed"), "true");
    assert.deepEqual(await heard(chat), ["polite: Hunk 1 accepted. Allow writes all 3 hunks."], "the host confirming the card's own choice is not said again");
    // Hunk 3 rejected in the editor: the card shows it and says so, with no click of its own.
    await chat.events([{ type: "approval/hunks", toolCallId: "e2", rejectedHunks: [2] }]);
    assert.equal(await card.getByRole("button", { name: "Reject hunk 3" }).getAttribute("aria-pressed"), "true");
    assert.equal(await card.locator('button[data-decision="allow"]').evaluate((b) => b.childNodes[0]?.textContent), "Allow 2 of 3 hunks");
    await heardSettles(chat, 2);
    await chat.events([{ type: "approval/hunks", toolCallId: "e2", rejectedHunks: [] }]);
    await heardSettles(chat, 3);
    assert.deepEqual((await heard(chat)).slice(1), [
      "polite: In the editor: hunk 3 rejected. Allow writes 2 of 3 hunks.",
      "polite: In the editor: hunk 3 accepted. Allow writes all 3 hunks.",
    ]);
    await chat.clearPosted();
    await card.getByRole("button", { name: "Allow", exact: true }).click();
    assert.deepEqual(await chat.postedOf("approval/decide"), [{ type: "approval/decide", v: 1, toolCallId: "e2", decision: "allow" }]);
  });

  it("Alt+A right after a choice, before the host's answer, allows what the card shows", async () => {
    await pendingEdit(chat, "e5");
    const card = chat.page.locator('.tool[data-item="e5"]');
    await chat.clearPosted();
    await card.getByRole("button", { name: "Reject hunk 3" }).press("Space");
    assert.equal(await card.getByRole("button", { name: "Reject hunk 3" }).getAttribute("aria-pressed"), "true", "shown at once");
    await chat.page.keyboard.press("Alt+A");
    assert.deepEqual(
      (await chat.posted()).filter((m) => m.type === "approval/hunk" || m.type === "approval/decide"),
      [
        { type: "approval/hunk", v: 1, toolCallId: "e5", hunk: 2, accept: false },
        { type: "approval/decide", v: 1, toolCallId: "e5", decision: "allow", rejectedHunks: [2] },
      ],
    );
  });

  it("edit before accepting, by keyboard: Edit hunk 2 opens its lines, Ctrl+Enter saves them; Allow sends the edited hunk", async () => {
    await pendingEdit(chat, "e6");
    const card = chat.page.locator('.tool[data-item="e6"]');
    await listen(chat);
    await card.getByRole("button", { name: "Edit hunk 2" }).press("Enter");
    const box = card.getByRole("textbox", { name: "Hunk 2, as it will be written" });
    assert.equal(await focusSettlesOn(chat, "Hunk 2, as it will be written"), "Hunk 2, as it will be written", "the box takes the focus");
    assert.equal(await box.inputValue(), "b17\nb18\nb19\nname = new\nb21\nb22\nb23", "the hunk's lines as Pi would write them");
    // Escape leaves it unchanged and the focus goes back to the Edit button.
    await chat.page.keyboard.press("Escape");
    assert.equal(await focusSettlesOn(chat, "Edit hunk 2"), "Edit hunk 2");
    await chat.page.keyboard.press("Enter");
    await box.fill("b17\nb18\nb19\nname = mine\nb21\nb22\nb23");
    await chat.clearPosted();
    await chat.page.keyboard.press("Control+Enter");
    assert.deepEqual(await chat.postedOf("approval/editHunk"), [
      { type: "approval/editHunk", v: 1, toolCallId: "e6", hunk: 1, text: "b17\nb18\nb19\nname = mine\nb21\nb22\nb23" },
    ]);
    assert.equal(await focusSettlesOn(chat, "Edit hunk 2"), "Edit hunk 2");
    assert.deepEqual(await heard(chat), ["polite: Hunk 2 edited: Allow writes your text there."]);
    await chat.events([
      { type: "approval/hunks", toolCallId: "e6", rejectedHunks: [], editedHunks: [{ hunk: 1, text: "b17\nb18\nb19\nname = mine\nb21\nb22\nb23" }] },
    ]);
    assert.match(await card.locator(".hunk-edited").innerText(), /Hunk 2 is written as your text:\s+b17/);
    await chat.page.keyboard.press("Alt+A");
    assert.deepEqual(await chat.postedOf("approval/decide"), [{ type: "approval/decide", v: 1, toolCallId: "e6", decision: "allow", editedHunks: [1] }]);
  });

  it("every hunk rejected: Allow is off and Alt+A posts nothing; Alt+D denies the whole edit", async () => {
    await pendingEdit(chat, "e3");
    const card = chat.page.locator('.tool[data-item="e3"]');
    for (const n of [1, 2, 3]) await card.getByRole("button", { name: `Reject hunk ${n}` }).click();
    await chat.events([{ type: "approval/hunks", toolCallId: "e3", rejectedHunks: [0, 1, 2] }]);
    assert.equal(await card.locator('button[data-decision="allow"]').isDisabled(), true);
    assert.equal(await card.locator('button[data-decision="allowForChat"]').isDisabled(), true);
    await chat.clearPosted();
    await card.getByRole("button", { name: "Reject hunk 3" }).focus();
    await chat.page.keyboard.press("Alt+A");
    await chat.quiet();
    assert.deepEqual(await chat.postedOf("approval/decide"), [], "nothing to allow");
    await chat.page.keyboard.press("Alt+D");
    assert.deepEqual(await chat.postedOf("approval/decide"), [{ type: "approval/decide", v: 1, toolCallId: "e3", decision: "deny" }]);
  });

  it("a one-hunk edit has no Accept / Reject per hunk (Allow and Deny are that choice), only its Edit", async () => {
    await pendingEdit(chat, "e4", SAMPLE_CHANGE);
    const card = chat.page.locator('.tool[data-item="e4"]');
    assert.equal(await card.getByRole("button", { name: /^(Accept|Reject) hunk/ }).count(), 0);
    assert.equal(await card.getByRole("button", { name: "Edit hunk 1" }).count(), 1);
    assert.equal(await card.getByRole("button", { name: "Allow", exact: true }).count(), 1);
  });
});
