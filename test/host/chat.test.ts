// Pi Chat in a real VS Code extension host (code-server 1.100 here, Electron on a desktop):
// the extension's own commands, webview protocol and VS Code APIs, with the real pi-ai
// OpenAI-compatible adapter talking to a local scripted server.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import { DeltaFrameReader, type HostMessage, type HostPost } from "../../src/shared/protocol";
import { chatItems } from "../../src/shared/reducer";
import { startOpenAIServer, type OpenAIServer } from "../support/openai-server";
import { activateExtension, CONFIG_3000, diskText, resetConfigFile, waitFor, workspaceUri } from "./helpers";

function providerBundleLoaded(): boolean {
  return Object.keys(require.cache).some((file) => file.endsWith("/out/providers.js"));
}

function lastUserText(body: { messages: { role: string; content?: unknown }[] }): string {
  const users = body.messages.filter((m) => m.role === "user");
  const content = users[users.length - 1]?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
}

const isHostMessage = (m: unknown): m is HostMessage => typeof m === "object" && m !== null && !Array.isArray(m);

describe("Pi Chat in the extension host", function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;
  let providersAtActivation = true;

  before(async () => {
    server = await startOpenAIServer();
    api = await activateExtension(`${server.url}/v1`);
    providersAtActivation = providerBundleLoaded();
    // Open the real sidebar view: the webview loads in the browser and says `view/ready`.
    await vscode.commands.executeCommand("piChat.chatView.focus");
    await waitFor("the webview to be ready", () => api.view.isReady, 60_000);
  });

  after(async () => {
    await server?.close();
  });

  beforeEach(async () => {
    await resetConfigFile();
    await vscode.commands.executeCommand("piChat.newChat");
  });

  it("activates without loading a provider SDK, and contributes its commands", async () => {
    assert.equal(providersAtActivation, false, "out/providers.js was loaded at activation");
    const commands = await vscode.commands.getCommands(true);
    for (const id of ["piChat.newChat", "piChat.askAboutFile", "piChat.stop", "piChat.setApiKey", "piChat.selectModel", "piChat.showHistory"]) {
      assert.ok(commands.includes(id), `${id} is registered`);
    }
  });

  it("a settings change posts the new status, not a whole snapshot", async () => {
    const posted = api.view.posted!;
    const before = posted.length;
    const config = vscode.workspace.getConfiguration("piChat");
    await config.update("model", "another-local-model", vscode.ConfigurationTarget.Global);
    try {
      // A status posted just before the change (a catalog load, a key read, a probe answer: each
      // redraws the header when it arrives) still names the old model; the change posts its own.
      const status = await waitFor("a status naming the new model", () =>
        posted
          .slice(before)
          .find(
            (m): m is Extract<HostMessage, { type: "view/status" }> =>
              isHostMessage(m) && m.type === "view/status" && /another-local-model/.test(m.status.modelLabel),
          ),
      );
      assert.match(status.status.modelLabel, /another-local-model/);
      assert.ok(!posted.slice(before).some((m) => isHostMessage(m) && m.type === "view/snapshot"), "no snapshot for a settings change");
    } finally {
      await config.update("model", "local-model", vscode.ConfigurationTarget.Global);
    }
  });

  it("the 8080 scenario: read, answer, edit shown as a diff, allowed, applied, undoable", async () => {
    const configUri = workspaceUri("src", "config.ts");
    server.push(
      () => ({ toolCalls: [{ id: "call_read", name: "read_file", arguments: { path: "src/config.ts" } }] }),
      (body) => {
        const result = body.messages.find((m) => m.role === "tool");
        const port = /port: (\d+)/.exec(JSON.stringify(result?.content))?.[1];
        return { text: `The default port is ${port}.` };
      },
    );
    const posted = api.view.posted!;
    const postedBefore = posted.length;
    await api.view.receive({ type: "chat/send", v: 1, text: "Read src/config.ts and tell me the default port." });
    assert.ok(providerBundleLoaded(), "the provider bundle loads on the first prompt");
    const answer = api.screen.currentSession.messages.at(-1);
    assert.equal(answer?.role, "assistant");
    assert.match(JSON.stringify(answer), /The default port is 3000\./);
    // The webview got the answer as sequenced events, the text as compact delta frames.
    const sent = posted.slice(postedBefore) as HostPost[];
    const reader = new DeltaFrameReader();
    const frames = sent.map((m) => reader.read(m)).filter((f) => f !== null);
    assert.ok(frames.length > 0, "deltas were streamed");
    assert.ok(
      frames
        .map((f) => f.text)
        .join("")
        .includes("The default port is 3000."),
    );
    // Frames count as the next seq; every sequenced message carries the seq that follows.
    let expected: number | undefined;
    for (const m of sent) {
      if (typeof m === "object" && !Array.isArray(m)) {
        if (expected !== undefined) assert.equal(m.seq, expected + 1, "host messages are numbered without gaps");
        expected = m.seq;
      } else if (expected !== undefined) expected += 1;
    }

    server.push(
      (body) => {
        // The request that leads to the edit carries the whole first turn.
        const roles = body.messages.map((m) => m.role);
        assert.deepEqual(roles, ["system", "user", "assistant", "tool", "assistant", "user"]);
        const call = body.messages[2] as { tool_calls?: { id: string }[] };
        assert.equal((body.messages[3] as { tool_call_id?: string }).tool_call_id, call.tool_calls?.[0]?.id);
        assert.match(lastUserText(body), /Change it to 8080/);
        return { toolCalls: [{ id: "call_edit", name: "edit_file", arguments: { path: "src/config.ts", oldText: "port: 3000,", newText: "port: 8080," } }] };
      },
      () => ({ text: "Changed it to 8080." }),
    );
    void api.view.receive({ type: "chat/send", v: 1, text: "Change it to 8080." });
    const toolCallId = await waitFor(
      "the approval request",
      () => chatItems(api.screen.currentSession.viewState).find((i) => i.kind === "tool" && i.approval?.state === "pending")?.id,
    );
    // The proposed change is open in VS Code's diff editor, and nothing is written yet.
    await waitFor("the diff editor", () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .some((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === "pi-chat-proposal"),
    );
    assert.ok(api.diffs.opened.includes(toolCallId));
    assert.equal(await diskText(configUri), CONFIG_3000);

    await api.view.receive({ type: "approval/decide", v: 1, toolCallId, decision: "allow" });
    await api.screen.currentSession.waitForIdle();
    const doc = await vscode.workspace.openTextDocument(configUri);
    assert.match(doc.getText(), /port: 8080,/);
    const editResult = api.screen.currentSession.messages.find((m) => m.role === "toolResult" && m.toolCallId === toolCallId);
    assert.equal(
      doc.isDirty,
      false,
      `the edit was saved (tool result: ${JSON.stringify(editResult && "content" in editResult ? editResult.content : editResult)})`,
    );
    assert.match(await diskText(configUri), /port: 8080,/);
    assert.ok(api.screen.currentSession.messages.some((m) => m.role === "approvalNotice" && m.decision === "allowed"));

    // Undoable with the editor's own Undo.
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand("undo");
    assert.match(doc.getText(), /port: 3000,/);
    await doc.save();
  });

  it("deny leaves the file untouched and tells the model", async () => {
    const configUri = workspaceUri("src", "config.ts");
    server.push(
      () => ({ toolCalls: [{ id: "call_edit_d", name: "edit_file", arguments: { path: "src/config.ts", oldText: "port: 3000,", newText: "port: 8080," } }] }),
      (body) => {
        assert.match(JSON.stringify(body.messages), /denied the edit_file call call_edit_d/);
        assert.match(JSON.stringify(body.messages), /not today/);
        return { text: "OK, I left it." };
      },
    );
    void api.view.receive({ type: "chat/send", v: 1, text: "Change the port to 8080." });
    const toolCallId = await waitFor(
      "the approval request",
      () => chatItems(api.screen.currentSession.viewState).find((i) => i.kind === "tool" && i.approval?.state === "pending")?.id,
    );
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId, decision: "deny", reason: "not today" });
    await api.screen.currentSession.waitForIdle();
    assert.equal(await diskText(configUri), CONFIG_3000);
    const doc = await vscode.workspace.openTextDocument(configUri);
    assert.equal(doc.getText(), CONFIG_3000);
    assert.equal(server.pending(), 0, "the model was asked again after the denial");
  });

  it("ask about this file attaches the active file and its selection", async () => {
    const doc = await vscode.workspace.openTextDocument(workspaceUri("src", "config.ts"));
    const editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(new vscode.Position(1, 0), new vscode.Position(2, 12));
    await vscode.commands.executeCommand("piChat.askAboutFile");
    assert.deepEqual(api.host.attachments.pending, [{ path: "src/config.ts", range: { startLine: 2, endLine: 3 } }]);
    const lastAttachments = [...(api.view.posted as HostMessage[])].reverse().find((m) => m.type === "composer/attachments");
    assert.ok(lastAttachments && lastAttachments.type === "composer/attachments" && lastAttachments.attachments[0]?.path === "src/config.ts");

    server.push((body) => {
      assert.match(JSON.stringify(body.messages), /attached the file src\/config\.ts \(lines 2-3\)/);
      return { text: "That is the host and port." };
    });
    await api.view.receive({ type: "chat/send", v: 1, text: "What is this?" });
    const items = chatItems(api.screen.currentSession.viewState);
    assert.ok(items.some((i) => i.kind === "attachment" && i.path === "src/config.ts"));
    assert.deepEqual(api.host.attachments.pending, [], "attachments are used once");
  });

  it("ignores malformed webview messages without breaking the chat", async () => {
    const before = api.logLines.length;
    await api.view.receive({ type: "chat/send", v: 1 });
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: 7, decision: "yes" });
    await api.view.receive("<script>");
    await api.view.receive({ type: "chat/send", v: 99, text: "wrong version" });
    assert.equal(api.logLines.slice(before).filter((l) => l.startsWith("invalid webview message")).length, 4);
    server.push(() => ({ text: "still here" }));
    await api.view.receive({ type: "chat/send", v: 1, text: "hello?" });
    assert.match(JSON.stringify(api.screen.currentSession.messages.at(-1)), /still here/);
  });

  it("a provider error becomes a chat notice with the fix, and the chat stays usable", async () => {
    server.failNext(401, { error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } });
    await api.view.receive({ type: "chat/send", v: 1, text: "hi" });
    const notice = chatItems(api.screen.currentSession.viewState).find((i) => i.kind === "notice" && i.level === "error");
    assert.ok(notice && notice.kind === "notice");
    assert.match(notice.fix ?? "", /Set API Key/);
    assert.equal(api.screen.currentSession.canContinue, true);
    server.push(() => ({ text: "Recovered." }));
    await api.view.receive({ type: "chat/continue", v: 1 });
    assert.match(JSON.stringify(api.screen.currentSession.messages.at(-1)), /Recovered\./);
  });

  it("Insert at cursor puts a code block's text at the cursor of the active editor, as one undoable edit", async () => {
    const doc = await vscode.workspace.openTextDocument({ language: "typescript", content: "const a = 1;\n" });
    const editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(1, 0, 1, 0);
    await api.view.receive({ type: "editor/insertCode", v: 1, code: "const b = 2;\n", language: "ts" });
    await waitFor("the inserted code", () => doc.getText() === "const a = 1;\nconst b = 2;\n");
    await vscode.commands.executeCommand("undo");
    await waitFor("the undo", () => doc.getText() === "const a = 1;\n");
    await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");
  });

  it("Insert at cursor: a block whose language does not fit the file asks first, naming it; it lands on lines of its own", async () => {
    const uri = workspaceUri("src", "server.ts");
    const original = 'import { config } from "./config";\nexport const listen = () => config.port;\n';
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(original));
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc);
    const asked: string[] = [];
    let answer = false;
    api.codeInserter.ask = async (question) => {
      asked.push(question);
      return answer;
    };
    try {
      // A package.json snippet, clicked while server.ts is open with the cursor at line 1: no.
      editor.selection = new vscode.Selection(0, 0, 0, 0);
      await api.view.receive({ type: "editor/insertCode", v: 1, code: '{ "name": "x" }', language: "json" });
      assert.deepEqual(asked, ["This json block does not look like typescript. Insert it into server.ts anyway?"]);
      assert.equal(doc.getText(), original, "declined: nothing inserted");
      // No language at all: asked too. Yes: the block stands on its own line, not glued to line 1.
      answer = true;
      await api.view.receive({ type: "editor/insertCode", v: 1, code: "port = 8080" });
      assert.match(asked[1]!, /^This code block does not look like typescript\. Insert it into server\.ts anyway\?$/);
      await waitFor("the inserted code", () => (doc.getText() !== original ? doc.getText() : undefined));
      assert.equal(doc.getText(), `port = 8080\n${original}`, "on a line of its own before line 1");
      // Mid-line, a TypeScript block: not asked, and put on lines of its own.
      const line = doc.lineAt(1);
      editor.selection = new vscode.Selection(1, Math.floor(line.text.length / 2), 1, Math.floor(line.text.length / 2));
      const before = doc.getText();
      await api.view.receive({ type: "editor/insertCode", v: 1, code: "const b = 2;", language: "typescript" });
      assert.equal(asked.length, 2, "a fitting block is not asked about");
      await waitFor("the second insert", () => (doc.getText() !== before ? true : undefined));
      const half = Math.floor(line.text.length / 2);
      assert.equal(doc.lineAt(1).text, line.text.slice(0, half));
      assert.equal(doc.lineAt(2).text, "const b = 2;");
      assert.equal(doc.lineAt(3).text, line.text.slice(half));
      // Each insert is one undoable step.
      await vscode.commands.executeCommand("undo");
      await waitFor("the undo", () => (doc.getText() === before ? true : undefined));
    } finally {
      await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");
      await vscode.workspace.fs.delete(uri);
    }
  });

  it("Apply to file: the file the block names, its diff beside, the user's yes, one undoable saved edit; no, a selection, and refusals", async () => {
    const configUri = workspaceUri("src", "config.ts");
    const asked: string[] = [];
    const whileAsking: { diffOpen: boolean; onDisk: string }[] = [];
    let answer = true;
    api.codeApplier.ask = async (question) => {
      asked.push(question);
      // What the user sees while deciding: the proposal beside the file, nothing written yet.
      const diffOpen = vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .some(
          (t) =>
            t.input instanceof vscode.TabInputTextDiff &&
            t.input.original.toString() === configUri.toString() &&
            t.input.modified.scheme === "pi-chat-proposal",
        );
      whileAsking.push({ diffOpen, onDisk: await diskText(configUri) });
      return answer;
    };
    const apply = (code: string, path?: string) => api.view.receive({ type: "editor/applyCode", v: 1, code, ...(path ? { path } : {}) });
    // A selection left in the named file changes nothing: a block that names its file is the whole file.
    const open = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(configUri));
    open.selection = new vscode.Selection(0, 0, 1, 5);
    const wholeFile = 'export const config = {\n  host: "0.0.0.0",\n  port: 8080,\n};\n';

    // No: nothing written, the diff closed.
    answer = false;
    await apply(wholeFile, "src/config.ts");
    assert.deepEqual(asked, ["Apply the code block to src/config.ts?"]);
    assert.equal(await diskText(configUri), CONFIG_3000);
    assert.ok(
      !vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .some((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === "pi-chat-proposal"),
      "the diff is closed",
    );

    assert.deepEqual(whileAsking, [{ diffOpen: true, onDisk: CONFIG_3000 }]);

    // Yes: written and saved; Undo brings the old text back.
    answer = true;
    await apply(wholeFile, "src/config.ts");
    assert.deepEqual(whileAsking[1], { diffOpen: true, onDisk: CONFIG_3000 });
    assert.equal(await diskText(configUri), wholeFile);
    const doc = await vscode.workspace.openTextDocument(configUri);
    assert.equal(doc.isDirty, false);
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand("undo");
    assert.equal(doc.getText(), CONFIG_3000);
    await doc.save();

    // No path named: the active editor's selection is what the block replaces.
    const editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(2, 2, 2, 13); // "port: 3000,"
    await apply("port: 9090,");
    assert.equal(await diskText(configUri), CONFIG_3000.replace("port: 3000,", "port: 9090,"));
    await resetConfigFile();

    // Refused before asking: git's own files, a path out of the workspace, an open non-workspace file.
    const before = asked.length;
    await apply("[core]\n\thooksPath = /tmp/evil\n", ".git/config");
    await apply("x", "../outside.ts");
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument({ content: "scratch" }));
    await apply("x");
    assert.equal(asked.length, before, "nothing to ask about");
    assert.equal(await diskText(configUri), CONFIG_3000);
    const log = api.logLines.filter((l) => l.startsWith("apply to file: ")).slice(-3);
    assert.equal(log.length, 3);
    for (const line of log) assert.match(line, /^apply to file: refused/);
    await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");
  });

  afterEach(async () => {
    // Whatever a test did to it, the next one starts from the fixture's text.
    await resetConfigFile();
  });
});
