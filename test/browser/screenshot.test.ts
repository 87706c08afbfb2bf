// A rich chat in a dark theme, screenshotted for a human to look at (out/test-artifacts/):
// a user turn with an attachment, a streamed markdown answer, a tool card with a diff, a
// pending approval. The test checks the layout basics a picture can't prove alone.
import * as assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ChatPage, repoRoot } from "./harness";
import { SAMPLE_CHANGE, Script, toolCall } from "./script";

const ARTIFACTS = join(repoRoot, "out/test-artifacts");

const ANSWER = [
  "The default port is **3000**, set in `src/config.ts`:",
  "",
  "```ts",
  "export const config = {",
  '  host: "localhost",',
  "  port: 3000,",
  "};",
  "```",
  "",
  "It is read once at startup by [`server.ts`](src/server.ts#L12). To change it you can:",
  "",
  "1. edit the constant, or",
  "2. set `PORT` in the environment.",
].join("\n");

const RETRIES_DIFF = ["--- a/src/config.ts", "+++ b/src/config.ts", "@@ -3,3 +3,3 @@", "   port: 3000,", "-  retries: 3,", "+  retries: 5,", " };", ""].join(
  "\n",
);

export async function richChat(chat: ChatPage): Promise<void> {
  const chats = [
    { id: "chat-1", title: "Default port of the dev server", updatedAt: Date.now() },
    { id: "chat-2", title: "Refactor the config loader", updatedAt: Date.now() - 86_400_000 * 2 },
  ];
  await chat.snapshot(undefined, {
    title: "Default port of the dev server",
    chats,
    attachments: [{ path: "src/config.ts", range: { startLine: 1, endLine: 6 } }],
  });
  const script = new Script()
    .start()
    .message({ role: "fileAttachment", path: "src/config.ts", range: { startLine: 1, endLine: 6 }, timestamp: 1 })
    .user("Read src/config.ts and tell me the default port.")
    .assistant([toolCall("call-read", "read_file", { path: "src/config.ts" })])
    .toolStart("call-read", "read_file", { path: "src/config.ts" })
    .toolEnd("call-read", "read_file", {
      text: 'export const config = {\n  host: "localhost",\n  port: 3000,\n  retries: 3,\n};',
      details: { path: "src/config.ts", startLine: 1, endLine: 5 },
    })
    .assistant([
      { type: "thinking", thinking: "The port is in the config object; answer with the value and where it is used." },
      { type: "text", text: ANSWER },
    ])
    .end()
    .start()
    .user("Set the retries to 5.")
    .assistant([toolCall("call-retries", "edit_file", { path: "src/config.ts" })])
    .toolStart("call-retries", "edit_file", { path: "src/config.ts" })
    .message({
      role: "approvalNotice",
      toolCallId: "call-retries",
      toolName: "edit_file",
      decision: "allowed",
      path: "src/config.ts",
      diff: RETRIES_DIFF,
      timestamp: 2,
    })
    .toolEnd("call-retries", "edit_file", {
      text: "Edited src/config.ts.",
      details: { diff: RETRIES_DIFF, path: "src/config.ts", hunks: [], additions: 1, deletions: 1, firstChangedLine: 4 },
    })
    .assistant([{ type: "text", text: "Done: `retries` is now **5**." }])
    .end()
    .start()
    .user("Change the port to 8080.")
    .assistant([{ type: "text", text: "I'll update the port in `src/config.ts`." }, toolCall("call-edit", "edit_file", { path: "src/config.ts" })])
    .toolStart("call-edit", "edit_file", { path: "src/config.ts" })
    .raw({ type: "approval/request", toolCallId: "call-edit", toolName: "edit_file", path: "src/config.ts", diff: SAMPLE_CHANGE });
  await chat.events(script.take());
}

describe("screenshot", function () {
  it("draws a rich chat in a dark theme (out/test-artifacts/webview.png)", async () => {
    const chat = await ChatPage.open({ width: 440, height: 1180 });
    try {
      await richChat(chat);
      await chat.page.locator(".scroller").evaluate((el) => (el.scrollTop = el.scrollHeight));
      await chat.frames(3);

      // Layout basics: nothing overflows sideways, the composer is at the bottom, the approval in view.
      const overflow = await chat.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(overflow, 0, "no horizontal overflow");
      const composer = await chat.page.locator(".composer").boundingBox();
      assert.ok(composer && composer.y + composer.height <= 1180 && composer.y + composer.height > 1100, "composer at the bottom");
      assert.equal(await chat.page.locator(".tool-waiting").isVisible(), true);
      const bg = await chat.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(bg, "rgb(24, 24, 24)", "the theme's sidebar background shows through");

      const statusColor = await chat.page
        .locator(".tool-success .tool-status")
        .first()
        .evaluate((el) => getComputedStyle(el).color);
      assert.equal(statusColor, "rgb(157, 157, 157)", "a finished tool's status is muted, not an error colour");

      // Icons are VS Code's codicons, from the bundled font, loaded under the CSP.
      const iconFont = await chat.page.evaluate(async () => {
        await document.fonts.ready;
        const icon = document.querySelector(".codicon");
        return { family: icon ? getComputedStyle(icon).fontFamily : "", loaded: document.fonts.check("16px codicon") };
      });
      assert.deepEqual(iconFont, { family: "codicon", loaded: true });

      mkdirSync(ARTIFACTS, { recursive: true });
      await chat.page.screenshot({ path: join(ARTIFACTS, "webview.png") });

      // The same chat with a tool result and the history menu open, for a second look.
      await chat.page.locator('.tool[data-item="call-read"] details.tool-result summary').click();
      await chat.send([{ type: "history/show" }]);
      await chat.page.locator(".scroller").evaluate((el) => (el.scrollTop = 0));
      await chat.frames(2);
      await chat.page.screenshot({ path: join(ARTIFACTS, "webview-history.png") });
      await chat.assertClean();
    } finally {
      await chat.close();
    }
  });
});
