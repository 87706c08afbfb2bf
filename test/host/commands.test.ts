// Commands in the real extension host: run_command asks on its card (even with approvalMode
// "auto"), runs in the workspace folder through the runner the host picks, and the model gets
// the output. Which path ran (terminal or child process) is in the tool details and printed.
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import type { ToolItem } from "../../src/shared/chat-items";
import { chatItems } from "../../src/shared/reducer";
import type { OpenAIServer } from "../support/openai-server";
import { startChatView, toolCard, waitFor } from "./helpers";

describe("Pi Chat commands in the extension host", function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;

  before(async () => {
    ({ server, api } = await startChatView());
    // These tests are about asking, rules and !cmd: on the child-process path (the terminal path has its own tests below).
    await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", false, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.workspace.getConfiguration("piChat").update("approvalMode", "ask", vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", undefined, vscode.ConfigurationTarget.Global);
    await server?.close();
  });

  beforeEach(async () => {
    await vscode.commands.executeCommand("piChat.newChat");
  });

  const commandCard = (id: string) => toolCard(api, id);

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
    void api.view.receive({ type: "chat/send", v: 1, text: "Which line sets the port?" });
    const card = await waitFor("the command card to ask", () => {
      const c = commandCard("call_cmd");
      return c?.approval?.state === "pending" ? c : undefined;
    });
    assert.equal(card.approval?.command, "grep -n port src/config.ts && pwd");
    assert.equal(card.approval?.cwd, ".");
    assert.equal(chatItems(api.screen.currentSession.viewState).filter((i) => i.kind === "tool" && i.id === "call_cmd").length, 1, "one card for the command");
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_cmd", decision: "allow" });
    await api.screen.currentSession.waitForIdle();
    const done = commandCard("call_cmd")!;
    const details = done.details as { exitCode: number; via: string; logFile?: string };
    console.log(`[commands] run_command ran via: ${details.via}`);
    assert.equal(details.via, "process", "piChat.commands.useTerminal is off");
    assert.equal(details.exitCode, 0);
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    assert.match(done.resultText ?? "", /3:\s+port: 3000,/);
    assert.ok((done.resultText ?? "").includes(folder), "pwd printed the workspace folder");
    assert.equal(server.pending(), 0);
    // The card's "Open the whole output" opens the log in an editor.
    await api.view.receive({ type: "command/openOutput", v: 1, toolCallId: "call_cmd" });
    await waitFor("the output log editor", () => vscode.window.activeTextEditor?.document.uri.fsPath === details.logFile);
    assert.match(vscode.window.activeTextEditor!.document.getText(), /port: 3000/);
  });

  it("'always allow' keeps the rule in workspace state, and the next run does not ask", async () => {
    server.push(
      () => ({ toolCalls: [{ id: "call_a1", name: "run_command", arguments: { command: "echo same-run" } }] }),
      () => ({ toolCalls: [{ id: "call_a2", name: "run_command", arguments: { command: "echo same-run" } }] }),
      () => ({ text: "Both ran." }),
    );
    void api.view.receive({ type: "chat/send", v: 1, text: "Echo twice." });
    await waitFor("the first card to ask", () => commandCard("call_a1")?.approval?.state === "pending");
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_a1", decision: "allowAlways", rule: "echo same-run" });
    await api.screen.currentSession.waitForIdle();
    assert.ok(api.commands.rules.list().includes("echo same-run"));
    assert.equal(commandCard("call_a2")?.approval?.rule, "echo same-run");
    assert.match(commandCard("call_a2")?.resultText ?? "", /same-run/);
    // No setting can carry rules: a repository's .vscode/settings.json cannot allow itself commands.
    const groups = vscode.extensions.getExtension("pi-chat.pi-chat")!.packageJSON.contributes.configuration as { properties: object }[];
    const properties = groups.flatMap((group) => Object.keys(group.properties));
    assert.ok(!properties.some((k) => /rule|allow/i.test(k)), properties.join(", "));
  });

  it("an approved command saved as a rule does not allow its hostile variant: the variant brings a card", async () => {
    server.push(
      () => ({ toolCalls: [{ id: "call_h1", name: "run_command", arguments: { command: "cat src/config.ts" } }] }),
      () => ({ toolCalls: [{ id: "call_h2", name: "run_command", arguments: { command: "cat src/config.ts" } }] }),
      () => ({ toolCalls: [{ id: "call_h3", name: "run_command", arguments: { command: "cat src/config.ts ~/.ssh/id_rsa" } }] }),
      () => ({ text: "Done." }),
    );
    void api.view.receive({ type: "chat/send", v: 1, text: "Read the config." });
    const asked = await waitFor("the first card to ask", () => {
      const c = commandCard("call_h1");
      return c?.approval?.state === "pending" ? c : undefined;
    });
    // The user takes the rule the card offers, as its text box holds it.
    const offered = asked.approval?.suggestedRules ?? [];
    assert.deepEqual(offered, ["cat src/config.ts"], "the card offers exactly the command");
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_h1", decision: "allowAlways", rule: offered.join("\n") });
    // The same command runs by the rule; the variant reading a file in the home folder stops at its own card.
    const variant = await waitFor("the variant's card to ask, or the variant to run", () => {
      const c = commandCard("call_h3");
      return c && (c.approval?.state === "pending" || c.status === "success" || c.status === "error") ? c : undefined;
    });
    assert.equal(commandCard("call_h2")?.approval?.rule, "cat src/config.ts");
    assert.equal(variant.approval?.state, "pending", `the variant ran without a card: ${variant.approval?.rule ?? ""}`);
    assert.deepEqual(variant.approval?.suggestedRules, [], "no rule can allow a file in the home folder");
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_h3", decision: "deny" });
    await api.screen.currentSession.waitForIdle();
    assert.equal(server.pending(), 0);
  });

  it("!cmd from the composer runs without asking and shows its card; !! is kept from the model", async () => {
    await api.view.receive({ type: "chat/send", v: 1, text: "!echo visible-$((6*7)) && test -f src/config.ts && echo in-workspace" });
    await api.view.receive({ type: "chat/send", v: 1, text: "!!echo host-private-5521" });
    const items = chatItems(api.screen.currentSession.viewState).filter((i) => i.kind === "userCommand");
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
    await api.view.receive({ type: "chat/send", v: 1, text: "How many?" });
    assert.equal(server.pending(), 0);
  });

  it("a background command's card shows it running; its Stop ends it and its grandchild, and Pi's next command_output sees the stop", async () => {
    const { pids } = await startBackground(api, server, "call_bg1");
    // An id the chat on screen never started is not stopped (nor is anything else).
    await api.view.receive({ type: "command/stopBackground", v: 1, id: "call_elsewhere" });
    assert.ok(api.logLines.some((l) => l.includes("ignored command/stopBackground")));
    for (const pid of pids) assert.ok(running(pid), `pid ${pid} still runs after a Stop for another id`);

    await api.view.receive({ type: "command/stopBackground", v: 1, id: "call_bg1" });
    for (const pid of pids) assert.ok(!running(pid), `pid ${pid} is gone after Stop`);
    const stopped = await waitFor("the card to say it was stopped", () => {
      const bg = commandCard("call_bg1")?.background;
      return bg?.state === "stopped" ? bg : undefined;
    });
    assert.equal(stopped.by, "user");

    server.push(
      () => ({ toolCalls: [{ id: "call_read1", name: "command_output", arguments: { id: "call_bg1" } }] }),
      (body) => {
        const tool = body.messages.filter((m) => m.role === "tool").pop();
        assert.match(JSON.stringify(tool?.content), /stopped by the user/);
        return { text: "You stopped it." };
      },
    );
    await api.view.receive({ type: "chat/send", v: 1, text: "Is the server still up?" });
    await api.screen.currentSession.waitForIdle();
    assert.equal(server.pending(), 0);
    assert.equal(commandCard("call_bg1")?.background?.state, "stopped", "the read does not bring back a Stop");
  });

  it("leaving the chat (New Chat) stops its background commands; back in it, the card says so", async () => {
    const chatId = api.screen.currentSession.id;
    const { pids } = await startBackground(api, server, "call_bg2");
    await vscode.commands.executeCommand("piChat.newChat");
    await waitFor("the processes to end", () => pids.every((pid) => !running(pid)));
    await api.view.receive({ type: "chat/switch", v: 1, chatId });
    assert.equal(api.screen.currentSession.id, chatId);
    // The card hears of the end once the whole tree is gone (a moment after the pids are).
    const ended = await waitFor("the card to say why it ended", () => {
      const bg = commandCard("call_bg2")?.background;
      return bg?.state === "stopped" ? bg : undefined;
    });
    assert.equal(ended.by, "chatClosed");
  });
});

