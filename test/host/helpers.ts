// Shared by the extension-host tests: activate the real extension, point it at a local
// OpenAI-compatible server, and wait for things to happen.
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import type { ToolItem } from "../../src/shared/chat-items";
import type { HostMessage } from "../../src/shared/protocol";
import { chatItems } from "../../src/shared/reducer";
import { serverFailureCount, serverFailureSince, startOpenAIServer, type OpenAIServer, type OpenAIServerOptions } from "../support/openai-server";
import { waitFor as waitForValue } from "../support/wait-for";

export const EXTENSION_ID = "pi-chat.pi-chat";

export async function activateExtension(baseUrl: string): Promise<PiChatTestApi> {
  const config = vscode.workspace.getConfiguration("piChat");
  await config.update("provider", "openai-compatible", vscode.ConfigurationTarget.Global);
  await config.update("baseUrl", baseUrl, vscode.ConfigurationTarget.Global);
  await config.update("model", "local-model", vscode.ConfigurationTarget.Global);
  await config.update("approvalMode", "ask", vscode.ConfigurationTarget.Global);
  const extension = vscode.extensions.getExtension<PiChatTestApi | undefined>(EXTENSION_ID);
  if (!extension) throw new Error(`extension ${EXTENSION_ID} is not installed in this host`);
  const api = await extension.activate();
  if (!api) throw new Error("the extension did not return its test API (not in ExtensionMode.Test?)");
  return api;
}

/** A local model server, the extension activated against it, and the chat view open and ready: every host suite's start. */
export async function startChatView(serverOptions: OpenAIServerOptions = {}): Promise<{ server: OpenAIServer; api: PiChatTestApi }> {
  const server = await startOpenAIServer(serverOptions);
  const api = await activateExtension(`${server.url}/v1`);
  // Open the real sidebar view: the webview loads in the browser and says `view/ready`.
  await vscode.commands.executeCommand("piChat.chatView.focus");
  await waitFor("the webview to be ready", () => api.view.isReady, 60_000);
  return { server, api };
}

/**
 * The chat view of `startChatView` for every test of the calling `describe` (started before them,
 * its editors closed and its server stopped after). Returns a getter, as the browser tests' useChatPage.
 */
export function useChatView(): () => { server: OpenAIServer; api: PiChatTestApi } {
  let started: { server: OpenAIServer; api: PiChatTestApi } | undefined;
  before(async () => {
    started = await startChatView();
  });
  after(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    await started?.server.close();
  });
  return () => {
    if (!started) throw new Error("useChatView: no chat view outside a test");
    return started;
  };
}

/** A host message (not a delta frame) among what the view was sent. */
export const isHostMessage = (m: unknown): m is HostMessage => typeof m === "object" && m !== null && !Array.isArray(m);

/**
 * Polls `probe` until it gives a value. A local model server's failure meanwhile (an assertion in a
 * scripted step on the request it got) is thrown at once, so a test fails with that assertion,
 * not with a time-out later.
 */
export function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const failuresBefore = serverFailureCount();
  const failFast = () => {
    const failure = serverFailureSince(failuresBefore);
    if (failure === undefined) return;
    if (failure instanceof Error) failure.message = `the local model server failed while waiting for ${what}: ${failure.message}`;
    throw failure;
  };
  return waitForValue(what, probe, { timeoutMs, intervalMs: 50, failFast });
}

export function workspaceUri(...segments: string[]): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error("no workspace folder open");
  return vscode.Uri.joinPath(folder.uri, ...segments);
}

export async function diskText(uri: vscode.Uri): Promise<string> {
  return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
}

export const CONFIG_3000 = 'export const config = {\n  host: "localhost",\n  port: 3000,\n};\n';

/** Puts src/config.ts back to its fixture text, on disk and in any open editor. */
export async function resetConfigFile(): Promise<vscode.Uri> {
  const uri = workspaceUri("src", "config.ts");
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (doc) {
    const edit = new vscode.WorkspaceEdit();
    edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), CONFIG_3000);
    await vscode.workspace.applyEdit(edit);
    await doc.save();
  } else {
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(CONFIG_3000));
  }
  return uri;
}

/** The card of tool call `id` in the chat on screen, if it is there yet. */
export function toolCard(api: PiChatTestApi, id: string): ToolItem | undefined {
  return chatItems(api.screen.currentSession.viewState).find((i): i is ToolItem => i.kind === "tool" && i.id === id);
}
