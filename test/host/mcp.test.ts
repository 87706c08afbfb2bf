// MCP in the real extension host, with the reference servers nobody here wrote started over stdio
// from the workspace's .vscode/mcp.json: the model (the local OpenAI-format server) calls a tool,
// the card asks, Allow runs it and the result reaches the next request; Deny sends the reason;
// Always allow skips the next card for that tool only; Stop during a long call cancels it; a
// changed command line asks again.
import * as assert from "node:assert/strict";
import { rmSync, writeFileSync, mkdirSync } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import type { ChatCompletionRequest, OpenAIServer } from "../support/openai-server";
import { startChatView, toolCard, waitFor } from "./helpers";

describe("Pi Chat MCP servers in the extension host", function () {
  this.timeout(180_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const configFile = () => path.join(folder(), ".vscode", "mcp.json");
  const launches: string[] = [];
  const repo = path.resolve(__dirname, "../../..");
  const everything = path.join(repo, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

  function writeConfig(extraArgs: string[] = []): void {
    mkdirSync(path.dirname(configFile()), { recursive: true });
    writeFileSync(
      configFile(),
      JSON.stringify({ servers: { everything: { type: "stdio", command: process.execPath, args: [everything, "stdio", ...extraArgs] } } }, null, 2),
    );
  }

  before(async () => {
    // These tests expect every MCP tool declared in the first request (on demand: mcp-on-demand.test.ts).
    await vscode.workspace.getConfiguration("piChat").update("mcp.toolsOnDemand", "never", vscode.ConfigurationTarget.Global);
    ({ server, api } = await startChatView());
    api.mcp.confirmLaunch = async (_server, launch) => {
      launches.push(launch);
      return true;
    };
    writeConfig();
    // Read the file now: an earlier test file may have left the servers loaded (without it), and the
    // file watcher's reload could come after the first run asked for tools.
    await api.mcp.reload();
    // Warm: the servers start on a chat's first need and a request waits for them only 5 s, which a
    // loaded machine's first start can exceed (its tools then come with the next request).
    await api.mcp.forRun({ acceptsImages: false });
    await waitFor("the everything server to be ready", async () => (await api.mcp.list()).some((s) => s.state.kind === "ready"), 60_000);
  });

  after(async () => {
    await vscode.workspace.getConfiguration("piChat").update("mcp.toolsOnDemand", undefined, vscode.ConfigurationTarget.Global);
    rmSync(configFile(), { force: true });
    await api?.mcp.reload();
    await server?.close();
  });

  beforeEach(async () => {
    await vscode.commands.executeCommand("piChat.newChat");
  });

  const card = (id: string) => toolCard(api, id);
  const toolMessage = (body: ChatCompletionRequest, id: string) =>
    JSON.stringify(body.messages.find((m) => m.role === "tool" && m.tool_call_id === id)?.content);

  it("the model calls an MCP tool, the card asks (auto mode notwithstanding), Allow runs it, the result reaches the next request", async () => {
    await vscode.workspace.getConfiguration("piChat").update("approvalMode", "auto", vscode.ConfigurationTarget.Global);
    let declared: string[] = [];
    let mcpDeclarationChars = 0;
    server.push(
      (body) => {
        declared = (body.tools ?? []).map((t) => t.function.name);
        for (const t of body.tools ?? []) {
          if (t.function.name.startsWith("mcp__"))
            mcpDeclarationChars += t.function.name.length + (t.function.description ?? "").length + JSON.stringify(t.function.parameters).length;
        }
        return { toolCalls: [{ id: "call_echo", name: "mcp__everything__echo", arguments: { message: "hello from mcp" } }] };
      },
      (body) => {
        assert.match(toolMessage(body, "call_echo"), /hello from mcp/);
        return { text: "It echoed." };
      },
    );
    void api.view.receive({ type: "chat/send", v: 1, text: "Echo something." });
    const asking = await waitFor("the MCP card to ask", () => (card("call_echo")?.approval?.state === "pending" ? card("call_echo") : undefined), 60_000);
    assert.ok(declared.includes("mcp__everything__echo"), `declared: ${declared.join(", ")}`);
    assert.ok(declared.includes("read_file"), "our tools are still there");
    assert.equal(asking.approval?.mcp?.server, "everything");
    assert.equal(asking.approval?.mcp?.tool, "echo");
    assert.equal(asking.approval?.mcp?.arguments, '{\n  "message": "hello from mcp"\n}');
    assert.ok(asking.approval?.mcp?.annotations?.includes("readOnlyHint: true"), "the server's annotation is shown");
    assert.equal(launches.length, 1, "the workspace server started after one agreement, asked once");
    assert.ok(launches[0]!.includes(everything) && launches[0]!.startsWith(`command: ${process.execPath}`), launches[0]);
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_echo", decision: "allow" });
    await api.screen.currentSession.waitForIdle();
    assert.equal(card("call_echo")?.status, "success");
    assert.match(card("call_echo")?.resultText ?? "", /hello from mcp/);
    assert.equal(server.pending(), 0);
    // The meter's details count what the MCP tools' declarations cost in every request: the tools the
    // provider received, within 10 % of their characters / 4 (the estimate's rule).
    const fixed = api.screen.currentSession.viewState.meter?.fixed;
    const sentMcpTools = declared.filter((name) => name.startsWith("mcp__")).length;
    assert.equal(fixed?.mcpToolCount, sentMcpTools);
    const expected = mcpDeclarationChars / 4;
    assert.ok(fixed && Math.abs(fixed.mcpTools - expected) <= expected * 0.1, `meter ${fixed?.mcpTools} vs ${expected} sent`);
    await vscode.workspace.getConfiguration("piChat").update("approvalMode", "ask", vscode.ConfigurationTarget.Global);
  });

  it("Deny sends the user's reason to the model and nothing runs", async () => {
    server.push(
      () => ({ toolCalls: [{ id: "call_deny", name: "mcp__everything__get_sum", arguments: { a: 1, b: 2 } }] }),
      (body) => {
        const all = JSON.stringify(body.messages);
        assert.match(all, /not this time, thanks/);
        assert.doesNotMatch(toolMessage(body, "call_deny"), /\b3\b/);
        return { text: "Understood." };
      },
    );
    void api.view.receive({ type: "chat/send", v: 1, text: "Add 1 and 2." });
    await waitFor("the MCP card to ask", () => card("call_deny")?.approval?.state === "pending", 60_000);
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_deny", decision: "deny", reason: "not this time, thanks" });
    await api.screen.currentSession.waitForIdle();
    assert.equal(card("call_deny")?.approval?.state, "denied");
    assert.equal(server.pending(), 0);
  });

  it("Always allow skips the next card for that tool only", async () => {
    server.push(
      () => ({ toolCalls: [{ id: "call_aa1", name: "mcp__everything__get_env", arguments: {} }] }),
      () => ({ toolCalls: [{ id: "call_aa2", name: "mcp__everything__get_env", arguments: {} }] }),
      () => ({ toolCalls: [{ id: "call_aa3", name: "mcp__everything__get_tiny_image", arguments: {} }] }),
      () => ({ text: "Done." }),
    );
    void api.view.receive({ type: "chat/send", v: 1, text: "Look at the environment twice, then an image." });
    await waitFor("the first card to ask", () => card("call_aa1")?.approval?.state === "pending", 60_000);
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_aa1", decision: "allowAlways" });
    const third = await waitFor("another tool's card to ask", () => (card("call_aa3")?.approval?.state === "pending" ? card("call_aa3") : undefined), 60_000);
    assert.ok(third);
    const second = card("call_aa2")!;
    assert.equal(second.approval?.state, "allowed");
    assert.equal(second.approval?.rule, "everything/get-env", "allowed by the user's choice, without asking");
    assert.equal(second.status, "success");
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_aa3", decision: "allow" });
    await api.screen.currentSession.waitForIdle();
    assert.equal(server.pending(), 0);
  });

  it("Stop during a long-running call cancels it, and the chat goes on", async () => {
    server.push(() => ({ toolCalls: [{ id: "call_long", name: "mcp__everything__trigger_long_running_operation", arguments: { duration: 60, steps: 60 } }] }));
    void api.view.receive({ type: "chat/send", v: 1, text: "Run the long operation." });
    await waitFor("the long call to ask", () => card("call_long")?.approval?.state === "pending", 60_000);
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_long", decision: "allow" });
    await waitFor("the long call to run", () => card("call_long")?.status === "running");
    // Stop once the operation has reported a step (an event, not a clock): it had 60 to go.
    await waitFor("the long call's first step", () => card("call_long")?.progress !== undefined);
    await api.view.receive({ type: "chat/stop", v: 1 });
    await api.screen.currentSession.waitForIdle();
    assert.notEqual(card("call_long")?.status, "success", "the stop did not wait for the 60 s operation");
    server.push(
      () => ({ toolCalls: [{ id: "call_after", name: "mcp__everything__echo", arguments: { message: "still alive" } }] }),
      () => ({ text: "ok" }),
    );
    void api.view.receive({ type: "chat/send", v: 1, text: "Echo again." });
    await waitFor("the next card", () => card("call_after")?.approval?.state === "pending", 60_000);
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_after", decision: "allow" });
    await api.screen.currentSession.waitForIdle();
    assert.match(card("call_after")?.resultText ?? "", /still alive/);
  });

  it("a changed command line asks again before the server starts", async () => {
    const before = launches.length;
    writeConfig(["--changed"]);
    await api.mcp.reload();
    await waitFor("the server to be asked about again", () => launches.length > before, 30_000);
    assert.ok(launches.at(-1)!.includes("--changed"), launches.at(-1));
    const listed = await waitFor(
      "the server ready again",
      async () => (await api.mcp.list()).find((s) => s.name === "everything" && s.state.kind === "ready"),
      60_000,
    );
    assert.ok(listed.tools.length > 5);
  });
});
