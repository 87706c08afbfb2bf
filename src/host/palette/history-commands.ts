// The chat history as VS Code's quick pick ("Pi Chat: Search Chats"): every chat by last
// activity with its title, first prompt, time, model and size, filtered by title as you type,
// with the chats whose messages contain the words added below (a full-text search of the chat
// files); each row renames, exports to Markdown, continues in the pi CLI or deletes its chat.
// "Rename Chat" and "Export Chat to Markdown" do the same for the chat on screen.
import * as vscode from "vscode";
import type { ChatSummary } from "../../core/transcript";
import { chatToMarkdown } from "../../shared/chat-markdown";
import type { ChatScreen } from "../chat-screen";
import { formatBytes } from "../../shared/format";

const SEARCH_DELAY_MS = 250;
/** Full-text search starts at this many characters (fewer match nearly everything). */
const MIN_SEARCH_CHARS = 3;

interface ChatPick extends vscode.QuickPickItem {
  chatId: string;
  title: string;
}

const RENAME: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("edit"), tooltip: "Rename" };
const EXPORT: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("markdown"), tooltip: "Export to Markdown" };
const PI: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("terminal"), tooltip: "Continue in pi CLI" };
const DELETE: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("trash"), tooltip: "Delete" };

function pickOf(chat: ChatSummary): ChatPick {
  const when = new Date(chat.updatedAt).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  const facts = [when, chat.model, `${chat.messageCount} messages, ${formatBytes(chat.sizeBytes)}`].filter(Boolean).join(" · ");
  const first = chat.firstPrompt && chat.firstPrompt !== chat.title ? chat.firstPrompt : chat.lastPreview;
  return {
    label: chat.title,
    description: facts,
    ...(first ? { detail: first } : {}),
    chatId: chat.id,
    title: chat.title,
    buttons: [RENAME, EXPORT, PI, DELETE],
  };
}

export function registerHistoryCommands(screen: ChatScreen): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand("piChat.searchChats", () => searchChats(screen)),
    vscode.commands.registerCommand("piChat.renameChat", (chatId?: unknown) =>
      renameChat(screen, typeof chatId === "string" ? chatId : screen.currentSession.id),
    ),
    vscode.commands.registerCommand("piChat.exportChat", (chatId?: unknown) =>
      exportChat(screen, typeof chatId === "string" ? chatId : screen.currentSession.id),
    ),
  ];
}

async function searchChats(screen: ChatScreen): Promise<void> {
  const chats = await screen.service.listChats();
  const base = chats.map(pickOf);
  const byId = new Map(chats.map((c) => [c.id, c]));
  const pick = vscode.window.createQuickPick<ChatPick>();
  pick.placeholder = chats.length === 0 ? "No saved chats in this workspace yet" : "Search chats: titles as you type, message text below them";
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  pick.items = base;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let generation = 0;
  pick.onDidChangeValue((value) => {
    if (timer) clearTimeout(timer);
    const query = value.trim();
    if (query.length < MIN_SEARCH_CHARS) {
      pick.items = base;
      return;
    }
    const mine = ++generation;
    timer = setTimeout(async () => {
      pick.busy = true;
      try {
        const hits = await screen.service.searchChats(query);
        if (mine !== generation) return;
        const inText: ChatPick[] = hits.flatMap((hit) => {
          const chat = byId.get(hit.chatId);
          if (!chat) return [];
          // alwaysShow: the words are in the messages, not necessarily in the title.
          return [{ ...pickOf(chat), detail: `$(search) ${hit.snippet}`, alwaysShow: true }];
        });
        const shown = new Set(inText.map((p) => p.chatId));
        pick.items = [...inText, ...base.filter((p) => !shown.has(p.chatId))];
      } finally {
        if (mine === generation) pick.busy = false;
      }
    }, SEARCH_DELAY_MS);
  });
  pick.onDidTriggerItemButton(async ({ item, button }) => {
    if (button === EXPORT) return exportChat(screen, item.chatId);
    pick.hide();
    if (button === PI) await vscode.commands.executeCommand("piChat.continueInPi", item.chatId);
    else if (button === RENAME) await renameChat(screen, item.chatId, item.title);
    else if (button === DELETE) await screen.deleteChat(item.chatId);
  });
  pick.onDidAccept(async () => {
    const chosen = pick.selectedItems[0];
    pick.hide();
    if (chosen) await screen.switchChat(chosen.chatId);
  });
  pick.onDidHide(() => pick.dispose());
  pick.show();
}

async function renameChat(screen: ChatScreen, chatId: string, current?: string): Promise<void> {
  const title = current ?? (await screen.service.listChats()).find((c) => c.id === chatId)?.title ?? "";
  const value = await vscode.window.showInputBox({ title: "Pi Chat: rename chat", value: title, prompt: "Leave empty to use the first prompt again." });
  if (value === undefined) return;
  await screen.service.renameChat(chatId, value.trim() === "" ? null : value);
  await screen.refreshChats();
}

/** What the view shows of the chat, as Markdown, in a new untitled editor. */
async function exportChat(screen: ChatScreen, chatId: string): Promise<void> {
  const opened = await screen.service.open(chatId);
  if (!opened.ok) {
    void vscode.window.showErrorMessage(`Pi Chat could not open that chat: ${opened.reason}`);
    return;
  }
  const title = (await screen.service.listChats()).find((c) => c.id === chatId)?.title ?? "New chat";
  const doc = await vscode.workspace.openTextDocument({ language: "markdown", content: chatToMarkdown(title, opened.session.allItems()) });
  await vscode.window.showTextDocument(doc, { preview: false });
}
