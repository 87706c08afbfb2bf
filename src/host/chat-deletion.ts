// Deleting a chat, and undoing it. A delete asks nothing: the chat's file moves to the trash
// beside the chats (src/core/transcript/trash.ts), a notification says "Chat … deleted" with
// Undo, and the view's history shows the same with its own Undo. Undo puts the file back as it
// was (same id, branches and current leaf) and, when the chat was on screen and nothing else was
// started since, shows it again. The trash keeps a chat TRASH_DAYS days; what is older is removed
// (with its images and command logs) when the extension starts.
import * as vscode from "vscode";
import type { ChatService } from "../core/chat-service";

export const TRASH_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface DeletionHost {
  readonly service: ChatService;
  currentChatId(): string;
  chatTitle(chatId: string): string;
  /** Shows a new, empty chat; returns its id. */
  showNewChat(): string;
  openChat(chatId: string): Promise<void>;
  refreshChats(): Promise<void>;
  /** Tells the view (its history says "Chat deleted — Undo" until the chat is back). */
  chatDeleted(chatId: string, title: string): void;
  log(line: string): void;
}

interface Deleted {
  title: string;
  /** The chat shown in its place when it was the one on screen. */
  replacedBy?: string;
}

export class ChatDeletion {
  /** Chats this window deleted and can undo; the webview may only ask to restore these. */
  private readonly undoable = new Map<string, Deleted>();

  constructor(private readonly host: DeletionHost) {}

  async delete(chatId: string): Promise<void> {
    const { host } = this;
    const title = host.chatTitle(chatId);
    const wasOnScreen = chatId === host.currentChatId();
    const trashed = await host.service.deleteChat(chatId);
    const replacedBy = wasOnScreen ? host.showNewChat() : undefined;
    await host.refreshChats();
    // A chat never saved leaves nothing to undo.
    if (!trashed) return;
    this.undoable.set(chatId, { title, ...(replacedBy ? { replacedBy } : {}) });
    host.chatDeleted(chatId, title);
    host.log(`chat ${chatId} moved to the trash`);
    void vscode.window.showInformationMessage(`Pi Chat: chat "${title}" deleted.`, "Undo").then((choice) => {
      if (choice === "Undo") return this.undo(chatId);
    });
  }

  /** Whether `chatId` is a delete of this window that Undo can still take back. */
  canUndo(chatId: string): boolean {
    return this.undoable.has(chatId);
  }

  async undo(chatId: string): Promise<void> {
    const deleted = this.undoable.get(chatId);
    if (!deleted) return; // undone already (the notification and the view both offer it)
    this.undoable.delete(chatId);
    const { host } = this;
    if (!(await host.service.restoreChat(chatId))) {
      void vscode.window.showWarningMessage(`Pi Chat could not restore "${deleted.title}": it is no longer in the trash, or a chat with its id exists.`);
      await host.refreshChats();
      return;
    }
    host.log(`chat ${chatId} restored from the trash`);
    const emptyReplacement =
      deleted.replacedBy !== undefined && deleted.replacedBy === host.currentChatId() && !(await host.service.hasChat(deleted.replacedBy));
    // Listed first: the view's history drops its "deleted" notice, and the chat reopened below
    // gets its title in the header (both come from the list the view was sent).
    await host.refreshChats();
    if (emptyReplacement) await host.openChat(chatId);
  }

  /** Removes for good what was deleted over TRASH_DAYS days ago. Never throws (a failure is logged). */
  async emptyOldTrash(): Promise<void> {
    try {
      const removed = await this.host.service.emptyTrash(TRASH_DAYS * DAY_MS);
      if (removed.length > 0) this.host.log(`trash: removed ${removed.length} chat(s) deleted over ${TRASH_DAYS} days ago`);
    } catch (error) {
      this.host.log(`trash: could not empty it: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
