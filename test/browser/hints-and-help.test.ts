// What a new user can find once a model is set up: the empty chat's one line of hints (`@`, `/`,
// `!command`, templates, checkpoints, the model context), dismissed for good with its button, and
// `/help` (the host answers `view/help`): a panel with the `/` commands (the chat's actions, the
// templates the host listed), the `@` mention kinds and the keys; focus goes to it, Escape closes
// it back to the composer. At 300 px, with screenshots in out/test-artifacts.
import * as assert from "node:assert/strict";
import { join } from "node:path";
import { ChatPage, focusReaches, repoRoot } from "./harness";

const ARTIFACTS = join(repoRoot, "out/test-artifacts");

describe("empty-chat hints and /help", function () {
  let chat: ChatPage;
  beforeEach(async () => {
    chat = await ChatPage.open({ width: 300, height: 640 });
    await chat.snapshot();
  });
  afterEach(async () => {
    await chat.assertClean();
    await chat.close();
  });

  it("the empty chat shows one line of hints; Dismiss hides it for good and puts focus in the composer", async () => {
    const hints = chat.page.getByLabel("Hints", { exact: true });
    const text = await hints.innerText();
    for (const hint of ["@", "/help", "!command", "Restore files to here", "model's context"]) assert.ok(text.includes(hint), `${hint} in ${text}`);
    await chat.page.screenshot({ path: join(ARTIFACTS, "empty-chat-hints-300.png") });
    await hints.getByRole("button", { name: "Dismiss hints" }).click();
    assert.equal(await chat.page.getByLabel("Hints", { exact: true }).count(), 0);
    assert.equal(await chat.page.evaluate(() => document.activeElement?.tagName), "TEXTAREA", "focus goes to the message box");
    // The view is drawn again (hidden and shown, a new chat): the hints stay dismissed.
    await chat.snapshot();
    assert.equal(await chat.page.getByLabel("Hints", { exact: true }).count(), 0);
  });

  it("/help opens a panel with the commands, the mention kinds and the keys; Escape closes it to the composer", async () => {
    await chat.send([
      {
        type: "composer/commands",
        commands: [
          { name: "new", description: "Start a new chat", kind: "action" },
          { name: "help", description: "List the commands, what @ can mention, and the keys", kind: "action" },
          { name: "review", description: "Review the open file", kind: "template" },
        ],
        notes: [],
      },
      { type: "view/help" },
    ]);
    const help = chat.page.getByRole("region", { name: "Help" });
    const text = await help.innerText();
    for (const part of ["/new", "/help", "/compact", "/review", "!command", "@problems", "@selection", "@changes", "@terminal", "Alt+A", "Shift+Enter"])
      assert.ok(text.includes(part), `${part} in the help: ${text}`);
    assert.equal(await focusReaches(help), true, "focus goes to the help");
    await chat.page.screenshot({ path: join(ARTIFACTS, "help-panel-300.png") });
    await chat.page.keyboard.press("Escape");
    assert.equal(await help.count(), 0);
    assert.equal(await chat.page.evaluate(() => document.activeElement?.tagName), "TEXTAREA");
  });
});
