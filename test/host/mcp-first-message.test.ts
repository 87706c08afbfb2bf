// The first message of a chat with a workspace MCP server nobody agreed to yet: "Start this
// server?" is asked on that message, and the request waits for the answer, so the first message
// already has the server's tools (it went out without them while the question was open). The
// test answers only once the host says a request is held for the answer (`heldForConsent`), and
// until then servers still starting are not waited for: without the hold, the request leaves at
// once, the host never says so, and the test fails.
import * as assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import type { OpenAIServer } from "../support/openai-server";
import { startChatView, waitFor } from "./helpers";

describe("MCP: the first message waits for the answer to Start this server?", function () {
  this.timeout(180_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;
  let configFile = "";
  const repo = path.resolve(__dirname, "../../..");
  const everything = path.join(repo, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

  before(async () => {
    // These tests expect every MCP tool declared in the first request (on demand: mcp-on-demand.test.ts).
    await vscode.workspace.getConfiguration("piChat").update("mcp.toolsOnDemand", "never", vscode.ConfigurationTarget.Global);
    ({ server, api } = await startChatView());
    configFile = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, ".vscode", "mcp.json");
  });

  after(async () => {
    await vscode.workspace.getConfiguration("piChat").update("mcp.toolsOnDemand", undefined, vscode.ConfigurationTarget.Global);
    rmSync(configFile, { force: true });
    api.mcp.requestWaitMs = 5_000;
    await api?.mcp.reload();
    await server?.close();
  });

  it("the request is held while the question is open, and carries the server's tools once the user agreed", async () => {
    await vscode.commands.executeCommand("piChat.newChat");
    // Until the answer, servers still starting are not waited for at all: only the wait for the
    // answer can hold the request. Once agreed, the start is waited for (a loaded machine may be slow).
    api.mcp.requestWaitMs = 0;
    const answers: ((yes: boolean) => void)[] = [];
    api.mcp.confirmLaunch = () => new Promise<boolean>((resolve) => answers.push(resolve));
    mkdirSync(path.dirname(configFile), { recursive: true });
    writeFileSync(configFile, JSON.stringify({ servers: { firstask: { type: "stdio", command: process.execPath, args: [everything, "stdio"] } } }));
    await api.mcp.reload();
    let declared: string[] | undefined;
    server.push((body) => {
      declared = (body.tools ?? []).map((t) => t.function.name);
      return { text: "Hello." };
    });
    const sent = api.view.receive({ type: "chat/send", v: 1, text: "What can you do?" });
    await waitFor("the first request to wait for the answer to Start this server?", () => api.mcp.heldForConsent && answers.length > 0);
    assert.equal(server.chatRequests().filter((r) => JSON.stringify(r.messages).includes("What can you do?")).length, 0, "nothing sent yet");
    api.mcp.requestWaitMs = 60_000;
    for (const answer of answers) answer(true);
    await sent;
    await api.screen.currentSession.waitForIdle();
    assert.ok(declared, "the request went out");
    const states = (await api.mcp.list()).map((x) => `${x.name}: ${x.state.kind}`).join(", ");
    assert.ok(
      declared!.includes("mcp__firstask__echo"),
      `the first request has the server's tools: ${declared!.filter((n) => n.startsWith("mcp__")).join(", ") || "none"} (servers: ${states})`,
    );
  });
});
