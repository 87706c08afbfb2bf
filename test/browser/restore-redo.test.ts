// *Redo changes* stays on a restore's note in the chat (the notification's goes away): a button
// reached with the keyboard that posts `checkpoint/redo` for the note; the edit the restore put
// back reads "undone by a restore", not "applied"; the note is announced with where Redo is; after
// the Redo the note says it is done and the edit reads applied again.
import * as assert from "node:assert/strict";
import type { FilesRestoredMessage } from "../../src/core/messages";
import { useChatPage } from "./harness";
import { Script, toolCall } from "./script";

declare global {
  interface Window {
    __heardRedo: string[];
  }
}

const restore: FilesRestoredMessage = {
  role: "filesRestored",
  messageNumber: 1,
  messageText: "Make x two.",
  redo: false,
  redoMarkId: "mark-before-restore",
  messageIndex: 0,
  restored: ["cp/x.ts"],
  deleted: [],
  skipped: [],
  timestamp: 20,
};

describe("restore's note: Redo in the chat", function () {
  const page = useChatPage();

  it("keeps Redo changes on the note, keyboard reachable and announced; the restored edit no longer reads applied", async () => {
    const chat = page();
    await chat.events(
      new Script()
        .start()
        .user("Make x two.")
        .assistant([toolCall("e1", "edit_file", { path: "cp/x.ts" })])
        .toolStart("e1", "edit_file", { path: "cp/x.ts" })
        .toolEnd("e1", "edit_file", { text: "Edited cp/x.ts.", details: { path: "cp/x.ts", additions: 1, deletions: 1 } })
        .assistant([{ type: "text", text: "Two." }])
        .end()
        .take(),
    );
    const card = chat.page.locator('.tool[data-item="e1"]');
    assert.match(await card.locator(".tool-status").innerText(), /^Applied$/);
    await chat.page.evaluate(() => {
      window.__heardRedo = [];
      for (const region of Array.from(document.querySelectorAll<HTMLElement>("[data-live]"))) {
        new MutationObserver((records) => {
          for (const r of records) for (const node of Array.from(r.addedNodes)) window.__heardRedo.push(node.textContent ?? "");
        }).observe(region, { childList: true });
      }
    });

    await chat.events(new Script().message(restore).take());
    const note = chat.page.locator('[data-item="m4"]');
    assert.match(await note.innerText(), /Files restored to before message 1: 1 file put back/);
    assert.match(await card.locator(".tool-status").innerText(), /^Undone by a restore$/, "the restored edit no longer holds");
    assert.match((await card.getAttribute("aria-label")) ?? "", /undone by a restore/);
    await chat.page.waitForFunction(() => window.__heardRedo.some((t) => t.includes("Files restored to before message 1") && t.includes("Redo changes")));

    // Keyboard: the note's button takes focus; Enter posts the Redo for that note.
    const redo = note.getByRole("button", { name: "Redo changes" });
    await redo.focus();
    assert.equal(await redo.evaluate((el) => el === document.activeElement), true);
    await chat.clearPosted();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.postedOf("checkpoint/redo"), [{ type: "checkpoint/redo", v: 1, messageIndex: 4 }]);

    // The host's Redo note arrives: the first note says it is done, the edit reads applied again.
    await chat.events(new Script().message({ ...restore, redo: true, timestamp: 21 }).take());
    assert.equal(await note.getByRole("button", { name: "Redo changes" }).count(), 0);
    assert.match(await note.innerText(), /Changes redone/);
    assert.match(await card.locator(".tool-status").innerText(), /^Applied$/);
    assert.match(await chat.page.locator('[data-item="m5"]').innerText(), /Redid the changes undone by the restore to message 1/);
  });
});
