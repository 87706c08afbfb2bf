// The project's own instructions and the language server's verdict, in the real extension
// host: AGENTS.md reaches the system prompt the local server receives (and the setting turns
// it off); an edit that introduces a TypeScript error gets that error back in its tool result,
// from the TypeScript language features extension code-server ships.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import type { OpenAIServer, WireMessage } from "../support/openai-server";
import { startChatView, waitFor, workspaceUri } from "./helpers";

function text(message: WireMessage | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  return (content ?? []).map((p) => p.text ?? "").join("");
}

const encode = (s: string) => new TextEncoder().encode(s);

describe("project instructions and problems after an edit (extension host)", function () {
  this.timeout(180_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;
  const config = () => vscode.workspace.getConfiguration("piChat");

  before(async () => {
    ({ server, api } = await startChatView());
  });
  after(async () => server?.close());
  beforeEach(async () => {
    await vscode.commands.executeCommand("piChat.newChat");
  });

  it("AGENTS.md reaches the system prompt the server receives, read again for every request; the setting turns it off", async () => {
    const agents = workspaceUri("AGENTS.md");
    try {
      await vscode.workspace.fs.writeFile(agents, encode("Always answer in haiku.\n"));
      server.push(() => ({ text: "Five, seven, five." }));
      await api.view.receive({ type: "chat/send", v: 1, text: "hello" });
      const first = server.chatRequests().at(-1)!;
      const system = first.messages[0]!;
      assert.ok(system.role === "system" || system.role === "developer", `first message is ${system.role}`);
      assert.match(text(system), /## AGENTS\.md\n\nAlways answer in haiku\./);
      assert.match(text(system), /You are Pi Chat/, "the base prompt is still there");

      await vscode.workspace.fs.writeFile(agents, encode("Always answer in limericks.\n"));
      server.push(() => ({ text: "There once was a port…" }));
      await api.view.receive({ type: "chat/send", v: 1, text: "again" });
      const second = text(server.chatRequests().at(-1)!.messages[0]);
      assert.match(second, /Always answer in limericks\./);
      assert.doesNotMatch(second, /haiku/);

      await config().update("projectInstructions", false, vscode.ConfigurationTarget.Global);
      server.push(() => ({ text: "Plain." }));
      await api.view.receive({ type: "chat/send", v: 1, text: "and now?" });
      assert.doesNotMatch(text(server.chatRequests().at(-1)!.messages[0]), /AGENTS\.md|limericks/);
      // Never saved into the transcript: it belongs to the request, not the chat.
      assert.doesNotMatch(JSON.stringify(api.screen.currentSession.messages), /limericks|haiku/);
    } finally {
      await config().update("projectInstructions", undefined, vscode.ConfigurationTarget.Global);
      await vscode.workspace.fs.delete(agents).then(undefined, () => undefined);
    }
  });

  it("an edit that introduces a TypeScript error gets that error back in its tool result and on the card", async () => {
    const target = workspaceUri("src", "problems.ts");
    const warm = workspaceUri("src", "warmup.ts");
    try {
      await config().update("approvalMode", "auto", vscode.ConfigurationTarget.Global);
      // A generous bound here: the first TypeScript server start on a busy test machine is slow.
      await config().update("problemsWaitMs", 20_000, vscode.ConfigurationTarget.Global);
      await vscode.workspace.fs.writeFile(target, encode("export const port: number = 3000;\n"));
      // Start the TypeScript server and wait until it reports errors at all.
      await vscode.workspace.fs.writeFile(warm, encode("export const n: number = 'not a number';\n"));
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(warm));
      await waitFor("the TypeScript server's first diagnostics", () => vscode.languages.getDiagnostics(warm).length > 0, 120_000);
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(target));

      let toolMessage = "";
      server.push(
        () => ({ toolCalls: [{ id: "call_break", name: "edit_file", arguments: { path: "src/problems.ts", oldText: "= 3000;", newText: '= "3000";' } }] }),
        (body) => {
          toolMessage = text(body.messages.find((m) => m.role === "tool"));
          return { text: "Oops, I will fix it." };
        },
      );
      await api.view.receive({ type: "chat/send", v: 1, text: "Make the port a string." });
      await api.screen.currentSession.waitForIdle();
      assert.match(new TextDecoder().decode(await vscode.workspace.fs.readFile(target)), /= "3000";/, "the edit was applied");
      assert.match(toolMessage, /^Edited src\/problems\.ts/);
      assert.match(toolMessage, /new error in src\/problems\.ts:\nsrc\/problems\.ts:1:\d+ - ts 2322: Type 'string' is not assignable to type 'number'\./);
      const card = api.screen.currentSession.viewState;
      assert.match(JSON.stringify(card), /"problems":\{"items":\[\{"line":1/, "the card's details carry the problems");
    } finally {
      await config().update("approvalMode", "ask", vscode.ConfigurationTarget.Global);
      await config().update("problemsWaitMs", undefined, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand("workbench.action.closeAllEditors");
      for (const uri of [target, warm]) await vscode.workspace.fs.delete(uri).then(undefined, () => undefined);
    }
  });
});
