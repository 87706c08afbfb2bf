// End to end, as a person uses it: the real workbench in Chromium, the Pi Chat view opened
// from the activity bar, the prompt typed into the real webview, the answer read off the screen.
// The model is the local OpenAI-compatible server, so the real pi-ai adapter runs.
import assert from "node:assert/strict";
import { join } from "node:path";
import { startOpenAIServer, type OpenAIServer } from "../support/openai-server";
import { COMPOSER, loadBrowser, localModelSettings, poll, quickOpenFile, repoRoot, runCommand, startWorkbench, type VSCodeHandle } from "./workbench";

describe("end to end: the chat view in the real workbench", function () {
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

  it("opens Pi Chat from the activity bar, sends the first prompt with Enter, and shows the answer", async () => {
    const { findFrame } = await loadBrowser();
    const page = vs!.page;
    server.push(
      () => ({ toolCalls: [{ id: "call_read", name: "read_file", arguments: { path: "src/config.ts" } }] }),
      (body) => {
        const result = body.messages.find((m) => m.role === "tool");
        const port = /port: (\d+)/.exec(JSON.stringify(result?.content))?.[1] ?? "unknown";
        return { text: `The default port is **${port}**.` };
      },
    );
    await page.locator('.activitybar [aria-label^="Pi Chat"]').first().click({ timeout: 60_000 });
    const frame = await findFrame(page, COMPOSER, { timeout: 90_000 });
    const composer = frame.locator(COMPOSER);
    await composer.click();
    await composer.pressSequentially("Read src/config.ts and tell me the default port.");
    await composer.press("Enter");

    const answer = frame.locator(".item.assistant:not(.streaming)").filter({ hasText: "The default port is 3000." });
    await answer.waitFor({ timeout: 60_000 });
    assert.equal(await answer.locator("strong").textContent(), "3000", "markdown rendered");
    await frame.locator(".item.user").filter({ hasText: "Read src/config.ts" }).waitFor();
    assert.equal(await composer.inputValue(), "", "the composer is cleared after sending");
    assert.equal(server.chatRequests().length, 2, "one request for the tool call, one for the answer");
    await page.screenshot({ path: join(repoRoot, "out/test-artifacts/e2e-chat.png") });
  });

  it("shows an edit as one card in the real workbench: waiting for your decision, then applied with the decision on it", async () => {
    const { findFrame } = await loadBrowser();
    const page = vs!.page;
    server.push(
      () => ({ toolCalls: [{ id: "call_edit", name: "edit_file", arguments: { path: "src/config.ts", oldText: "port: 3000,", newText: "port: 8080," } }] }),
      () => ({ text: "The port is now 8080." }),
    );
    const frame = await findFrame(page, COMPOSER, { timeout: 30_000 });
    const composer = frame.locator(COMPOSER);
    await composer.click();
    await composer.pressSequentially("Change the port to 8080.");
    await composer.press("Enter");

    const card = frame.locator('.tool[data-item="call_edit"]');
    await frame.locator('.tool-waiting[data-item="call_edit"]').waitFor({ timeout: 60_000 });
    assert.equal(await card.getAttribute("aria-label"), "Edit src/config.ts: waiting for your decision");
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(repoRoot, "out/test-artifacts/e2e-edit-waiting.png") });
    await card.getByRole("button", { name: "Allow", exact: true }).click();

    await frame.locator(".item.assistant:not(.streaming)").filter({ hasText: "The port is now 8080." }).waitFor({ timeout: 60_000 });
    assert.equal(await frame.locator('.card[data-item="call_edit"]').count(), 1, "one card for the edit");
    assert.equal(await frame.locator(".card").count(), 2, "the read of the first test and this edit: no approval cards besides");
    assert.equal(await card.getAttribute("aria-label"), "Edit src/config.ts: applied");
    assert.equal(await card.locator(".decision").textContent(), "Allowed");
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(repoRoot, "out/test-artifacts/e2e-edit-card.png") });
  });
  it("edits the first prompt in the real workbench: a new branch is sent and shown, and ‹ › switches back", async () => {
    const { findFrame } = await loadBrowser();
    const page = vs!.page;
    const frame = await findFrame(page, COMPOSER, { timeout: 30_000 });
    let asked: string[] = [];
    server.push((body) => {
      asked = body.messages.filter((m) => m.role === "user").map((m) => JSON.stringify(m.content));
      return { text: "The host is localhost." };
    });
    const first = frame.locator(".item.user").first();
    await first.hover();
    await first.getByRole("button", { name: "Edit this message" }).click();
    const box = frame.getByRole("textbox", { name: "Edit your message" });
    await box.fill("What is the host in src/config.ts?");
    await box.press("Enter");
    // The turn being replaced edited src/config.ts: Pi asks whether to put the file back too.
    const offer = frame.getByRole("dialog").filter({ hasText: "Keep files and send" });
    await offer.waitFor({ timeout: 30_000 });
    assert.match(await offer.innerText(), /src\/config\.ts/);
    await offer.getByRole("button", { name: "Keep files and send" }).click();
    await frame.locator(".item.assistant:not(.streaming)").filter({ hasText: "The host is localhost." }).waitFor({ timeout: 60_000 });
    assert.equal(asked.length, 1, "the request holds the edited prompt only: the old turns are on the other branch");
    assert.match(asked[0]!, /What is the host/);
    const switcher = frame.getByRole("group", { name: "version of this message 2 of 2" });
    await switcher.waitFor({ timeout: 30_000 });
    assert.equal(await frame.locator(".item.user").count(), 1);
    await page.screenshot({ path: join(repoRoot, "out/test-artifacts/e2e-edit-branch.png") });

    await switcher.getByRole("button", { name: "Previous version of this message" }).click();
    await frame.locator(".item.assistant").filter({ hasText: "The port is now 8080." }).waitFor({ timeout: 30_000 });
    assert.equal(await frame.locator(".item.user").count(), 2, "the first branch's two prompts are back");
    assert.equal(await frame.getByRole("group", { name: "version of this message 1 of 2" }).count(), 1);
  });

  it("a key typed into Set API Key and echoed back by the server appears nowhere on screen: not in the webview's DOM, not in the workbench", async () => {
    const { findFrame } = await loadBrowser();
    const page = vs!.page;
    // An odd shape (no sk- prefix): only redaction by value can catch it.
    const key = "pc-e2e-7f3a9b1c2d4e5f60718293a4b5c6d7e8";
    await runCommand(page, "Pi Chat: Set API Key");
    await page.locator(".quick-input-list .monaco-list-row").filter({ hasText: "OpenAI-compatible" }).first().click({ timeout: 30_000 });
    await page.locator(".quick-input-widget input[type=password]").waitFor({ timeout: 30_000 });
    await page.locator(".quick-input-widget input[type=password]").pressSequentially(key);
    await page.locator(".quick-input-widget input[type=password]").press("Enter");
    await page.locator(".notifications-toasts").filter({ hasText: "saved the Local server (OpenAI-compatible)" }).first().waitFor({ timeout: 30_000 });

    server.failNext(401, {
      error: {
        message: `Incorrect API key provided: ${key}. You can find your key at https://example.invalid/keys.`,
        type: "invalid_request_error",
        code: "invalid_api_key",
      },
    });
    // The view may not be open yet (this test alone, or after a reload): open it, as the user would.
    await runCommand(page, "Focus on Pi Chat View");
    const frame = await findFrame(page, COMPOSER, { timeout: 90_000 });
    const composer = frame.locator(COMPOSER);
    await composer.click();
    await composer.pressSequentially("Hello?");
    await composer.press("Enter");
    await frame
      .locator(".notice")
      .filter({ hasText: /401|key/i })
      .last()
      .waitFor({ timeout: 60_000 });

    // Wait for the notice's part that holds the provider's words (collapsed, so attached rather
    // than visible) before reading the DOM.
    await frame
      .locator(".notice-detail .error-text")
      .filter({ hasText: /Incorrect API key provided/ })
      .last()
      .waitFor({ state: "attached", timeout: 60_000 });

    // The key did go to the server (so it was there to leak), and came back in its error body.
    assert.equal(server.requests.at(-1)?.authorization, `Bearer ${key}`);
    const webviewDom = await frame.content();
    const workbenchDom = await page.content();
    assert.ok(!webviewDom.includes(key), "the key is not in the webview's DOM");
    assert.ok(!workbenchDom.includes(key), "the key is not in the workbench's DOM (notifications, output)");
    if (!/Incorrect API key provided/.test(webviewDom)) {
      // Seen once in a full run (not in 9 runs of this file alone): the notice had been found a
      // moment before. Say what the view holds now, so the next failure tells why.
      await page.screenshot({ path: join(repoRoot, "out/test-artifacts/e2e-key-redacted-failed.png") });
      const notices = await frame.locator(".notice").allTextContents();
      const items = await frame.locator("[data-item]").count();
      assert.fail(
        `the error itself is shown: not in the DOM read (${webviewDom.length} characters); now ${items} items, notices ${JSON.stringify(notices)}, the error text ${(await frame.content()).includes("Incorrect API key provided") ? "there" : "still missing"}`,
      );
    }
    await page.screenshot({ path: join(repoRoot, "out/test-artifacts/e2e-key-redacted.png") });
  });

  it("the chat's key (from an editor) and New Chat (from the palette) put the keys in the message box", async () => {
    const { findFrame } = await loadBrowser();
    const page = vs!.page;
    const frame = await findFrame(page, COMPOSER, { timeout: 30_000 });
    const composer = frame.locator(COMPOSER);
    await composer.fill("");
    // Away from the chat: an editor has the keys.
    await quickOpenFile(page, "config.ts");
    await page.keyboard.press("Control+Alt+Quote");
    await poll("the message box to have the focus", async () =>
      (await composer.evaluate((el) => el === document.activeElement && document.hasFocus())) ? true : undefined,
    );
    await page.keyboard.type("typed after the key");
    assert.equal(await composer.inputValue(), "typed after the key");

    await composer.fill("");
    await runCommand(page, "Pi Chat: New Chat", /Pi Chat: New Chat(?! from)/);
    await page.screenshot({ path: join(repoRoot, "out/test-artifacts/e2e-new-chat.png") });
    await frame.locator(".item.user").first().waitFor({ state: "detached", timeout: 30_000 });
    await poll("the message box to have the focus", async () =>
      (await composer.evaluate((el) => el === document.activeElement && document.hasFocus())) ? true : undefined,
    );
    await page.keyboard.type("typed after New Chat");
    assert.equal(await composer.inputValue(), "typed after New Chat");
  });
});
