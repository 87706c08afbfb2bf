// axe-core over the real bundle, in every state a user meets — empty, messages, a streamed
// answer, a pending approval, an error notice, the history open, a long chat — each in VS Code's
// dark, light and high-contrast variable sets: no serious or critical violation, and no moderate
// one except those named (with the reason) in ALLOWED_MODERATE and docs/accessibility.md. One screenshot
// per theme of a chat with an approval card lands in out/test-artifacts/approval-<theme>.png.
import * as assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { answerMentions, openCommandList } from "./mention-helpers";
import { ChatPage, repoRoot, THEMES, type Theme } from "./harness";
import { SAMPLE_CHANGE, SAMPLE_DIFF, Script, stateOf, toolCall } from "./script";

const AXE_SOURCE = readFileSync(join(repoRoot, "node_modules/axe-core/axe.min.js"), "utf8");
const ARTIFACTS = join(repoRoot, "out/test-artifacts");

/** Moderate findings accepted, by rule id, each with the reason (also in docs/accessibility.md). */
const ALLOWED_MODERATE: Record<string, string> = {};

interface Finding {
  id: string;
  impact: string;
  help: string;
  nodes: string[];
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
    name: "a streamed answer",
    reach: async (chat) => {
      await chat.events(
        new Script()
          .start()
          .user("Explain it.")
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
      ]);
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
  for (const theme of THEMES) {
    it(`${theme}: no serious, critical or unexplained moderate violation in any state`, async () => {
      const chat = await ChatPage.open({ theme, width: 420, height: 900 });
      const problems: string[] = [];
      try {
        await chat.snapshot(undefined, { title: "" });
        for (const state of STATES) {
          await state.reach(chat);
          if (state.name === "a pending approval") await screenshot(chat, theme);
          for (const f of await audit(chat)) {
            if (f.impact === "minor" || (f.impact === "moderate" && ALLOWED_MODERATE[f.id] !== undefined)) continue;
            problems.push(`[${state.name}] ${f.impact} ${f.id}: ${f.help}\n    ${f.nodes.join("\n    ")}`);
          }
        }
        await chat.assertClean();
      } finally {
        await chat.close();
      }
      if (problems.length > 0) console.log(`axe, ${theme}:\n${problems.join("\n")}`);
      assert.equal(problems.length, 0, `${problems.length} axe finding(s) in ${theme}; listed above`);
    });
  }
});

async function screenshot(chat: ChatPage, theme: Theme): Promise<void> {
  await chat.page.locator(".scroller").evaluate((el) => (el.scrollTop = el.scrollHeight));
  await chat.frames(2);
  mkdirSync(ARTIFACTS, { recursive: true });
  await chat.page.screenshot({ path: join(ARTIFACTS, `approval-${theme}.png`) });
}
