// Keep / Undo after the write, as a person does it with the keyboard in the real workbench: Pi
// edits a file in approval mode "auto" (two hunks, written at once); the chat view's
// changed-files list shows it; Shift+Tab from the composer reaches the file's row, Enter opens it
// at its first pending change, and Alt+N undoes that one change. The file on disk then has the
// first hunk put back and the second still Pi's, and the list counts the one change left.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startOpenAIServer, type OpenAIServer } from "../support/openai-server";
import { COMPOSER, loadBrowser, localModelSettings, poll, startWorkbench, type VSCodeHandle } from "./workbench";

const ORIGINAL = `${Array.from({ length: 40 }, (_, i) => `value ${i + 1} = ${i + 1}`).join("\n")}\n`;
const PI_WROTE = ORIGINAL.replace("value 5 = 5\n", "value 5 = 50\n").replace("value 30 = 30\n", "value 30 = 300\n");
const FIRST_UNDONE = ORIGINAL.replace("value 30 = 30\n", "value 30 = 300\n");

describe("end to end: the changed-files list of Pi's pending changes, from the keyboard", function () {
  this.timeout(240_000);
  let server: OpenAIServer;
  let vs: VSCodeHandle | undefined;

  before(async () => {
    server = await startOpenAIServer();
    vs = await startWorkbench({ fixture: "workspace", userSettings: localModelSettings(server, { "piChat.approvalMode": "auto" }) });
  });

  after(async () => {
    await vs?.close();
    await server?.close();
  });

  it("a Pi edit in auto mode is listed; the keyboard reaches it, opens it, and Alt+N undoes one hunk in the file", async () => {
    const { findFrame } = await loadBrowser();
    const page = vs!.page;
    const file = join(vs!.workspace, "src", "pending-e2e.txt");
    writeFileSync(file, ORIGINAL);
    server.push(
      () => ({ toolCalls: [{ id: "call_e2e_pending", name: "edit_file", arguments: { path: "src/pending-e2e.txt", oldText: ORIGINAL, newText: PI_WROTE } }] }),
      () => ({ text: "Both values changed." }),
    );
    await page.locator('.activitybar [aria-label^="Pi Chat"]').first().click({ timeout: 60_000 });
    const frame = await findFrame(page, COMPOSER, { timeout: 90_000 });
    const composer = frame.locator(COMPOSER);
    await composer.click();
    await composer.pressSequentially("Change the values.");
    await composer.press("Enter");
    await frame.locator(".item.assistant:not(.streaming)").filter({ hasText: "Both values changed." }).waitFor({ timeout: 60_000 });
    assert.equal(readFileSync(file, "utf8"), PI_WROTE, "auto mode wrote the edit without asking");

    const list = frame.getByRole("region", { name: /^1 file changed/ });
    await list.waitFor({ timeout: 60_000 });
    assert.match(await list.innerText(), /src\/pending-e2e\.txt\s*\+2 −2/);

    // From the composer, back with Shift+Tab until the file's row has the focus (Undo, Keep, then the row).
    await composer.focus();
    const focusedLabel = () => frame.locator(":focus").evaluate((el) => el.getAttribute("aria-label") ?? "");
    let reached = false;
    for (let i = 0; i < 12 && !reached; i++) {
      await page.keyboard.press("Shift+Tab");
      // The focus moves inside the frame; on a busy machine it is reported a moment later.
      reached = await poll("the focus to move", async () => {
        const label = await focusedLabel().catch(() => undefined);
        return label === undefined ? undefined : /^src\/pending-e2e\.txt: .*Open it to keep or undo each change$/.test(label);
      });
    }
    assert.ok(reached, "Shift+Tab from the composer reaches the file's row");
    await page.keyboard.press("Enter");

    // The file opens at its first pending change, with the editor focused: Alt+N undoes that change.
    await page.locator(".editor-instance .monaco-editor.focused").waitFor({ timeout: 30_000 });
    await page.locator(".tabs-container .tab.active").filter({ hasText: "pending-e2e.txt" }).waitFor({ timeout: 30_000 });
    // Its lenses drawn: the host has said the change is here (the key's condition) before it asked for them.
    await page.locator(".codelens-decoration").filter({ hasText: "Keep change 1 of 2" }).first().waitFor({ timeout: 30_000 });
    await page.keyboard.press("Alt+N");
    await poll("the first hunk to be put back on disk", () => (readFileSync(file, "utf8") === FIRST_UNDONE ? true : undefined), 60_000);
    await frame.getByRole("region", { name: /^1 file changed\W+1 lines? added, 1 removed$/ }).waitFor({ timeout: 30_000 });
  });
});
