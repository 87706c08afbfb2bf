// The README's pictures, drawn by the real webview bundle at the sidebar's width in VS Code's dark
// theme: a long chat after a compaction with the context meter open, an edit taken in part, Pi's pending changes, a chat with a pasted
// image, a command the agent ran and a `!cmd` the user ran, and an edited prompt with queued
// follow-ups while Pi writes; and code blocks at 300 px (VS Code's default sidebar), light and
// dark. Written to out/test-artifacts/ by
// every `npm test`; `npm run screenshots` writes them to docs/images/ for the README. The test
// checks what the picture is meant to show, so a broken scene fails instead of being committed.
import * as assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { CompactionSummaryMessage } from "../../src/core/messages";
import type { ContextMeter } from "../../src/shared/context-meter";
import type { StructuredDiff } from "../../src/shared/structured-diff";
import { makePng } from "../support/png";
import { ChatPage, repoRoot } from "./harness";
import { answerMentions } from "./mention-helpers";
import { noKeyNotice, SAMPLE_DIFF, Script, toolCall } from "./script";

const OUT = process.env.PI_CHAT_SCREENSHOTS === "docs" ? join(repoRoot, "docs/images") : join(repoRoot, "out/test-artifacts");
const SIZE = { width: 440, height: 860 };

const summary: CompactionSummaryMessage = {
  role: "compactionSummary",
  summary: [
    "## Goal",
    "Move the dev server to **port 8080** and keep the old port working for one release.",
    "",
    "## Decisions",
    "- `launchDevServer` reads `PORT` first, then `config.port`",
    "- 3000 stays as a redirect until 2.0",
    "",
    "## Next steps",
    "- update the README's quick start",
  ].join("\n"),
  keptMessageCount: 4,
  summarizedMessageCount: 58,
  tokensBefore: 171_940,
  tokensAfter: 9_812,
  readFiles: ["src/config.ts", "src/server.ts", "README.md"],
  modifiedFiles: ["src/config.ts", "src/server.ts"],
  trigger: "threshold",
  timestamp: 20,
};

const meter: ContextMeter = {
  tokens: 164_300,
  estimated: false,
  window: 200_000,
  threshold: 183_616,
  lastTurn: { input: 160_212, output: 4_088, cacheRead: 151_000, cacheWrite: 2_400, cost: 0.1264 },
  chat: { input: 2_410_000, output: 61_300, cacheRead: 2_050_000, cacheWrite: 88_000, cost: 3.12 },
  priced: true,
  reduced: { kind: "compacted", tokensBefore: 171_940, tokensAfter: 9_812, messages: 58 },
};

async function save(chat: ChatPage, name: string): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  await chat.page.screenshot({ path: join(OUT, name) });
}

