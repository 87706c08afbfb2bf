// The changed-files list of Pi's pending changes in the real webview bundle: what the host lists
// (file, +/− lines, whose change, how many the user changed since) with Keep / Undo per file and
// for all, reached and used with the keyboard only (Tab to the list, Up/Down between files, Tab to
// a file's Undo, Enter), each outcome announced, and the list gone once nothing is pending. The
// Since select picks the checkpoint the list counts from, with the keyboard too.
import * as assert from "node:assert/strict";
import type { PendingCheckpoint, PendingFileSummary } from "../../src/shared/protocol";
import { focusReaches, useChatPage } from "./harness";
import { heard, listen } from "./live-heard";

const FILES: PendingFileSummary[] = [
  { path: "src/a.ts", by: "pi", kind: "modified", added: 3, removed: 1, pending: 2, changedByYou: 0 },
  { path: "src/b.ts", by: "command", kind: "created", added: 10, removed: 0, pending: 1, changedByYou: 0 },
  { path: "src/c.ts", by: "both", kind: "modified", added: 1, removed: 2, pending: 2, changedByYou: 1 },
];

describe("pending changes: the changed-files list", function () {
  const page = useChatPage();

  it("is used with the keyboard only: Up/Down between files, Tab to Keep and Undo, each outcome announced", async () => {
    const chat = page();
    await listen(chat);
    await chat.send([{ type: "pending/changes", files: FILES }]);
    // A region named by its heading; the heading says how many files.
    const list = chat.page.getByRole("region", { name: /files? changed/ });
    await chat.page.getByRole("region", { name: /^3 files changed\W+14 lines added, 3 removed$/ }).waitFor();
    assert.match(await list.innerText(), /\+14\s+−3/);
    assert.match(await list.innerText(), /src\/b\.ts\s*\+10 −0\s*created, a command/);
    assert.match(await list.innerText(), /src\/c\.ts\s*\+1 −2\s*Pi and a command, 1 change changed by you since/);

    const files = list.getByRole("button", { name: /Open it to keep or undo/ });
    await files.first().focus();
    assert.ok(await focusReaches(files.first()));
    await chat.page.keyboard.press("ArrowDown");
    assert.ok(await focusReaches(files.nth(1)), "Down goes to the next file");
    await chat.page.keyboard.press("ArrowDown");
    await chat.page.keyboard.press("ArrowDown");
    assert.ok(await focusReaches(files.nth(2)), "Down stops at the last file");
    await chat.page.keyboard.press("ArrowUp");
    assert.ok(await focusReaches(files.nth(1)));

    await chat.clearPosted();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.postedOf("pending/open"), [{ type: "pending/open", v: 1, path: "src/b.ts" }]);
    // Tab: the file's Keep, then its Undo.
    await chat.page.keyboard.press("Tab");
    assert.ok(await focusReaches(list.getByRole("button", { name: "Keep src/b.ts" })));
    await chat.page.keyboard.press("Tab");
    assert.ok(await focusReaches(list.getByRole("button", { name: "Undo src/b.ts" })));
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.postedOf("pending/decide"), [{ type: "pending/decide", v: 1, action: "undo", path: "src/b.ts" }]);

    await chat.send([{ type: "pending/changes", files: FILES.filter((f) => f.path !== "src/b.ts"), said: "Undid 1 change in src/b.ts." }]);
    await chat.page.waitForFunction(() => window.__heard.some((t) => t === "polite: Undid 1 change in src/b.ts."));
    await chat.page.getByRole("region", { name: /^2 files changed/ }).waitFor();

    // Keep all, from the keyboard: the list goes and the outcome is still said.
    await chat.clearPosted();
    const keepAll = chat.page.getByRole("button", { name: "Keep all" });
    await keepAll.focus();
    await chat.page.keyboard.press("Enter");
    assert.deepEqual(await chat.postedOf("pending/decide"), [{ type: "pending/decide", v: 1, action: "keep" }]);
    await chat.send([{ type: "pending/changes", files: [], said: "Kept 3 changes in every file." }]);
    await chat.page.waitForFunction(() => window.__heard.some((t) => t === "polite: Kept 3 changes in every file."));
    assert.equal(await chat.page.locator(".pending-changes").count(), 0);
    assert.ok((await heard(chat)).length >= 2);
  });

  it("the Since select picks an older checkpoint with the keyboard; the list says since which, also when nothing is pending", async () => {
    const chat = page();
    await listen(chat);
    const checkpoints: PendingCheckpoint[] = [
      { markId: "m3", number: 3, text: "Rename the helper" },
      { markId: "m2", number: 2, text: "Add tests" },
      { markId: "m1", number: 1, text: "Fix the parser" },
    ];
    await chat.send([{ type: "pending/changes", files: FILES.slice(0, 1), checkpoints }]);
    const since = chat.page.getByRole("combobox", { name: "Since" });
    await since.waitFor();
    assert.deepEqual(await since.locator("option").allInnerTexts(), [
      'your last message (message 3 ("Rename the helper"))',
      'message 2 ("Add tests")',
      'message 1 ("Fix the parser")',
    ]);
    assert.equal(await since.inputValue(), "m3");
    await chat.clearPosted();
    await since.focus();
    assert.ok(await focusReaches(since));
    await chat.page.keyboard.press("ArrowDown");
    await chat.page.waitForFunction(() => window.__posted.some((m) => (m as { type?: string }).type === "pending/since"));
    assert.deepEqual(await chat.postedOf("pending/since"), [{ type: "pending/since", v: 1, markId: "m2" }]);

    // The host's answer: since message 1, nothing pending there; the picker stays to go back.
    await chat.send([
      { type: "pending/changes", files: [], since: checkpoints[2], checkpoints, said: 'Showing Pi\'s changes since message 1 ("Fix the parser").' },
    ]);
    await chat.page.waitForFunction(() => window.__heard.some((t) => t.includes("since message 1")));
    assert.equal(await since.inputValue(), "m1");
    assert.match(await chat.page.locator(".pending-changes").innerText(), /No changes of Pi's are pending since message 1 \("Fix the parser"\)\./);
    assert.equal(await chat.page.getByRole("button", { name: "Keep all" }).count(), 0);
  });
});
