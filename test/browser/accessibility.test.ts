// axe-core over the real bundle, in every state a user meets — empty, messages, a streamed
// answer, a pending approval, an error notice, the history open, command cards waiting and
// running, a `!command`, a search card, a compaction summary, queue chips, images in the composer
// (with and without image support), the meter's details, the branch switcher, a long chat — each in VS Code's
// dark, light and high-contrast variable sets: no serious or critical violation, and no moderate
// one except those named (with the reason) in ALLOWED_MODERATE and docs/accessibility.md. One screenshot
// per theme of a chat with an approval card lands in out/test-artifacts/approval-<theme>.png.
import * as assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makePng } from "../support/png";
import { answerMentions, dropResources, openCommandList, pasteText } from "./mention-helpers";
import { ChatPage, defaultStatus, repoRoot, THEMES, type Theme } from "./harness";
import { SAMPLE_CHANGE, SAMPLE_DIFF, Script, stateOf, THREE_HUNK_CHANGE, toolCall } from "./script";
import type { TaskItem } from "../../src/shared/app-messages";

const AXE_SOURCE = readFileSync(join(repoRoot, "node_modules/axe-core/axe.min.js"), "utf8");
const ARTIFACTS = join(repoRoot, "out/test-artifacts");

/** Moderate findings accepted, by rule id, each with the reason (also in docs/accessibility.md). */
const ALLOWED_MODERATE: Record<string, string> = {};

interface Finding {
  id: string;
  impact: string;
  help: string;
  nodes: string[];
  nodeCount: number;
}

declare global {
  interface Window {
    axe?: {
      run(
        context: Document,
        options: object,
      ): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[]; failureSummary?: string }[] }[] }>;
    };
  }
}

