// End to end in a two-folder workspace (app, server), as a person sees it: a run_command the model
// gave no folder is refused and its card says so (no "workspace root": there is none), the next one
// names its folder on the card; a `!cmd` typed with no editor open asks for the folder in VS Code's
// quick pick, and Escape there gives the typed command back.
import assert from "node:assert/strict";
import { join } from "node:path";
import { startOpenAIServer, type OpenAIServer } from "../support/openai-server";
import { CHILD_PROCESS_COMMANDS, COMPOSER, loadBrowser, localModelSettings, repoRoot, startWorkbench, type VSCodeHandle } from "./workbench";

describe("end to end: commands in a two-folder workspace", function () {
  this.timeout(240_000);
  let server: OpenAIServer;
  let vs: VSCodeHandle | undefined;

  before(async () => {
    server = await startOpenAIServer();
    vs = await startWorkbench({
      fixture: "multi-root",
      workspaceFile: "multi.code-workspace",
      userSettings: localModelSettings(server, CHILD_PROCESS_COMMANDS),
    });
  });

  afterEach(async function () {
    // What the screen showed when a step timed out.
    if (this.currentTest?.state === "failed")
      await vs?.page.screenshot({ path: join(repoRoot, "out/test-artifacts/e2e-multi-root-failed.png") }).catch(() => {});
  });

  after(async () => {
    await vs?.close();
    await server?.close();
  });

  it("a command without a folder is not run and its card names none; one in server says server; a !cmd's folder pick, dismissed, gives the command back", async () => {
    const { findFrame } = await loadBrowser();
    const page = vs!.page;
    await page.locator('.activitybar [aria-label^="Pi Chat"]').first().click({ timeout: 60_000 });
    const frame = await findFrame(page, COMPOSER, { timeout: 90_000 });
    const composer = frame.locator(COMPOSER);
    server.push(
      () => ({ toolCalls: [{ id: "call_nocwd", name: "run_command", arguments: { command: "pwd" } }] }),
      () => ({ toolCalls: [{ id: "call_server", name: "run_command", arguments: { command: "pwd", cwd: "server" } }] }),
      () => ({ text: "It ran in server." }),
    );
    await composer.click();
    await composer.pressSequentially("Where does the server live?");
    await composer.press("Enter");
    await frame.locator('.tool-waiting[data-item="call_server"]').waitFor({ timeout: 60_000 });

    const refused = frame.locator('.command-card[data-item="call_nocwd"]');
    assert.equal(await refused.locator(".command-folder").count(), 0, "no folder named: there is no workspace root");
    assert.equal(await refused.locator(".command-outcome").innerText(), "Not run");
    assert.equal(await refused.locator(".tool-result summary").innerText(), "Why it did not run");
    assert.match(await refused.locator(".tool-result").innerText(), /several folders \(app, server\)/);
    const asking = frame.locator('.command-card[data-item="call_server"]');
    assert.equal(await asking.locator(".command-folder").innerText(), "server");
    await asking.getByRole("button", { name: "Allow", exact: true }).click();
    await frame.locator(".item.assistant:not(.streaming)").filter({ hasText: "It ran in server." }).waitFor({ timeout: 60_000 });
    assert.match(await asking.locator(".command-outcome").innerText(), /^Exit code 0/);
    await page.screenshot({ path: join(repoRoot, "out/test-artifacts/e2e-multi-root-cards.png") });

    // No editor open: Enter on a !cmd asks which folder, in VS Code's quick pick.
    const pick = page.locator(".quick-input-widget");
    await composer.click();
    await composer.pressSequentially("!pwd");
    await composer.press("Enter");
    await pick.waitFor({ state: "visible", timeout: 30_000 });
    assert.deepEqual(
      (await pick.locator(".quick-input-list .monaco-list-row .label-name").allInnerTexts()).map((t) => t.trim()),
      ["app", "server"],
    );
    await page.screenshot({ path: join(repoRoot, "out/test-artifacts/e2e-multi-root-pick.png") });
    await page.keyboard.press("Escape");
    await pick.waitFor({ state: "hidden" });
    await page.locator(".notifications-toasts").filter({ hasText: "the command was not run (no folder chosen)" }).first().waitFor({ timeout: 30_000 });
    await frame.waitForFunction((selector) => (document.querySelector(selector) as HTMLTextAreaElement | null)?.value === "!pwd", COMPOSER, {
      timeout: 30_000,
    });
    assert.equal(await frame.locator(".user-command").count(), 0, "nothing ran");

    // Enter again, and this time the second folder.
    await composer.click();
    await composer.press("Enter");
    await pick.waitFor({ state: "visible", timeout: 30_000 });
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    const ran = frame.locator(".user-command");
    await ran
      .locator(".command-outcome")
      .filter({ hasText: /^Exit code 0/ })
      .waitFor({ timeout: 30_000 });
    assert.equal(await ran.locator(".command-folder").innerText(), "You ran in server");
    assert.match(await ran.locator(".command-output").innerText(), /\/server$/);
    assert.equal(await composer.inputValue(), "");
  });
});
