// What a screen reader hears: a scripted run (prompt, a read, an edit that waits for approval,
// the answer, then a run that fails) produces exactly this sequence of live-region texts —
// nothing per token, one announcement per change of meaning, the failure assertive.
import * as assert from "node:assert/strict";
import { type ChatPage, useChatPage } from "./harness";
import { answered, SAMPLE_CHANGE, SAMPLE_DIFF, Script, toolCall } from "./script";

declare global {
  interface Window {
    __heard: string[];
  }
}

/** Records every node added to the live regions, as "polite: text" / "assertive: text". */
async function listen(chat: ChatPage): Promise<void> {
  await chat.page.evaluate(() => {
    window.__heard = [];
    for (const region of Array.from(document.querySelectorAll<HTMLElement>("[data-live]"))) {
      new MutationObserver((records) => {
        for (const r of records) for (const node of Array.from(r.addedNodes)) window.__heard.push(`${region.dataset.live}: ${node.textContent ?? ""}`);
      }).observe(region, { childList: true });
    }
  });
}

const heard = (chat: ChatPage) => chat.page.evaluate(() => window.__heard.slice());

describe("announcements", function () {
  const page = useChatPage();

  it("a scripted run and a failing run are announced as exactly this sequence", async () => {
    const chat = page();
    await listen(chat);
    const answer = "The port is now **8080** in `src/config.ts`. Restart the dev server to use it.";
    const script = new Script()
      .start()
      .user("Change the port to 8080.")
      .assistant([toolCall("r1", "read_file", { path: "src/config.ts" })])
      .toolStart("r1", "read_file", { path: "src/config.ts" })
      .toolEnd("r1", "read_file", { text: "export const config = { port: 3000 };", details: { path: "src/config.ts", startLine: 1, endLine: 1 } })
      .assistant([{ type: "text", text: "I'll change it." }, toolCall("e1", "edit_file", { path: "src/config.ts" })], { chunk: 3 })
      .toolStart("e1", "edit_file", { path: "src/config.ts" })
      .raw({ type: "approval/request", toolCallId: "e1", toolName: "edit_file", path: "src/config.ts", diff: SAMPLE_CHANGE });
    for (const event of script.take()) await chat.events([event]);
    await chat.page.locator('.tool[data-item="e1"]').getByRole("button", { name: "Allow", exact: true }).click();
    const rest = new Script()
      .raw({ type: "approval/decided", toolCallId: "e1", decision: "allowed" })
      .toolEnd("e1", "edit_file", { text: "Edited src/config.ts.", details: { diff: SAMPLE_DIFF, path: "src/config.ts", additions: 1, deletions: 1 } })
      .message({ role: "approvalNotice", toolCallId: "e1", toolName: "edit_file", decision: "allowed", path: "src/config.ts", diff: SAMPLE_DIFF, timestamp: 9 })
      .assistant([{ type: "text", text: answer }], { chunk: 2 })
      .end()
      // The next prompt fails before any answer: no key.
      .start()
      .user("And the host?")
      .message({ role: "localNotice", level: "error", text: "No API key for Anthropic.", fix: "Run “Pi Chat: Set API Key”.", timestamp: 10 })
      .end();
    // One event per message, as the host posts them: every intermediate state is seen.
    for (const event of rest.take()) await chat.events([event]);
    await chat.frames(2);
    assert.deepEqual(await heard(chat), [
      "polite: Pi is answering",
      "polite: Approval needed: Edit src/config.ts. Alt+Shift+A goes to it.",
      "polite: Edit src/config.ts: applied",
      "polite: Pi answered: The port is now 8080 in src/config.ts. (14 words)",
      "polite: Pi is answering",
      "assertive: No API key for Anthropic.",
    ]);

    // Structure a screen reader navigates by: the messages are a named log, each prompt an
    // article "You, <time>" under a level-2 heading (one per turn), each answer an article "Pi, <time>",
    // the composer a labelled region.
    const log = chat.page.getByRole("log", { name: "Messages" });
    assert.equal(await log.count(), 1);
    assert.equal(await log.getByRole("article", { name: /^You(, \d{1,2}:\d{2}.*)?$/ }).count(), 2, "one article per prompt, named You");
    assert.equal(await log.getByRole("heading", { level: 2 }).count(), 2, "a level-2 heading per turn");
    assert.ok((await log.getByRole("article", { name: /^Pi(, \d{1,2}:\d{2}.*)?$/ }).count()) >= 1, "answers are articles named Pi");
    assert.equal(await chat.page.getByRole("region", { name: "Message Pi" }).count(), 1, "the composer is a labelled region");
  });

  it("Copy on a code block says Copied, by name and in the live region", async () => {
    const chat = page();
    await chat.page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await chat.events(answered("```ts\nconst a = 1;\n```"));
    await listen(chat);
    const copy = chat.page.getByRole("button", { name: "Copy", exact: true });
    await copy.click();
    await chat.page.getByRole("button", { name: "Copied", exact: true }).waitFor();
    assert.deepEqual(await heard(chat), ["polite: Copied"]);
    assert.equal(await chat.page.evaluate(() => navigator.clipboard.readText()), "const a = 1;");
  });

  it("Insert at cursor posts the code block's text (the host puts it in the editor)", async () => {
    const chat = page();
    await chat.events(answered("```ts\nconst a = 1;\n```"));
    await chat.clearPosted();
    await chat.page.getByRole("button", { name: "Insert at cursor", exact: true }).click();
    assert.deepEqual(await chat.postedOf("editor/insertCode"), [{ type: "editor/insertCode", v: 1, code: "const a = 1;" }]);
  });

  it("Apply to file posts the block's text and the file it names (shown in its head); without a name, no path", async () => {
    const chat = page();
    const answer = [
      "```ts src/config.ts\nexport const port = 8080;\n```",
      '```ts title="lib/a b.ts"\nnot a path: it has a space\n```',
      "```python:tools/run.py\nprint(1)\n```",
      "```\nno language\n```",
    ].join("\n\n");
    await chat.events(answered(answer));
    await chat.clearPosted();
    const paths = await chat.page.locator(".md-code").evaluateAll((blocks) => blocks.map((b) => b.querySelector(".md-code-path")?.textContent ?? null));
    assert.deepEqual(paths, ["src/config.ts", null, "tools/run.py", null]);
    const apply = chat.page.getByRole("button", { name: "Apply to file", exact: true });
    assert.equal(await apply.count(), 4);
    for (let i = 0; i < 4; i++) await apply.nth(i).click();
    // Each click is numbered, so the host's answer (Applied to …, Undo) finds its block.
    assert.deepEqual(await chat.postedOf("editor/applyCode"), [
      { type: "editor/applyCode", v: 1, code: "export const port = 8080;", requestId: 1, path: "src/config.ts" },
      { type: "editor/applyCode", v: 1, code: "not a path: it has a space", requestId: 2 },
      { type: "editor/applyCode", v: 1, code: "print(1)", requestId: 3, path: "tools/run.py" },
      { type: "editor/applyCode", v: 1, code: "no language", requestId: 4 },
    ]);
  });

  it("a background command that ends long after its turn is announced once, with how it ended", async () => {
    const chat = page();
    const details = {
      command: "npm run dev",
      cwd: ".",
      via: "process",
      end: "exited",
      exitCode: null,
      durationMs: 900,
      background: { id: "bg-1", ready: "waited" },
    };
    const script = new Script()
      .start()
      .user("Start the server.")
      .assistant([toolCall("bg-1", "run_command", { command: "npm run dev", background: "true" })])
      .toolStart("bg-1", "run_command", { command: "npm run dev", background: "true" })
      .toolEnd("bg-1", "run_command", { text: "Started in the background", details })
      .assistant([{ type: "text", text: "It runs." }])
      .end()
      .start()
      .user("Thanks.")
      .assistant([{ type: "text", text: "Sure." }])
      .end();
    await chat.events(script.take());
    await listen(chat);
    await chat.events(new Script().raw({ type: "command/backgroundState", id: "bg-1", state: { state: "exited", exitCode: 1, durationMs: 60_000 } }).take());
    await chat.frames(2);
    assert.deepEqual(await heard(chat), ["polite: Background command npm run dev exited with code 1"]);
  });
});