async function audit(chat: ChatPage): Promise<Finding[]> {
  if (!(await chat.page.evaluate(() => window.axe !== undefined))) await chat.page.evaluate(AXE_SOURCE);
  await chat.frames(2);
  return chat.page.evaluate(async () => {
    const result = await window.axe!.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? "unknown",
      help: v.help,
      nodeCount: v.nodes.length,
      nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(" ")}: ${(n.failureSummary ?? "").replace(/\s+/g, " ").slice(0, 300)}`),
    }));
  });
}

const STATES: { name: string; reach: (chat: ChatPage) => Promise<void> }[] = [
  { name: "empty chat", reach: async () => undefined },
  {
    name: "the @ list open, with a mention taken",
    reach: async (chat) => {
      const input = chat.page.getByRole("textbox", { name: "Message to Pi" });
      await input.fill("");
      await input.click();
      await input.pressSequentially("@srv");
      await answerMentions(chat);
      await chat.page.keyboard.press("Enter");
      await input.pressSequentially("@");
      await answerMentions(chat);
    },
  },
  {
    name: "the / list open",
    reach: async (chat) => {
      await openCommandList(chat);
      // Leave an empty composer for the states after this one.
      await chat.page.keyboard.press("Escape");
      await chat.page.getByRole("textbox", { name: "Message to Pi" }).fill("");
    },
  },
  {
    name: "a dropped file refused (its note) and a pasted path offered as a mention",
    reach: async (chat) => {
      const input = chat.page.getByRole("textbox", { name: "Message to Pi" });
      await input.fill("");
      await input.click();
      await chat.clearPosted();
      await dropResources(chat, { "application/vnd.code.uri-list": "file:///etc/passwd" });
      const [drop] = await chat.postedOf("mention/paths");
      await chat.send([
        {
          type: "mention/pathsResolved",
          requestId: drop!.requestId,
          origin: "drop",
          refs: [],
          refused: ['"file:///etc/passwd" is outside the workspace folders'],
        },
      ]);
      await pasteText(chat, "server/config.ts");
      const [paste] = (await chat.postedOf("mention/paths")).slice(-1);
      await chat.send([
        { type: "mention/pathsResolved", requestId: paste!.requestId, origin: "paste", refs: [{ kind: "file", path: "server/config.ts" }], refused: [] },
      ]);
      await chat.page.getByRole("group", { name: "Pasted path" }).waitFor();
    },
  },
  {
    name: "a chat with messages",
    reach: async (chat) => {
      const script = new Script()
        .start()
        .message({ role: "fileAttachment", path: "src/config.ts", range: { startLine: 1, endLine: 6 }, timestamp: 1 })
        .user("Read src/config.ts and set the retries to 5.")
        .assistant([toolCall("r1", "read_file", { path: "src/config.ts" })])
        .toolStart("r1", "read_file", { path: "src/config.ts" })
        .toolEnd("r1", "read_file", { text: "export const config = { retries: 3 };", details: { path: "src/config.ts", startLine: 1, endLine: 5 } })
        .assistant([toolCall("e1", "edit_file", { path: "src/config.ts" })])
        .toolStart("e1", "edit_file", { path: "src/config.ts" })
        .raw({ type: "approval/request", toolCallId: "e1", toolName: "edit_file", path: "src/config.ts", diff: SAMPLE_CHANGE })
        .raw({ type: "approval/decided", toolCallId: "e1", decision: "allowed" })
        .toolEnd("e1", "edit_file", {
          text: "Edited src/config.ts.",
          details: { diff: SAMPLE_DIFF, path: "src/config.ts", additions: 1, deletions: 1, firstChangedLine: 3 },
        })
        .message({
          role: "approvalNotice",
          toolCallId: "e1",
          toolName: "edit_file",
          decision: "allowed",
          path: "src/config.ts",
          diff: SAMPLE_DIFF,
          timestamp: 2,
        })
        .assistant([
          { type: "thinking", thinking: "Done; say so." },
          {
            type: "text",
            text: "Done: `retries` is now **5** in [`config.ts`](src/config.ts#L3).\n\n```ts\nexport const config = { retries: 5 };\n```\n\n> Restart the server.\n\n| a | b |\n|---|---|\n| 1 | 2 |",
          },
        ])
        .end()
        .start()
        .user("Why?")
        .assistant([{ type: "text", text: "Because." }], { extra: { stopReason: "aborted" } })
        .end();
      await chat.events(script.take());
    },
  },
  {
    name: "a streamed answer, the task list above the composer",
    reach: async (chat) => {
      const tasks: TaskItem[] = [
        { id: "t1", text: "Read the parser", state: "done" },
        { id: "t2", text: "Explain it", state: "in_progress" },
        { id: "t3", text: "Fix the bug", state: "blocked" },
      ];
      await chat.events(
        new Script()
          .start()
          .user("Explain it.")
          .assistant([{ type: "toolCall", id: "todo1", name: "todo", arguments: {} }])
          .toolStart("todo1", "todo", {})
          .toolEnd("todo1", "todo", { text: "Task list updated", details: { items: tasks } })
          .raw({ type: "tasks/list", items: tasks })
          .assistant(
            [
              { type: "thinking", thinking: "Let me see" },
              { type: "text", text: "It reads the **port** from" },
            ],
            { open: true },
          )
          .take(),
      );
    },
  },
  {
    name: "a pending approval",
    reach: async (chat) => {
      const script = new Script()
        .assistant([toolCall("e2", "edit_file", { path: "src/config.ts" })])
        .toolStart("e2", "edit_file", { path: "src/config.ts" })
        .raw({
          type: "approval/request",
          toolCallId: "e2",
          toolName: "edit_file",
          path: "src/config.ts",
          diff: SAMPLE_CHANGE,
          protection: "src/config.ts is protected by piChat.protectedFiles.",
        });
      await chat.events(script.take());
    },
  },
  {
    name: "an edit of three hunks waiting: hunk 2 rejected, hunk 3 edited, hunk 1 open for editing",
    reach: async (chat) => {
      const script = new Script()
        .assistant([toolCall("h3", "edit_file", { path: "src/settings.ts" })])
        .toolStart("h3", "edit_file", { path: "src/settings.ts" })
        .raw({ type: "approval/request", toolCallId: "h3", toolName: "edit_file", path: "src/settings.ts", diff: THREE_HUNK_CHANGE });
      await chat.events(script.take());
      await chat.events([{ type: "approval/hunks", toolCallId: "h3", rejectedHunks: [1], editedHunks: [{ hunk: 2, text: "c37\nretries = 4" }] }]);
      await chat.page.locator('.tool[data-item="h3"]').getByRole("button", { name: "Edit hunk 1" }).press("Enter");
    },
  },
  {
    name: "an error notice",
    reach: async (chat) => {
      await chat.snapshot(
        stateOf(
          new Script()
            .start()
            .user("Hello?")
            .assistant([], { extra: { stopReason: "error", errorMessage: "401 Unauthorized: invalid x-api-key" } })
            .message({
              role: "localNotice",
              level: "error",
              text: "No API key for Anthropic.",
              fix: "Run “Pi Chat: Set API Key” and paste your key.",
              timestamp: 3,
            })
            .message({ role: "localNotice", level: "info", text: "Retrying after the error.", timestamp: 4 })
            .end()
            .take(),
        ),
        {
          chatId: "chat-error",
          title: "Hello?",
          status: { canContinue: true, storage: "globalFallback", editsAllowedForChat: true },
          attachments: [{ path: "README.md" }],
        },
      );
    },
  },
  {
    name: "the history open",
    reach: async (chat) => {
      const now = Date.now();
      await chat.send([
        {
          type: "history/list",
          chats: [
            { id: "chat-error", title: "Hello?", updatedAt: now },
            { id: "chat-2", title: "Refactor the loader", updatedAt: now - 86_400_000 * 2 },
            { id: "chat-3", title: "", updatedAt: now - 86_400_000 * 400 },
          ],
        },
        { type: "history/show" },
        { type: "history/deleted", chatId: "chat-4", title: "An old chat" },
      ]);
      // A search that found words in messages: the snippets (muted words on the row's fill, on the
      // current chat's and on a hovered one), and the "deleted — Undo" notice above.
      const history = chat.page.getByRole("dialog", { name: "Chat history" });
      await history.getByRole("searchbox").fill("port");
      await chat.send([
        {
          type: "history/results",
          query: "port",
          hits: [
            { chatId: "chat-error", snippet: "…the dev server listens on port 3000" },
            { chatId: "chat-2", snippet: "…move the port into the loader's defaults" },
          ],
          complete: true,
        },
      ]);
      await history.locator(".history-snippet").nth(1).waitFor();
      await history.locator(".history-item").nth(1).hover();
    },
  },
  {
    name: "a command card waiting, another running, a !command result, a search card, a compaction summary",
    reach: async (chat) => {
      await chat.page.keyboard.press("Escape");
      const long = "packages/server/src/some/deeply/nested/folder/with/a/very/long/path/to/the/configuration-loader.ts";
      const search = { query: "port", path: ".", matches: [{ path: long, line: 3, column: 3, text: "port: 3000," }], total: 12, incomplete: false };
      const ran = { command: "npm test", cwd: ".", via: "process", end: "exited", totalLines: 1, totalBytes: 1, cutLines: 0, cutBytes: 0, invalidUtf8: false };
      const script = new Script()
        .start()
        .user("Start over.")
        .assistant([{ type: "text", text: "Older answer." }])
        .user("Second.")
        .assistant([{ type: "text", text: "Second answer." }])
        .raw({ type: "compaction/start", trigger: "threshold" })
        .raw({ type: "compaction/end", status: "done" })
        .message({
          role: "compactionSummary",
          summary: "## Goal\nPort.",
          keptMessageCount: 1,
          summarizedMessageCount: 3,
          tokensBefore: 40_000,
          tokensAfter: 900,
          trigger: "threshold",
          timestamp: 5,
        } as never)
        .message({
          role: "bashExecution",
          command: "git status",
          output: " M src/a.ts",
          exitCode: 0,
          cancelled: false,
          truncated: false,
          excludeFromContext: false,
          durationMs: 40,
          timestamp: 6,
        } as never)
        .user("Run the checks.")
        .assistant([
          toolCall("s1", "search", { query: "port" }),
          toolCall("ok", "run_command", { command: "npm test" }),
          toolCall("bad", "run_command", { command: "npm run lint" }),
          toolCall("run", "run_command", { command: "npm run dev" }),
          toolCall("ask", "run_command", { command: "npm publish", cwd: "server" }),
        ])
        .toolStart("s1", "search", { query: "port" })
        .toolEnd("s1", "search", { text: `${long}:3:3: port: 3000,`, details: search })
        .toolStart("ok", "run_command", { command: "npm test" })
        .raw({ type: "approval/request", toolCallId: "ok", toolName: "run_command", command: "npm test", cwd: ".", suggestedRules: ["npm test"] })
        .raw({ type: "approval/decided", toolCallId: "ok", decision: "allowed" })
        .toolEnd("ok", "run_command", { text: "ok", details: { ...ran, exitCode: 0, durationMs: 900 } })
        .toolStart("bad", "run_command", { command: "npm run lint" })
        .toolEnd("bad", "run_command", { text: "1 problem", details: { ...ran, command: "npm run lint", exitCode: 1, durationMs: 900 } })
        .toolStart("run", "run_command", { command: "npm run dev" })
        .raw({ type: "tool/progress", toolCallId: "run", details: { progress: { tail: ["> dev", "ready"], lines: 2, elapsedMs: 1500 } } })
        .toolStart("ask", "run_command", { command: "npm publish", cwd: "server" })
        .raw({ type: "approval/request", toolCallId: "ask", toolName: "run_command", command: "npm publish", cwd: "server", suggestedRules: ["npm publish"] });
      await chat.snapshot(stateOf(script.take()), { chatId: "chat-commands", title: "Commands" });
      await chat.page.locator(".summary summary").first().click();
    },
  },
  {
    name: "queue chips (kept after Stop), images in the composer the model cannot see, the meter nearly full with its details",
    reach: async (chat) => {
      const queued = (id: string, kind: "followUp" | "steer", text: string) => ({ id, kind, text, attachments: [], imageCount: 0 });
      await chat.events([
        { type: "queue/changed", kept: true, items: [queued("q1", "followUp", "then run the tests"), queued("q2", "steer", "use vitest")] },
        { type: "chat/runState", running: false },
        {
          type: "context/meter",
          meter: {
            tokens: 170_000,
            estimated: false,
            window: 200_000,
            priced: false,
            chat: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: 0 },
            // The warning note in the details, in the warning colour like the meter.
            reduced: { kind: "trimmed", messages: 3 },
          },
        },
      ]);
      await chat.send([{ type: "view/status", status: { ...defaultStatus, imageInput: false } }]);
      await pasteImage(chat);
      await chat.page.getByRole("textbox", { name: "Message to Pi" }).fill("What is this?");
      // By keyboard: a click would leave the mouse on the meter, whose hover colour hides its warning colour from axe.
      await chat.page.getByTestId("context-meter").focus();
      await chat.page.keyboard.press("Enter");
      await chat.page.getByRole("dialog", { name: "Context and usage" }).waitFor();
      await chat.page.getByTestId("meter-reduced").waitFor();
    },
  },
  {
    name: "an image in the composer of a model that sees images; the branch switcher",
    reach: async (chat) => {
      await chat.page.keyboard.press("Escape");
      const script = new Script();
      script.message({ role: "system", content: "You are Pi Chat." } as never);
      script
        .user("first prompt")
        .assistant([{ type: "text", text: "first answer" }])
        .raw({
          type: "branch/forks",
          from: 0,
          forks: [
            { messageIndex: 1, showAt: 1, index: 1, count: 2 },
            { messageIndex: 2, showAt: 2, index: 0, count: 3 },
          ],
        });
      await chat.snapshot(stateOf(script.take()), { chatId: "chat-branches", title: "Branches", status: { imageInput: true } });
      await pasteImage(chat);
    },
  },
  {
    name: "a proposed plan with its lines open for comments, a comment box, and every kind of model mark",
    reach: async (chat) => {
      await chat.page.keyboard.press("Escape");
      const plan = "## Goal\nFix the parser.\n\n## Steps\n1. Write the test";
      const script = new Script()
        .start()
        .user("Plan the fix")
        .message({ role: "localNotice", level: "info", text: "Retrying after the error.", timestamp: 3 } as never)
        .message({ role: "modeChanged", mode: "plan", timestamp: 4 } as never)
        .assistant([{ type: "toolCall", id: "call_plan", name: "propose_plan", arguments: { plan } }])
        .toolStart("call_plan", "propose_plan", { plan })
        .toolEnd("call_plan", "propose_plan", { text: "shown", details: { plan } })
        .end();
      await chat.snapshot(stateOf(script.take()), { chatId: "chat-plan", title: "Plan" });
      await chat.events([{ type: "chat/planOffer", toolCallId: "call_plan" }]);
      await chat.page.getByRole("button", { name: "Comment on lines" }).click();
      await chat.page.getByRole("button", { name: "Comment on line 2: Fix the parser." }).click();
      await chat.page.keyboard.type("Name the file.");
    },
  },
  {
    name: "a long chat",
    reach: async (chat) => {
      await chat.page.keyboard.press("Escape");
      const script = new Script();
      for (let turn = 0; turn < 120; turn++) {
        script
          .start()
          .user(`Question ${turn}`)
          .assistant([{ type: "text", text: `Answer ${turn} with \`code\` and a [link](src/a.ts).` }])
          .end();
      }
      await chat.snapshot(stateOf(script.take()), { chatId: "chat-long", title: "A long chat" });
      await chat.page.locator(".scroller").evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
    },
  },
];

