// The first message of a chat with a workspace MCP server nobody agreed to yet: "Start this
// server?" is asked on that message, and the request waits for the answer, so the first message
// already has the server's tools (it went out without them while the question was open). Until
// the answer, the wait for servers still starting is set to nothing here, so only the wait for the
// answer holds the request: without it the request leaves at once.
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
    ({ server, api } = await startChatView());
    configFile = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, ".vscode", "mcp.json");
  });

  after(async () => {
    rmSync(configFile, { force: true });
    api.mcp.requestWaitMs = 5_000;
    await api?.mcp.reload();
    await server?.close();
  });

  it("the request is held while the question is open, and carries the server's tools once the user agreed", async () => {
    await vscode.commands.executeCommand("piChat.newChat");
    mkdirSync(path.dirname(configFile), { recursive: true });
    writeFileSync(configFile, JSON.stringify({ servers: { firstask: { type: "stdio", command: process.execPath, args: [everything, "stdio"] } } }));
    await api.mcp.reload();
    api.mcp.requestWaitMs = 0;
    let answer: ((yes: boolean) => void) | undefined;
    api.mcp.confirmLaunch = () =>
      new Promise<boolean>((resolve) => {
        answer = (yes) => {
          // Agreed: from now on the server's start is waited for as usual.
          api.mcp.requestWaitMs = 60_000;
          resolve(yes);
        };
      });
    let declared: string[] | undefined;
    server.push((body) => {
      declared = (body.tools ?? []).map((t) => t.function.name);
      return { text: "Hello." };
    });
    const sent = api.view.receive({ type: "chat/send", v: 1, text: "What can you do?" });
    await waitFor("the question Start this server?", () => answer);
    answer!(true);
    await sent;
    await api.controller.currentSession.waitForIdle();
    assert.ok(declared, "the request went out");
    assert.ok(
      declared!.includes("mcp__firstask__echo"),
      `the first request has the server's tools: ${declared!.filter((n) => n.startsWith("mcp__")).join(", ") || "none"}`,
    );
  });
});
