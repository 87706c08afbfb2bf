// Edit and retry as branches, in a real ChatService over the real store, with a scripted model:
// what the next request holds, what the view shows, and what a reload keeps.
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, type Message } from "@earendil-works/pi-ai";
import type { ChatSession } from "../../../src/core/session";
import { chatItems, reduce, stateFromTranscript, type ChatState } from "../../../src/shared/reducer";
import type { ChatEvent } from "../../../src/shared/protocol";
import { fourTurns, promptIndex, scriptedWorld, type ScriptedWorld } from "../../support/scripted-chat";
import { reply, textOf } from "../../support/scripted-model";

/** Texts of the user and assistant messages of a request, in order. */
function dialogue(request: readonly Message[]): string[] {
  return request.filter((m) => m.role === "user" || m.role === "assistant").map((m) => `${m.role}: ${textOf(m)}`);
}

/** What the view shows, as the webview would rebuild it from the session's events. */
function watchView(session: ChatSession): { state: () => ChatState } {
  let state = session.viewState;
  session.onEvent((event: ChatEvent) => (state = reduce(state, event)));
  return { state: () => state };
}

function shown(state: ChatState): string[] {
  return chatItems(state).flatMap((i) =>
    i.kind === "user" ? [`user: ${i.text}`] : i.kind === "assistant" ? [`assistant: ${i.blocks.map((b) => b.text).join("")}`] : [],
  );
}

describe("branches: edit, retry, switch (core, scripted model)", () => {
  let w: ScriptedWorld;
  afterEach(() => w?.cleanup());

  it("edit turn 2 of a 4-turn chat: the request holds turn 1 and the edited turn 2 only; switching back restores the old answers and context", async () => {
    w = scriptedWorld();
    const session = await fourTurns(w);
    const view = watchView(session);
    const prompt2 = promptIndex(session, "prompt 2");

    w.model.push(reply.text("answer 2, edited"));
    await session.editPrompt(prompt2, "prompt 2, edited");
    assert.deepStrictEqual(dialogue(w.model.requests[4]!), ["user: prompt 1", "assistant: answer 1", "user: prompt 2, edited"]);
    assert.deepStrictEqual(shown(view.state()), ["user: prompt 1", "assistant: answer 1", "user: prompt 2, edited", "assistant: answer 2, edited"]);
    assert.deepStrictEqual(view.state().forks, [{ messageIndex: prompt2, showAt: prompt2, index: 1, count: 2 }]);
    // The live view equals a fresh rebuild of the same path.
    assert.deepStrictEqual(chatItems(view.state()), chatItems(stateFromTranscript(session.messages)));

    // Switch back to the first branch: its four turns and their context come back.
    const change = await session.switchBranch(prompt2, 0);
    assert.deepStrictEqual(change.filesLeftChanged, []);
    assert.deepStrictEqual(
      shown(view.state()),
      [1, 2, 3, 4].flatMap((t) => [`user: prompt ${t}`, `assistant: answer ${t}`]),
    );
    assert.deepStrictEqual(view.state().forks, [{ messageIndex: prompt2, showAt: prompt2, index: 0, count: 2 }]);
    w.model.push(reply.text("answer 5"));
    await session.prompt("prompt 5");
    assert.deepStrictEqual(dialogue(w.model.requests[5]!), [...[1, 2, 3, 4].flatMap((t) => [`user: prompt ${t}`, `assistant: answer ${t}`]), "user: prompt 5"]);

    // A reload keeps the chosen leaf (the old branch, continued) and both branches.
    const reopened = await w.reopen().open(session.id);
    assert.ok(reopened.ok);
    assert.deepStrictEqual(shown(reopened.session.viewState), [...[1, 2, 3, 4, 5].flatMap((t) => [`user: prompt ${t}`, `assistant: answer ${t}`])]);
    assert.deepStrictEqual(reopened.session.viewState.forks, [{ messageIndex: prompt2, showAt: prompt2, index: 0, count: 2 }]);
  });

  it("switching to a branch and reloading keeps that leaf", async () => {
    w = scriptedWorld();
    const session = await fourTurns(w);
    const prompt3 = promptIndex(session, "prompt 3");
    w.model.push(reply.text("answer 3b"));
    await session.editPrompt(prompt3, "prompt 3b");
    await session.switchBranch(prompt3, 0);
    await session.switchBranch(prompt3, 1);
    const reopened = await w.reopen().open(session.id);
    assert.ok(reopened.ok);
    assert.deepStrictEqual(shown(reopened.session.viewState).slice(-2), ["user: prompt 3b", "assistant: answer 3b"]);
    await session.switchBranch(prompt3, 0);
    const again = await w.reopen().open(session.id);
    assert.ok(again.ok);
    assert.deepStrictEqual(shown(again.session.viewState).slice(-2), ["user: prompt 4", "assistant: answer 4"]);
  });

  it("retry re-runs from the prompt before the answer; both answers stay, switchable", async () => {
    w = scriptedWorld();
    const session = await fourTurns(w);
    const view = watchView(session);
    const answer4 = session.messages.length - 1;
    w.model.push(reply.text("answer 4, retried"));
    await session.retry(answer4);
    assert.deepStrictEqual(dialogue(w.model.requests[4]!).slice(-2), ["assistant: answer 3", "user: prompt 4"]);
    assert.deepStrictEqual(shown(view.state()).slice(-2), ["user: prompt 4", "assistant: answer 4, retried"]);
    assert.deepStrictEqual(view.state().forks, [{ messageIndex: answer4, showAt: answer4, index: 1, count: 2 }]);
    await session.switchBranch(answer4, 0);
    assert.deepStrictEqual(shown(view.state()).slice(-1), ["assistant: answer 4"]);
  });

  it("refuses to branch while a reply is written", async () => {
    w = scriptedWorld();
    const session = await fourTurns(w);
    w.model.push(reply.text("slow"));
    const running = session.prompt("prompt 5");
    await assert.rejects(session.retry(2), /still being written/);
    await assert.rejects(session.switchBranch(1, 0), /still being written/);
    await running;
  });

  it("a chat saved in format version 1 (the committed fixture) opens, continues and branches", async () => {
    w = scriptedWorld();
    mkdirSync(join(w.storageDir, "chats"), { recursive: true });
    copyFileSync(join(__dirname, "../../../../test/fixtures/transcripts/v1-scenario.jsonl"), join(w.storageDir, "chats", "v1-scenario.jsonl"));
    const opened = await w.service.open("v1-scenario");
    assert.ok(opened.ok);
    const session = opened.session;
    assert.equal(shown(session.viewState)[0], "user: Read src/config.ts and tell me the default port.");
    w.model.push(reply.text("Now 9090."));
    await session.prompt("and now 9090");
    const changeIndex = promptIndex(session, "Change it to 8080.");
    w.model.push(reply.text("Port 8081 it is."));
    await session.editPrompt(changeIndex, "Change it to 8081.");
    assert.deepStrictEqual(dialogue(w.model.requests[1]!).slice(-1), ["user: Change it to 8081."]);
    const reopened = await w.reopen().open("v1-scenario");
    assert.ok(reopened.ok);
    assert.deepStrictEqual(shown(reopened.session.viewState).slice(-2), ["user: Change it to 8081.", "assistant: Port 8081 it is."]);
    await reopened.session.switchBranch(changeIndex, 0);
    assert.deepStrictEqual(shown(reopened.session.viewState).slice(-2), ["user: and now 9090", "assistant: Now 9090."]);
  });
});

