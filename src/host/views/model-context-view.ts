// "Pi Chat: Show Model Context": a read-only editor tab (a TextDocumentContentProvider, so VS
// Code never offers to save or edit it) with the exact context of the chat's last request. It
// follows the chat: every request sent updates the open tab.
import * as vscode from "vscode";
import type { RequestCapture } from "../../core/context/chat-context";
import { renderModelContext, renderNoRequestYet } from "../../core/context/model-context-report";
import type { ChatSession } from "../../core/session";

export const MODEL_CONTEXT_SCHEME = "pi-chat-context";

export class ModelContextDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration: vscode.Disposable;

  constructor(private readonly lookup: (chatId: string) => { session: ChatSession; title: string } | undefined) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(MODEL_CONTEXT_SCHEME, this);
  }

  uriFor(chatId: string): vscode.Uri {
    return vscode.Uri.from({ scheme: MODEL_CONTEXT_SCHEME, path: `/Model context ${chatId}.md`, query: chatId });
  }

  /** Opens (or reveals) the tab of this chat. */
  async show(chatId: string): Promise<vscode.TextEditor> {
    const document = await vscode.workspace.openTextDocument(this.uriFor(chatId));
    await vscode.languages.setTextDocumentLanguage(document, "markdown");
    return vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Active });
  }

  /** A request was sent: the tab of its chat, if open, shows it. */
  requestSent(capture: RequestCapture): void {
    this.changed.fire(this.uriFor(capture.chatId));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const chatId = uri.query;
    const found = this.lookup(chatId);
    if (!found) return "# What the model sees\n\nThis chat is not open any more.\n";
    const capture = found.session.context.lastRequest;
    if (!capture) return renderNoRequestYet(found.title, found.session.messages.length > 0);
    return renderModelContext(capture, found.session.messages, found.title);
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
