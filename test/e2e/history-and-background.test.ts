// End to end, as a person uses them: the history dialog opened from the view's title bar (a
// model-written title, search, rename in place, Delete and Undo, Escape back to the composer), a
// restored long chat that opens at its newest messages, and a command left running in the
// background with Stop on its card. The real workbench in Chromium, the real webview, the local
// OpenAI-compatible server as the model. Screenshots go to out/test-artifacts/e2e-*.png.
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Frame } from "playwright-core";
import { createNodeTranscriptStorage, TranscriptStore } from "../../src/core/transcript";
import { questionsAndAnswers } from "../support/long-chat";
import { startOpenAIServer, type OpenAIServer } from "../support/openai-server";
import { CHILD_PROCESS_COMMANDS, COMPOSER, loadBrowser, localModelSettings, poll, repoRoot, startWorkbench, type VSCodeHandle } from "./workbench";

const MODEL_TITLE = "Default port of the dev server";

describe("end to end: the history, a long chat and a background command in the real workbench", function () {
  this.timeout(240_000);
  let server: OpenAIServer;
  let vs: VSCodeHandle | undefined;
  let frame: Frame;
  const page = () => vs!.page;
  const shot = (name: string) => page().screenshot({ path: join(repoRoot, `out/test-artifacts/e2e-${name}.png`) });
  const historyButton = () => page().locator('.part.sidebar [aria-label^="Show Chat History"]').first();
  const header = () => frame.locator("h1.header-title");

  before(async () => {
    server = await startOpenAIServer();
    vs = await startWorkbench({
      fixture: "workspace",
      // The local server is asked for titles too (by default only hosted models are).
      userSettings: localModelSettings(server, { "piChat.titleFromModel": "always", ...CHILD_PROCESS_COMMANDS }),
    });
    await page().locator('.activitybar [aria-label^="Pi Chat"]').first().click({ timeout: 60_000 });
    frame = await (await loadBrowser()).findFrame(page(), COMPOSER, { timeout: 90_000 });
    // The long chat, written into the extension's storage folder of this workspace.
    const storageDir = await poll("the extension's storage folder", () => {
      const root = join(vs!.userDataDir, "User/workspaceStorage");
      const hash = existsSync(root) ? readdirSync(root).find((d) => existsSync(join(root, d, "pi-chat.pi-chat"))) : undefined;
      return hash === undefined ? undefined : join(root, hash, "pi-chat.pi-chat");
    });
    const writer = new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storageDir));
    await writer.createChat({ id: "long-chat", messages: questionsAndAnswers(400, { at: Date.now() - 86_400_000 }) });
    await writer.close();
  });

  afterEach(async function () {
    // What the screen showed when a step timed out.
    if (this.currentTest?.state === "failed")
      await page()
        .screenshot({ path: join(repoRoot, "out/test-artifacts/e2e-history-failed.png") })
        .catch(() => {});
  });

  after(async () => {
    await vs?.close();
    await server?.close();
  });

  it("the model's title names the chat; History opens with the keyboard in it; search, F2 rename, Delete and Undo; Escape goes back to the composer", async () => {
    server.push(
      () => ({ text: "The default port is **3000**." }),
      (body) => {
        assert.match(JSON.stringify(body.messages), /You name chats/, "the second request asks for a title");
        return { text: `"${MODEL_TITLE}."` };
      },
    );
    const composer = frame.locator(COMPOSER);
    await composer.click();
    await composer.pressSequentially("What is the default port in src/config.ts?");
    await composer.press("Enter");
    await frame.locator(".item.assistant:not(.streaming)").filter({ hasText: "The default port is 3000." }).waitFor({ timeout: 60_000 });
    await header().filter({ hasText: MODEL_TITLE }).waitFor({ timeout: 30_000 });

    // The view title's History action: the dialog opens and the keyboard is in it, on this chat.
    await historyButton().click();
    const dialog = frame.getByRole("dialog", { name: "Chat history" });
    await dialog.waitFor();
    const current = dialog.locator('.history-item[aria-current="true"]');
    assert.equal(await current.locator(".history-title").innerText(), MODEL_TITLE, "listed under the model's title, cleaned");
    await poll("the focus on the current chat", () => current.evaluate((el) => el === document.activeElement || undefined));
    assert.deepEqual(await dialog.locator(".history-title").allInnerTexts(), [MODEL_TITLE, "Question 0"], "most recent first");
    await shot("history");

    // Search: Ctrl+F, then words of an answer deep in the long chat.
    await page().keyboard.press("Control+f");
    await page().keyboard.type("Answer 399");
    await dialog.getByRole("status").filter({ hasText: "1 chat found" }).waitFor({ timeout: 30_000 });
    assert.equal(await dialog.locator(".history-snippet").innerText(), "Answer 399");
    await shot("history-search");
    await dialog.getByRole("searchbox").fill("");

    // F2 renames in place; Enter keeps it; the header follows.
    await current.focus();
    await page().keyboard.press("F2");
    const renameBox = dialog.getByRole("textbox", { name: `New title for ${MODEL_TITLE}` });
    await renameBox.waitFor();
    await renameBox.fill("Port question");
    await page().keyboard.press("Enter");
    await header().filter({ hasText: "Port question" }).waitFor({ timeout: 30_000 });
    await poll("the focus back on the renamed chat", () =>
      dialog.locator(".history-item", { hasText: "Port question" }).evaluate((el) => el === document.activeElement || undefined),
    );

    // Delete: no question, a new chat in its place, Undo in the dialog.
    await page().keyboard.press("Delete");
    const notice = dialog.locator(".history-deleted");
    await notice.filter({ hasText: "Chat “Port question” deleted" }).waitFor({ timeout: 30_000 });
    await header().filter({ hasText: "New chat" }).waitFor();
    assert.deepEqual(await dialog.locator(".history-title").allInnerTexts(), ["Question 0"]);
    await shot("history-deleted");
    await notice.getByRole("button", { name: "Undo" }).click();
    // Back on screen, in the list and under its title; nothing left to undo.
    await frame.locator(".item.assistant").filter({ hasText: "The default port is 3000." }).waitFor({ timeout: 30_000 });
    await header().filter({ hasText: "Port question" }).waitFor({ timeout: 30_000 });
    await dialog.locator(".history-title", { hasText: "Port question" }).waitFor({ timeout: 30_000 });
    assert.equal(await notice.count(), 0, "the notice goes once the chat is back");
    assert.ok(await dialog.evaluate((el) => el.contains(document.activeElement)), "the focus stays in the dialog");
    await shot("history-undone");

    await page().keyboard.press("Escape");
    assert.equal(await dialog.count(), 0, "Escape closes the dialog");
    await poll("the focus in the composer", () => composer.evaluate((el) => el === document.activeElement || undefined));
  });

  it("a long chat opened from the history shows its newest messages, the earlier ones waiting above; scrolling up brings them", async () => {
    await historyButton().click();
    await frame.getByRole("dialog", { name: "Chat history" }).locator(".history-item", { hasText: "Question 0" }).click();
    await frame.locator(".item.assistant").filter({ hasText: "Answer 399" }).waitFor({ timeout: 30_000 });
    await header().filter({ hasText: "Question 0" }).waitFor();
    const earlier = frame.locator(".earlier-messages");
    const waiting = Number(/Show ([\d,]+) earlier messages/.exec(await earlier.innerText())?.[1]?.replace(/,/g, ""));
    assert.ok(waiting >= 400 && waiting < 800, `the earlier messages wait (${waiting})`);
    const firstQuestion = frame.locator(".item.user .user-text").filter({ hasText: /^Question 0$/ });
    assert.equal(await firstQuestion.count(), 0, "the first question is not drawn yet");
    await shot("long-chat");

    // As a person does: the wheel, up, until the first question is there.
    const box = (await frame.locator(".scroller").boundingBox())!;
    await page().mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await poll(
      "the first question",
      async () => {
        await page().mouse.wheel(0, -3000);
        return (await firstQuestion.count()) > 0 || undefined;
      },
      60_000,
    );
    assert.equal(await earlier.count(), 0, "nothing waits any more");
    // The list is windowed: only the prompts near the viewport are drawn, not all 400.
    const drawn = await frame.locator(".item.user").count();
    assert.ok(drawn > 0 && drawn < 100, `${drawn} prompts drawn around the first one`);
  });

  it("a command started in the background: its card says it runs, with Stop; Stop ends it and the card says who stopped it", async () => {
    await page().locator('.part.sidebar [aria-label^="New Chat"]').first().click();
    const command = "bash -c 'echo starting; sleep 1; echo server ready; sleep 300'";
    server.push(
      () => ({ toolCalls: [{ id: "call_bg", name: "run_command", arguments: { command, background: true, readyPattern: "server ready" } }] }),
      (body) => {
        const result = body.messages.filter((m) => m.role === "tool").pop();
        assert.match(JSON.stringify(result?.content), /Started in the background with id call_bg/);
        return { text: "It is up." };
      },
      () => ({ text: "Dev server" }),
    );
    const composer = frame.locator(COMPOSER);
    await composer.click();
    await composer.pressSequentially("Start the dev server");
    await composer.press("Enter");
    const card = frame.locator('.command-card[data-item="call_bg"]');
    await frame.locator('.tool-waiting[data-item="call_bg"]').waitFor({ timeout: 60_000 });
    assert.equal(await card.locator(".approval-question").innerText(), "Start this command in the background?");
    await card.getByRole("button", { name: "Allow", exact: true }).click();
    await frame.locator(".item.assistant:not(.streaming)").filter({ hasText: "It is up." }).waitFor({ timeout: 60_000 });

    assert.match(await card.locator(".command-outcome").innerText(), /^Running in the background · ready after [\d.]+ (ms|s)$/);
    assert.equal(await card.locator(".tool-result summary").innerText(), "Output", "no line count the start did not make");
    const stop = card.getByRole("button", { name: `Stop the background command ${command}` });
    await shot("background-running");
    await stop.click();
    await card
      .locator(".command-outcome")
      .filter({ hasText: /^Stopped by you · / })
      .waitFor({ timeout: 30_000 });
    assert.equal(await card.locator(".stop-button").count(), 0, "no Stop on a command that ended");
    await shot("background-stopped");
  });
});
