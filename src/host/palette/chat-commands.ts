// The commands of the chat view and the palette: new chat, focus, ask about this file, stop,
// history, the approval's key, API keys and models, MCP servers, the walkthrough, and the groups
// registered by their own files (history, pi CLI, model context).
import * as vscode from "vscode";
import type { ChatHost } from "../chat-host";
import type { ChatScreen } from "../chat-screen";
import type { HostMcp } from "../mcp/host-mcp";
import { showMcpServers, signInToMcpServer } from "../mcp/mcp-servers-command";
import { setApiKey } from "../models/api-key-prompt";
import { settingsForChat } from "../models/chat-model";
import { registerModelCommands } from "../models/chat-model-picker";
import { readProviderSettings, type SecretKeys } from "../models/providers-loader";
import type { ChatViewProvider } from "../views/chat-webview-provider";
import type { ModelContextDocuments } from "../views/model-context-view";
import { registerModelContextLinks } from "../views/model-context-links";
import { registerContextCommands } from "./context-commands";
import { registerHistoryCommands } from "./history-commands";
import { registerPiSessionCommands } from "./pi-sessions-loader";

export interface ChatCommandsDeps {
  context: vscode.ExtensionContext;
  host: ChatHost;
  view: ChatViewProvider;
  secrets: SecretKeys;
  mcp: HostMcp;
  modelContext: ModelContextDocuments;
  log: (line: string) => void;
}

export function registerChatCommands({ context, host, view, secrets, mcp, modelContext, log }: ChatCommandsDeps): vscode.Disposable[] {
  const { screen, status } = host;
  return [
    vscode.commands.registerCommand("piChat.newChat", async () => {
      await screen.newChat();
      await view.reveal();
      // From the view's title bar or the palette: what the user types next goes to the new chat.
      view.send({ type: "view/focus" });
    }),
    // The chat's key: the view and, inside it, the message box (VS Code's own view focus stops at the page).
    vscode.commands.registerCommand("piChat.focusChat", async () => {
      await view.reveal();
      view.send({ type: "view/focus" });
    }),
    vscode.commands.registerCommand("piChat.askAboutFile", (uri?: vscode.Uri) => {
      const editor = vscode.window.activeTextEditor;
      const fromEditor = !uri || editor?.document.uri.toString() === uri.toString();
      return host.attachments.askAboutFile(uri instanceof vscode.Uri ? uri : undefined, fromEditor ? editor?.selection : undefined);
    }),
    vscode.commands.registerCommand("piChat.stop", () => screen.stop()),
    // Plan or act for the chat on screen; the composer's switch shows it and the model is told.
    vscode.commands.registerCommand("piChat.togglePlanMode", async () => {
      const session = screen.currentSession;
      await screen.writeCurrentChat(screen.currentChatId);
      await session.setMode(session.mode === "plan" ? "act" : "plan");
    }),
    vscode.commands.registerCommand("piChat.mcpServers", () => showMcpServers(mcp)),
    vscode.commands.registerCommand("piChat.mcpSignIn", (server?: unknown) => signInToMcpServer(mcp, typeof server === "string" ? server : undefined)),
    vscode.commands.registerCommand("piChat.setApiKey", () =>
      setApiKey(secrets, settingsForChat(readProviderSettings(), screen.currentSession.model).provider),
    ),
    ...registerModelCommands(screen, status, secrets, log, context.globalState, host.models.signIns),
    // Sign-in where pi-ai has a flow: an argument names the provider (the picker's row), otherwise a list.
    vscode.commands.registerCommand("piChat.signIn", (provider?: unknown) =>
      typeof provider === "string" && host.models.signIns.offers(provider) ? host.models.signIns.signIn(provider) : host.models.signIns.pickAndSignIn(),
    ),
    vscode.commands.registerCommand("piChat.signOut", (provider?: unknown) =>
      host.models.signIns.signOut(typeof provider === "string" && host.models.signIns.offers(provider) ? provider : undefined),
    ),
    vscode.commands.registerCommand("piChat.openWalkthrough", () =>
      vscode.commands.executeCommand("workbench.action.openWalkthrough", `${context.extension.id}#gettingStarted`, false),
    ),
    // The empty chat says whether a key is missing: it follows the secret storage.
    context.secrets.onDidChange(() => void host.models.refreshKeys()),
    ...registerHistoryCommands(screen),
    ...registerPiSessionCommands(screen, log),
    vscode.commands.registerCommand("piChat.showHistory", async () => {
      // The view's own history (search, delete) when it can show it; the quick pick otherwise.
      await view.reveal();
      if (view.isReady) view.send({ type: "history/show" });
      else await showHistory(screen);
    }),
    vscode.commands.registerCommand("piChat.focusApproval", async () => {
      await view.reveal();
      view.send({ type: "view/focus", target: "approval" });
    }),
    ...registerContextCommands(screen, modelContext),
    ...registerModelContextLinks(screen, view),
  ];
}

async function showHistory(screen: ChatScreen): Promise<void> {
  const chats = await screen.service.listChats();
  if (chats.length === 0) {
    void vscode.window.showInformationMessage("Pi Chat: no saved chats in this workspace yet.");
    return;
  }
  const picked = await vscode.window.showQuickPick(
    chats.map((c) => ({ label: c.title, description: new Date(c.updatedAt).toLocaleString(), detail: c.lastPreview, id: c.id })),
    { placeHolder: "Open a chat", matchOnDetail: true },
  );
  if (picked) await screen.switchChat(picked.id);
}
