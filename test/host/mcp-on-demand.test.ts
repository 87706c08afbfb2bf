// MCP tools on demand, in the real extension host through pi-ai's real OpenAI adapter: the
// reference "everything" server (over 10 tools) is listed, not declared; the scripted model calls
// tool_search, the next request declares the tool it found, the model calls it and the MCP card
// still asks. The loaded tool stays declared in the chat's next run, a branch made before the load
// does not have it, and switching back to the first branch has it again. The server's instructions
// come with the search that loads its first tool, not in every request's system prompt. Lean mode's first request
// declares only the essential tools (and tool_search).
import * as assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import type { ChatCompletionRequest, OpenAIServer } from "../support/openai-server";
import { startChatView, toolCard, waitFor } from "./helpers";

describe("MCP tools on demand (tool_search) and lean mode", function () {
  this.timeout(180_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const configFile = () => path.join(folder(), ".vscode", "mcp.json");
  const everything = path.join(path.resolve(__dirname, "../../.."), "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
  const settings = () => vscode.workspace.getConfiguration("piChat");
  // Its own server name: a consent given here must not answer mcp.test.ts's "everything" question.

  before(async () => {
    await settings().update("mcp.toolsOnDemand", undefined, vscode.ConfigurationTarget.Global);
    ({ server, api } = await startChatView());
    api.mcp.confirmLaunch = async () => true;
    mkdirSync(path.dirname(configFile()), { recursive: true });
    writeFileSync(configFile(), JSON.stringify({ servers: { ondemand: { type: "stdio", command: process.execPath, args: [everything, "stdio"] } } }));
    await api.mcp.reload();
    await api.mcp.forRun({ acceptsImages: false });
    await waitFor("the everything server to be ready", async () => (await api.mcp.list()).some((s) => s.state.kind === "ready"), 60_000);
  });

  after(async () => {
    await settings().update("leanMode", undefined, vscode.ConfigurationTarget.Global);
    rmSync(configFile(), { force: true });
    await api?.mcp.reload();
    await server?.close();
  });

  const declared = (body: ChatCompletionRequest) => (body.tools ?? []).map((t) => t.function.name);
  const mcpDeclared = (body: ChatCompletionRequest) => declared(body).filter((n) => n.startsWith("mcp__"));
  const systemText = (body: ChatCompletionRequest) => JSON.stringify(body.messages.filter((m) => m.role === "system" || m.role === "developer"));
  const userIndex = (text: string) => api.screen.currentSession.messages.findIndex((m) => m.role === "user" && JSON.stringify(m.content).includes(text));

  it("tool_search loads a listed tool for the next call, its call still asks, and the chat's branches keep exactly what each was given", async () => {
    await vscode.commands.executeCommand("piChat.newChat");
    const seen: string[][] = [];
    server.push(
      (body) => {
        seen.push(declared(body));
        assert.deepEqual(mcpDeclared(body), [], "no MCP tool is declared before a search");
        assert.ok(declared(body).includes("tool_search"), declared(body).join(", "));
        assert.match(systemText(body), /- ondemand: [^"]*\becho\b/, "the system prompt lists the tool by name, under its server");
        assert.doesNotMatch(systemText(body), /Cross-Feature Relationships/, "a server's instructions: only their first line before a search");
        return { toolCalls: [{ id: "call_search", name: "tool_search", arguments: { query: "echo", limit: 1 } }] };
      },
      (body) => {
        seen.push(declared(body));
        const found = JSON.stringify(body.messages.find((m) => m.tool_call_id === "call_search")?.content);
        assert.match(found, /mcp__ondemand__echo/);
        assert.match(
          found,
          /Instructions of MCP server .{1,3}ondemand.{1,3}: # Everything Server.*Cross-Feature Relationships/,
          "the search that loads its first tool carries them",
        );
        assert.doesNotMatch(systemText(body), /Cross-Feature Relationships/, "said once, in the search's result");
        return { toolCalls: [{ id: "call_found", name: "mcp__ondemand__echo", arguments: { message: "found on demand" } }] };
      },
      () => ({ text: "It echoed." }),
    );
    void api.view.receive({ type: "chat/send", v: 1, text: "Echo something." });
    const asking = await waitFor(
      "the loaded tool's call to ask",
      () => (toolCard(api, "call_found")?.approval?.state === "pending" ? toolCard(api, "call_found") : undefined),
      60_000,
    );
    assert.equal(asking.approval?.mcp?.tool, "echo", "the MCP gate decides a loaded tool as any other");
    assert.equal(toolCard(api, "call_search")?.approval, undefined, "tool_search itself is not gated");
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_found", decision: "allow" });
    await api.screen.currentSession.waitForIdle();
    assert.match(toolCard(api, "call_found")?.resultText ?? "", /found on demand/);
    assert.deepEqual(
      seen[1]!.filter((n) => n.startsWith("mcp__")),
      ["mcp__ondemand__echo"],
      "the request after the search declares the tool it found, and only it",
    );

    // The chat's next run: the loaded tool is still declared.
    let nextRun: string[] = [];
    server.push((body) => {
      nextRun = mcpDeclared(body);
      return { text: "Again." };
    });
    await api.view.receive({ type: "chat/send", v: 1, text: "And now?" });
    assert.deepEqual(nextRun, ["mcp__ondemand__echo"]);

    // An edit of the first prompt branches from before the search: that branch was given no MCP tool.
    let edited: string[] = ["unset"];
    server.push((body) => {
      edited = mcpDeclared(body);
      return { text: "Edited." };
    });
    const first = userIndex("Echo something.");
    await api.view.receive({ type: "branch/editPrompt", v: 1, messageIndex: first, text: "Echo nothing." });
    await api.screen.currentSession.waitForIdle();
    assert.deepEqual(edited, [], "the edited branch declares no MCP tool");

    // Back on the first branch, the next request declares the tool loaded there.
    await api.view.receive({ type: "branch/switch", v: 1, messageIndex: first, to: 0 });
    let back: string[] = [];
    server.push((body) => {
      back = mcpDeclared(body);
      return { text: "Back." };
    });
    await api.view.receive({ type: "chat/send", v: 1, text: "Still there?" });
    assert.deepEqual(back, ["mcp__ondemand__echo"], "the first branch keeps the tool its model was given");
    assert.equal(server.pending(), 0);
  });

  it("lean mode: the first request declares only the essential tools, with the short prompt", async () => {
    await settings().update("leanMode", "on", vscode.ConfigurationTarget.Global);
    try {
      await vscode.commands.executeCommand("piChat.newChat");
      let body: ChatCompletionRequest | undefined;
      server.push((b) => {
        body = b;
        return { text: "Small." };
      });
      await api.view.receive({ type: "chat/send", v: 1, text: "Hello, lean." });
      await api.screen.currentSession.waitForIdle();
      assert.ok(body);
      assert.deepEqual(declared(body!).sort(), ["edit_file", "read_file", "run_command", "search", "tool_search"]);
      assert.match(systemText(body!), /You are Pi Chat, a coding assistant in the user's editor\./);
      assert.doesNotMatch(systemText(body!), /find_files: find files by glob/, "the normal prompt's tool list is not sent");
      assert.equal(api.screen.currentSession.viewState.meter?.lean, true, "the meter says lean mode is on");
    } finally {
      await settings().update("leanMode", undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