describe("README screenshots", function () {
  this.timeout(60_000);

  it("part of an edit: three hunks on the card, the second rejected with a reason, Allow writes the other two", async () => {
    const chat = await ChatPage.open(SIZE);
    try {
      await chat.snapshot(undefined, { title: "Move the server to 8080", status: { modelLabel: "Claude Sonnet 4.5 (latest)" } });
      const diff: StructuredDiff = {
        kind: "hunks",
        hunks: [
          {
            oldStart: 3,
            oldLines: 5,
            newStart: 3,
            newLines: 5,
            lines: [" export const config = {", '   host: "localhost",', "-  port: 3000,", "+  port: 8080,", '   logLevel: "info",'],
          },
          {
            oldStart: 14,
            oldLines: 5,
            newStart: 14,
            newLines: 5,
            lines: [" ", " export function serverName() {", '-  return "dev-server";', '+  return "pi-server";', " }"],
          },
          {
            oldStart: 25,
            oldLines: 4,
            newStart: 25,
            newLines: 5,
            lines: [" export const retry = {", "-  attempts: 3,", "+  attempts: 5,", "+  backoffMs: 200,", " };"],
          },
        ],
      };
      const script = new Script()
        .start()
        .user("Move the dev server to port 8080 and make retries more patient.")
        .assistant([toolCall("e", "edit_file", { path: "src/config.ts" })])
        .toolStart("e", "edit_file", { path: "src/config.ts" })
        .raw({ type: "approval/request", toolCallId: "e", toolName: "edit_file", path: "src/config.ts", diff });
      await chat.events(script.take());
      await chat.events([{ type: "approval/hunks", toolCallId: "e", rejectedHunks: [1] }]);
      const card = chat.page.locator('.tool[data-item="e"]');
      await card.getByRole("textbox", { name: /^Reason/ }).fill("keep the server's name");
      assert.equal(await card.getByRole("button", { name: "Reject hunk 2" }).getAttribute("aria-pressed"), "true");
      assert.equal(await card.locator('button[data-decision="allow"]').evaluate((b) => b.childNodes[0]?.textContent), "Allow 2 of 3 hunks");
      await save(chat, "hunk-review.png");
      await chat.assertClean();
    } finally {
      await chat.close();
    }
  });

  it("after the write: Pi's pending changes above the composer, Keep or Undo per file", async () => {
    const chat = await ChatPage.open(SIZE);
    try {
      await chat.snapshot(undefined, { title: "Move the server to 8080", status: { modelLabel: "Claude Sonnet 4.5 (latest)" } });
      const script = new Script().start().user("Move the dev server to port 8080, and check the tests still pass.");
      script.assistant([toolCall("e1", "edit_file", { path: "src/config.ts" })]).toolStart("e1", "edit_file", { path: "src/config.ts" });
      script.toolEnd("e1", "edit_file", { text: "Edited src/config.ts.", details: { diff: SAMPLE_DIFF, path: "src/config.ts", additions: 1, deletions: 1 } });
      script.assistant([toolCall("e2", "edit_file", { path: "README.md" })]).toolStart("e2", "edit_file", { path: "README.md" });
      const readmeDiff = [
        "Index: README.md",
        "===================================================================",
        "--- README.md",
        "+++ README.md",
        "@@ -8,4 +8,4 @@",
        " ## Quick start",
        " ",
        "-npm run dev, then open http://localhost:3000",
        "+npm run dev, then open http://localhost:8080",
        " ",
      ].join("\n");
      script.toolEnd("e2", "edit_file", { text: "Edited README.md.", details: { diff: readmeDiff, path: "README.md", additions: 1, deletions: 1 } });
      script.assistant([{ type: "text", text: "The server now listens on **8080**; the README's quick start says so too." }]);
      await chat.events(script.end().take());
      await chat.send([
        {
          type: "pending/changes",
          files: [
            { path: "src/config.ts", by: "pi", kind: "modified", added: 1, removed: 1, pending: 1, changedByYou: 0 },
            { path: "README.md", by: "pi", kind: "modified", added: 1, removed: 1, pending: 1, changedByYou: 1 },
          ],
        },
      ]);
      await chat.page.getByRole("region", { name: /^2 files changed/ }).waitFor();
      assert.equal(await chat.page.getByRole("button", { name: "Undo README.md" }).count(), 1);
      await save(chat, "pending-changes.png");
      await chat.assertClean();
    } finally {
      await chat.close();
    }
  });

  it("plan mode: a proposed plan to approve, and the task list above the composer", async () => {
    const chat = await ChatPage.open(SIZE);
    try {
      await chat.snapshot(undefined, { title: "Fix the tokenizer bug", status: { modelLabel: "Claude Sonnet 4.5 (latest)" } });
      const plan = [
        "## Goal",
        "Numbers like `1e5` tokenize as one token again.",
        "",
        "## Steps",
        "1. Add a failing test for exponents",
        "2. Fix `readNumber` in `src/tokenizer.ts`",
        "3. Run the suite",
        "",
        "## Risks",
        "- `1e` alone must stay an error",
      ].join("\n");
      const tasks = [
        { id: "t1", text: "Read the tokenizer", state: "done" as const },
        { id: "t2", text: "Propose the plan", state: "in_progress" as const },
        { id: "t3", text: "Fix readNumber", state: "pending" as const },
      ];
      const script = new Script().start();
      script.message({ role: "modeChanged", mode: "plan", timestamp: 1 });
      script.user("Why does 1e5 tokenize as two tokens? Plan the fix.");
      script.assistant([toolCall("t", "todo", {})]).toolStart("t", "todo", {});
      script.toolEnd("t", "todo", { text: "Task list updated", details: { items: tasks } });
      script.assistant([toolCall("p", "propose_plan", {})]).toolStart("p", "propose_plan", {});
      script.toolEnd("p", "propose_plan", { text: "shown", details: { plan } });
      await chat.events(script.end().take());
      await chat.events([
        { type: "tasks/list", items: tasks },
        { type: "chat/mode", mode: "plan" },
        { type: "chat/planOffer", toolCallId: "p" },
      ]);
      await chat.page.getByRole("button", { name: "Approve and act" }).waitFor();
      await chat.page.getByRole("region", { name: "Task list, 1 of 3 done" }).waitFor();
      assert.equal(await chat.page.getByRole("button", { name: "Plan mode" }).getAttribute("aria-pressed"), "true");
      await save(chat, "plan-and-tasks.png");
      await chat.assertClean();
    } finally {
      await chat.close();
    }
  });

  it("a long chat: the summary of 58 messages open, the meter's details over it", async () => {
    const chat = await ChatPage.open(SIZE);
    try {
      await chat.snapshot(undefined, { title: "Move the dev server to 8080", status: { modelLabel: "Claude Sonnet 4.5 (latest)" } });
      const script = new Script().start();
      script.user("Where is the dev server's port set?").assistant([{ type: "text", text: "In `src/config.ts`, `port: 3000`." }]);
      script.message(summary);
      script.user("Now update the README's quick start too.");
      script.assistant([toolCall("r1", "read_file", { path: "README.md" })]).toolStart("r1", "read_file", { path: "README.md" });
      script.toolEnd("r1", "read_file", { text: "# dev server\n…", details: { path: "README.md", range: { startLine: 1, endLine: 40 } } });
      script.assistant([{ type: "text", text: "The quick start still says **3000**; I will change it to 8080 and mention the redirect." }]);
      await chat.events(script.end().take());
      await chat.send([{ type: "chat/event", event: { type: "context/meter", meter } }]);
      const item = chat.page.locator(".summary").first();
      await item.locator("summary").click();
      await chat.page.getByTestId("context-meter").click();
      const details = chat.page.getByRole("dialog", { name: "Context and usage" });
      await details.waitFor();
      assert.match(await chat.page.getByTestId("context-meter").innerText(), /164k \/ 200k/);
      assert.match(await item.innerText(), /171,940 → 9,812 tokens · 58 messages/);
      assert.match(await details.innerText(), /58 earlier messages are summarized/);
      await chat.frames(2);
      await save(chat, "long-chat.png");
      await chat.assertClean();
    } finally {
      await chat.close();
    }
  });

  it("a pasted screenshot, a command the agent ran (allowed by a rule) and a !command the user ran", async () => {
    const chat = await ChatPage.open(SIZE);
    try {
      const base = `${chat.origin}/images/chat-1`;
      const blob = "cd".repeat(32);
      await chat.page.route(`${base}/**`, (route) => route.fulfill({ status: 200, contentType: "image/png", body: makePng(320, 180, 3) }));
      await chat.snapshot(undefined, { title: "Failing parser test", imageBase: base, status: { modelLabel: "GPT-5" } });
      const command = "npm test -- --grep parser";
      const script = new Script().start();
      script.message({
        role: "bashExecution",
        command: "git status --short",
        output: " M src/parser.ts\n?? test/fixtures/big.json",
        exitCode: 0,
        cancelled: false,
        truncated: false,
        excludeFromContext: false,
        durationMs: 40,
        timestamp: 1,
      });
      script.message({
        role: "user",
        content: [
          { type: "text", text: "This is what the test runner shows. Why does it fail?" },
          { type: "image", data: "", mimeType: "image/png", blob } as never,
        ],
        timestamp: 2,
      });
      script.assistant([toolCall("c1", "run_command", { command })]).toolStart("c1", "run_command", { command });
      script.raw({ type: "approval/decided", toolCallId: "c1", decision: "allowed", rule: "npm test" });
      script.toolEnd("c1", "run_command", {
        text: `$ ${command}\nExit code 1 after 3.4 s.`,
        details: {
          command,
          cwd: ".",
          via: "process",
          end: "exited",
          exitCode: 1,
          durationMs: 3400,
          totalLines: 6,
          totalBytes: 180,
          cutLines: 0,
          cutBytes: 0,
          invalidUtf8: false,
        },
        isError: false,
      });
      script.assistant([{ type: "text", text: "`parseHeader` expects a trailing newline; `big.json` has none. Shall I make the newline optional?" }]);
      await chat.events(script.end().take());
      const img = chat.page.locator(".message-images img");
      await img.waitFor();
      await chat.page.waitForFunction(() => (document.querySelector(".message-images img") as HTMLImageElement | null)?.naturalWidth === 320);
      const agentRan = chat.page.locator('.command-card[data-item="c1"]');
      assert.match(await agentRan.innerText(), /Exit code 1 · 3\.4 s/);
      assert.match(await agentRan.innerText(), /npm test/);
      assert.match(await chat.page.locator(".command-card.user-command").innerText(), /git status --short/);
      await save(chat, "command-and-image.png");
      await chat.assertClean();
    } finally {
      await chat.close();
    }
  });
  it("an edited prompt (‹ 2 / 2 ›) while Pi writes, with a follow-up and a steer queued above the composer", async () => {
    const chat = await ChatPage.open(SIZE);
    try {
      await chat.snapshot(undefined, { title: "Move the dev server to 8080", status: { modelLabel: "Claude Sonnet 4.5 (latest)" } });
      const script = new Script().start();
      script.user("Read src/config.ts and tell me the default port.");
      script.assistant([{ type: "text", text: "The default port is **3000** (`src/config.ts`, line 3)." }]);
      script.user("Change it to 8080, and keep 3000 working as a redirect for one release.");
      script.assistant(
        [{ type: "text", text: "I will set `port: 8080` in `src/config.ts` and add a redirect from 3000 in `src/server.ts`. First the config" }],
        { open: true },
      );
      script.raw({ type: "branch/forks", from: 0, forks: [{ messageIndex: 2, showAt: 2, index: 1, count: 2 }] });
      script.raw({
        type: "queue/changed",
        kept: false,
        items: [
          { id: "q1", kind: "steer", text: "read PORT from the environment first", attachments: [], imageCount: 0 },
          { id: "q2", kind: "followUp", text: "then run the tests", attachments: [{ path: "test/server.test.ts" }], imageCount: 0 },
        ],
      });
      await chat.events(script.take());
      assert.equal(await chat.page.getByRole("group", { name: "version of this message 2 of 2" }).count(), 1);
      assert.equal(await chat.page.getByRole("region", { name: "Queued messages" }).getByRole("listitem").count(), 2);
      await chat.page.getByRole("textbox", { name: "Message to Pi" }).fill("and update the README");
      await chat.frames(2);
      await save(chat, "branches-and-queue.png");
      await chat.assertClean();
    } finally {
      await chat.close();
    }
  });

  it("the @ list open over the composer: srvcfg finds server/config.ts, a folder already mentioned", async () => {
    const chat = await ChatPage.open(SIZE);
    try {
      await chat.snapshot(undefined, { title: "Where is the port set?", status: { modelLabel: "Claude Sonnet 4.5 (latest)" } });
      const script = new Script().start();
      script.user("Where does the dev server read its port?");
      script.assistant([{ type: "text", text: "In `server/config.ts`: `port` defaults to **3000** unless `PORT` is set." }]);
      script.end();
      await chat.events(script.take());
      const input = chat.page.getByRole("textbox", { name: "Message to Pi" });
      await input.click();
      await input.pressSequentially("Compare @server");
      await answerMentions(chat);
      await chat.page.keyboard.press("Enter");
      await input.pressSequentially("with @srvcfg");
      await answerMentions(chat);
      assert.ok((await chat.page.getByRole("option").first().innerText()).startsWith("server/config.ts"));
      await chat.frames(2);
      await save(chat, "mentions.png");
      await chat.assertClean();
    } finally {
      await chat.close();
    }
  });

  for (const theme of ["light", "dark"] as const) {
    it(`code at 300 px, VS Code's default sidebar (${theme}): highlighted, one-row heads, Applied with Undo, Run in terminal`, async () => {
      const chat = await ChatPage.open({ width: 300, height: 620, theme });
      try {
        await chat.snapshot(undefined, { title: "Move the dev server to 8080", status: { modelLabel: "Claude Sonnet 4.5 (latest)" } });
        const answer = [
          "Read the port from the environment first:",
          "",
          "```ts src/server.ts",
          'import { createServer } from "node:http";',
          'import { config } from "./config";',
          "",
          "// PORT wins over the config file.",
          "const port = Number(process.env.PORT ?? config.port);",
          "createServer(handle).listen(port, () => {",
          '  console.log("listening on", port);',
          "});",
          "```",
          "",
          "Then start it on 8080:",
          "",
          "```bash",
          "PORT=8080 npm run dev",
          "```",
        ].join("\n");
        const script = new Script()
          .start()
          .user("Let PORT override the port.")
          .assistant([{ type: "text", text: answer }])
          .end();
        await chat.events(script.take());
        await chat.page.locator("pre > code.md-hl").nth(1).waitFor();
        await chat.clearPosted();
        await chat.page.getByRole("button", { name: "Apply to file", exact: true }).click();
        const [apply] = await chat.postedOf("editor/applyCode");
        assert.ok(apply?.requestId !== undefined);
        await chat.send([{ type: "editor/codeApplied", requestId: apply.requestId, path: "src/server.ts", state: "applied" }]);
        // What the picture is for: colours, a one-row head per block, the shell block's own actions.
        assert.ok((await chat.page.locator(".md-hl .hljs-keyword").count()) > 3);
        for (const head of await chat.page.locator(".md-code-head").all()) assert.ok((await head.boundingBox())!.height <= 28);
        assert.equal(await chat.page.getByRole("button", { name: "Run in terminal", exact: true }).count(), 1);
        assert.equal(await chat.page.locator(".md-code-status-text").innerText(), "Applied to src/server.ts");
        await chat.page.mouse.move(0, 0);
        await chat.frames(2);
        await save(chat, `code-block-300-${theme}.png`);
        await chat.assertClean();
      } finally {
        await chat.close();
      }
    });
  }

  // A new user's first minutes, at VS Code's default sidebar width (300 px).
  const SIDEBAR = { width: 300, height: 560 };

  it("first run at 300 px: nothing is set up, and the ways to set a model up", async () => {
    const chat = await ChatPage.open(SIDEBAR);
    try {
      await chat.snapshot(undefined, {
        title: "",
        status: { modelLabel: "Claude Sonnet 4.5 (latest)", modelDetail: "Anthropic · claude-sonnet-4-5", setup: "noKey" },
      });
      await save(chat, "first-run.png");
      assert.equal(await chat.page.getByRole("region", { name: "Set up a model" }).getByRole("button").count(), 5);
      await chat.assertClean();
    } finally {
      await chat.close();
    }
  });

  it("the no-key error at 300 px: what was tried, and every way out", async () => {
    const chat = await ChatPage.open(SIDEBAR);
    try {
      await chat.snapshot(undefined, {
        title: "Where is the port set?",
        status: { modelLabel: "Claude Sonnet 4.5 (latest)", modelDetail: "Anthropic · claude-sonnet-4-5" },
      });
      const script = new Script().start().user("Where is the dev server's port set?");
      script.message(noKeyNotice());
      await chat.events(script.end().take());
      await save(chat, "no-key-error.png");
      assert.equal(await chat.page.locator(".notice-error").getByRole("button").count(), 3);
      assert.equal(await chat.page.locator(".continue-bar").count(), 0);
      await chat.assertClean();
    } finally {
      await chat.close();
    }
  });
});
