// Restricted Mode in the real extension host: VS Code started with workspace trust ON over a
// folder nobody trusted (scripts/run-host-tests.mjs --restricted-phase runs this file alone in a
// VS Code of its own; in the normal, trusted launch it is skipped). run_command is not in the
// tool list the local server receives, `!cmd` and `!!cmd` are refused with the message and run
// nothing, and AGENTS.md is not read.
import * as assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import { chatItems } from "../../src/shared/reducer";
import type { OpenAIServer } from "../support/openai-server";
import { startChatView, waitFor, workspaceUri } from "./helpers";

const untrustedLaunch = process.env.PI_CHAT_TEST_UNTRUSTED === "1";

describe("restricted mode (untrusted folder, workspace trust on)", function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;

  before(async function () {
    // These tests expect every MCP tool declared in the first request (on demand: mcp-on-demand.test.ts).
    await vscode.workspace.getConfiguration("piChat").update("mcp.toolsOnDemand", "never", vscode.ConfigurationTarget.Global);
    if (!untrustedLaunch) return this.skip();
    ({ server, api } = await startChatView());
  });
  after(async () => {
    await vscode.workspace.getConfiguration("piChat").update("mcp.toolsOnDemand", undefined, vscode.ConfigurationTarget.Global);
    await server?.close();
  });

  it("the folder really is untrusted", () => {
    assert.equal(vscode.workspace.isTrusted, false);
  });

  it("run_command is not offered to the model; the read-only tools are, and AGENTS.md is not read", async () => {
    const agents = workspaceUri("AGENTS.md");
    await vscode.workspace.fs.writeFile(agents, new TextEncoder().encode("# Rules\nAlways answer in the voice of marker-agents-5521.\n"));
    try {
      await vscode.commands.executeCommand("piChat.newChat");
      server.push(() => ({ text: "Hello." }));
      await api.view.receive({ type: "chat/send", v: 1, text: "What can you do here?" });
      const body = await waitFor("the request", () => server.chatRequests().at(-1));
      const tools = (body.tools ?? []).map((t) => t.function.name).sort();
      assert.ok(tools.includes("read_file") && tools.includes("search"), `tools offered: ${tools.join(", ")}`);
      assert.ok(!tools.includes("run_command"), `run_command must not be offered in Restricted Mode (offered: ${tools.join(", ")})`);
      assert.ok(!JSON.stringify(body).includes("marker-agents-5521"), "AGENTS.md is not read in Restricted Mode");
    } finally {
      await vscode.workspace.fs.delete(agents);
    }
  });

  for (const prefix of ["!", "!!"]) {
    it(`${prefix}cmd is refused with the message and runs nothing`, async () => {
      await vscode.commands.executeCommand("piChat.newChat");
      const marker = workspaceUri(`ran-${prefix.length}.txt`);
      const before = server.chatRequests().length;
      await api.view.receive({ type: "chat/send", v: 1, text: `${prefix}echo ran > ${marker.fsPath}` });
      const notice = await waitFor("the refusal", () =>
        chatItems(api.screen.currentSession.viewState).find((i) => i.kind === "notice" && /Commands cannot run here/.test(i.text)),
      );
      assert.match(notice.kind === "notice" ? notice.text : "", /Restricted Mode \(not trusted\).*Trust the folder/);
      assert.equal(
        chatItems(api.screen.currentSession.viewState).some((i) => i.kind === "userCommand"),
        false,
        "no command card",
      );
      await assert.rejects(Promise.resolve(vscode.workspace.fs.stat(marker)), "the command did not run");
      assert.equal(server.chatRequests().length, before, "nothing was sent to the model");
    });
  }

  it("MCP: a server the workspace defines does not start; the user's own does, and only its tools are offered", async () => {
    const repo = path.resolve(__dirname, "../../..");
    const everything = path.join(repo, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    const home = mkdtempSync(path.join(os.tmpdir(), "pi-chat-home-"));
    const workspaceConfig = workspaceUri(".vscode/mcp.json").fsPath;
    const asked: string[] = [];
    // The user's pi file lives under a home of the test's own (HostMcp's seam), not the machine's.
    api.mcp.home = home;
    api.mcp.confirmLaunch = async (server) => {
      asked.push(server.name);
      return true;
    };
    try {
      mkdirSync(path.join(home, ".pi", "agent"), { recursive: true });
      writeFileSync(
        path.join(home, ".pi", "agent", "mcp.json"),
        JSON.stringify({ mcpServers: { mine: { command: process.execPath, args: [everything, "stdio"] } } }),
      );
      mkdirSync(path.dirname(workspaceConfig), { recursive: true });
      writeFileSync(workspaceConfig, JSON.stringify({ servers: { repo: { type: "stdio", command: process.execPath, args: [everything, "stdio"] } } }));
      await api.mcp.reload();
      await api.mcp.forRun({ acceptsImages: false });
      const servers = await waitFor(
        "the user's server ready and the workspace's blocked",
        async () => {
          const list = await api.mcp.list();
          const mine = list.find((s) => s.name === "mine");
          const repoServer = list.find((s) => s.name === "repo");
          return mine?.state.kind === "ready" && repoServer?.state.kind === "blocked" ? { mine, repoServer } : undefined;
        },
        60_000,
      );
      assert.match(servers.repoServer.state.kind === "blocked" ? servers.repoServer.state.reason : "", /Restricted Mode/);
      assert.deepEqual(asked, [], "nobody was asked to start the workspace's server: it cannot start here");

      await vscode.commands.executeCommand("piChat.newChat");
      server.push(() => ({ text: "Hello." }));
      await api.view.receive({ type: "chat/send", v: 1, text: "Which tools do you have?" });
      const body = await waitFor("the request", () => server.chatRequests().at(-1));
      const mcpTools = (body.tools ?? []).map((t) => t.function.name).filter((n) => n.startsWith("mcp__"));
      assert.ok(mcpTools.includes("mcp__mine__echo"), `MCP tools offered: ${mcpTools.join(", ")}`);
      assert.ok(!mcpTools.some((n) => n.startsWith("mcp__repo__")), `the workspace's server's tools are offered: ${mcpTools.join(", ")}`);
    } finally {
      rmSync(workspaceConfig, { force: true });
      rmSync(home, { recursive: true, force: true });
      await api.mcp.reload();
    }
  });

  it("the workspace's prompt templates and skills are not read (the user's are)", async () => {
    const files = [workspaceUri(".pi", "prompts", "marker-template.md"), workspaceUri(".pi", "skills", "marker", "SKILL.md")];
    await vscode.workspace.fs.writeFile(files[0]!, new TextEncoder().encode("---\ndescription: marker-template-9043\n---\nDo $1.\n"));
    await vscode.workspace.fs.writeFile(files[1]!, new TextEncoder().encode("---\nname: marker\ndescription: marker-skill-9043\n---\nx\n"));
    try {
      await vscode.commands.executeCommand("piChat.newChat");
      const posted = () =>
        (api.view.posted ?? []).filter(
          (m): m is { type: "composer/commands"; commands: { name: string }[]; notes: string[] } => (m as { type?: string }).type === "composer/commands",
        );
      const before = posted().length;
      await api.view.receive({ type: "composer/listCommands", v: 1 });
      const list = await waitFor("the / list", () => posted()[before]);
      assert.ok(!list.commands.some((c) => c.name.includes("marker")), list.commands.map((c) => c.name).join(", "));
      assert.ok(
        list.notes.some((n) => /not trusted/.test(n)),
        "the list says why",
      );
      // The composer's expansion does not read it either: the draft is sent as typed.
      await api.view.receive({ type: "composer/expandTemplate", v: 1, requestId: 9043, text: "/marker-template now" });
      const expanded = await waitFor("the expansion's answer", () =>
        (api.view.posted ?? []).find(
          (m) => (m as { type?: string; requestId?: number }).type === "composer/expanded" && (m as { requestId?: number }).requestId === 9043,
        ),
      );
      assert.equal((expanded as { text?: string }).text, undefined, "no expansion in a restricted workspace");
      server.push(() => ({ text: "Ok." }));
      await api.view.receive({ type: "chat/send", v: 1, text: "/marker-template now" });
      const body = await waitFor("the request", () => server.chatRequests().at(-1));
      const all = JSON.stringify(body.messages);
      assert.doesNotMatch(all, /marker-skill-9043|Do now/);
      assert.match(all, /\/marker-template now/, "sent as typed");
    } finally {
      for (const f of files) await vscode.workspace.fs.delete(f).then(undefined, () => undefined);
    }
  });
});