/** Pi starts a command in the background (a shell, its child and a grandchild) and the user allows it; gives their pids. */
async function startBackground(api: PiChatTestApi, server: OpenAIServer, id: string): Promise<{ pids: number[]; card: ToolItem }> {
  // The child prints its own pid, then its grandchild's, then the ready line: all three come before the wait ends.
  const command = "bash -c 'echo child:$$; sleep 303 & echo grandchild:$!; echo server ready; wait' & wait";
  const card = () => toolCard(api, id);
  server.push(
    () => ({ toolCalls: [{ id, name: "run_command", arguments: { command, background: true, readyPattern: "server ready" } }] }),
    (body) => {
      const tool = body.messages.filter((m) => m.role === "tool").pop();
      assert.match(JSON.stringify(tool?.content), new RegExp(`Started in the background with id ${id}`));
      return { text: "It is up." };
    },
  );
  void api.view.receive({ type: "chat/send", v: 1, text: `Start the server (${id})` });
  await waitFor(`${id} to ask`, () => card()?.approval?.state === "pending");
  await api.view.receive({ type: "approval/decide", v: 1, toolCallId: id, decision: "allow" });
  await api.screen.currentSession.waitForIdle();
  const done = card()!;
  assert.deepEqual(done.background, { state: "running" }, "the card shows it running");
  const text = done.resultText ?? "";
  const pids = [/\bchild:(\d+)/.exec(text), /grandchild:(\d+)/.exec(text)].map((m) => Number(m?.[1]));
  assert.ok(
    pids.every((pid) => pid > 0),
    text,
  );
  for (const pid of pids) assert.ok(running(pid), `pid ${pid} runs`);
  console.log(`[commands] background run_command ran via: ${(done.details as { via: string }).via}`);
  return { pids, card: done };
}

