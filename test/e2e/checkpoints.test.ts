// Restore files to here, as a person uses it in the real workbench: Pi edits src/config.ts and a
// command it ran creates notes.txt; the user then changes src/config.ts themselves. The button on
// the prompt opens the preview (a QuickPick): notes.txt will be deleted, src/config.ts is listed
// as skipped with its reason. Restoring deletes only notes.txt; the notice offers Redo changes.
// The preview is the README's screenshot: written to docs/images/checkpoint-preview.png when
// PI_CHAT_SCREENSHOTS=docs (as `npm run screenshots` does for the others), else to out/test-artifacts.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startOpenAIServer, type OpenAIServer } from "../support/openai-server";
import { CHILD_PROCESS_COMMANDS, COMPOSER, loadBrowser, localModelSettings, poll, repoRoot, startWorkbench, type VSCodeHandle } from "./workbench";

describe("end to end: restore files to a message", function () {
  this.timeout(240_000);
  let server: OpenAIServer;
  let vs: VSCodeHandle | undefined;

  before(async () => {
    server = await startOpenAIServer();
    vs = await startWorkbench({ fixture: "workspace", userSettings: localModelSettings(server, { "piChat.approvalMode": "auto", ...CHILD_PROCESS_COMMANDS }) });
  });

  after(async () => {
    await vs?.close();
    await server?.close();
  });

  it("previews what changes and what is skipped, then restores only what still holds Pi's bytes", async () => {
    const { findFrame } = await loadBrowser();
    const page = vs!.page;
    const config = join(vs!.workspace, "src", "config.ts");
    const notes = join(vs!.workspace, "notes.txt");
    server.push(
      () => ({ toolCalls: [{ id: "cp_edit", name: "edit_file", arguments: { path: "src/config.ts", oldText: "port: 3000,", newText: "port: 8080," } }] }),
      () => ({ toolCalls: [{ id: "cp_cmd", name: "run_command", arguments: { command: "printf 'port is 8080\\n' > notes.txt" } }] }),
      () => ({ text: "The port is 8080 and noted." }),
    );
    await page.locator('.activitybar [aria-label^="Pi Chat"]').first().click({ timeout: 60_000 });
    const frame = await findFrame(page, COMPOSER, { timeout: 90_000 });
    const composer = frame.locator(COMPOSER);
    await composer.click();
    await composer.pressSequentially("Use port 8080 and write it down.");
    await composer.press("Enter");
    const card = frame.locator('.tool[data-item="cp_cmd"]');
    await card.getByRole("button", { name: "Allow", exact: true }).click({ timeout: 60_000 });
    await frame.locator(".item.assistant:not(.streaming)").filter({ hasText: "The port is 8080 and noted." }).waitFor({ timeout: 60_000 });
    await poll("notes.txt", () => (existsSync(notes) ? true : undefined));
    // The user changes Pi's edit on disk.
    writeFileSync(config, readFileSync(config, "utf8").replace("port: 8080,", "port: 9090,"));

    const prompt = frame.locator(".item.user").first();
    await prompt.hover();
    await prompt.getByRole("button", { name: "Restore files to before this message" }).click();
    const pick = page.locator(".quick-input-widget");
    await pick.getByText("Skipped", { exact: true }).waitFor({ timeout: 30_000 });
    const rows = await pick.locator(".monaco-list-row").allInnerTexts();
    const text = rows.join("\n");
    assert.match(text, /Restore 1 file/);
    assert.match(text, /notes\.txt[\s\S]*created by Pi — will be deleted/);
    assert.match(text, /src\/config\.ts[\s\S]*changed since Pi wrote it \(your edit is kept\)/);
    const shots = process.env.PI_CHAT_SCREENSHOTS === "docs" ? join(repoRoot, "docs/images") : join(repoRoot, "out/test-artifacts");
    await page.screenshot({ path: join(shots, "checkpoint-preview.png") });

    // Keyboard only: choose src/config.ts to see its diff. The diff opens beside the picker, and
    // what the user types next is for the picker: it must never reach an editable copy of the file
    // (select all and Backspace once erased src/config.ts, and auto-save kept it so).
    const before = readFileSync(config, "utf8");
    await page.keyboard.type("config");
    await pick.locator(".monaco-list-row.focused").filter({ hasText: "src/config.ts" }).waitFor({ timeout: 30_000 });
    await page.keyboard.press("Enter");
    const diffTab = page.locator(".tabs-container .tab").filter({ hasText: "(at the checkpoint ↔ now, read-only)" });
    await diffTab.waitFor({ timeout: 30_000 });
    await pick.locator("input.input").waitFor({ timeout: 30_000 });
    assert.equal(await pick.isVisible(), true, "the picker is still on screen");
    assert.equal(await page.evaluate(() => !!document.activeElement?.closest(".quick-input-widget")), true, "the focus is in the picker");
    await page.keyboard.press("Control+a");
    await page.keyboard.press("Backspace");
    await page.keyboard.type("zzz");
    await page.keyboard.press("Control+a");
    await page.keyboard.press("Backspace");
    assert.equal(readFileSync(config, "utf8"), before, "no keystroke changed the file");
    assert.equal(await page.locator(".tabs-container .tab.dirty").count(), 0, "no editor holds unsaved changes");

    await pick.locator(".monaco-list-row").filter({ hasText: "Restore 1 file" }).click();
    await page
      .locator(".notifications-toasts")
      .getByText(/files restored to before message 1: 0 put back, 1 deleted/)
      .waitFor({ timeout: 30_000 });
    assert.equal(existsSync(notes), false, "Pi's new file is deleted");
    assert.match(readFileSync(config, "utf8"), /port: 9090,/, "the user's change is kept");
    await frame.locator(".item").filter({ hasText: "Files restored to before message 1" }).waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(repoRoot, "out/test-artifacts/e2e-checkpoint-restored.png") });
  });
});