describe("branches with main's features (compaction, !cmd)", () => {
  let w: ScriptedWorld;
  afterEach(() => w?.cleanup());

  it("a compaction summary belongs to the branch it was made on", async () => {
    w = scriptedWorld({ compaction: () => ({ keepRecentTokens: 50 }) });
    const session = w.service.newChat();
    const long = " and more words".repeat(60);
    for (let turn = 1; turn <= 4; turn++) {
      w.model.push(reply.text(`answer ${turn}${long}`));
      await session.prompt(`prompt ${turn}${long}`);
    }
    const prompt2 = session.messages.findIndex((m) => m.role === "user" && textOf(m as Message).startsWith("prompt 2"));
    // The summary is made on the 4-turn branch...
    w.model.push(() => fauxAssistantMessage("## Goal\nsummary of the first branch"));
    assert.equal((await session.compact()).status, "done");
    assert.equal(session.messages.filter((m) => m.role === "compactionSummary").length, 1);
    // ...an edit of turn 2 starts a branch before it: neither the path nor the request has it.
    w.model.push(reply.text("answer 2b"));
    await session.editPrompt(prompt2, "prompt 2b");
    assert.equal(session.messages.filter((m) => m.role === "compactionSummary").length, 0);
    assert.doesNotMatch(JSON.stringify(w.model.requests.at(-1)), /summary of the first branch/);
    // Back on the first branch it is there again, and the next request is built from it.
    await session.switchBranch(prompt2, 0);
    assert.equal(session.messages.filter((m) => m.role === "compactionSummary").length, 1);
    w.model.push(reply.text("answer 5"));
    await session.prompt("prompt 5");
    assert.match(JSON.stringify(w.model.requests.at(-1)), /summary of the first branch/);
    const reopened = await w.reopen().open(session.id);
    assert.ok(reopened.ok);
    assert.equal(reopened.session.messages.filter((m) => m.role === "compactionSummary").length, 1);
  });

  it("a !cmd is saved on the current branch like any message", async () => {
    w = scriptedWorld();
    const session = w.service.newChat();
    // Without commands configured the !cmd is refused with a notice: that notice is still a node of the branch.
    await session.runUserCommand({ command: "ls", excludeFromContext: false });
    w.model.push(reply.text("answer 1"));
    await session.prompt("prompt 1");
    const roles = session.messages.map((m) => m.role);
    assert.deepEqual(roles, ["system", "localNotice", "user", "assistant"], "the system message is saved first, then the notice");
    const prompt1 = roles.indexOf("user");
    w.model.push(reply.text("answer 1b"));
    await session.editPrompt(prompt1, "prompt 1b");
    assert.deepEqual(shown(session.viewState), ["user: prompt 1b", "assistant: answer 1b"]);
    const reopened = await w.reopen().open(session.id);
    assert.ok(reopened.ok);
    assert.deepEqual(
      reopened.session.messages.map((m) => m.role),
      ["system", "localNotice", "user", "assistant"],
    );
    assert.deepEqual(reopened.session.viewState.forks, [{ messageIndex: prompt1, showAt: prompt1, index: 1, count: 2 }]);
  });

  it("a chat an earlier build saved with a !cmd before its system message (committed fixture): editing its first prompt branches under the system message", async () => {
    w = scriptedWorld();
    mkdirSync(join(w.storageDir, "chats"), { recursive: true });
    const file = join(w.storageDir, "chats", "cmd-before-system.jsonl");
    copyFileSync(join(__dirname, "../../../../test/fixtures/transcripts/cmd-before-system.jsonl"), file);
    const opened = await w.service.open("cmd-before-system");
    assert.ok(opened.ok);
    const session = opened.session;
    // On disk: !cmd, system, prompt 1, …; the session shows the system message first.
    assert.deepEqual(
      session.messages.map((m) => m.role),
      ["system", "bashExecution", "user", "assistant", "user", "assistant"],
    );
    const prompt1 = 2;
    w.model.push(reply.text("answer 1, edited"));
    await session.editPrompt(prompt1, "prompt 1, edited");
    const sent = dialogue(w.model.requests[0]!);
    assert.equal(sent.at(-1), "user: prompt 1, edited");
    assert.ok(!sent.some((l) => /prompt 1$|answer 1$|prompt 2|answer 2/.test(l)), sent.join(" | "));

    // The new branch hangs under the chat's system message, beside the old prompt 1 (before the
    // fix it hung under the !cmd: the branch had no system message but a new one the agent added).
    const records = readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; id?: string; parentId?: string | null; message?: Message });
    const byId = new Map(records.flatMap((r) => (r.id ? [[r.id, r] as const] : [])));
    const edited = records.find((r) => r.message?.role === "user" && textOf(r.message) === "prompt 1, edited");
    const ancestors: string[] = [];
    for (let id = edited?.parentId; id; id = byId.get(id)?.parentId) ancestors.push(id);
    assert.deepEqual(ancestors.slice(-2), ["5e6f7a8b9c0d", "b7c1d2e3f4a5"], "under the system message, under the !cmd");

    const reopened = await w.reopen().open("cmd-before-system");
    assert.ok(reopened.ok);
    const path = reopened.session.messages;
    assert.ok(
      path.some((m) => m.role === "system" && m.content === "You are Pi Chat, a coding assistant inside VS Code."),
      "the chat's system message is on the branch",
    );
    assert.deepEqual(shown(reopened.session.viewState), ["user: prompt 1, edited", "assistant: answer 1, edited"]);
    const editedIndex = path.findIndex((m) => m.role === "user" && textOf(m as Message) === "prompt 1, edited");
    // The switcher is on the edited prompt (the first message of the branch may be the system
    // message the agent added for today's tools, which the view does not draw).
    const forks = reopened.session.viewState.forks;
    assert.equal(forks.length, 1);
    assert.deepEqual({ showAt: forks[0]!.showAt, index: forks[0]!.index, count: forks[0]!.count }, { showAt: editedIndex, index: 1, count: 2 });
    await reopened.session.switchBranch(forks[0]!.messageIndex, 0);
    assert.deepEqual(shown(reopened.session.viewState), ["user: prompt 1", "assistant: answer 1", "user: prompt 2", "assistant: answer 2"]);
  });
});
