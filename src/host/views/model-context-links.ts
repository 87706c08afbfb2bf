// "Show Model Context" links each part of the request back to the chat item it came from: each
// part's heading ends with "in the chat `m12`" (model-context-report.ts), which a document link
// provider turns into a link (Ctrl+click, or the editor's Open Link); *Show This Part in the
// Chat* does the same from the keyboard for the part at the cursor. Either one brings the chat
// on screen and moves the focus to the item (`view/focus` with the item's id).
import * as vscode from "vscode";
import { CHAT_ITEM_LINK } from "../../core/context/request-part-items";
import type { ChatViewProvider } from "./chat-webview-provider";
import { MODEL_CONTEXT_SCHEME } from "./model-context-view";

/** A part's heading and the item id it ends with. */
const PART_HEADING = new RegExp(`^## .* · ${CHAT_ITEM_LINK} \`([\\w.:-]+)\`$`);

export interface ModelContextLinksHost {
  readonly currentChatId: string;
  isKnownChat(chatId: string): boolean;
  switchChat(chatId: string): Promise<void>;
}

export function registerModelContextLinks(screen: ModelContextLinksHost, view: ChatViewProvider): vscode.Disposable[] {
  const showInChat = async (chatId: unknown, itemId: unknown) => {
    // A command link's arguments are only a request: a chat that is not saved is not opened.
    if (typeof chatId !== "string" || typeof itemId !== "string" || !screen.isKnownChat(chatId)) return;
    if (screen.currentChatId !== chatId) await screen.switchChat(chatId);
    await view.reveal();
    view.send({ type: "view/focus", target: "item", itemId });
  };
  return [
    vscode.languages.registerDocumentLinkProvider({ scheme: MODEL_CONTEXT_SCHEME }, { provideDocumentLinks: partLinks }),
    vscode.commands.registerCommand("piChat.showInChat", showInChat),
    vscode.commands.registerCommand("piChat.showContextPartInChat", async () => {
      const editor = vscode.window.activeTextEditor;
      if (editor?.document.uri.scheme !== MODEL_CONTEXT_SCHEME) return;
      const part = partAt(editor.document, editor.selection.active.line);
      if (part === undefined) {
        void vscode.window.showInformationMessage("Pi Chat: this part of the request has no item in the chat (the system prompt, the tools).");
        return;
      }
      await showInChat(editor.document.uri.query, part);
    }),
  ];
}

/** One link per part heading, over its item id, opening it in the chat. */
function partLinks(document: vscode.TextDocument): vscode.DocumentLink[] {
  const links: vscode.DocumentLink[] = [];
  for (let line = 0; line < document.lineCount; line++) {
    const text = document.lineAt(line).text;
    const itemId = PART_HEADING.exec(text)?.[1];
    if (itemId === undefined) continue;
    const start = text.lastIndexOf(`${CHAT_ITEM_LINK} \``);
    const args = encodeURIComponent(JSON.stringify([document.uri.query, itemId]));
    const link = new vscode.DocumentLink(new vscode.Range(line, start, line, text.length), vscode.Uri.parse(`command:piChat.showInChat?${args}`));
    link.tooltip = "Show this part's item in the chat";
    links.push(link);
  }
  return links;
}

/** The item id of the part the line is in: its heading, or the nearest heading above it. */
function partAt(document: vscode.TextDocument, line: number): string | undefined {
  for (let at = line; at >= 0; at--) {
    const text = document.lineAt(at).text;
    if (!text.startsWith("## ")) continue;
    return PART_HEADING.exec(text)?.[1];
  }
  return undefined;
}
