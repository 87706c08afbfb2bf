// Which chat is on screen: the session shown, switching, a new chat, reopening the last one after
// a reload, deleting (with Undo), the history list, and `current-chat.json`. Whoever must follow
// the chat on screen (notes, offers, the meter) listens to onDidChange instead of being called.
import { readFile, rename, writeFile } from "node:fs/promises";
import * as path from "node:path";
import * as vscode from "vscode";
import type { ChatService, ImportedChat } from "../core/chat-service";
import type { ChatSession } from "../core/session";
import type { ChatSummary } from "../shared/protocol";
import { ChatDeletion } from "./chat-deletion";
import type { OtherWindows } from "./other-windows";
import type { ViewPort } from "./views/view-port";

/** Which chat is on screen, in the storage folder beside the chats: written at once, so a crash keeps it. */
const CURRENT_CHAT_FILE = "current-chat.json";

export interface ChatScreenOptions {
  service: ChatService;
  otherWindows: OtherWindows;
  storageDir: string;
  view: ViewPort;
  log: (line: string) => void;
}

/** A switch: the chat now on screen and, when it is another one, the chat left. */
export interface ScreenChange {
  session: ChatSession;
  left: ChatSession | undefined;
}

export class ChatScreen implements vscode.Disposable {
  readonly service: ChatService;
  /** Delete (to the trash) and Undo. */
  readonly deletion: ChatDeletion;
  private session: ChatSession;
  private unsubscribe: (() => void) | undefined;
  private chats: ChatSummary[] = [];
  /** Chats held in memory while work on them goes on off screen (a restore whose preview may still be open). */
  private readonly held = new Set<string>();
  private readonly changed = new vscode.EventEmitter<ScreenChange>();
  private readonly shown = new vscode.EventEmitter<ChatSession>();
  private readonly runEnded = new vscode.EventEmitter<ChatSession>();
  /** Another chat (or the same one reloaded) is on screen; fired before the view gets its snapshot. */
  readonly onDidChange = this.changed.event;
  /** The view has the snapshot of the chat now on screen. */
  readonly onDidShow = this.shown.event;
  /** A run of this chat ended, and the history list was read again. */
  readonly onDidEndRun = this.runEnded.event;

  constructor(private readonly options: ChatScreenOptions) {
    this.service = options.service;
    this.session = this.service.newChat();
    this.watch(this.session);
    this.deletion = new ChatDeletion({
      service: this.service,
      currentChatId: () => this.session.id,
      chatTitle: (chatId) => this.chatTitle(chatId),
      showNewChat: () => {
        this.switchTo(this.service.newChat());
        return this.session.id;
      },
      openChat: (chatId) => this.switchChat(chatId),
      refreshChats: () => this.refreshChats(),
      chatDeleted: (chatId, title) => options.view.send({ type: "history/deleted", chatId, title }),
      log: options.log,
    });
  }

  /** The chat on screen (read anew on each use: a switch replaces it). */
  get currentSession(): ChatSession {
    return this.session;
  }

  /** The chat on screen (Apply to file records its writes under it). */
  get currentChatId(): string {
    return this.session.id;
  }

  chatTitle(chatId: string): string {
    return this.chats.find((c) => c.id === chatId)?.title ?? "New chat";
  }

  /** The history list as the view shows it (the store's summaries carry more). */
  chatList(): { id: string; title: string; updatedAt: number }[] {
    return this.chats.map((c) => ({ id: c.id, title: c.title, updatedAt: c.updatedAt }));
  }

  isKnownChat(chatId: string): boolean {
    // A chat saved in this window counts before the history list that shows it comes back (it is refreshed after each run).
    return chatId === this.session.id || this.service.isSaved(chatId) || this.chats.some((c) => c.id === chatId);
  }

  /** Reopens the chat that was on screen last time (the window was reloaded or VS Code restarted). */
  async restore(): Promise<void> {
    this.chats = await this.service.listChats();
    const lastId = await this.readCurrentChat();
    if (!lastId) return;
    if (this.chats.some((c) => c.id === lastId)) await this.switchChat(lastId, { quiet: true });
    else this.options.log(`the last open chat ${lastId} is no longer saved; starting a new one`);
  }

  stop(): void {
    this.session.abort();
  }

  async continueChat(): Promise<void> {
    await this.session.continue();
  }

  async newChat(): Promise<void> {
    this.switchTo(this.service.newChat());
    await this.writeCurrentChat(undefined);
  }

