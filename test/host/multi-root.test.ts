// Pi Chat in a two-folder workspace (test/fixtures/multi-root: folders `app` and `server`, and
// `app` has a subfolder named `server/` too). Runs only in the launch that opens
// multi.code-workspace (PI_CHAT_HOST_SUITE=multi-root, see test/host/index.ts).
//
// "Where is the port configured? Make it 8080." with no path given: the model (a local server
// speaking OpenAI's wire format, so pi-ai's real adapter runs) searches, reads and edits with
// folderName/relative/path paths, and the user approves one diff in the real workbench.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import type { HostMessage } from "../../src/shared/protocol";
import { chatItems } from "../../src/shared/reducer";
import type { ChatCompletionRequest, OpenAIServer } from "../support/openai-server";
import { diskText, startChatView, waitFor } from "./helpers";

function folder(name: string): vscode.WorkspaceFolder {
  const found = vscode.workspace.workspaceFolders?.find((f) => f.name === name);
  if (!found) throw new Error(`no workspace folder named ${name}`);
  return found;
}

/** The text of the newest tool result in a request: what the model got back from its last call. */
function lastToolResult(body: ChatCompletionRequest): string {
  const tools = body.messages.filter((m) => m.role === "tool");
  const content = tools[tools.length - 1]?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
}

function systemText(body: ChatCompletionRequest): string {
  const system = body.messages.find((m) => m.role === "system" || m.role === "developer");
  return typeof system?.content === "string" ? system.content : JSON.stringify(system?.content);
}

const CONFIG = 'export const config = {\n  host: "localhost",\n  port: 3000,\n};\n';

