// The host's side of the composer's `@` and `/` lists, for the browser tests: answers computed
// with the same shared matcher the host runs, over a small fixed workspace.
import * as assert from "node:assert/strict";
import { fuzzyFilter } from "../../src/shared/fuzzy";
import { ACTION_COMMANDS, type MentionOption } from "../../src/shared/mentions";
import type { ChatPage } from "./harness";

export const WORKSPACE_PATHS = [
  "README.md",
  "server",
  "server/config.ts",
  "server/routes.ts",
  "src/server.ts",
  "scripts/serve-config.sh",
  "src/config/index.ts",
];
const FOLDERS = new Set(["server"]);

/** Answers the newest `mention/query` as the host would (specials whose name matches, then paths). */
export async function answerMentions(chat: ChatPage): Promise<void> {
  const queries = await chat.postedOf("mention/query");
  const last = queries[queries.length - 1];
  assert.ok(last, "the composer asked the host for the @ list");
  const specials: MentionOption[] = fuzzyFilter(last.query, ["problems", "selection", "changes", "terminal"]).map((m) => ({
    ref: { kind: (["problems", "selection", "changes", "terminal"] as const)[m.index]! },
    label: ["problems", "selection", "changes", "terminal"][m.index]!,
    detail: "special",
    positions: m.positions,
  }));
  const files: MentionOption[] = fuzzyFilter(last.query, WORKSPACE_PATHS).map((m) => {
    const path = WORKSPACE_PATHS[m.index]!;
    return { ref: { kind: FOLDERS.has(path) ? "folder" : "file", path }, label: path, positions: m.positions };
  });
  await chat.send([{ type: "mention/results", requestId: last.requestId, options: [...specials, ...files], indexing: false, truncated: false }]);
}

export async function openCommandList(chat: ChatPage): Promise<void> {
  const input = chat.page.getByRole("textbox", { name: "Message to Pi" });
  await input.fill("");
  await input.click();
  await input.pressSequentially("/");
  assert.equal((await chat.postedOf("composer/listCommands")).length >= 1, true, "the composer asked for the / list");
  await chat.send([
    {
      type: "composer/commands",
      commands: [...ACTION_COMMANDS, { name: "review", description: "Review a file (workspace)", kind: "template", argumentHint: "<file>" }],
      notes: [],
    },
  ]);
}