// The terminal path: with piChat.commands.useTerminal on (the default) and shell integration in
// code-server's bash terminal, commands run in the visible "Pi Chat" terminal.
describe('Pi Chat commands in the "Pi Chat" terminal (shell integration)', function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;

  before(async () => {
    ({ server, api } = await startChatView());
    await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", true, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", undefined, vscode.ConfigurationTarget.Global);
    await server?.close();
  });
  beforeEach(async () => {
    await vscode.commands.executeCommand("piChat.newChat");
  });

  const card = (id: string) => toolCard(api, id);
  async function runAllowed(id: string, command: string, answer = "Done."): Promise<ToolItem> {
    server.push(
      () => ({ toolCalls: [{ id, name: "run_command", arguments: { command } }] }),
      () => ({ text: answer }),
    );
    void api.view.receive({ type: "chat/send", v: 1, text: `Run ${id}` });
    await waitFor(`${id} to ask`, () => card(id)?.approval?.state === "pending");
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: id, decision: "allow" });
    await api.screen.currentSession.waitForIdle();
    return card(id)!;
  }

  it("runs in the visible Pi Chat terminal: output, exit code, the workspace folder, non-interactive environment", async () => {
    const done = await runAllowed("call_t1", 'echo out-$((6*7)); echo "ci=$CI pager=$PAGER prompt=$GIT_TERMINAL_PROMPT"; pwd; exit 3');
    const details = done.details as { exitCode: number; via: string };
    console.log(`[commands] terminal test: run_command ran via: ${details.via}`);
    assert.equal(details.via, "terminal");
    assert.equal(details.exitCode, 3);
    const text = done.resultText ?? "";
    assert.match(text, /out-42/);
    assert.match(text, /ci=1 pager=cat prompt=0/);
    assert.ok(text.includes(vscode.workspace.workspaceFolders![0]!.uri.fsPath), text);
    assert.ok(
      vscode.window.terminals.some((t) => t.name === "Pi Chat"),
      "a Pi Chat terminal is open",
    );
  });

  it("standard input is closed: a command that reads it ends at once", async () => {
    const done = await runAllowed("call_t2", 'read -r line; echo "got:[$line] status:$?"');
    assert.equal((done.details as { via: string }).via, "terminal");
    assert.match(done.resultText ?? "", /got:\[\] status:1/);
  });

  it("Stop ends the command and the grandchild it started; the terminal stays for the next command", async () => {
    const command = "bash -c 'sleep 301 & echo grandchild:$!; wait' & echo child:$!; wait";
    // Stop ends the whole run: no request follows the stopped command.
    server.push(() => ({ toolCalls: [{ id: "call_t3", name: "run_command", arguments: { command } }] }));
    void api.view.receive({ type: "chat/send", v: 1, text: "Start it" });
    await waitFor("the card to ask", () => card("call_t3")?.approval?.state === "pending");
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_t3", decision: "allow" });
    const pids = await waitFor("both pids in the live output", () => {
      const tail = JSON.stringify(card("call_t3")?.progress ?? "");
      const child = /child:(\d+)/.exec(tail);
      const grand = /grandchild:(\d+)/.exec(tail);
      return child && grand ? [Number(child[1]), Number(grand[1])] : undefined;
    });
    for (const pid of pids) assert.ok(running(pid), `pid ${pid} runs before Stop`);
    await vscode.commands.executeCommand("piChat.stop");
    await api.screen.currentSession.waitForIdle();
    for (const pid of pids) assert.ok(!running(pid), `pid ${pid} is gone after Stop`);
    assert.match(card("call_t3")?.resultText ?? "", /Stopped by the user after/);
    assert.equal(server.pending(), 0);

    // printf, not echo: an earlier test saved a rule for an echo.
    const next = await runAllowed("call_t4", "printf '%s\\n' still-usable");
    assert.equal((next.details as { via: string }).via, "terminal");
    assert.match(next.resultText ?? "", /still-usable/);
  });

  it("a background command runs in the terminal too: its card runs, Stop on it ends it and its grandchild", async () => {
    const { pids, card: started } = await startBackground(api, server, "call_tbg");
    assert.equal((started.details as { via: string }).via, "terminal");
    await api.view.receive({ type: "command/stopBackground", v: 1, id: "call_tbg" });
    for (const pid of pids) assert.ok(!running(pid), `pid ${pid} is gone after Stop`);
    await waitFor("the card to say it was stopped", () => card("call_tbg")?.background?.state === "stopped");
    // The terminal stays usable for the next command.
    const next = await runAllowed("call_t6", "printf '%s\\n' after-background");
    assert.equal((next.details as { via: string }).via, "terminal");
    assert.match(next.resultText ?? "", /after-background/);
  });

  it("!cmd runs in the terminal too; with the setting off, commands run as child processes", async () => {
    await api.view.receive({ type: "chat/send", v: 1, text: "!echo typed-$((2+3))" });
    const typed = chatItems(api.screen.currentSession.viewState).find((i) => i.kind === "userCommand");
    assert.deepEqual(typed && typed.kind === "userCommand" ? [typed.via, typed.exitCode, typed.output] : undefined, ["terminal", 0, "typed-5"]);

    await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", false, vscode.ConfigurationTarget.Global);
    try {
      const done = await runAllowed("call_t5", "printf '%s\\n' via-child");
      assert.equal((done.details as { via: string }).via, "process");
      assert.match(done.resultText ?? "", /via-child/);
    } finally {
      await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", true, vscode.ConfigurationTarget.Global);
    }
  });
});

/** Alive and not a zombie. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}
