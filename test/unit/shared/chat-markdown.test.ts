// Export to Markdown: what the view shows (prompts, answers, tool summaries with their diffs,
// commands, notices) in the order it shows them; thinking and what only the model saw stay out.
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { chatToMarkdown } from "../../../src/shared/chat-markdown";
import { chatItems, stateFromTranscript } from "../../../src/shared/reducer";

const ts = 1_750_000_000_000;

function scenario(): AgentMessage[] {
  return [
    { role: "user", content: [{ type: "text", text: "Read src/config.ts and tell me the default port." }], timestamp: ts },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "secret reasoning" },
        { type: "toolCall", id: "r1", name: "read_file", arguments: { path: "src/config.ts" } },
      ],
      api: "openai-completions",
      provider: "openai",
      model: "m",
      usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "toolUse",
      timestamp: ts + 1,
    },
    {
      role: "toolResult",
      toolCallId: "r1",
      toolName: "read_file",
      content: [{ type: "text", text: "port: 3000" }],
      details: { path: "src/config.ts" },
      isError: false,
      timestamp: ts + 2,
    },
    {
      role: "assistant",
      content: [
        { type: "text", text: "The default port is **3000**. Here:\n```ts\nport: 3000\n```" },
        { type: "toolCall", id: "e1", name: "edit_file", arguments: { path: "src/config.ts", oldText: "3000", newText: "8080" } },
      ],
      api: "openai-completions",
      provider: "openai",
      model: "m",
      usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "toolUse",
      timestamp: ts + 3,
    },
    {
      role: "toolResult",
      toolCallId: "e1",
      toolName: "edit_file",
      content: [{ type: "text", text: "Edited." }],
      details: {
        path: "src/config.ts",
        diff: "--- a/src/config.ts\n+++ b/src/config.ts\n@@ -1,2 +1,2 @@\n-  port: 3000,\n+  port: 8080,\n ``` not a fence end\n",
      },
      isError: false,
      timestamp: ts + 4,
    },
    { role: "localNotice", level: "error", text: "No API key for Anthropic.", fix: "Run “Pi Chat: Set API Key”.", timestamp: ts + 5 },
  ] as AgentMessage[];
}

describe("export a chat to Markdown", () => {
  it("holds what the view shows, in its order, and nothing the view hides", () => {
    const items = chatItems(stateFromTranscript(scenario()));
    const md = chatToMarkdown("Default port", items);
    const order = [
      "# Default port",
      "## You",
      "Read src/config.ts and tell me the default port.",
      "**Tool** `read_file` `src/config.ts`",
      "## Pi",
      "The default port is **3000**.",
      "**Tool** `edit_file` `src/config.ts`",
      "+  port: 8080,",
      "**Error:** No API key for Anthropic.",
    ];
    let at = -1;
    for (const piece of order) {
      const next = md.indexOf(piece, at + 1);
      assert.ok(next > at, `${piece} comes after the previous piece\n${md}`);
      at = next;
    }
    assert.ok(!md.includes("secret reasoning"), "thinking is collapsed in the view and left out");
    // The diff's own backticks cannot close its fence.
    assert.ok(md.includes("````diff\n@@ -1,2 +1,2 @@\n-  port: 3000,\n+  port: 8080,\n ``` not a fence end\n````"), md);
  });
});
