// Edit, Retry and the `‹ 2 / 3 ›` switcher in the real webview bundle: what the user clicks
// is what reaches the host, and a rewind from the host redraws only the part below the fork.
import * as assert from "node:assert/strict";
import type { FilesOffer } from "../../src/shared/protocol";
import { type ChatPage, useChatPage } from "./harness";
import { Script, stateOf } from "./script";

function twoTurns(): Script {
  const script = new Script();
  script.message({ role: "system", content: "You are Pi Chat." } as never);
  return script
    .user("first prompt")
    .assistant([{ type: "text", text: "first answer" }])
    .user("second prompt")
    .assistant([{ type: "text", text: "second answer" }]);
}

describe("branches in the webview", function () {
  const page = useChatPage({ snapshot: false });
  let chat: ChatPage;
  beforeEach(() => {
    chat = page();
  });

  it("Edit turns the prompt into a text box; Enter posts editPrompt with its path index; Escape cancels", async () => {
    await chat.snapshot(stateOf(twoTurns().take()));
    const prompt = chat.page.locator(".item.user").nth(1);
    await prompt.hover();
    await prompt.getByRole("button", { name: "Edit this message" }).click();
    const box = chat.page.getByRole("textbox", { name: "Edit your message" });
    assert.equal(await box.inputValue(), "second prompt");
    await box.press("Escape");
    assert.equal(await chat.page.getByRole("textbox", { name: "Edit your message" }).count(), 0);
    await prompt.hover();
    await prompt.getByRole("button", { name: "Edit this message" }).click();
    await chat.page.getByRole("textbox", { name: "Edit your message" }).fill("second prompt, better");
    await chat.clearPosted();
    await chat.page.keyboard.press("Enter");
    // system 0, user 1, answer 2, user 3, answer 4
    assert.deepEqual(await chat.posted(), [{ type: "branch/editPrompt", v: 1, messageIndex: 3, text: "second prompt, better" }]);
  });

  it("Edit of a message with images: each can be left out (a toggle), and Send says which", async () => {
    const script = new Script();
    script.message({ role: "system", content: "You are Pi Chat." } as never);
    script
      .message({
        role: "user",
        content: [
          { type: "text", text: "what is this?" },
          { type: "image", data: "", mimeType: "image/png", blob: "ab".repeat(32) },
          { type: "image", data: "", mimeType: "image/jpeg", blob: "cd".repeat(32) },
        ],
        timestamp: 1,
      } as never)
      .assistant([{ type: "text", text: "an answer" }]);
    await chat.snapshot(stateOf(script.take()));
    const prompt = chat.page.locator(".item.user").first();
    await prompt.hover();
    await prompt.getByRole("button", { name: "Edit this message" }).click();
    const images = chat.page.getByRole("list", { name: "Images of this message" });
    assert.equal(await images.getByRole("listitem").count(), 2);
    const second = images.getByRole("button", { name: "Remove image 2" });
    await second.click();
    assert.equal(await second.getAttribute("aria-pressed"), "true");
    // Pressed twice: kept after all.
    const first = images.getByRole("button", { name: "Remove image 1" });
    await first.click();
    await first.click();
    assert.equal(await first.getAttribute("aria-pressed"), "false");
    await chat.clearPosted();
    await chat.page.locator(".edit-prompt").getByRole("button", { name: "Send" }).click();
    // system 0, user 1
    assert.deepEqual(await chat.posted(), [{ type: "branch/editPrompt", v: 1, messageIndex: 1, text: "what is this?", removeImages: [1] }]);
  });

  it("Restore files to here posts checkpoint/restore with the prompt's path index", async () => {
    await chat.snapshot(stateOf(twoTurns().take()));
    const prompt = chat.page.locator(".item.user").nth(0);
    await prompt.hover();
    await chat.clearPosted();
    await prompt.getByRole("button", { name: "Restore files to before this message" }).click();
    // system 0, user 1
    assert.deepEqual(await chat.posted(), [{ type: "checkpoint/restore", v: 1, messageIndex: 1 }]);
  });

  it("Retry posts the answer's index; the switcher shows the fork and posts the sibling chosen", async () => {
    const events = [...twoTurns().take(), { type: "branch/forks" as const, from: 0, forks: [{ messageIndex: 4, showAt: 4, index: 1, count: 3 }] }];
    await chat.snapshot(stateOf(events));
    const answer = chat.page.locator(".item.assistant").nth(1);
    const switcher = answer.getByRole("group", { name: "answer 2 of 3" });
    assert.equal(await switcher.count(), 1);
    assert.equal((await switcher.textContent())?.replace(/\s+/g, ""), "2/3");
    await chat.clearPosted();
    await switcher.getByRole("button", { name: "Next answer" }).click();
    await switcher.getByRole("button", { name: "Previous answer" }).click();
    await answer.hover();
    await answer.getByRole("button", { name: "Retry this answer" }).click();
    assert.deepEqual(await chat.posted(), [
      { type: "branch/switch", v: 1, messageIndex: 4, to: 2 },
      { type: "branch/switch", v: 1, messageIndex: 4, to: 0 },
      { type: "branch/retry", v: 1, messageIndex: 4 },
    ]);
  });

  const offer = (over: Partial<FilesOffer> = {}): FilesOffer => ({
    id: 7,
    action: "retry",
    messageIndex: 4,
    messageNumber: 2,
    messageText: "second prompt",
    files: [
      { path: "src/a.ts", piDid: "modified" },
      { path: "src/new.ts", piDid: "created" },
    ],
    skipped: [{ path: "src/mine.ts", piDid: "modified", reason: "changed since Pi wrote it (your edit is kept)" }],
    ...over,
  });

  it("Retry of a message with files changed since: the offer shows the preview and takes the keyboard; each choice posts its answer", async () => {
    await chat.snapshot(stateOf(twoTurns().take()));
    await chat.clearPosted();
    await chat.send([{ type: "checkpoint/offer", offer: offer() }]);
    const dialog = chat.page.getByRole("dialog", { name: "Also restore files?" });
    assert.equal(await dialog.count(), 1);
    assert.match((await dialog.textContent()) ?? "", /Pi changed 2 files since message 2 \("second prompt"\)/);
    const changes = dialog.getByRole("list", { name: "Files that will change" });
    assert.deepEqual(
      (await changes.getByRole("listitem").allTextContents()).map((t) => t.replace(/\s+/g, " ").trim()),
      ["src/a.ts modified by Pi, will be put back", "src/new.ts created by Pi, will be deleted"],
    );
    assert.deepEqual(
      (await dialog.getByRole("list", { name: "Files that will be skipped" }).getByRole("listitem").allTextContents()).map((t) =>
        t.replace(/\s+/g, " ").trim(),
      ),
      ["src/mine.ts skipped: changed since Pi wrote it (your edit is kept)"],
    );
    // The keyboard is on the first choice: Enter restores; Tab reaches the others.
    const focused = () => chat.page.evaluate(() => document.activeElement?.textContent ?? "");
    assert.equal(await focused(), "Restore files and retry");
    await chat.page.keyboard.press("Tab");
    assert.equal(await focused(), "Keep files and retry");
    await chat.page.keyboard.press("Enter");
    await changes.getByRole("button", { name: "src/a.ts" }).click();
    assert.deepEqual(await chat.posted(), [
      { type: "checkpoint/answer", v: 1, id: 7, choice: "keep" },
      { type: "checkpoint/openDiff", v: 1, id: 7, path: "src/a.ts" },
    ]);
    // The host takes it away once answered.
    await chat.send([{ type: "checkpoint/offer", offer: null }]);
    assert.equal(await dialog.count(), 0);

    await chat.send([{ type: "checkpoint/offer", offer: offer({ id: 8 }) }]);
    await chat.clearPosted();
    await chat.page.keyboard.press("Enter");
    await chat.send([{ type: "checkpoint/offer", offer: null }]);
    await chat.send([{ type: "checkpoint/offer", offer: offer({ id: 9 }) }]);
    await chat.page.keyboard.press("Escape");
    assert.deepEqual(await chat.posted(), [
      { type: "checkpoint/answer", v: 1, id: 8, choice: "restore" },
      { type: "checkpoint/answer", v: 1, id: 9, choice: "cancel" },
    ]);
  });

  it("Edit of a message with files changed since: Cancel on the offer puts the edited text back in its box", async () => {
    await chat.snapshot(stateOf(twoTurns().take()));
    const prompt = chat.page.locator(".item.user").nth(1);
    await prompt.hover();
    await prompt.getByRole("button", { name: "Edit this message" }).click();
    await chat.page.getByRole("textbox", { name: "Edit your message" }).fill("second prompt, better");
    await chat.page.keyboard.press("Enter");
    assert.equal(await chat.page.getByRole("textbox", { name: "Edit your message" }).count(), 0);
    await chat.clearPosted();
    await chat.send([{ type: "checkpoint/offer", offer: offer({ id: 3, action: "edit", messageIndex: 3, edit: { text: "second prompt, better" } }) }]);
    const dialog = chat.page.getByRole("dialog", { name: "Also restore files?" });
    assert.equal(await dialog.getByRole("button", { name: "Restore files and send" }).count(), 1);
    assert.equal(await dialog.getByRole("button", { name: "Keep files and send" }).count(), 1);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    assert.deepEqual(await chat.posted(), [{ type: "checkpoint/answer", v: 1, id: 3, choice: "cancel" }]);
    const box = chat.page.getByRole("textbox", { name: "Edit your message" });
    assert.equal(await box.inputValue(), "second prompt, better");
  });

  it("a rewind and the replayed branch replace only the messages below the fork; buttons are off while a run goes", async () => {
    await chat.snapshot(stateOf(twoTurns().take()));
    const first = await chat.page.locator(".item.user").first().elementHandle();
    await chat.events([
      { type: "branch/rewind", keep: 3 },
      ...new Script()
        .user("other prompt")
        .assistant([{ type: "text", text: "other answer" }])
        .take(),
      { type: "branch/forks", from: 3, forks: [{ messageIndex: 3, showAt: 3, index: 0, count: 2 }] },
    ]);
    assert.deepEqual(await chat.page.locator(".item.user .user-text").allTextContents(), ["first prompt", "other prompt"]);
    assert.deepEqual(
      (await chat.page.locator(".item.assistant .md").allTextContents()).map((t) => t.trim()),
      ["first answer", "other answer"],
    );
    assert.equal(await first!.evaluate((el) => el.isConnected), true, "the first turn was not redrawn");
    assert.equal(await chat.page.getByRole("group", { name: "version of this message 1 of 2" }).count(), 1);
    await chat.events(new Script().start().take());
    assert.equal(await chat.page.getByRole("button", { name: "Next version of this message" }).isDisabled(), true);
    assert.equal(await chat.page.getByRole("button", { name: "Edit this message" }).first().isDisabled(), true);
  });
});
