// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configuration files hold ${…} variables literally.
// An MCP server over Streamable HTTP that requires a bearer token from an `${input:…}` variable, in
// the real extension host: the reference "everything" server (nobody here wrote it) behind a local
// gate that answers 401 without the token. VS Code's input box asks once; the token is kept in
// SecretStorage, reaches only that server, and is never written to settings, logs or transcripts.
import * as assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import { mcpInputSecretKey } from "../../src/host/mcp/mcp-inputs";
import type { OpenAIServer } from "../support/openai-server";
import { filesHolding, filesUnder } from "../support/temp";
import { startChatView, toolCard, waitFor } from "./helpers";

const TOKEN = "mcp-bearer-7f3c9a1e5d2b4c68";

describe("Pi Chat MCP over Streamable HTTP with a bearer token", function () {
  this.timeout(180_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;
  let upstream: ChildProcess | undefined;
  let gate: http.Server | undefined;
  const seen = { authorized: 0, refused: 0 };
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const configFile = () => path.join(folder(), ".vscode", "mcp.json");
  const everything = path.join(path.resolve(__dirname, "../../.."), "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

  before(async () => {
    // These tests expect every MCP tool declared in the first request (on demand: mcp-on-demand.test.ts).
    await vscode.workspace.getConfiguration("piChat").update("mcp.toolsOnDemand", "never", vscode.ConfigurationTarget.Global);
    ({ server, api } = await startChatView());
    api.mcp.confirmLaunch = async () => true;
    const upstreamPort = await freePort();
    upstream = spawn(process.execPath, [everything, "streamableHttp"], {
      env: { ...process.env, PORT: String(upstreamPort) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let upstreamLog = "";
    upstream.stderr?.on("data", (d: Buffer) => {
      upstreamLog += d.toString();
    });
    await waitFor("the everything server to listen", () => upstreamLog.includes("listening"), 30_000);
    gate = http.createServer((req, res) => {
      if (req.headers.authorization !== `Bearer ${TOKEN}`) {
        seen.refused++;
        res.writeHead(401, { "content-type": "application/json" }).end('{"error":"unauthorized"}');
        return;
      }
      seen.authorized++;
      const forward = http.request({ host: "127.0.0.1", port: upstreamPort, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on("error", () => res.writeHead(502).end());
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => gate!.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(gate.address() as AddressInfo).port}/mcp`;
    mkdirSync(path.dirname(configFile()), { recursive: true });
    writeFileSync(
      configFile(),
      JSON.stringify(
        {
          // The input's default stands in for the user's typing: the test accepts the real input box.
          inputs: [{ type: "promptString", id: "tracker-token", description: "Tracker API token", password: true, default: TOKEN }],
          servers: { tracker: { type: "http", url, headers: { Authorization: "Bearer ${input:tracker-token}" } } },
        },
        null,
        2,
      ),
    );
    await api.mcp.reload();
  });

  after(async () => {
    await vscode.workspace.getConfiguration("piChat").update("mcp.toolsOnDemand", undefined, vscode.ConfigurationTarget.Global);
    rmSync(configFile(), { force: true });
    await api?.mcp.reload();
    await waitFor("the tracker server to be gone", async () => !(await api.mcp.list()).some((s) => s.name === "tracker"), 30_000);
    gate?.closeAllConnections();
    await new Promise((resolve) => gate?.close(resolve));
    upstream?.kill();
    await server?.close();
  });

  const inputKey = () => mcpInputSecretKey({ scope: "workspace", file: configFile(), name: "tracker" }, "tracker-token");
  const secrets = () => (api.mcp as unknown as { options: { context: vscode.ExtensionContext } }).options.context.secrets;
  const trackerReady = async () => (await api.mcp.list()).find((s) => s.name === "tracker" && s.state.kind === "ready");

  it("asks for the token once in VS Code's input box, keeps it in SecretStorage, and sends it only to that server", async () => {
    await secrets().delete(inputKey());
    let ready = false;
    const starting = api.mcp.forRun({ acceptsImages: false });
    // The input box is the real one in the workbench: accept it (pre-filled with the input's default).
    const listed = await waitFor(
      "the tracker server to be ready after the input box",
      async () => {
        const found = await trackerReady();
        if (found) return found;
        await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
        return undefined;
      },
      60_000,
    );
    ready = true;
    await starting;
    assert.ok(ready && listed.tools.length > 5, `tools: ${listed.tools.length}`);
    // The secret was deleted first: only the input box's answer can have put it back.
    assert.equal(await secrets().get(inputKey()), TOKEN, "kept in SecretStorage");
    assert.ok(seen.authorized > 0, "the server got the token");
    assert.equal(seen.refused, 0, "no request went without it");

    // A restart uses the kept token: no input box (one left open would keep the server from starting).
    const authorizedBefore = seen.authorized;
    await api.mcp.restart("tracker");
    await waitFor("the tracker server to be ready again without asking", trackerReady, 60_000);
    assert.ok(seen.authorized > authorizedBefore, "the restarted client connected again, with the kept token");
    assert.equal(seen.refused, 0);
  });

  it("the model calls the HTTP server's tool, and the token is in no setting, log or transcript", async () => {
    await vscode.commands.executeCommand("piChat.newChat");
    server.push(
      () => ({ toolCalls: [{ id: "call_http_echo", name: "mcp__tracker__echo", arguments: { message: "over http" } }] }),
      (body) => {
        const result = body.messages.find((m) => m.role === "tool" && m.tool_call_id === "call_http_echo");
        assert.match(JSON.stringify(result?.content), /over http/);
        return { text: "Echoed over HTTP." };
      },
    );
    const card = () => toolCard(api, "call_http_echo");
    void api.view.receive({ type: "chat/send", v: 1, text: "Echo over http." });
    await waitFor("the HTTP tool's card to ask", () => card()?.approval?.state === "pending", 60_000);
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_http_echo", decision: "allow" });
    await api.screen.currentSession.waitForIdle();
    assert.equal(card()?.status, "success");
    assert.equal(server.pending(), 0);

    // Where the token must not be: the provider's requests, the log, the chats, every settings file.
    assert.ok(!server.requests.some((r) => JSON.stringify(r).includes(TOKEN)), "the model provider never saw the token");
    assert.ok(!api.logLines.some((l) => l.includes(TOKEN)), "not in the log");
    const storageDir = api.storageDir;
    const userDir = path.resolve(storageDir, "../../..");
    // The workspace's mcp.json holds the token only as the input's default, our stand-in for typing.
    const vscodeFolder = filesUnder(path.join(folder(), ".vscode")).filter((f) => f !== configFile());
    // Checkpoints keep a copy of each workspace file, by its sha256: the copy of mcp.json itself is
    // that file, not a place Pi Chat wrote the token to. Any other copy still counts.
    const configCopy = createHash("sha256").update(readFileSync(configFile())).digest("hex");
    const files = [...filesUnder(storageDir), ...vscodeFolder, path.join(userDir, "settings.json")].filter((f) => path.basename(f) !== configCopy);
    assert.ok(
      files.some((f) => f.includes(`${path.sep}chats${path.sep}`)),
      `the chats were searched: ${files.length} files`,
    );
    assert.deepEqual(filesHolding(files, [TOKEN]), [], "files holding the token");
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = http.createServer();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const port = (probe.address() as AddressInfo).port;
      probe.close(() => resolve(port));
    });
  });
}
