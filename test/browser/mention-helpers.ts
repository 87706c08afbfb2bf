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

/** The workspace folder the browser tests' URIs point into. */
export const WORKSPACE_URI = "file:///home/user/project";

/**
 * Drops on the composer what VS Code's explorer or a tab puts on the DataTransfer: `types` maps
 * each format to its string (no File objects, as from the explorer). Returns whether the page
 * took the drag over (dragover's default prevented: the drop is allowed) and the drop.
 */
export async function dropResources(chat: ChatPage, types: Record<string, string>): Promise<{ over: boolean; dropped: boolean }> {
  return chat.page.evaluate((entries) => {
    const data = new DataTransfer();
    for (const [type, value] of Object.entries(entries)) data.setData(type, value);
    const target = document.querySelector(".composer")!;
    const over = new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true });
    target.dispatchEvent(over);
    const drop = new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true });
    target.dispatchEvent(drop);
    return { over: over.defaultPrevented, dropped: drop.defaultPrevented };
  }, types);
}

/**
 * Pastes plain text as the browser does: the paste event (a real ClipboardEvent with its
 * DataTransfer), then, unless a handler prevented it, the text inserted at the caret. Returns
 * whether the page blocked the paste.
 */
export async function pasteText(chat: ChatPage, text: string): Promise<boolean> {
  return chat.page.evaluate((t) => {
    const data = new DataTransfer();
    data.setData("text/plain", t);
    const input = document.querySelector("textarea")!;
    const event = new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true });
    input.dispatchEvent(event);
    if (!event.defaultPrevented) document.execCommand("insertText", false, t);
    return event.defaultPrevented;
  }, text);
}
