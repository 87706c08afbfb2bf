// Commands in the real extension host: run_command asks on its card (even with approvalMode
// "auto"), runs in the workspace folder through the runner the host picks, and the model gets
// the output. Which path ran (terminal or child process) is in the tool details and printed.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import type { ToolItem } from "../../src/shared/chat-items";
import { chatItems } from "../../src/shared/reducer";
import type { OpenAIServer } from "../support/openai-server";
import { startChatView, waitFor } from "./helpers";

describe("Pi Chat commands in the extension host", function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;

  before(async () => {
    ({ server, api } = await startChatView());
  });

  after(async () => {
    await vscode.workspace.getConfiguration("piChat").update("approvalMode", "ask", vscode.ConfigurationTarget.Global);
    await server?.close();
  });

  beforeEach(async () => {
    await vscode.commands.executeCommand("piChat.newChat");
  });

  const commandCard = (id: string) => chatItems(api.controller.currentSession.viewState).find((i): i is ToolItem => i.kind === "tool" && i.id === id);

  it("run_command asks on its card even in auto mode, runs in the workspace and returns the output", async () => {
    await vscode.workspace.getConfiguration("piChat").update("approvalMode", "auto", vscode.ConfigurationTarget.Global);
    assert.equal(api.commands.enabled(), true, "a trusted folder on disk runs commands");
    server.push(
      () => ({ toolCalls: [{ id: "call_cmd", name: "run_command", arguments: { command: "grep -n port src/config.ts && pwd", cwd: "." } }] }),
      (body) => {
        const tool = body.messages.find((m) => m.role === "tool");
        assert.match(JSON.stringify(tool?.content), /Exit code 0/);
        return { text: "The port line is 3." };
      },
    );
    void api.view.receive({ type: "prompt", v: 1, text: "Which line sets the port?" });
    const card = await waitFor("the command card to ask", () => {
      const c = commandCard("call_cmd");
      return c?.approval?.state === "pending" ? c : undefined;
    });
    assert.equal(card.approval?.command, "grep -n port src/config.ts && pwd");
    assert.equal(card.approval?.cwd, ".");
    assert.equal(chatItems(api.controller.currentSession.viewState).filter((i) => i.kind === "tool" && i.id === "call_cmd").length, 1, "one card for the command");
    await api.view.receive({ type: "approval", v: 1, toolCallId: "call_cmd", decision: "allow" });
    await api.controller.currentSession.waitForIdle();
    const done = commandCard("call_cmd")!;
    const details = done.details as { exitCode: number; via: string; logFile?: string };
    console.log(`[commands] run_command ran via: ${details.via}`);
    assert.equal(details.exitCode, 0);
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    assert.match(done.resultText ?? "", /3:\s+port: 3000,/);
    assert.ok((done.resultText ?? "").includes(folder), "pwd printed the workspace folder");
    assert.equal(server.pending(), 0);
    // The card's "Open the whole output" opens the log in an editor.
    await api.view.receive({ type: "openCommandOutput", v: 1, toolCallId: "call_cmd" });
    await waitFor("the output log editor", () => vscode.window.activeTextEditor?.document.uri.fsPath === details.logFile);
    assert.match(vscode.window.activeTextEditor!.document.getText(), /port: 3000/);
  });

  it("'always allow' keeps the rule in workspace state, and the next run does not ask", async () => {
    server.push(
      () => ({ toolCalls: [{ id: "call_a1", name: "run_command", arguments: { command: "echo first-run" } }] }),
      () => ({ toolCalls: [{ id: "call_a2", name: "run_command", arguments: { command: "echo second-run" } }] }),
      () => ({ text: "Both ran." }),
    );
    void api.view.receive({ type: "prompt", v: 1, text: "Echo twice." });
    await waitFor("the first card to ask", () => commandCard("call_a1")?.approval?.state === "pending");
    await api.view.receive({ type: "approval", v: 1, toolCallId: "call_a1", decision: "allowAlways", rule: "echo" });
    await api.controller.currentSession.waitForIdle();
    assert.ok(api.commands.rules.list().includes("echo"));
    assert.equal(commandCard("call_a2")?.approval?.rule, "echo");
    assert.match(commandCard("call_a2")?.resultText ?? "", /second-run/);
    // No setting can carry rules: a repository's .vscode/settings.json cannot allow itself commands.
    const properties = Object.keys(vscode.extensions.getExtension("pi-chat.pi-chat")!.packageJSON.contributes.configuration.properties as object);
    assert.ok(!properties.some((k) => /rule|allow/i.test(k)), properties.join(", "));
  });

  it("!cmd from the composer runs without asking and shows its card; !! is kept from the model", async () => {
    await api.view.receive({ type: "prompt", v: 1, text: "!echo visible-$((6*7)) && test -f src/config.ts && echo in-workspace" });
    await api.view.receive({ type: "prompt", v: 1, text: "!!echo host-private-5521" });
    const items = chatItems(api.controller.currentSession.viewState).filter((i) => i.kind === "userCommand");
    assert.deepEqual(
      items.map((i) => (i.kind === "userCommand" ? [i.command, i.exitCode, i.output, i.excludeFromContext, i.via] : [])),
      [
        ["echo visible-$((6*7)) && test -f src/config.ts && echo in-workspace", 0, "visible-42\nin-workspace", false, "process"],
        ["echo host-private-5521", 0, "host-private-5521", true, "process"],
      ],
    );
    console.log(`[commands] !cmd ran via: ${items[0]?.kind === "userCommand" ? items[0].via : "?"}`);
    server.push((body) => {
      const text = JSON.stringify(body.messages);
      assert.match(text, /visible-42/);
      assert.doesNotMatch(text, /host-private-5521/);
      return { text: "One line." };
    });
    await api.view.receive({ type: "prompt", v: 1, text: "How many?" });
    assert.equal(server.pending(), 0);
  });
});
