// What a screen reader hears: a scripted run (prompt, a read, an edit that waits for approval,
// the answer, then a run that fails) produces exactly this sequence of live-region texts —
// nothing per token, one announcement per change of meaning, the failure assertive — and so do
// a command run, a `!command`, a queued follow-up, an attached image, a branch switch and a
// compaction; a history delete speaks through the live region; search cards name their query.
import * as assert from "node:assert/strict";
import { makePng } from "../support/png";
import { useChatPage } from "./harness";
import { heard, listen } from "./live-heard";
import { answered, SAMPLE_CHANGE, SAMPLE_DIFF, Script, stateOf, toolCall } from "./script";

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

  it("Insert at cursor posts the code block's text and its language (the host puts it in the editor, or asks)", async () => {
    const chat = page();
    await chat.events(answered("```ts\nconst a = 1;\n```"));
    await chat.clearPosted();
    await chat.page.getByRole("button", { name: "Insert at cursor", exact: true }).click();
    assert.deepEqual(await chat.postedOf("editor/insertCode"), [{ type: "editor/insertCode", v: 1, code: "const a = 1;", language: "ts" }]);
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

/** A run_command result's details, as the tool reports them. */
const ran = (command: string, end: { end: string; exitCode: number | null }) => ({
  command,
  cwd: "server",
  via: "process",
  ...end,
  durationMs: 2100,
  totalLines: 1,
  totalBytes: 10,
  cutLines: 0,
  cutBytes: 0,
  invalidUtf8: false,
});

/** A `!command` as the host sends it: started (running), then its final message. */
function userCommand(script: Script, command: string, end: { exitCode: number | null; cancelled: boolean }): Script {
  const started = { role: "bashExecution", command, output: "", exitCode: null, cancelled: false, truncated: false, excludeFromContext: false, timestamp: 1 };
  return script
    .raw({ type: "chat/runState", running: true })
    .agent({ type: "message_start", message: started as never })
    .raw({ type: "command/progress", tail: ["working"], elapsedMs: 300 })
    .agent({ type: "message_end", message: { ...started, output: "working\ndone", ...end, durationMs: 400 } as never })
    .raw({ type: "chat/runState", running: false });
}

describe("announcements of commands, the queue, branches, images and compaction", function () {
  const page = useChatPage();
  // Five scenarios in one page, one event at a time: slow on a busy machine.
  this.timeout(120_000);

  it("each says what happened, once, in exactly this sequence", async () => {
    const chat = page();
    await listen(chat);
    const oneByOne = async (script: Script) => {
      for (const event of script.take()) await chat.events([event]);
    };
    const phase = async (name: string, expected: string[]) => {
      await chat.frames(2);
      assert.deepEqual(await heard(chat), expected, name);
      await chat.page.evaluate(() => {
        window.__heard.length = 0;
      });
    };

    // A command run: its question, how it ended (exit code 1; another timed out), the answer.
    const run = new Script()
      .start()
      .user("Run the tests.")
      .assistant([toolCall("c1", "run_command", { command: "npm test", cwd: "server" }), toolCall("c2", "run_command", { command: "npm run slow" })])
      .toolStart("c1", "run_command", { command: "npm test", cwd: "server" })
      .raw({ type: "approval/request", toolCallId: "c1", toolName: "run_command", command: "npm test", cwd: "server", suggestedRules: ["npm test"] });
    await oneByOne(run);
    await chat.page.locator('.command-card[data-item="c1"]').getByRole("button", { name: "Allow", exact: true }).click();
    run
      .raw({ type: "approval/decided", toolCallId: "c1", decision: "allowed" })
      .raw({ type: "tool/progress", toolCallId: "c1", details: { progress: { tail: ["> test"], lines: 1, elapsedMs: 500 } } })
      .toolEnd("c1", "run_command", { text: "$ npm test\nExit code 1.", details: ran("npm test", { end: "exited", exitCode: 1 }) })
      .toolStart("c2", "run_command", { command: "npm run slow" })
      .toolEnd("c2", "run_command", { text: "$ npm run slow\nTimed out.", details: ran("npm run slow", { end: "timeout", exitCode: null }), isError: true })
      .assistant([{ type: "text", text: "The tests fail." }])
      .end();
    await oneByOne(run);
    await phase("a command run", [
      "polite: Pi is answering",
      "polite: Approval needed: run npm test in server. Alt+Shift+A goes to it.",
      "polite: Command npm test: exit code 1",
      "polite: Command npm run slow: timed out",
      "polite: Pi answered: The tests fail. (3 words)",
    ]);

    // `!command`s: start and exit code; one stopped. Not "Pi is answering", not "Pi finished".
    await oneByOne(userCommand(new Script(), "git status", { exitCode: 0, cancelled: false }));
    await oneByOne(userCommand(new Script(), "sleep 5", { exitCode: null, cancelled: true }));
    await phase("a !command", [
      "polite: Running your command git status",
      "polite: Your command git status: exit code 0",
      "polite: Running your command sleep 5",
      "polite: Your command sleep 5: stopped",
    ]);

    // A queued follow-up: added, a steer added and removed by the user, the follow-up sent.
    const queued = (id: string, kind: "followUp" | "steer", text: string) => ({ id, kind, text, attachments: [], imageCount: 0 });
    const queue = new Script()
      .start()
      .user("Go")
      .raw({ type: "queue/changed", kept: false, items: [queued("q1", "followUp", "then run the tests")] })
      .raw({ type: "queue/changed", kept: false, items: [queued("q1", "followUp", "then run the tests"), queued("q2", "steer", "use vitest")] });
    await oneByOne(queue);
    await chat.page.getByRole("button", { name: "Remove Steer: use vitest" }).click();
    queue
      .raw({ type: "queue/changed", kept: false, items: [queued("q1", "followUp", "then run the tests")] })
      .assistant([{ type: "text", text: "Done." }])
      .raw({ type: "queue/changed", kept: false, items: [] })
      .user("then run the tests")
      .assistant([{ type: "text", text: "They pass." }])
      .end();
    await oneByOne(queue);
    await phase("a queued follow-up", [
      "polite: Pi is answering",
      "polite: Queued follow-up: then run the tests",
      "polite: Queued steer: use vitest",
      "polite: Removed from the queue: use vitest",
      "polite: Sent: then run the tests",
      "polite: Pi answered: They pass. (2 words)",
    ]);

    // An image attached in the composer.
    await chat.snapshot(undefined, { chatId: "chat-images", status: { imageInput: true } });
    await chat.page.evaluate(
      (b64) => {
        const data = new DataTransfer();
        data.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], "shot.png", { type: "image/png" }));
        document.querySelector("[data-composer-input]")!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
      },
      makePng(8, 8, 1).toString("base64"),
    );
    await chat.page.locator(".image-strip .image-thumb").waitFor();
    await phase("an attached image", ["polite: Attached image shot.png"]);

    // A branch switch (a chat opened is not news; the switch is).
    const branches = new Script();
    branches.message({ role: "system", content: "You are Pi Chat." } as never);
    branches
      .user("first prompt")
      .assistant([{ type: "text", text: "first answer" }])
      .user("second prompt")
      .assistant([{ type: "text", text: "second answer" }])
      .raw({ type: "branch/forks", from: 0, forks: [{ messageIndex: 3, showAt: 3, index: 0, count: 2 }] });
    await chat.snapshot(stateOf(branches.take()), { chatId: "chat-branches" });
    await chat.page.getByRole("button", { name: "Next version of this message" }).click();
    await chat.events([
      { type: "branch/rewind", keep: 3 },
      ...new Script()
        .user("other prompt")
        .assistant([{ type: "text", text: "other answer" }])
        .take(),
      { type: "branch/forks", from: 3, forks: [{ messageIndex: 3, showAt: 3, index: 1, count: 2 }] },
    ]);
    await phase("a branch switch", ["polite: Showing version 2 of 2 of this message"]);

    // A compaction (Compact now): its start and its end, not "Pi is answering" / "Pi finished".
    const summary = {
      role: "compactionSummary",
      summary: "## Goal\nPort 8080.",
      keptMessageCount: 2,
      summarizedMessageCount: 2,
      tokensBefore: 4000,
      tokensAfter: 300,
      trigger: "manual",
      timestamp: 20,
    };
    await oneByOne(
      new Script()
        .raw({ type: "chat/runState", running: true })
        .raw({ type: "compaction/start", trigger: "manual" })
        .raw({ type: "compaction/end", status: "done" })
        .message(summary as never)
        .raw({ type: "chat/runState", running: false }),
    );
    await phase("a compaction", ["polite: Compacting earlier messages", "polite: Earlier messages summarized"]);
    await oneByOne(
      new Script()
        .raw({ type: "chat/runState", running: true })
        .raw({ type: "compaction/start", trigger: "manual" })
        .raw({ type: "compaction/end", status: "cancelled" })
        .raw({ type: "chat/runState", running: false }),
    );
    await phase("a compaction stopped", ["polite: Compacting earlier messages", "polite: Compaction cancelled"]);
    // An answer that fills the context: the host compacts it in the same run, after the answer
    // (the session's run brackets both). The answer is still said, after the compaction's end.
    await oneByOne(
      new Script()
        .raw({ type: "chat/runState", running: true })
        .user("Which port?")
        .assistant([{ type: "text", text: "Port 8080. It is set in the loader." }])
        .raw({ type: "compaction/start", trigger: "threshold" })
        .raw({ type: "compaction/end", status: "done" })
        .message({ ...summary, trigger: "threshold", timestamp: 30 } as never)
        .raw({ type: "chat/runState", running: false }),
    );
    await phase("an answer, then a compaction in its run", [
      "polite: Pi is answering",
      "polite: Compacting earlier messages",
      "polite: Earlier messages summarized",
      "polite: Pi answered: Port 8080. (8 words)",
    ]);
    // Announced through the live region only: the Compacting… card is no status of its own.
    assert.equal(await chat.page.locator(".summary [role=status], .summary[role=status]").count(), 0);
  });

  it("a chat deleted in the history is announced through the live region, with its Undo", async () => {
    const chat = page();
    await chat.snapshot(undefined, {
      chats: [
        { id: "chat-1", title: "Default port", updatedAt: 1 },
        { id: "chat-2", title: "Refactor the loader", updatedAt: 2 },
      ],
    });
    await chat.send([{ type: "history/show" }]);
    await listen(chat);
    await chat.send([{ type: "history/deleted", chatId: "chat-2", title: "Refactor the loader" }]);
    await chat.frames(2);
    assert.deepEqual(await heard(chat), ["polite: Chat “Refactor the loader” deleted. Undo brings it back."]);
    assert.equal(await chat.page.locator(".history-deleted[role=status]").count(), 0, "not a second status read with it");
  });

  it("search cards are named by their query and their count, not by the folder", async () => {
    const chat = page();
    const args = { query: "port" };
    const details = { query: "port", path: ".", matches: [{ path: "src/config.ts", line: 3, column: 3, text: "port: 3000," }], total: 12, incomplete: false };
    await chat.events(
      new Script()
        .start()
        .user("Where?")
        .assistant([toolCall("s1", "search", args)])
        .toolStart("s1", "search", args)
        .toolEnd("s1", "search", { text: "src/config.ts:3:3: port: 3000,", details })
        .end()
        .take(),
    );
    assert.equal(await chat.page.locator('.tool[data-item="s1"]').getAttribute("aria-label"), 'Search "port": 12 matches');
  });
});
