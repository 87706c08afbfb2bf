// OAuth sign-in to a Streamable HTTP MCP server, in the real extension host, across a real restart
// of VS Code. The server (test/support/oauth-server.ts) is a small real authorization server and
// protected MCP endpoint on localhost; it keeps its clients and grants in a file, so phase 2 (a new
// VS Code) finds it on the same port. Phase 1: the server needs sign-in → the state and the chat's
// note say so → the note's Sign In button runs the command → the test plays the browser on the URL
// the product hands to openExternal → the tools come and reach the model → no token in a log,
// settings or chat file → an expired access token is refreshed. Phase 2: the kept sign-in is used
// (no browser), then a revoked grant asks to sign in again.
import * as assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import type { NoticeItem } from "../../src/shared/chat-items";
import { chatItems } from "../../src/shared/reducer";
import type { OpenAIServer } from "../support/openai-server";
import { type OAuthTestServer, startOAuthTestServer } from "../support/oauth-server";
import { filesHolding, filesUnder } from "../support/temp";
import { startChatView, toolCard, waitFor } from "./helpers";

const phase = process.env.PI_CHAT_TEST_PHASE === "2" ? 2 : 1;

describe(`Pi Chat MCP OAuth sign-in (phase ${phase})`, function () {
  this.timeout(180_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;
  let as: OAuthTestServer;
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  // pi's file (the other MCP suites use .vscode/mcp.json): one configuration for the pi CLI and Pi Chat.
  const configFile = () => path.join(folder(), ".pi", "mcp.json");
  const stateFile = () => path.join(folder(), ".pi-chat-test", "mcp-oauth-server.json");
  const opened: vscode.Uri[] = [];
  const confirmed: string[] = [];
  const tracker = async () => (await api.mcp.list()).find((s) => s.name === "tracker");

  before(async () => {
    ({ server, api } = await startChatView());
    api.mcp.confirmLaunch = async () => true;
    api.mcp.confirmSignIn = async (name, url) => {
      confirmed.push(`${name} ${new URL(url).origin}`);
      return true;
    };
    // The browser: it gets what the product passes to vscode.env.openExternal, and opens it as VS
    // Code's opener does for a Uri (its string without encoding, then encodeURI), following the
    // authorization server's redirect to the loopback callback as a user clicking "Allow" would.
    api.mcp.openExternal = async (uri) => {
      opened.push(uri);
      void as.browse(encodeURI(uri.toString(true))).catch((error: unknown) => console.error(`the test browser failed: ${String(error)}`));
      return true;
    };
    mkdirSync(path.dirname(stateFile()), { recursive: true });
    if (phase === 1) rmSync(stateFile(), { force: true });
    const port = phase === 2 ? (JSON.parse(readFileSync(stateFile(), "utf8")) as { port: number }).port : undefined;
    as = await startOAuthTestServer({ stateFile: stateFile(), ...(port !== undefined ? { port } : {}) });
    mkdirSync(path.dirname(configFile()), { recursive: true });
    writeFileSync(configFile(), JSON.stringify({ mcpServers: { tracker: { url: as.mcpUrl, description: "Issue tracker behind OAuth" } } }, null, 2));
    await api.mcp.reload();
  });

  after(async () => {
    rmSync(configFile(), { force: true });
    await api?.mcp.reload();
    await waitFor("the tracker server to be gone", async () => !(await tracker()), 30_000);
    await as?.close();
    await server?.close();
  });

  const secretKey = () => `piChat.mcp.oauth.${as.mcpUrl}`;
  const secrets = () => (api.mcp as unknown as { options: { context: vscode.ExtensionContext } }).options.context.secrets;

  if (phase === 1) {
    it("a server that needs sign-in says so in MCP Servers and in the chat, with a Sign In button", async () => {
      await secrets().delete(secretKey());
      await vscode.commands.executeCommand("piChat.newChat");
      let declared: string[] = [];
      server.push((body) => {
        declared = (body.tools ?? []).map((t) => t.function.name);
        return { text: "No tracker tools yet." };
      });
      await api.view.receive({ type: "chat/send", v: 1, text: "What is in the tracker?" });
      await api.screen.currentSession.waitForIdle();
      const state = (await tracker())?.state;
      assert.deepEqual(state, { kind: "needsSignIn", authorizationServer: as.origin, reason: "it asks you to sign in" });
      assert.ok(!declared.some((n) => n.startsWith("mcp__tracker__")), "no tools before the sign-in");
      assert.ok(as.seen.mcpUnauthorized > 0 && as.seen.mcpAuthorized === 0);
      const notes = chatItems(api.screen.currentSession.viewState).filter((i): i is NoticeItem => i.kind === "notice" && i.fixCommand === "mcpSignIn");
      assert.equal(notes.length, 1, "one note with the Sign In button");
      assert.match(notes[0]!.text, /"tracker" needs you to sign in \(at http:\/\/127\.0\.0\.1:\d+\)/);
      // A second request does not repeat the note.
      server.push(() => ({ text: "Still none." }));
      await api.view.receive({ type: "chat/send", v: 1, text: "And now?" });
      await api.screen.currentSession.waitForIdle();
      assert.equal(chatItems(api.screen.currentSession.viewState).filter((i) => i.kind === "notice" && i.fixCommand === "mcpSignIn").length, 1);
    });

    it("Sign In (the note's button) shows where the browser goes, opens it, and the tools come and reach the model", async () => {
      // What the note's button posts: the webview's workbench/runCommand, run by its handler (handlers/editor.ts).
      await api.view.receive({ type: "workbench/runCommand", v: 1, command: "mcpSignIn" });
      await waitFor("the tracker server to be ready after the sign-in", async () => ((await tracker())?.state.kind === "ready" ? true : undefined), 60_000);
      assert.deepEqual(confirmed, [`tracker ${as.origin}`], "the user was shown the authorization server before the browser opened");
      assert.equal(opened.length, 1);
      assert.equal(opened[0]!.authority, new URL(as.origin).host);
      assert.equal(as.seen.registrations, 1, "dynamic client registration");
      assert.deepEqual(as.seen.grants, ["authorization_code"]);
      assert.equal((await tracker())?.signedIn, true);

      server.push(
        (body) => {
          const names = (body.tools ?? []).map((t) => t.function.name);
          assert.ok(names.includes("mcp__tracker__whoami") && names.includes("mcp__tracker__echo"), names.join(", "));
          return { toolCalls: [{ id: "call_whoami", name: "mcp__tracker__whoami", arguments: {} }] };
        },
        (body) => {
          const result = body.messages.find((m) => m.role === "tool" && m.tool_call_id === "call_whoami");
          assert.match(JSON.stringify(result?.content), /authorized for client-/);
          return { text: "You are signed in." };
        },
      );
      const card = () => toolCard(api, "call_whoami");
      void api.view.receive({ type: "chat/send", v: 1, text: "Who am I in the tracker?" });
      await waitFor("the tracker card to ask", () => card()?.approval?.state === "pending", 60_000);
      await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_whoami", decision: "allow" });
      await api.screen.currentSession.waitForIdle();
      assert.equal(card()?.status, "success");
      assert.equal(server.pending(), 0);
    });

    it("an expired access token is refreshed without a sign-in; no token is in a log, settings or chat file", async () => {
      as.expireAccessTokens();
      server.push(
        () => ({ toolCalls: [{ id: "call_echo_refresh", name: "mcp__tracker__echo", arguments: { message: "after refresh" } }] }),
        (body) => {
          const result = body.messages.find((m) => m.role === "tool" && m.tool_call_id === "call_echo_refresh");
          assert.match(JSON.stringify(result?.content), /Echo: after refresh/);
          return { text: "Echoed." };
        },
      );
      void api.view.receive({ type: "chat/send", v: 1, text: "Echo after refresh." });
      const card = () => toolCard(api, "call_echo_refresh");
      await waitFor("the echo card to ask", () => card()?.approval?.state === "pending", 60_000);
      await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_echo_refresh", decision: "allow" });
      await api.screen.currentSession.waitForIdle();
      assert.equal(card()?.status, "success");
      assert.deepEqual(as.seen.grants, ["authorization_code", "refresh_token"], "one refresh, no new sign-in");
      assert.equal(opened.length, 1);

      // The tokens are in SecretStorage…
      const kept = await secrets().get(secretKey());
      assert.ok(kept?.includes(as.issued.accessTokens.at(-1)!) && kept.includes(as.issued.refreshTokens.at(-1)!), "kept in SecretStorage");
      // …and nowhere else: not the provider's requests, the log, the chats, the settings.
      const tokens = [...as.issued.accessTokens, ...as.issued.refreshTokens];
      assert.ok(tokens.length >= 4);
      for (const token of tokens) {
        assert.ok(!server.requests.some((r) => JSON.stringify(r).includes(token)), "the model provider never saw a token");
        assert.ok(!api.logLines.some((l) => l.includes(token)), "not in the log");
      }
      const storageDir = api.storageDir;
      const userDir = path.resolve(storageDir, "../../..");
      const files = [
        ...filesUnder(storageDir),
        ...filesUnder(path.join(folder(), ".vscode")),
        ...filesUnder(path.join(folder(), ".pi")),
        path.join(userDir, "settings.json"),
      ];
      assert.ok(
        files.some((f) => f.includes(`${path.sep}chats${path.sep}`)),
        `the chats were searched: ${files.length} files`,
      );
      assert.deepEqual(filesHolding(files, tokens), [], "files holding a token");
    });
  } else {
    it("after the restart the kept sign-in is used: no browser, no new authorization", async () => {
      await api.mcp.forRun({ acceptsImages: false });
      const ready = await waitFor("the tracker server to be ready", async () => ((await tracker())?.state.kind === "ready" ? tracker() : undefined), 60_000);
      assert.ok(ready && ready.tools.length === 2, `tools: ${ready?.tools.length}`);
      assert.equal(ready.signedIn, true);
      assert.equal(opened.length, 0, "no browser");
      assert.equal(as.seen.authorizations, 0, "no new authorization");
      assert.equal(as.seen.registrations, 0, "the client registered in phase 1 is used");
      assert.ok(as.seen.mcpAuthorized > 0);
    });

    it("a revoked grant asks to sign in again; Sign Out forgets the tokens", async () => {
      as.revokeAll();
      await api.mcp.restart("tracker");
      const state = await waitFor("the tracker server to need sign-in again", async () => {
        const s = (await tracker())?.state;
        return s?.kind === "needsSignIn" ? s : undefined;
      });
      assert.equal(state.kind, "needsSignIn");
      assert.deepEqual(as.seen.grants, ["refresh_token"], "the refresh was tried and refused");
      assert.ok(await secrets().get(secretKey()), "the registered client is still kept");
      assert.ok(await api.mcp.signIn("tracker"));
      await waitFor("ready after signing in again", async () => ((await tracker())?.state.kind === "ready" ? true : undefined), 60_000);
      assert.equal(as.seen.registrations, 0, "signed in with the kept client");
      await api.mcp.signOut("tracker");
      assert.equal(await secrets().get(secretKey()), undefined, "signed out: nothing kept");
      await waitFor("needs sign-in after signing out", async () => ((await tracker())?.state.kind === "needsSignIn" ? true : undefined));
    });
  }
});