describe("accessibility (axe-core, three themes)", function () {
  // Ten states, each audited: a minute or more on a busy machine.
  this.timeout(240_000);
  for (const theme of THEMES) {
    it(`${theme}: no serious, critical or unexplained moderate violation in any state`, async () => {
      const chat = await ChatPage.open({ theme, width: 420, height: 900 });
      const problems: string[] = [];
      // Findings (rules × states) and their nodes by impact, printed for the record even when clean.
      const tally: Record<string, { rules: number; nodes: number }> = {};
      try {
        await chat.snapshot(undefined, { title: "" });
        for (const state of STATES) {
          await state.reach(chat);
          if (state.name === "a pending approval") await screenshot(chat, theme);
          for (const f of await audit(chat)) {
            const t = (tally[f.impact] ??= { rules: 0, nodes: 0 });
            t.rules += 1;
            t.nodes += f.nodeCount;
            if (f.impact === "minor" || (f.impact === "moderate" && ALLOWED_MODERATE[f.id] !== undefined)) continue;
            problems.push(`[${state.name}] ${f.impact} ${f.id}: ${f.help}\n    ${f.nodes.join("\n    ")}`);
          }
        }
        await chat.assertClean();
      } finally {
        await chat.close();
      }
      const counts = ["critical", "serious", "moderate", "minor"].map((i) => `${i} ${tally[i]?.rules ?? 0} (${tally[i]?.nodes ?? 0} nodes)`);
      console.log(`      axe, ${theme}, ${STATES.length} states: ${counts.join(", ")}`);
      if (problems.length > 0) console.log(`axe, ${theme}:\n${problems.join("\n")}`);
      assert.equal(problems.length, 0, `${problems.length} axe finding(s) in ${theme}; listed above`);
    });
  }
});

