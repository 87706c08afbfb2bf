// Part of an edit, as a person takes it with the keyboard in the real workbench: Pi proposes an
// edit of three hunks; Alt+Shift+A goes to its card, Shift+Tab reaches "Reject hunk 2", Space
// rejects it (the host's record comes back to the card), Alt+A allows the rest. The file on disk
// then holds hunks 1 and 3 only, and the model's next request is told hunk 2 was not written.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startOpenAIServer, type OpenAIServer } from "../support/openai-server";
import { COMPOSER, loadBrowser, localModelSettings, poll, startWorkbench, type VSCodeHandle } from "./workbench";

const ORIGINAL = `${Array.from({ length: 40 }, (_, i) => `setting ${i + 1} = ${i + 1}`).join("\n")}\n`;
const PROPOSED = ORIGINAL.replace("setting 5 = 5\n", "setting 5 = 50\n").replace("setting 20 = 20\n", "setting 20 = 200\n").replace("setting 35 = 35\n", "");
const HUNKS_1_AND_3 = ORIGINAL.replace("setting 5 = 5\n", "setting 5 = 50\n").replace("setting 35 = 35\n", "");

describe("end to end: take part of an edit from the keyboard", function () {
  this.timeout(240_000);
  let server: OpenAIServer;
  let vs: VSCodeHandle | undefined;

  before(async () => {
    server = await startOpenAIServer();
    vs = await startWorkbench({ fixture: "workspace", userSettings: localModelSettings(server) });
  });

  after(async () => {
    await vs?.close();
    await server?.close();
  });

  it("rejects hunk 2 by keyboard on the card and allows the rest: the file holds hunks 1 and 3, and Pi is told", async () => {
    const { findFrame } = await loadBrowser();
    const page = vs!.page;
    const file = join(vs!.workspace, "src", "hunks.txt");
    writeFileSync(file, ORIGINAL);
    let toolResult = "";
    server.push(
      () => ({ toolCalls: [{ id: "call_e2e_hunks", name: "edit_file", arguments: { path: "src/hunks.txt", oldText: ORIGINAL, newText: PROPOSED } }] }),
      (body) => {
        toolResult = JSON.stringify(body.messages.filter((m) => m.role === "tool"));
        return { text: "Hunk 2 stays as it was." };
      },
    );
    await page.locator('.activitybar [aria-label^="Pi Chat"]').first().click({ timeout: 60_000 });
    const frame = await findFrame(page, COMPOSER, { timeout: 90_000 });
    const composer = frame.locator(COMPOSER);
    await composer.click();
    await composer.pressSequentially("Change the settings.");
    await composer.press("Enter");

    const card = frame.locator('.tool[data-item="call_e2e_hunks"]');
    await frame.locator('.tool-waiting[data-item="call_e2e_hunks"]').waitFor({ timeout: 60_000 });
    await composer.focus();
    await page.keyboard.press("Alt+Shift+A");
    const focused = () => frame.locator(":focus").evaluate((el) => el.getAttribute("aria-label") ?? el.childNodes[0]?.textContent?.trim() ?? "");
    // The key handler moves the focus; on a busy machine the frame may report it a moment later.
    await poll("the focus on Allow", async () => ((await focused()) === "Allow" ? true : undefined));
    for (let i = 0; i < 5; i++) await page.keyboard.press("Shift+Tab"); // reason, Reject 3, Accept 3, Edit 3, Reject 2
    assert.equal(await focused(), "Reject hunk 2");
    await page.keyboard.press("Space");
    // The host's record comes back: the card shows hunk 2 rejected and what Allow writes.
    await card.locator('button[aria-label="Reject hunk 2"][aria-pressed="true"]').waitFor({ timeout: 30_000 });
    await card.locator('button[data-decision="allow"]').filter({ hasText: "Allow 2 of 3 hunks" }).waitFor();
    await page.keyboard.press("Alt+A");

    await frame.locator(".item.assistant:not(.streaming)").filter({ hasText: "Hunk 2 stays as it was." }).waitFor({ timeout: 60_000 });
    assert.equal(readFileSync(file, "utf8"), HUNKS_1_AND_3);
    assert.match(toolResult, /hunks 1 and 3 of 3 written; hunk 2 rejected and NOT written/);
    assert.equal(await card.locator(".decision").textContent(), "Partly allowed");
  });
});