  async switchChat(chatId: string, options: { quiet?: boolean } = {}): Promise<void> {
    const opened = await this.service.open(chatId);
    if (!opened.ok) {
      this.options.log(`cannot open chat ${chatId}: ${opened.reason}`);
      if (!options.quiet) void vscode.window.showErrorMessage(`Pi Chat could not open that chat: ${opened.reason}`);
      return;
    }
    if (opened.damaged) {
      void vscode.window.showWarningMessage(
        `Pi Chat: ${opened.damaged.length} damaged line(s) of this chat were skipped; the rest is restored. See the Pi Chat output for details.`,
      );
    }
    this.switchTo(opened.session);
    await this.writeCurrentChat(chatId);
  }

  /** Opens a conversation from the pi CLI as a new chat (palette/pi-sessions-bundle.ts); false when it could not be written. */
  async openImportedChat(imported: ImportedChat): Promise<{ ok: true; chatId: string } | { ok: false; reason: string }> {
    const opened = await this.service.importChat(imported);
    if (!opened.ok) return opened;
    await this.refreshChats();
    this.switchTo(opened.session);
    await this.writeCurrentChat(opened.session.id);
    return { ok: true, chatId: opened.session.id };
  }

  /** Moves the chat to the trash, with Undo (chat-deletion.ts). */
  deleteChat(chatId: string): Promise<void> {
    return this.deletion.delete(chatId);
  }

  /** The history changed elsewhere (a rename): the view's list follows. */
  async refreshChats(): Promise<void> {
    this.chats = await this.service.listChats();
    this.options.view.send({ type: "history/list", chats: this.chatList() });
  }

  /** Shows a chat another window wrote anew (other-windows.ts). */
  show(session: ChatSession): void {
    this.switchTo(session);
  }

  /**
   * Keeps `chatId` in memory while `work` runs (a restore: its note must go to the session that shows
   * it, even if the user switched away meanwhile).
   */
  async holding<T>(chatId: string, work: () => Promise<T>): Promise<T> {
    this.held.add(chatId);
    try {
      return await work();
    } finally {
      this.held.delete(chatId);
    }
  }

  async writeCurrentChat(chatId: string | undefined): Promise<void> {
    const file = path.join(this.options.storageDir, CURRENT_CHAT_FILE);
    try {
      await writeFile(`${file}.tmp`, JSON.stringify({ chatId: chatId ?? null }));
      await rename(`${file}.tmp`, file);
    } catch (error) {
      this.options.log(`could not remember the current chat: ${String(error)}`);
    }
  }

  dispose(): void {
    // A run is not stopped when VS Code closes or reloads: a stop would be saved as the user's
    // choice. Left as it is, the transcript ends mid-turn and the reopened chat offers Continue.
    this.unsubscribe?.();
    this.changed.dispose();
    this.shown.dispose();
    this.runEnded.dispose();
    void this.service.flush();
  }

  private switchTo(session: ChatSession): void {
    const left = session !== this.session ? this.session : undefined;
    // A run left behind could wait forever for an approval nobody sees: stop it first.
    // Its background commands end with it: a chat left in the view is closed (the card says so when you come back).
    if (left) {
      left.abort();
      void left.stopBackground("chatClosed");
      // Then let go of it, unless the user came back to it meanwhile: chats opened in turn do not add up in memory.
      void this.service
        .release(left.id, () => this.session !== left && !this.held.has(left.id))
        .catch((error) => this.options.log(`could not release chat ${left.id}: ${String(error)}`));
    }
    this.unsubscribe?.();
    this.session = session;
    this.watch(session);
    // Notes about the chat left, and an "also restore files?" question about it, go before the snapshot.
    this.changed.fire({ session, left });
    void vscode.commands.executeCommand("setContext", "piChat.running", session.running);
    this.options.view.sendSnapshot();
    this.shown.fire(session);
    void this.options.otherWindows.check(); // is the chat now on screen written in another window?
  }

  private watch(session: ChatSession): void {
    this.unsubscribe = session.onEvent((event) => {
      if (session !== this.session) return;
      this.options.view.sendEvent(event);
      if (event.type === "chat/runState") {
        void vscode.commands.executeCommand("setContext", "piChat.running", event.running);
        if (!event.running) void this.afterRun(session);
      }
    });
  }

  private async afterRun(session: ChatSession): Promise<void> {
    if (session === this.session && session.messages.length > 1) await this.writeCurrentChat(session.id);
    await this.refreshChats();
    if (session === this.session) this.runEnded.fire(session);
  }

  private async readCurrentChat(): Promise<string | undefined> {
    try {
      const parsed: unknown = JSON.parse(await readFile(path.join(this.options.storageDir, CURRENT_CHAT_FILE), "utf8"));
      return typeof parsed === "object" && parsed !== null && "chatId" in parsed && typeof parsed.chatId === "string" ? parsed.chatId : undefined;
    } catch {
      return undefined; // none yet, or unreadable: start with a new chat
    }
  }
}
