// The context meter, "what the model sees" and compaction by hand, in a real extension host
// against the local OpenAI wire-format server (pi-ai's real openai-completions adapter).
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import { SUMMARY_SYSTEM_PROMPT } from "../../src/core/context/summary-prompt";
import type { PiChatTestApi } from "../../src/host/extension";
import { MODEL_CONTEXT_SCHEME } from "../../src/host/views/model-context-view";
import type { ContextMeter } from "../../src/shared/context-meter";
import type { HostMessage, HostPost } from "../../src/shared/protocol";
import { chatItems } from "../../src/shared/reducer";
import type { ChatCompletionRequest, OpenAIServer } from "../support/openai-server";
import { startChatView, waitFor } from "./helpers";

function meterEvents(posted: readonly unknown[]): ContextMeter[] {
  return (posted as HostPost[]).flatMap((m) =>
    typeof m === "object" && m !== null && !Array.isArray(m) && m.type === "chat/event" && m.event.type === "context/meter" ? [m.event.meter] : [],
  );
}

/** The JSON of the "Request body as sent" section of the model-context document. */
function bodyShown(text: string): unknown {
  const section = text.slice(text.indexOf("## Request body as sent to"));
  const match = /^(`{3,})json\n([\s\S]*?)\n\1$/m.exec(section);
  assert.ok(match, `the document shows the request body:\n${text.slice(0, 600)}\n…\n${section.slice(0, 1500)}`);
  return JSON.parse(match[2]!);
}

function contentText(message: ChatCompletionRequest["messages"][number] | undefined): string {
  const c = message?.content;
  return typeof c === "string" ? c : Array.isArray(c) ? c.map((p) => p.text ?? "").join("") : "";
}

describe("context: meter, model context, compaction (extension host)", function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;

  before(async () => {
    ({ server, api } = await startChatView());
    // The scripted server says no window (the meter would say "unknown"): the setting gives one.
    await vscode.workspace.getConfiguration("piChat").update("contextWindow", 32_768, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.workspace.getConfiguration("piChat").update("contextWindow", undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    await server?.close();
  });

  beforeEach(async () => {
    await vscode.commands.executeCommand("piChat.newChat");
  });

  it("the meter shows the usage the local server reported, or our estimate of the chat where the server counted less", async () => {
    const posted = api.view.posted!;
    const before = posted.length;
    server.push(() => ({ text: "Hello.", usage: { prompt_tokens: 12_345, completion_tokens: 56 } }));
    await api.view.receive({ type: "chat/send", v: 1, text: "Say hello." });
    const meter = api.screen.currentSession.viewState.meter;
    assert.ok(meter);
    assert.equal(meter.tokens, 12_345 + 56);
    assert.equal(meter.estimated, false);
    assert.ok(meter.window && meter.window > 0, "the window of the model is known after the request");
    assert.equal(meter.priced, false, "a local server has no prices");
    assert.equal(meter.lastTurn?.input, 12_345);
    // The webview got the same figures.
    const sent = meterEvents(posted.slice(before));
    assert.equal(sent.at(-1)?.tokens, 12_401);

    // A count below what the chat holds (the system prompt and tool declarations alone are more)
    // cannot hide it: the meter shows our estimate, marked as one.
    await vscode.commands.executeCommand("piChat.newChat");
    server.push(() => ({ text: "Hi.", usage: { prompt_tokens: 10, completion_tokens: 2 } }));
    await api.view.receive({ type: "chat/send", v: 1, text: "Say hi." });
    const low = api.screen.currentSession.viewState.meter;
    assert.ok(low?.estimated && low.tokens > 12, `the estimate (${low?.tokens}) is shown, not the 12 tokens counted`);
    assert.equal(low.lastTurn?.input, 10, "the turn's own figures are still what the server reported");
  });

  it("Show Model Context opens a read-only tab that equals the body the server received, and follows the chat", async () => {
    server.push(() => ({ text: "The answer is 42." }));
    await api.view.receive({ type: "chat/send", v: 1, text: "What is the answer?" });
    assert.match(JSON.stringify(api.screen.currentSession.messages.at(-1)), /The answer is 42/, "recording the request did not disturb it");
    const editor = (await vscode.commands.executeCommand("piChat.showModelContext")) as vscode.TextEditor;
    const document = editor.document;
    assert.equal(document.uri.scheme, MODEL_CONTEXT_SCHEME, "a content provider's document: VS Code offers no save or edit");
    const text = document.getText();
    const received = server.chatRequests().at(-1)!;
    assert.deepEqual(bodyShown(text), received);
    assert.match(text, /## System prompt/);
    assert.match(text, /#### read_file/, "every tool with its description and schema");
    assert.match(text, /What is the answer\?/);

    // A new request updates the open tab.
    server.push(() => ({ text: "Still 42." }));
    await api.view.receive({ type: "chat/send", v: 1, text: "Are you sure?" });
    const updated = await waitFor("the tab to show the new request and its body", () => {
      const t = document.getText();
      return t.includes("Are you sure?") && t.includes("```json") && t.slice(t.indexOf("## Request body")).includes("Are you sure?") ? t : undefined;
    });
    assert.deepEqual(bodyShown(updated), server.chatRequests().at(-1));
  });

  it("Show Model Context links each part to its chat item: the tab's links and Show This Part in the Chat focus it in the view", async () => {
    server.push(() => ({ text: "Linked answer." }));
    await api.view.receive({ type: "chat/send", v: 1, text: "Link me back." });
    server.push(() => ({ text: "Second answer." }));
    await api.view.receive({ type: "chat/send", v: 1, text: "And again." });
    const editor = (await vscode.commands.executeCommand("piChat.showModelContext")) as vscode.TextEditor;
    const document = await waitFor("the tab to show the request", () => (editor.document.getText().includes("And again.") ? editor.document : undefined));
    const links = (await vscode.commands.executeCommand("vscode.executeLinkProvider", document.uri)) as vscode.DocumentLink[];
    const messages = api.screen.currentSession.messages;
    const promptId = `m${messages.findIndex((m) => m.role === "user" && JSON.stringify(m.content).includes("Link me back."))}`;
    const prompt = links.find((l) => l.target && decodeURIComponent(l.target.query).includes(`"${promptId}"`));
    assert.ok(prompt?.target, `a link to the prompt's item ${promptId}: ${links.map((l) => l.target?.toString()).join(", ")}`);
    assert.equal(prompt.target.scheme, "command");
    assert.equal(prompt.target.path, "piChat.showInChat");
    assert.match(document.lineAt(prompt.range.start.line).text, /^## \d+\. user · .* · in the chat `m\d+`$/);
    assert.ok(
      links.every((l) => l.range.start.line !== 0),
      "the title links nowhere",
    );

    // Following the link: the view is asked to focus that very item.
    const posted = api.view.posted!;
    let before = posted.length;
    const args = JSON.parse(decodeURIComponent(prompt.target.query)) as [string, string];
    await vscode.commands.executeCommand("piChat.showInChat", ...args);
    const focus = (from: number) => posted.slice(from).filter((m) => (m as { type?: string }).type === "view/focus");
    assert.deepEqual(
      focus(before).map((m) => ({ ...(m as object), seq: 0 })),
      [{ type: "view/focus", target: "item", itemId: promptId, seq: 0, v: 1 }],
    );

    // By keyboard: the cursor in the answer's part, Show This Part in the Chat.
    const shown = await vscode.window.showTextDocument(document);
    const answerLine = document
      .getText()
      .split("\n")
      .findIndex((l) => l.includes("Linked answer."));
    shown.selection = new vscode.Selection(answerLine, 0, answerLine, 0);
    before = posted.length;
    await vscode.commands.executeCommand("piChat.showContextPartInChat");
    const answerId = `m${messages.findIndex((m) => m.role === "assistant" && JSON.stringify(m.content).includes("Linked answer."))}`;
    assert.deepEqual(
      focus(before).map((m) => (m as { itemId?: string }).itemId),
      [answerId],
    );
  });

  it("Compact Chat by hand: the summary request carries the user's words; the next request is the summary and the kept messages", async () => {
    for (let i = 0; i < 4; i++) {
      server.push(() => ({ text: `Answer ${i}: ${"details ".repeat(120)}` }));
      await api.view.receive({ type: "chat/send", v: 1, text: `Question ${i}: the port is ${3000 + i}. ${"context ".repeat(120)}` });
    }
    let summaryRequest: ChatCompletionRequest | undefined;
    server.push((body) => {
      summaryRequest = body;
      return { text: "## Goal\nRun the dev server.\n\n## Critical Facts\n- the port is 3003", usage: { prompt_tokens: 900, completion_tokens: 40 } };
    });
    const status = await vscode.commands.executeCommand("piChat.compact", { instructions: "keep the port" });
    assert.equal(status, "done");
    assert.ok(summaryRequest);
    assert.equal(contentText(summaryRequest.messages[0]), SUMMARY_SYSTEM_PROMPT);
    assert.match(contentText(summaryRequest.messages.at(-1)), /keep in particular: keep the port/);
    assert.equal(summaryRequest.tools, undefined, "the summary request has no tools");

    const session = api.screen.currentSession;
    const summary = session.messages.at(-1);
    assert.equal(summary?.role, "compactionSummary");
    const item = chatItems(session.viewState).find((i) => i.kind === "summary");
    assert.ok(item && item.kind === "summary" && item.state === "done" && item.instructions === "keep the port");

    server.push(() => ({ text: "Port 3003." }));
    await api.view.receive({ type: "chat/send", v: 1, text: "Which port?" });
    const next = server.chatRequests().at(-1)!;
    assert.match(contentText(next.messages[1]), /compacted into the summary below[\s\S]*the port is 3003/);
    assert.ok(!next.messages.some((m) => contentText(m).includes("Answer 0")), "the summarized turns are not sent");
    // The user's own words of the summarized turns travel verbatim with the summary, and only there.
    assert.equal(next.messages.filter((m) => contentText(m).includes("Question 0: the port is 3000")).length, 1);
    assert.match(contentText(next.messages[1]), /<user-messages>[\s\S]*Question 0: the port is 3000/);
    assert.equal(contentText(next.messages.at(-1)), "Which port?");
    const snapshot = (api.view.posted! as HostMessage[]).length;
    assert.ok(snapshot > 0);
  });
});
