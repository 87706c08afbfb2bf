// The history's host side in the real extension: Export Chat to Markdown opens what the view
// shows in an untitled Markdown editor, and the full-text search finds a chat by a word of an
// answer, on disk in the extension's storage.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import { chatItems } from "../../src/shared/reducer";
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
    const session = api.controller.currentSession;
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

    const hits = await api.controller.service.searchChats("QUOKKA");
    assert.deepEqual(
      hits.map((h) => h.chatId),
      [session.id],
    );
    assert.match(hits[0]!.snippet, /quokka comment/);
  });
});
