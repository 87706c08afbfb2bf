// The first ten minutes, in the real workbench driven by the keyboard and mouse as a person would:
// "Ask About This File" from the command palette leaves the caret in the composer (what the user
// types next lands there, not in the editor), and the header's model button opens the one picker,
// which lists what the local server reports at /v1/models; the chosen model is this chat's, the
// header says so, and the next request goes to it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { startOpenAIServer, type OpenAIServer } from "../support/openai-server";
import { COMPOSER, loadBrowser, localModelSettings, poll, quickOpenFile, repoRoot, runCommand, startWorkbench, type VSCodeHandle } from "./workbench";

describe("end to end: the first ten minutes", function () {
  this.timeout(240_000);
  let server: OpenAIServer;
  let vs: VSCodeHandle | undefined;

  before(async () => {
    server = await startOpenAIServer({ models: ["local-model", "qwen-coder-e2e"] });
    vs = await startWorkbench({ fixture: "workspace", userSettings: localModelSettings(server) });
  });

  after(async () => {
    await vs?.close();
    await server?.close();
  });

  it("Ask About This File puts the file on a chip and the caret in the composer: the next keystrokes land there", async () => {
    const { findFrame } = await loadBrowser();
    const page = vs!.page;
    // Open src/config.ts with Quick Open, as a user would, so the editor has the focus.
    await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
    await quickOpenFile(page, "config.ts");

    await runCommand(page, "Pi Chat: Ask About This File");
    const frame = await findFrame(page, COMPOSER, { timeout: 90_000 });
    await frame.getByText("src/config.ts").first().waitFor({ timeout: 30_000 });
    // No click: whatever has the focus now gets the typing.
    await poll("the composer to have the focus", async () =>
      (await frame.locator(COMPOSER).evaluate((el) => el === document.activeElement)) ? true : undefined,
    );
    await page.keyboard.type("What does this file set?");
    assert.equal(await frame.locator(COMPOSER).inputValue(), "What does this file set?");
    assert.equal(await page.locator(".editor-instance .monaco-editor.focused").count(), 0, "the editor did not keep the focus");

    server.push((body) => {
      assert.match(JSON.stringify(body.messages), /src\/config\.ts/);
      return { text: "It sets the host and the port." };
    });
    await page.keyboard.press("Enter");
    await frame.locator(".item.assistant:not(.streaming)").filter({ hasText: "It sets the host and the port." }).waitFor({ timeout: 60_000 });
  });

  it("the header's model button lists the local server's models; the chosen one is this chat's and answers next", async () => {
    const { findFrame } = await loadBrowser();
    const page = vs!.page;
    const frame = await findFrame(page, COMPOSER, { timeout: 60_000 });
    await frame.getByRole("button", { name: /^Model: .*Change this chat's model/ }).click();
    const rows = page.locator(".quick-input-list .monaco-list-row");
    // What GET /v1/models reported, not a free-text box alone; every list in, so no row moves after.
    await page.locator('.quick-input-widget input[placeholder^="The chat you are in"]').waitFor({ timeout: 30_000 });
    await rows.filter({ hasText: "qwen-coder-e2e" }).first().waitFor({ timeout: 30_000 });
    assert.ok((await rows.filter({ hasText: "local-model" }).count()) >= 1, "the current model is listed too");
    // The sidebar and the picker (docs/images/model-picker.png is this picture).
    await page.screenshot({ path: join(repoRoot, "out/test-artifacts/e2e-model-picker.png"), clip: { x: 0, y: 0, width: 1030, height: 450 } });
    await rows.filter({ hasText: "qwen-coder-e2e" }).first().click();
    // A model without thinking levels is chosen at once; one with levels asks next (take the first).
    const thinking = page.locator(".quick-input-widget").filter({ hasText: /[Tt]hinking/ });
    if ((await thinking.count()) > 0 && (await thinking.first().isVisible())) await page.keyboard.press("Enter");

    await frame.getByRole("button", { name: /^Model: qwen-coder-e2e/ }).waitFor({ timeout: 30_000 });
    server.push(() => ({ text: "Answered by the chosen model." }));
    const composer = frame.locator(COMPOSER);
    await composer.click();
    await composer.pressSequentially("Which model are you?");
    await composer.press("Enter");
    await frame.locator(".item.assistant:not(.streaming)").filter({ hasText: "Answered by the chosen model." }).waitFor({ timeout: 60_000 });
    assert.equal(server.chatRequests().at(-1)?.model, "qwen-coder-e2e");
  });

  it("choosing a model of a provider without a key asks for its key then and there; Set API Key marks the chat's provider", async () => {
    const { findFrame } = await loadBrowser();
    const page = vs!.page;
    // The view, open (run alone, no earlier test opened it).
    await runCommand(page, "Pi Chat: Focus Chat Input");
    const frame = await findFrame(page, COMPOSER, { timeout: 60_000 });
    await frame.getByRole("button", { name: /^Model: .*Change this chat's model/ }).click();
    const quickInput = page.locator(".quick-input-widget input").first();
    await quickInput.waitFor({ timeout: 30_000 });
    // Every list is in (keys, VS Code's models, the server's) before the typing: no row moves after.
    await page.locator('.quick-input-widget input[placeholder^="The chat you are in"]').waitFor({ timeout: 30_000 });
    await quickInput.pressSequentially("gpt-4.1");
    await page.locator(".quick-input-list .monaco-list-row").filter({ hasText: "recommended" }).first().click({ timeout: 30_000 });
    // No OpenAI key is stored: its input box comes at once, naming the provider.
    const password = page.locator(".quick-input-widget input[type=password]");
    await password.waitFor({ timeout: 30_000 });
    assert.match(await page.locator(".quick-input-widget").first().innerText(), /API key for OpenAI/);
    await password.pressSequentially("sk-e2e-choose-model-0123456789abcdef");
    await password.press("Enter");
    await page.locator(".notifications-toasts").filter({ hasText: "saved the OpenAI API key" }).first().waitFor({ timeout: 30_000 });

    // Set API Key offers the chat's provider (OpenAI now) as its own, not the settings' local server.
    await runCommand(page, "Pi Chat: Set API Key");
    const marked = page.locator(".quick-input-list .monaco-list-row").filter({ hasText: "this chat's provider" });
    await marked.first().waitFor({ timeout: 30_000 });
    assert.equal(await marked.count(), 1);
    assert.doesNotMatch(await marked.first().innerText(), /compatible|Local server/);
    assert.match(await marked.first().innerText(), /OpenAI/);
    await page.keyboard.press("Escape");
  });
});

describe("end to end: a fresh install with nothing configured", function () {
  this.timeout(240_000);
  let vs: VSCodeHandle | undefined;

  before(async () => {
    vs = await startWorkbench({ fixture: "workspace", userSettings: {} });
  });

  after(async () => {
    await vs?.close();
  });

  it("the header names the default model from the catalog, not by its id, before any prompt", async () => {
    const { findFrame } = await loadBrowser();
    const page = vs!.page;
    await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
    await runCommand(page, "Focus on Pi Chat View");
    const frame = await findFrame(page, COMPOSER, { timeout: 90_000 });
    // No key and no prompt: the provider bundle is loaded after the first paint for its names.
    const button = frame.getByRole("button", { name: /^Model: / });
    await button.first().waitFor({ timeout: 30_000 });
    const label = await poll("the header to name the model", async () => {
      const name = (await button.first().getAttribute("aria-label")) ?? "";
      return /Claude Sonnet 4\.5/.test(name) ? name : undefined;
    });
    assert.doesNotMatch(label, /^Model: claude-sonnet-4-5/, "the name, not the id, comes first");
    assert.equal(await frame.locator("header").getByText("claude-sonnet-4-5", { exact: true }).count(), 0, "no bare id in the header");
  });
});