describe("multi-root workspace (extension host)", function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;

  before(async () => {
    assert.deepEqual(
      vscode.workspace.workspaceFolders?.map((f) => f.name),
      ["app", "server"],
      "this launch opens the two-folder fixture",
    );
    ({ server, api } = await startChatView());
    // These tests are about which folder a command runs in, not about the runner: they use the
    // child process, whose end is always known. The terminal path has its own tests
    // (commands.test.ts); right after a new terminal's first prompt it can miss a command under
    // load (terminal-runner.ts gives up on it after 15 s and says so).
    await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", false, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", undefined, vscode.ConfigurationTarget.Global);
    await server?.close();
  });

  it("where is the port configured? make it 8080: search, read and edit with folder paths, one diff approved", async () => {
    const configUri = vscode.Uri.joinPath(folder("server").uri, "config.ts");
    const notesUri = vscode.Uri.joinPath(folder("app").uri, "server", "NOTES.md");
    const notesBefore = await diskText(notesUri);
    assert.equal(await diskText(configUri), CONFIG);

    server.push(
      (body) => {
        // The system prompt names both folders and the path form.
        const system = systemText(body);
        assert.match(system, /folderName\/relative\/path/);
        assert.match(system, /- app: /);
        assert.match(system, /- server: /);
        const offered = (body.tools ?? []).map((t) => t.function.name);
        for (const tool of ["search", "read_file", "edit_file", "list_files", "find_files", "run_command"])
          assert.ok(offered.includes(tool), `${tool} is offered`);
        return { toolCalls: [{ id: "call_search", name: "search", arguments: { query: "port:" } }] };
      },
      (body) => {
        const result = lastToolResult(body);
        // Found in the `server` folder, named by the folder; app/src/main.ts says "port comes" (no colon).
        assert.match(result, /server\/config\.ts:3:\d+: +port: 3000,/);
        assert.doesNotMatch(result, /app\/server\//);
        return { toolCalls: [{ id: "call_read", name: "read_file", arguments: { path: "server/config.ts" } }] };
      },
      (body) => {
        assert.match(lastToolResult(body), /port: 3000,/);
        return { toolCalls: [{ id: "call_edit", name: "edit_file", arguments: { path: "server/config.ts", oldText: "port: 3000,", newText: "port: 8080," } }] };
      },
      (body) => {
        assert.match(lastToolResult(body), /server\/config\.ts/);
        return { text: "The port is set in server/config.ts; it is 8080 now." };
      },
    );

    void api.view.receive({ type: "chat/send", v: 1, text: "Where is the port configured? Make it 8080." });
    const toolCallId = await waitFor(
      "the approval request",
      () => chatItems(api.screen.currentSession.viewState).find((i) => i.kind === "tool" && i.approval?.state === "pending")?.id,
    );
    // One diff, of the right file: the proposal's diff editor shows server/config.ts's folder.
    await waitFor("the diff editor", () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .some((t) => t.input instanceof vscode.TabInputTextDiff && t.input.original.toString() === configUri.toString()),
    );
    const pending = chatItems(api.screen.currentSession.viewState).filter((i) => i.kind === "tool" && i.approval?.state === "pending");
    assert.equal(pending.length, 1, "one approval for the edit");
    assert.equal(await diskText(configUri), CONFIG, "nothing written before the decision");

    await api.view.receive({ type: "approval/decide", v: 1, toolCallId, decision: "allow" });
    await api.screen.currentSession.waitForIdle();
    assert.equal(server.pending(), 0, "the model got every tool result");
    assert.equal(await diskText(configUri), CONFIG.replace("port: 3000,", "port: 8080,"));
    assert.equal(await diskText(notesUri), notesBefore, "the app folder's own server/ subfolder is untouched");
    const tools = chatItems(api.screen.currentSession.viewState).flatMap((i) => (i.kind === "tool" ? [i.name] : []));
    assert.deepEqual(tools, ["search", "read_file", "edit_file"]);
  });

  it("paths name their folder: Ask About This File, and a path into the subfolder of the same name", async () => {
    await vscode.commands.executeCommand("piChat.newChat");
    await vscode.commands.executeCommand("piChat.askAboutFile", vscode.Uri.joinPath(folder("server").uri, "config.ts"));
    await vscode.commands.executeCommand("piChat.askAboutFile", vscode.Uri.joinPath(folder("app").uri, "server", "NOTES.md"));
    assert.deepEqual(
      api.host.attachments.pending.map((a) => a.path),
      ["server/config.ts", "app/server/NOTES.md"],
    );

    server.push(
      () => ({
        toolCalls: [
          { id: "call_notes", name: "read_file", arguments: { path: "app/server/NOTES.md" } },
          // Paths are read in the workspace's own tree, whose top level is the folders: this one
          // goes up from app to that top level and into the server folder.
          { id: "call_across", name: "read_file", arguments: { path: "app/../server/config.ts" } },
          { id: "call_climb", name: "read_file", arguments: { path: "app/../../server/config.ts" } },
          { id: "call_unknown", name: "read_file", arguments: { path: "elsewhere/config.ts" } },
        ],
      }),
      (body) => {
        const results = body.messages.filter((m) => m.role === "tool").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
        assert.equal(results.length, 4);
        assert.match(results[0]!, /app folder's own `server\/` subfolder/);
        assert.match(results[1]!, /port: \d+,/, "server/config.ts, named through the workspace's top level");
        assert.doesNotMatch(results[2]!, /port: /, "a path that climbs above the workspace reads nothing");
        assert.doesNotMatch(results[3]!, /port: /, "an unknown folder name reads nothing");
        return { text: "Read." };
      },
    );
    const failuresBefore = server.failures.length;
    await api.view.receive({ type: "chat/send", v: 1, text: "What are these?" });
    await api.screen.currentSession.waitForIdle();
    // A failing assertion in the step above answers 500 and is kept here: it must fail this test.
    assert.deepEqual(server.failures.slice(failuresBefore), []);
    assert.equal(server.pending(), 0);
    const attachmentFacts = JSON.stringify(server.chatRequests().at(-1)?.messages);
    assert.match(attachmentFacts, /server\/config\.ts/);
    assert.match(attachmentFacts, /app\/server\/NOTES\.md/);
  });

  it("run_command takes its folder by name: the model must name one, the card shows it, and it runs there", async () => {
    await vscode.commands.executeCommand("piChat.newChat");
    server.push(
      (body) => {
        const runCommand = (body.tools ?? []).find((t) => t.function.name === "run_command");
        assert.match(JSON.stringify(runCommand?.function.parameters), /starting with the workspace folder's name \(app, server\)/);
        return { toolCalls: [{ id: "call_nocwd", name: "run_command", arguments: { command: "pwd" } }] };
      },
      (body) => {
        // No folder named: nothing is asked or run, and the model is told how to name one.
        assert.match(lastToolResult(body), /several folders \(app, server\): give cwd, starting with the folder's name/);
        return { toolCalls: [{ id: "call_climb", name: "run_command", arguments: { command: "pwd", cwd: "server/../../.." } }] };
      },
      (body) => {
        assert.doesNotMatch(lastToolResult(body), /Exit code/, "a folder outside the workspace runs nothing");
        return { toolCalls: [{ id: "call_server", name: "run_command", arguments: { command: "pwd && ls", cwd: "server" } }] };
      },
      (body) => {
        const result = lastToolResult(body);
        assert.ok(result.includes(folder("server").uri.fsPath), result);
        assert.match(result, /config\.ts/);
        return { text: "It ran in server." };
      },
    );
    void api.view.receive({ type: "chat/send", v: 1, text: "Where does the server live?" });
    const card = await waitFor("the command card to ask", () =>
      chatItems(api.screen.currentSession.viewState).find((i) => i.kind === "tool" && i.id === "call_server" && i.approval?.state === "pending"),
    );
    assert.equal(card.kind === "tool" ? card.approval?.cwd : undefined, "server", "the card shows the folder");
    const asked = chatItems(api.screen.currentSession.viewState).filter((i) => i.kind === "tool" && i.approval !== undefined);
    assert.deepEqual(
      asked.map((i) => i.id),
      ["call_server"],
      "only the run with a folder in the workspace asked",
    );
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "call_server", decision: "allow" });
    await api.screen.currentSession.waitForIdle();
    assert.equal(server.pending(), 0);
    const ran = chatItems(api.screen.currentSession.viewState).find((i) => i.kind === "tool" && i.id === "call_server");
    console.log(`[multi-root] run_command ran via: ${(ran?.kind === "tool" ? (ran.details as { via?: string } | undefined)?.via : undefined) ?? "?"}`);
  });

  it("!cmd runs in the active editor's folder, else in the folder the user picks, and its card and Pi say which", async () => {
    await vscode.commands.executeCommand("piChat.newChat");
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder("server").uri, "config.ts"));
    await vscode.window.showTextDocument(doc);
    await api.view.receive({ type: "chat/send", v: 1, text: "!pwd" });
    const commands = () => chatItems(api.screen.currentSession.viewState).flatMap((i) => (i.kind === "userCommand" ? [i] : []));
    assert.deepEqual(
      commands().map((c) => [c.cwd, c.output, c.exitCode]),
      [["server", folder("server").uri.fsPath, 0]],
    );
    console.log(`[multi-root] !cmd ran via: ${commands()[0]?.via ?? "?"}`);

    // No editor: the user picks (the first, app) in VS Code's quick pick.
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    let done = false;
    const ran = api.view.receive({ type: "chat/send", v: 1, text: "!pwd" }).finally(() => {
      done = true;
    });
    while (!done) {
      await new Promise((r) => setTimeout(r, 300));
      if (!done) await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
    }
    await ran;
    assert.deepEqual(
      commands().map((c) => [c.cwd, c.output]),
      [
        ["server", folder("server").uri.fsPath],
        ["app", folder("app").uri.fsPath],
      ],
    );

    // Escape in the pick: nothing runs, and the typed command goes back into the composer.
    const postedBefore = api.view.posted!.length;
    let dismissed = false;
    const notRun = api.view.receive({ type: "chat/send", v: 1, text: "!ls" }).finally(() => {
      dismissed = true;
    });
    while (!dismissed) {
      await new Promise((r) => setTimeout(r, 300));
      if (!dismissed) await vscode.commands.executeCommand("workbench.action.closeQuickOpen");
    }
    await notRun;
    assert.equal(commands().length, 2, "nothing ran");
    assert.deepEqual(
      (api.view.posted!.slice(postedBefore) as HostMessage[]).flatMap((m) => (m.type === "composer/restore" ? [m.text] : [])),
      ["!ls"],
    );

    server.push((body) => {
      const text = JSON.stringify(body.messages);
      assert.match(text, /ran this command in the workspace folder server themselves/);
      assert.match(text, /ran this command in the workspace folder app themselves/);
      return { text: "Seen." };
    });
    await api.view.receive({ type: "chat/send", v: 1, text: "Where did those run?" });
    assert.equal(server.pending(), 0);
  });

  it("dropped and pasted paths name files and folders of either folder with their folder's name; the rest is refused", async () => {
    const requestId = 4201;
    const items = [
      vscode.Uri.joinPath(folder("app").uri, "src", "main.ts").toString(),
      vscode.Uri.joinPath(folder("server").uri, "config.ts").toString(),
      folder("server").uri.toString(),
      vscode.Uri.joinPath(folder("app").uri, "server").fsPath,
      "src/start.ts",
      "server/config.ts",
      "src/nowhere.ts",
    ];
    await api.view.receive({ type: "mention/paths", v: 1, requestId, origin: "paste", items });
    const answer = await waitFor("the answer", () =>
      (api.view.posted as HostMessage[]).find(
        (m): m is Extract<HostMessage, { type: "mention/pathsResolved" }> => m.type === "mention/pathsResolved" && m.requestId === requestId,
      ),
    );
    assert.deepEqual(answer.refs, [
      { kind: "file", path: "app/src/main.ts" },
      { kind: "file", path: "server/config.ts" },
      { kind: "folder", path: "server" },
      { kind: "folder", path: "app/server" },
      { kind: "file", path: "app/src/start.ts" },
    ]);
    assert.deepEqual(answer.refused, ['"src/nowhere.ts" does not exist']);
  });
});