/** Pastes one small PNG into the composer. */
async function pasteImage(chat: ChatPage): Promise<void> {
  await chat.page.evaluate(
    (b64) => {
      const data = new DataTransfer();
      data.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], "shot.png", { type: "image/png" }));
      document.querySelector("[data-composer-input]")!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
    },
    makePng(8, 8, 1).toString("base64"),
  );
  await chat.page.locator(".image-strip .image-thumb").first().waitFor();
}

async function screenshot(chat: ChatPage, theme: Theme): Promise<void> {
  await chat.page.locator(".scroller").evaluate((el) => (el.scrollTop = el.scrollHeight));
  await chat.frames(2);
  mkdirSync(ARTIFACTS, { recursive: true });
  await chat.page.screenshot({ path: join(ARTIFACTS, `approval-${theme}.png`) });
}

describe("a long search-result path at 300 px", function () {
  it("is cut with an ellipsis and leaves the match in view", async () => {
    const chat = await ChatPage.open({ width: 300, height: 600 });
    try {
      await chat.snapshot(undefined, { title: "" });
      const long = "packages/server/src/some/deeply/nested/folder/with/a/very/long/path/to/the/configuration-loader.ts";
      const details = { query: "port", path: ".", matches: [{ path: long, line: 3, column: 3, text: "port: 3000," }], total: 1, incomplete: false };
      await chat.events(
        new Script()
          .start()
          .user("Where?")
          .assistant([toolCall("s1", "search", { query: "port" })])
          .toolStart("s1", "search", { query: "port" })
          .toolEnd("s1", "search", { text: `${long}:3:3: port: 3000,`, details })
          .end()
          .take(),
      );
      const row = chat.page.locator(".discovery-row").first();
      const facts = await row.evaluate((el) => {
        const link = el.querySelector<HTMLElement>(".discovery-link")!;
        const text = el.querySelector<HTMLElement>(".discovery-text")!;
        const list = el.closest(".discovery-results")!.getBoundingClientRect();
        const match = text.getBoundingClientRect();
        return {
          ellipsis: getComputedStyle(link).textOverflow,
          cut: link.scrollWidth > link.clientWidth,
          matchInside: match.left >= list.left && match.right <= list.right + 0.5,
          matchWidth: match.width,
        };
      });
      assert.deepEqual({ ellipsis: facts.ellipsis, cut: facts.cut, matchInside: facts.matchInside }, { ellipsis: "ellipsis", cut: true, matchInside: true });
      assert.ok(facts.matchWidth >= 60, `the match keeps room to be read (${facts.matchWidth} px)`);
      await chat.assertClean();
    } finally {
      await chat.close();
    }
  });
});
