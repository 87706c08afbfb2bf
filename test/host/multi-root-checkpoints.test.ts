// Checkpoints in a two-folder workspace (test/fixtures/multi-root: `app` and `server`; runs only
// in the launch that opens multi.code-workspace). Pi edits a file in each folder and a command in
// `server` creates one; restoring puts both folders back, by their `folder/path` names.
import * as assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { RestorePlan } from "../../src/core/checkpoints";
import type { PiChatTestApi } from "../../src/host/extension";
import type { ToolItem } from "../../src/shared/chat-items";
import { chatItems } from "../../src/shared/reducer";
import type { OpenAIServer } from "../support/openai-server";
import { startChatView, waitFor } from "./helpers";

function root(name: string): string {
  const found = vscode.workspace.workspaceFolders?.find((f) => f.name === name);
  if (!found) throw new Error(`no workspace folder named ${name}`);
  return found.uri.fsPath;
}

describe("multi-root workspace: restore files to a message (extension host)", function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;

  before(async () => {
    ({ server, api } = await startChatView());
    await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", false, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("piChat").update("approvalMode", "auto", vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    // The next file's tests continue on the chat on screen: leave them an empty one.
    await vscode.commands.executeCommand("piChat.newChat");
    await vscode.workspace.getConfiguration("piChat").update("approvalMode", "ask", vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("piChat").update("commands.useTerminal", undefined, vscode.ConfigurationTarget.Global);
    await server?.close();
  });

  it("restores an edit in each folder and deletes the file a command created in one", async () => {
    const checkpoints = api.checkpoints;
    assert.ok(checkpoints, "both folders are on disk: checkpoints are kept");
    const serverConfig = join(root("server"), "config.ts");
    const appMain = join(root("app"), "src", "main.ts");
    const created = join(root("server"), "cp-created.txt");
    rmSync(created, { force: true });
    const before = { server: readFileSync(serverConfig), app: readFileSync(appMain) };
    const appText = before.app.toString("utf8");
    const appLine = appText.split("\n").find((l) => l.trim() !== "")!;

    await vscode.commands.executeCommand("piChat.newChat");
    server.push(
      () => ({ toolCalls: [{ id: "mr_edit_1", name: "edit_file", arguments: { path: "server/config.ts", oldText: "port: 3000,", newText: "port: 8080," } }] }),
      () => ({
        toolCalls: [{ id: "mr_edit_2", name: "edit_file", arguments: { path: "app/src/main.ts", oldText: appLine, newText: `${appLine} // edited by pi` } }],
      }),
      () => ({ toolCalls: [{ id: "mr_cmd", name: "run_command", arguments: { command: "printf 'made by pi\\n' > cp-created.txt", cwd: "server" } }] }),
      () => ({ text: "Done." }),
    );
    void api.view.receive({ type: "chat/send", v: 1, text: "Change both folders." });
    await waitFor("the command to ask", () =>
      chatItems(api.screen.currentSession.viewState).some((i): i is ToolItem => i.kind === "tool" && i.id === "mr_cmd" && i.approval?.state === "pending"),
    );
    await api.view.receive({ type: "approval/decide", v: 1, toolCallId: "mr_cmd", decision: "allow" });
    await api.screen.currentSession.waitForIdle();
    await checkpoints.checkpoints.idle();
    assert.ok(existsSync(created));

    let previewed: RestorePlan | undefined;
    checkpoints.preview = async (plan) => {
      previewed = plan;
      return "restore";
    };
    let noticeText = "";
    checkpoints.notify = async (text) => {
      noticeText = text;
      return undefined;
    };
    const session = api.screen.currentSession;
    await api.view.receive({ type: "checkpoint/restore", v: 1, messageIndex: session.messages.findIndex((m) => m.role === "user") });
    await waitFor("the notice", () => noticeText);
    assert.deepEqual(
      previewed?.files.map((f) => [f.path, f.piDid]),
      [
        ["app/src/main.ts", "modified"],
        ["server/config.ts", "modified"],
        ["server/cp-created.txt", "created"],
      ],
    );
    assert.deepEqual(readFileSync(serverConfig), before.server);
    assert.deepEqual(readFileSync(appMain), before.app);
    assert.equal(existsSync(created), false);
  });
});
