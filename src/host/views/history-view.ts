// What the view's history dialog asks of the host beyond switching and deleting: search, rename
// and export. The webview reads no file: a search is answered here, titles first (from the index,
// at once) and then the chats whose message text holds the words (a full-text search of the chat
// files), each answer naming its query so the view can drop one that is out of date.
import * as vscode from "vscode";
import type { ChatService } from "../../core/chat-service";
import type { HistoryHit, HostMessageBody } from "../../shared/protocol";

/** Message text is searched from this many characters on (fewer match nearly everything). */
export const MIN_TEXT_SEARCH_CHARS = 3;
const MAX_TEXT_HITS = 100;

export interface HistoryViewHost {
  readonly service: ChatService;
  send(body: HostMessageBody): void;
  refreshChats(): Promise<void>;
  log(line: string): void;
}

export class HistoryViewRequests {
  /** The latest search: an older one still reading files stops posting. */
  private generation = 0;

  constructor(private readonly host: HistoryViewHost) {}

  async search(query: string): Promise<void> {
    const mine = ++this.generation;
    const { service } = this.host;
    const titles: HistoryHit[] = (await service.searchTitles(query)).map((c) => ({ chatId: c.id }));
    if (mine !== this.generation) return;
    const textToo = query.trim().length >= MIN_TEXT_SEARCH_CHARS;
    this.host.send({ type: "history/results", query, hits: titles, complete: !textToo });
    if (!textToo) return;
    let inText: HistoryHit[] = [];
    try {
      inText = (await service.searchChats(query, MAX_TEXT_HITS)).map((h) => ({ chatId: h.chatId, snippet: h.snippet }));
    } catch (error) {
      this.host.log(`history search: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (mine !== this.generation) return;
    // A chat found by its title and its text is listed once, where its title put it, with the snippet.
    const snippets = new Map(inText.map((h) => [h.chatId, h.snippet]));
    const hits = titles.map((h) => ({ ...h, ...(snippets.has(h.chatId) ? { snippet: snippets.get(h.chatId)! } : {}) }));
    const listed = new Set(titles.map((h) => h.chatId));
    for (const hit of inText) if (!listed.has(hit.chatId)) hits.push(hit);
    this.host.send({ type: "history/results", query, hits, complete: true });
  }

  async rename(chatId: string, title: string): Promise<void> {
    try {
      await this.host.service.renameChat(chatId, title.trim() === "" ? null : title);
    } catch (error) {
      void vscode.window.showErrorMessage(`Pi Chat could not rename the chat: ${error instanceof Error ? error.message : String(error)}`);
    }
    await this.host.refreshChats();
  }

  async export(chatId: string): Promise<void> {
    await vscode.commands.executeCommand("piChat.exportChat", chatId);
  }
}
