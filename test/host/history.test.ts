// The history's host side in the real extension: Export Chat to Markdown opens what the view
// shows in an untitled Markdown editor, the full-text search finds a chat by a word of an
// answer, on disk in the extension's storage, and Delete goes to the trash with Undo.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { createNodeTranscriptStorage, TranscriptStore } from "../../src/core/transcript";
import type { PiChatTestApi } from "../../src/host/extension";
import type { HostMessage } from "../../src/shared/protocol";
import { chatItems, stateFromTranscript } from "../../src/shared/reducer";
import { questionsAndAnswers } from "../support/long-chat";
import type { OpenAIServer } from "../support/openai-server";
import { startChatView, waitFor } from "./helpers";

describe("history commands in the extension host", function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;

  before(async () => {
    ({ server, api } = await startChatView());
  });
  after(async () => server?.close());

  it("Export Chat to Markdown holds the prompts and answers the view shows, in order; Search finds the chat by a word of an answer", async () => {
    await vscode.commands.executeCommand("piChat.newChat");
    server.push(
      () => ({ text: "The port is **3000**, see the quokka comment." }),
      () => ({ text: "Done." }),
    );
    await api.view.receive({ type: "chat/send", v: 1, text: "What is the default port?" });
    await api.view.receive({ type: "chat/send", v: 1, text: "Thanks." });
    const session = api.screen.currentSession;
    await vscode.commands.executeCommand("piChat.exportChat", session.id);
    const doc = await waitFor("the exported document", () => {
      const editor = vscode.window.activeTextEditor;
      return editor?.document.languageId === "markdown" && editor.document.isUntitled ? editor.document : undefined;
    });
    const text = doc.getText();
    const shown = chatItems(session.viewState).flatMap((i) => (i.kind === "user" ? [i.text] : i.kind === "assistant" ? i.blocks.map((b) => b.text) : []));
    assert.deepEqual(shown, ["What is the default port?", "The port is **3000**, see the quokka comment.", "Thanks.", "Done."]);
    let at = -1;
    for (const piece of shown) {
      const next = text.indexOf(piece, at + 1);
      assert.ok(next > at, `“${piece}” is in the export after what precedes it:\n${text}`);
      at = next;
    }
    await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");

    const hits = await api.screen.service.searchChats("QUOKKA");
    assert.deepEqual(
      hits.map((h) => h.chatId),
      [session.id],
    );
    assert.match(hits[0]!.snippet, /quokka comment/);
  });

  it("a long saved chat opens from its newest messages; the view's ask brings the earlier ones; Export holds them all", async () => {
    // 800 messages, written as another window would have (the extension's store finds the file).
    const messages = questionsAndAnswers(400);
    const storageDir = api.storageDir;
    const writer = new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storageDir));
    await writer.createChat({ id: "long-chat", messages });
    await writer.close();
    await api.screen.refreshChats();
    await api.view.receive({ type: "chat/switch", v: 1, chatId: "long-chat" });
    const session = await waitFor("the long chat on screen", () => api.screen.currentSession.id === "long-chat" && api.screen.currentSession);
    const earlier = session.viewState.earlier ?? 0;
    assert.ok(earlier >= 550, `the items of the earlier messages wait (${earlier})`);
    const snapshot = await waitFor("its snapshot", () =>
      [...(api.view.posted as HostMessage[])].reverse().find((m) => m.type === "view/snapshot" && m.chatId === "long-chat"),
    );
    assert.ok(
      snapshot.type === "view/snapshot" && snapshot.state.earlier === earlier && chatItems(snapshot.state).length === 800 - earlier,
      "the view got the newest items only",
    );

    // Export is of the whole chat, whatever the view has.
    await vscode.commands.executeCommand("piChat.exportChat", "long-chat");
    const doc = await waitFor("the exported document", () => {
      const editor = vscode.window.activeTextEditor;
      return editor?.document.languageId === "markdown" && editor.document.isUntitled ? editor.document : undefined;
    });
    const exported = doc.getText();
    assert.ok(exported.indexOf("Question 0") >= 0 && exported.indexOf("Question 0") < exported.indexOf("Answer 399"), "first to last");
    await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");

    // The webview asks (it was scrolled near the top): the earlier items go to it as a chat event.
    await api.view.receive({ type: "chat/loadEarlier", v: 1 });
    const sent = await waitFor("the earlier items", () =>
      (api.view.posted as HostMessage[]).find((m) => m.type === "chat/event" && m.event.type === "items/earlier"),
    );
    assert.ok(sent.type === "chat/event" && sent.event.type === "items/earlier" && sent.event.count === earlier && sent.event.items.length === earlier);
    assert.equal(session.viewState.earlier, undefined);
    assert.deepEqual(chatItems(session.viewState), chatItems(stateFromTranscript(session.messages)), "the whole chat, as a full rebuild has it");

    // A view that let go of the items of its first 300 messages (to bound its memory) and is
    // scrolled back up asks for them by their count: they come again, the host's state unchanged.
    const before = chatItems(session.viewState);
    const postedBefore = (api.view.posted as HostMessage[]).length;
    await api.view.receive({ type: "chat/loadEarlier", v: 1, count: 300 });
    const again = await waitFor("the released items again", () =>
      (api.view.posted as HostMessage[]).slice(postedBefore).find((m) => m.type === "chat/event" && m.event.type === "items/earlier"),
    );
    assert.ok(again.type === "chat/event" && again.event.type === "items/earlier" && again.event.count === 300);
    assert.deepEqual(again.event.items, chatItems(stateFromTranscript(session.messages.slice(0, 300))), "the items of those 300 messages");
    assert.deepEqual(chatItems(session.viewState), before, "the host's state is as it was");
    // A count past the chat's length (a stale view) gets nothing.
    // A valid ask right after it is the barrier (posts keep their order): once its answer is there, any to the first would be too.
    const postedThen = (api.view.posted as HostMessage[]).length;
    await api.view.receive({ type: "chat/loadEarlier", v: 1, count: 5_000 });
    await api.view.receive({ type: "chat/loadEarlier", v: 1, count: 300 });
    await waitFor("the answer to the ask after it", () =>
      (api.view.posted as HostMessage[]).slice(postedThen).some((m) => m.type === "chat/event" && m.event.type === "items/earlier" && m.event.count === 300),
    );
    assert.deepEqual(
      (api.view.posted as HostMessage[]).slice(postedThen).flatMap((m) => (m.type === "chat/event" && m.event.type === "items/earlier" ? [m.event.count] : [])),
      [300],
      "no items for a count the chat does not have",
    );
  });

  it("the view's history search: titles at once, then the chats whose messages hold the words, each with its snippet; a rename from the view is listed", async () => {
    await vscode.commands.executeCommand("piChat.newChat");
    server.push(() => ({ text: "Wombats dig burrows." }));
    await api.view.receive({ type: "chat/send", v: 1, text: "Tell me about a wombat." });
    const wombatChat = api.screen.currentSession.id;
    await api.view.receive({ type: "history/rename", v: 1, chatId: wombatChat, title: "Marsupials" });
    await waitFor("the renamed chat in the list", async () => (await api.screen.service.listChats()).find((c) => c.id === wombatChat)?.title === "Marsupials");
    await vscode.commands.executeCommand("piChat.newChat");
    server.push(() => ({ text: "Noted." }));
    await api.view.receive({ type: "chat/send", v: 1, text: "Wombat facts for the marsupials page" });
    const titledChat = api.screen.currentSession.id;

    const posted = api.view.posted!;
    const before = posted.length;
    await api.view.receive({ type: "history/search", v: 1, query: "WOMBAT" });
    const results = await waitFor("the complete answer", () => {
      const answers = posted
        .slice(before)
        .filter(
          (m): m is { type: string; query: string; hits: { chatId: string; snippet?: string }[]; complete: boolean } =>
            (m as { type?: string }).type === "history/results",
        );
      return answers.some((a) => a.complete) ? answers : undefined;
    });
    assert.deepEqual(
      results.map((r) => [r.query, r.complete, r.hits.map((h) => h.chatId)]),
      [
        ["WOMBAT", false, [titledChat]],
        ["WOMBAT", true, [titledChat, wombatChat]],
      ],
      "the title match first, then the chat that says it only in its messages",
    );
    assert.match(results[1]!.hits[1]!.snippet ?? "", /wombat/i);
  });

  it("piChat.titleFromModel: off for the local server by default; with always, one title request after the first answer names the chat", async () => {
    const config = vscode.workspace.getConfiguration("piChat");
    const isTitleRequest = (body: { messages: { role: string; content?: unknown }[] }) =>
      body.messages.some((m) => m.role === "user" && JSON.stringify(m.content ?? "").includes("The user wrote:"));
    await vscode.commands.executeCommand("piChat.newChat");
    server.push(() => ({ text: "Port 3000." }));
    await api.view.receive({ type: "chat/send", v: 1, text: "What port does the dev server use?" });
    const local = api.screen.currentSession.id;
    assert.equal(server.chatRequests().filter(isTitleRequest).length, 0, "the default leaves a local server alone");
    assert.equal(server.pending(), 0);

    await config.update("titleFromModel", "always", vscode.ConfigurationTarget.Global);
    try {
      await vscode.commands.executeCommand("piChat.newChat");
      server.push(
        () => ({ text: "Use the --inspect flag." }),
        () => ({ text: "Debugging Node with inspect" }),
      );
      await api.view.receive({ type: "chat/send", v: 1, text: "How do I attach a debugger to node?" });
      const chatId = api.screen.currentSession.id;
      await waitFor(
        "the model's title in the list",
        async () => (await api.screen.service.listChats()).find((c) => c.id === chatId)?.title === "Debugging Node with inspect",
      );
      const titleRequests = server.chatRequests().filter(isTitleRequest);
      assert.equal(titleRequests.length, 1);
      assert.match(JSON.stringify(titleRequests[0]!.messages), /How do I attach a debugger to node\?/);
      // The view's list follows, and the local chat kept its first prompt's title.
      await waitFor("the view's list", () => {
        const lists = api.view.posted!.filter(
          (m): m is { type: string; chats: { id: string; title: string }[] } => (m as { type?: string }).type === "history/list",
        );
        return lists.at(-1)?.chats.some((c) => c.id === chatId && c.title === "Debugging Node with inspect");
      });
      assert.equal((await api.screen.service.listChats()).find((c) => c.id === local)?.title, "What port does the dev server use?");
    } finally {
      await config.update("titleFromModel", undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it("Delete moves the chat to the trash and Undo brings it back from disk: same id, messages and current leaf, on screen again", async () => {
    await vscode.commands.executeCommand("piChat.newChat");
    server.push(
      () => ({ text: "the first answer" }),
      () => ({ text: "the retried answer" }),
    );
    await api.view.receive({ type: "chat/send", v: 1, text: "Name a colour." });
    const session = api.screen.currentSession;
    const answer = session.messages.findIndex((m) => m.role === "assistant");
    await api.view.receive({ type: "branch/retry", v: 1, messageIndex: answer });
    // Back on the first answer: the current leaf is not the newest line of the file.
    await api.view.receive({ type: "branch/switch", v: 1, messageIndex: answer, to: 0 });
    const chatId = session.id;
    const shownBefore = chatItems(session.viewState);
    assert.ok(JSON.stringify(shownBefore).includes("the first answer") && !JSON.stringify(shownBefore).includes("the retried answer"));
    await waitFor("the chat in the list", async () => (await api.screen.service.listChats()).some((c) => c.id === chatId));

    const posted = api.view.posted!;
    const postedBefore = posted.length;
    await api.view.receive({ type: "chat/delete", v: 1, chatId });
    assert.notEqual(api.screen.currentSession.id, chatId, "a new chat is shown in its place");
    assert.equal(await api.screen.service.hasChat(chatId), false);
    assert.ok(!(await api.screen.service.listChats()).some((c) => c.id === chatId));
    const notices = posted
      .slice(postedBefore)
      .filter((m): m is { type: string; chatId: string; title: string } => (m as { type?: string }).type === "history/deleted");
    assert.deepEqual(
      notices.map((m) => [m.chatId, m.title]),
      [[chatId, "Name a colour."]],
      "the view is told, to offer Undo",
    );

    const postedBeforeUndo = posted.length;
    await api.view.receive({ type: "history/undoDelete", v: 1, chatId });
    const restored = api.screen.currentSession;
    assert.equal(restored.id, chatId, "the restored chat is on screen again");
    // What the view was told: the chat is in its history list again (which ends the "deleted"
    // notice) and is on screen under its own title, not "New chat".
    const afterUndo = posted.slice(postedBeforeUndo) as HostMessage[];
    const lists = afterUndo.flatMap((m) => (m.type === "history/list" ? [m.chats] : m.type === "view/snapshot" ? [m.chats] : []));
    assert.ok(
      lists.at(-1)?.some((c) => c.id === chatId),
      "the view's history lists the chat again",
    );
    const snapshot = afterUndo.filter((m) => m.type === "view/snapshot").at(-1);
    assert.ok(snapshot?.type === "view/snapshot" && snapshot.chatId === chatId && snapshot.title === "Name a colour.", "the header shows its title");
    assert.notEqual(restored, session, "read back from disk, not the session kept in memory");
    assert.deepEqual(chatItems(restored.viewState), shownBefore, "the same messages on the same branch");
    assert.deepEqual(restored.viewState.forks, session.viewState.forks, "both answers are still there, the first one chosen");
    assert.ok(
      (await api.screen.service.listChats()).some((c) => c.id === chatId),
      "listed again",
    );
    // A second Undo (the notification's, after the view's) does nothing.
    await api.view.receive({ type: "history/undoDelete", v: 1, chatId });
    assert.equal(api.screen.currentSession, restored);
  });
});
