// The chats of one workspace: creates, opens (restores) and deletes them, and wires each
// session's final messages into the transcript store. Still no VS Code: the host gives the
// storage directory, the file system, the model resolver and the approver.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { RequestCapture } from "./context/chat-context";
import { latestCompaction, type CompactionSettings } from "./context/compaction";
import { summaryModelOf } from "./context/compactor";
import { ChatSession, type EditApprover } from "./session";
import {
  DEFAULT_SYSTEM_PROMPT,
  type ChatSessionOptions,
  type CommandOptions,
  type ModelBinding,
  type Redactor,
  type RequestContextStep,
} from "./session/types";
import type { EditPermissionSettings } from "./permissions";
import { externalizeImages, hydrateImages } from "./images/stored-images";
import type {
  ChatLocks,
  ChatModelChoice,
  ChatOrigin,
  ChatSummary,
  ChatTextHit,
  ChatTree,
  DamagedLine,
  LockOwner,
  PathSummary,
  TranscriptStore,
} from "./transcript";
import type { ImageBlobStore } from "./transcript/image-blobs";
import type { ProblemsWatcher } from "./tools/problems-after-edit";
import type { WorkspaceFileSystem } from "./tools/workspace-fs";
import { cleanTitle, suggestTitle } from "./title-suggestion";
import type { Checkpoints } from "./checkpoints";
import { messageText } from "./transcript/title";

/** A title request that has not answered by then is given up. */
const TITLE_TIMEOUT_MS = 30_000;

export interface ChatServiceOptions {
  store: TranscriptStore<AgentMessage>;
  fs: WorkspaceFileSystem;
  workspaceRoot?: string;
  discovery?: ChatSessionOptions["discovery"];
  resolveModel: (choice?: ChatModelChoice) => Promise<ModelBinding>;
  approver: EditApprover;
  approvalMode: EditPermissionSettings["approvalMode"];
  protectedFiles?: EditPermissionSettings["protectedFiles"];
  workspaceTrusted?: EditPermissionSettings["workspaceTrusted"];
  systemPrompt?: string;
  maxContextTokens?: number;
  describeError?: ChatSessionOptions["describeError"];
  compaction?: () => Partial<CompactionSettings>;
  leanMode?: ChatSessionOptions["leanMode"];
  mcpOnDemand?: ChatSessionOptions["mcpOnDemand"];
  onRequest?: (capture: RequestCapture) => void;
  log?: (line: string) => void;
  /** Removes the API keys in use from everything saved or shown. */
  redactor?: Redactor;
  /** The window's MCP servers, shared by every chat (see ChatSessionOptions.mcp). */
  mcp?: ChatSessionOptions["mcp"];
  /** Request-time additions to every chat's context (see ChatSessionOptions.extendContext). */
  extendContext?: RequestContextStep;
  problems?: ProblemsWatcher;
  /** Scales large images read_file returns; without it they are refused with the reason. */
  imageScaler?: ChatSessionOptions["imageScaler"];
  /** Shell commands; each chat keeps its command logs in `<logRoot>/<chat id>/`, deleted with the chat. */
  commands?: Omit<CommandOptions, "logDir"> & { logRoot?: string };
  /** Where attached images are kept, beside the chats. Without it, images are saved inline. */
  images?: ImageBlobStore;
  /** One writer per chat across windows sharing the storage folder (see transcript/chat-lock.ts). */
  locks?: ChatLocks;
  /**
   * Titles from the chat's model after its first answer (title-suggestion.ts): `wanted` says
   * whether to ask for the chat's model choice, `saved` hears of each title saved. Absent: never.
   */
  titles?: { wanted: (choice: ChatModelChoice | undefined) => boolean; saved?: (chatId: string, title: string) => void };
  /** What Pi writes is recorded per user message, so the files can be put back (src/core/checkpoints). */
  checkpoints?: Checkpoints;
}

/** A conversation to open as a new chat (what src/core/pi-sessions makes of a pi session). */
export interface ImportedChat {
  nodes: readonly { id: string; parentId: string | null; message: AgentMessage }[];
  leafId: string | null;
  notice: AgentMessage;
  title?: string;
  model?: ChatModelChoice;
  origin: ChatOrigin;
}

/** A run refused because another window writes the chat, or wrote it since this one loaded it. */
export class ChatBusyError extends Error {
  constructor(
    readonly chatId: string,
    message: string,
  ) {
    super(message);
    this.name = "ChatBusyError";
  }
}

/** A saved chat whole, to hand it to another front end (a pi CLI session, src/core/pi-sessions). */
export interface ChatTreeExport {
  /** Every node, in the file's order (parents first); images carry their bytes. */
  nodes: { id: string; parentId: string | null; message: AgentMessage }[];
  leafId: string | null;
  title: string;
  model?: ChatModelChoice;
}

export type OpenChatResult = { ok: true; session: ChatSession; damaged?: DamagedLine[] } | { ok: false; reason: string };

export class ChatService {
  private readonly sessions = new Map<string, ChatSession>();
  /** Chats whose file exists; a new chat's file is written with its first message. */
  private readonly created = new Set<string>();
  /** Model choices of chats whose file does not exist yet. */
  private readonly pendingModels = new Map<string, ChatModelChoice>();
  /** Chats with no answer yet: the first one may get them a title from the model. */
  private readonly untitled = new Set<string>();
  /** Title requests in flight (titleFromModel), so a caller can wait for them to end. */
  private readonly pendingTitles = new Set<Promise<void>>();

  constructor(private readonly options: ChatServiceOptions) {}

  newChat(): ChatSession {
    const id = newChatId();
    const session = this.createSession(id, []);
    this.sessions.set(id, session);
    return session;
  }

  /** A new chat that goes on from the latest summary of `chatId` (after it outgrew its model's window). */
  async newChatFromSummary(chatId: string): Promise<{ ok: true; session: ChatSession } | { ok: false; reason: string }> {
    const source = this.sessions.get(chatId);
    const latest = source ? latestCompaction(source.messages) : undefined;
    if (!latest) return { ok: false, reason: "This chat has no summary yet: compact it first (Pi Chat: Compact Chat)." };
    const session = this.newChat();
    await session.startFromSummary(latest.message);
    return { ok: true, session };
  }

  /**
   * Opens a conversation from another front end (a pi CLI session, src/core/pi-sessions) as a new
   * chat: Pi Chat's own system message first, the import's note, then the imported tree. The chat
   * is written once, whole, and then opened like any saved chat.
   */
  async importChat(imported: ImportedChat): Promise<OpenChatResult> {
    // A session never run holds nothing: it only says which system message a new chat starts with.
    const probeId = newChatId();
    const system = this.createSession(probeId, []).initialSystemMessage();
    this.untitled.delete(probeId);
    const root: { id: string; parentId: string | null; message: AgentMessage }[] = [];
    if (system) root.push({ id: "import-system", parentId: null, message: system });
    root.push({ id: "import-note", parentId: system ? "import-system" : null, message: imported.notice });
    const nodes = [...root, ...imported.nodes.map((n) => ({ ...n, parentId: n.parentId ?? "import-note" }))];
    let chatId: string;
    try {
      chatId = await this.options.store.importChat({
        ...(imported.title !== undefined ? { title: imported.title } : {}),
        origin: imported.origin,
        nodes,
        leafId: imported.leafId ?? "import-note",
        ...(imported.model ? { model: imported.model } : {}),
      });
    } catch (err) {
      return { ok: false, reason: err instanceof Error ? err.message : String(err) };
    }
    return this.open(chatId);
  }

  /**
   * The chat as saved (the file is the truth: a run still going here adds only what it has saved),
   * every branch, each image's bytes read back from its blob. Its model is the one saved, else the
   * open chat's.
   */
  async exportTree(chatId: string): Promise<{ ok: true; chat: ChatTreeExport } | { ok: false; reason: string }> {
    const loaded = await this.options.store.load(chatId);
    if (!loaded.ok) return { ok: false, reason: loaded.reason };
    const images = this.options.images;
    const nodes: ChatTreeExport["nodes"] = [];
    for (const node of loaded.tree.nodes()) {
      const message = images ? (await hydrateImages([node.message], chatId, images))[0]! : node.message;
      nodes.push({ id: node.id, parentId: node.parentId, message });
    }
    const model = loaded.model ?? this.sessions.get(chatId)?.model;
    return { ok: true, chat: { nodes, leafId: loaded.tree.leafId, title: loaded.title, ...(model ? { model } : {}) } };
  }

  async open(chatId: string): Promise<OpenChatResult> {
    const open = this.sessions.get(chatId);
    if (open) return { ok: true, session: open };
    const loaded = await this.options.store.load(chatId);
    if (!loaded.ok) return { ok: false, reason: loaded.reason };
    if (loaded.damaged) {
      for (const d of loaded.damaged) this.options.log?.(`chat ${chatId}: skipped line ${d.line} (${d.reason})`);
    }
    this.created.add(chatId);
    const session = this.createSession(chatId, loaded.messages, loaded.tree, loaded.model);
    this.sessions.set(chatId, session);
    return loaded.damaged ? { ok: true, session, damaged: loaded.damaged } : { ok: true, session };
  }

  /**
   * Lets go of a chat the view left: once its run and background commands have ended, the session
   * (its messages, tree and agent) is dropped, so chats opened in turn do not add up in memory. The
   * file keeps everything; opening the chat again reads it. `unused` is asked again after the wait:
   * a chat the user went back to meanwhile is kept. So is one that started background commands here:
   * how they ended (stopped because the chat was left, exit code) is on their cards, not in the file.
   */
  async release(chatId: string, unused: () => boolean): Promise<boolean> {
    const session = this.sessions.get(chatId);
    if (!session) return false;
    await session.waitForIdle();
    await session.stopBackground("chatClosed");
    await session.waitForIdle();
    if (this.sessions.get(chatId) !== session || session.running || session.ranBackgroundCommands || !unused()) return false;
    this.sessions.delete(chatId);
    return true;
  }

  /** Reads the chat from disk again (another window wrote it). Refused while it runs here. */
  async reload(chatId: string): Promise<OpenChatResult> {
    const open = this.sessions.get(chatId);
    if (open?.running) return { ok: false, reason: "it is running in this window" };
    this.sessions.delete(chatId);
    return this.open(chatId);
  }

  /** The other window writing this chat now, if any. */
  async writerElsewhere(chatId: string): Promise<LockOwner | undefined> {
    return this.options.locks?.holder(chatId);
  }

  /** False when the chat's file changed since this window last read or wrote it (another window wrote it). */
  async isCurrent(chatId: string): Promise<boolean> {
    if (!this.created.has(chatId)) return true;
    return this.options.store.isCurrent(chatId);
  }

  /** True for a chat this window saved or opened (and did not delete): known before a history list shows it. */
  isSaved(chatId: string): boolean {
    return this.created.has(chatId);
  }

  get(chatId: string): ChatSession | undefined {
    return this.sessions.get(chatId);
  }

  listChats(): Promise<ChatSummary[]> {
    return this.options.store.listChats();
  }

  /**
   * Deletes the chat: its runs and background commands end, and its file moves to the trash
   * (restoreChat undoes it; its images and command logs stay until the trash is emptied).
   * False when it was never saved (nothing to undo).
   */
  async deleteChat(chatId: string): Promise<boolean> {
    const session = this.sessions.get(chatId);
    session?.abort();
    await session?.waitForIdle();
    await session?.stopBackground("chatDeleted");
    this.sessions.delete(chatId);
    this.created.delete(chatId);
    this.pendingModels.delete(chatId);
    return this.options.store.trashChat(chatId);
  }

  /** Undoes deleteChat: the chat comes back as it was (same id, branches and leaf). False when the trash has no copy. */
  restoreChat(chatId: string): Promise<boolean> {
    return this.options.store.restoreChat(chatId);
  }

  /** Whether the chat is saved (its file is there: not new, not deleted). */
  hasChat(chatId: string): Promise<boolean> {
    return this.options.store.hasChat(chatId);
  }

  /** Removes for good what was deleted more than `maxAgeMs` ago, with its images and command logs. */
  async emptyTrash(maxAgeMs: number, now = Date.now()): Promise<string[]> {
    const removed = await this.options.store.emptyTrash(now - maxAgeMs);
    const remaining = new Set((await this.options.store.trashEntries()).map((e) => e.chatId));
    const ids = [...new Set(removed.map((e) => e.chatId))];
    for (const chatId of ids) {
      // A chat restored since, or deleted again later, still needs them.
      if (remaining.has(chatId) || (await this.options.store.hasChat(chatId))) continue;
      await this.options.images?.deleteChat(chatId);
      await this.options.checkpoints?.forget(chatId).catch(() => undefined);
      const logDir = this.commandLogDir(chatId);
      if (logDir) await rm(logDir, { recursive: true, force: true }).catch(() => undefined);
    }
    return ids;
  }

  /** Renames a saved chat (a meta line); null or blank goes back to the title from its first prompt. */
  async renameChat(chatId: string, title: string | null): Promise<void> {
    if (!this.created.has(chatId) && !(await this.options.store.listChats()).some((c) => c.id === chatId)) {
      throw new Error("This chat is not saved yet: send a message first, then rename it.");
    }
    await this.options.store.renameChat(chatId, title);
  }

  /** Chats whose title contains `query` (any case), newest first, from the index. */
  searchTitles(query: string): Promise<ChatSummary[]> {
    return this.options.store.searchTitles(query);
  }

  /** Chats whose prompts or answers contain `query` (every branch), newest first. */
  searchChats(query: string, limit?: number): Promise<ChatTextHit[]> {
    return this.options.store.searchChats(query, limit);
  }

  /** Keeps an attached image beside the chat; returns the hash its messages refer to. */
  storeImage(chatId: string, bytes: Uint8Array, mimeType: string): Promise<string> {
    if (!this.options.images) throw new Error("This chat service keeps no images.");
    return this.options.images.put(chatId, bytes, mimeType);
  }

  private commandLogDir(chatId: string): string | undefined {
    const root = this.options.commands?.logRoot;
    return root !== undefined && /^[A-Za-z0-9_-]+$/.test(chatId) ? join(root, chatId) : undefined;
  }

  /** Writes the pending index changes; the chat files themselves are always up to date. */
  flush(): Promise<void> {
    return this.options.store.flush();
  }

  /** Stops every run, waits for them, and writes what is pending. */
  async dispose(): Promise<void> {
    for (const session of this.sessions.values()) session.abort();
    await Promise.all([...this.sessions.values()].map((s) => s.waitForIdle()));
    await Promise.all([...this.sessions.values()].map((s) => s.stopBackground("vscodeClosed")));
    await this.options.store.flush();
  }

  private createSession(id: string, messages: readonly AgentMessage[], tree?: ChatTree<AgentMessage>, model?: ChatModelChoice): ChatSession {
    if (!messages.some(isAnswer)) this.untitled.add(id);
    return new ChatSession({
      id,
      messages,
      ...(tree ? { tree } : {}),
      ...(model ? { model } : {}),
      persistModel: (choice) => this.persistModel(id, choice),
      systemPrompt: this.options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
      fs: this.options.fs,
      ...(this.options.workspaceRoot !== undefined ? { workspaceRoot: this.options.workspaceRoot } : {}),
      ...(this.options.discovery ? { discovery: this.options.discovery } : {}),
      resolveModel: this.options.resolveModel,
      approver: this.options.approver,
      approvalMode: this.options.approvalMode,
      ...(this.options.protectedFiles ? { protectedFiles: this.options.protectedFiles } : {}),
      ...(this.options.workspaceTrusted ? { workspaceTrusted: this.options.workspaceTrusted } : {}),
      ...(this.options.maxContextTokens !== undefined ? { maxContextTokens: this.options.maxContextTokens } : {}),
      ...(this.options.log ? { log: this.options.log } : {}),
      ...(this.options.redactor ? { redactor: this.options.redactor } : {}),
      ...(this.options.describeError ? { describeError: this.options.describeError } : {}),
      ...this.requestSteps(id),
      ...(this.options.problems ? { problems: this.options.problems } : {}),
      ...(this.options.imageScaler ? { imageScaler: this.options.imageScaler } : {}),
      ...(this.options.compaction ? { compaction: this.options.compaction } : {}),
      ...(this.options.leanMode ? { leanMode: this.options.leanMode } : {}),
      ...(this.options.mcpOnDemand ? { mcpOnDemand: this.options.mcpOnDemand } : {}),
      ...(this.options.onRequest ? { onRequest: this.options.onRequest } : {}),
      persist: (message, parentId, newPath) => this.persist(id, message, parentId, newPath),
      persistLeaf: (nodeId, path) => this.options.store.setLeaf(id, nodeId, path),
      ...(this.options.commands ? { commands: this.commandOptions(id, this.options.commands) } : {}),
      ...(this.options.mcp ? { mcp: this.options.mcp } : {}),
      ...(this.options.checkpoints ? { checkpoints: this.options.checkpoints.forChat(id) } : {}),
      ...(this.options.locks ? { claimWriter: () => this.claimWriter(id) } : {}),
    });
  }

  /** Resolves once every title request started so far has ended (saved, skipped or failed). */
  async titlesSettled(): Promise<void> {
    await Promise.all(this.pendingTitles);
  }

  private trackTitle(work: Promise<void>): void {
    this.pendingTitles.add(work);
    void work.finally(() => this.pendingTitles.delete(work));
  }

  /**
   * After the chat's first answer: one short request to the chat's model for a title, saved as a
   * title line unless the user named the chat meanwhile. In the background; a failure (no key, an
   * error, a timeout, an empty reply) is only logged, and the title from the first prompt stays.
   */
  private async titleFromModel(chatId: string, answer: AgentMessage): Promise<void> {
    const titles = this.options.titles;
    const session = this.sessions.get(chatId);
    if (!titles || !session || !titles.wanted(session.model)) return;
    try {
      const prompt = session.messages.find((m) => m.role === "user");
      const promptText = prompt ? messageText(prompt) : "";
      const answerText = messageText(answer);
      if (promptText.trim() === "" || answerText.trim() === "") return;
      const binding = await this.options.resolveModel(session.model);
      const apiKey = await binding.getApiKey(binding.model.provider);
      const suggested = await suggestTitle(summaryModelOf(binding, apiKey), promptText, answerText, AbortSignal.timeout(TITLE_TIMEOUT_MS));
      // Redacted before it is cleaned and cut, so no part of a key survives the cut.
      const title = cleanTitle(this.options.redactor ? this.options.redactor.text(suggested) : suggested);
      if (!title) {
        this.options.log?.(`chat ${chatId}: the model suggested no usable title; the first prompt's stays`);
        return;
      }
      if (await this.options.store.suggestTitle(chatId, title)) {
        this.options.log?.(`chat ${chatId}: titled by the model`);
        titles.saved?.(chatId, title);
      }
    } catch (error) {
      this.options.log?.(`chat ${chatId}: no title from the model (${error instanceof Error ? error.message : String(error)}); the first prompt's stays`);
    }
  }

  /** Before a run: this window becomes the chat's only writer, and its transcript must be the one on disk. */
  private async claimWriter(chatId: string): Promise<() => Promise<void>> {
    const locks = this.options.locks;
    if (!locks) return async () => undefined;
    const result = await locks.acquire(chatId);
    if (!result.ok) {
      throw new ChatBusyError(chatId, "This chat is being written in another VS Code window, so it is read-only here. It reloads when that window is done.");
    }
    if (!(await this.isCurrent(chatId))) {
      await result.lock.release();
      throw new ChatBusyError(chatId, "This chat was changed in another VS Code window. It has been reloaded here: send your message again.");
    }
    return () => result.lock.release();
  }

  private commandOptions(chatId: string, commands: NonNullable<ChatServiceOptions["commands"]>): CommandOptions {
    const { logRoot: _root, ...rest } = commands;
    const logDir = this.commandLogDir(chatId);
    return logDir ? { ...rest, logDir } : rest;
  }

  /** Saved images get their bytes back first, then the host's steps (project instructions). */
  private requestSteps(chatId: string): { extendContext?: RequestContextStep } {
    const images = this.options.images;
    const extend = this.options.extendContext;
    if (!images) return extend ? { extendContext: extend } : {};
    return {
      extendContext: async (messages, signal) => {
        const hydrated = await hydrateImages(messages, chatId, images);
        return extend ? extend(hydrated, signal) : hydrated;
      },
    };
  }

  /**
   * A chat's model choice is a line of its file; a new chat's waits for the file, which its first
   * message creates (the session reads its choice from memory until then).
   */
  private async persistModel(chatId: string, choice: ChatModelChoice): Promise<void> {
    if (this.created.has(chatId)) await this.options.store.setModel(chatId, choice);
    else this.pendingModels.set(chatId, choice);
  }

  /** Saves one final message as a child of `parentId` (null: the chat's first message); resolves to its node id. */
  private async persist(chatId: string, original: AgentMessage, parentId: string | null, newPath: PathSummary | undefined): Promise<string> {
    const images = this.options.images;
    // The line refers to each image by hash; the bytes live in the blob beside the chat.
    const message = images ? await externalizeImages(original, (bytes, mimeType) => images.put(chatId, bytes, mimeType)) : original;
    if (this.created.has(chatId)) {
      const id = await this.options.store.append(chatId, message, { parentId, ...(newPath ? { path: newPath } : {}) });
      if (isAnswer(message) && this.untitled.delete(chatId)) this.trackTitle(this.titleFromModel(chatId, message));
      return id;
    }
    this.created.add(chatId);
    const created = await this.options.store.createChat({ id: chatId, messages: [message] });
    const model = this.pendingModels.get(chatId);
    this.pendingModels.delete(chatId);
    if (model) await this.options.store.setModel(chatId, model);
    return created.nodeIds[0]!;
  }
}

/** A final answer with text (not a tool call's step, not an error or a stop). */
function isAnswer(message: AgentMessage): boolean {
  return message.role === "assistant" && message.stopReason === "stop" && message.content.some((c) => c.type === "text" && c.text.trim() !== "");
}

function newChatId(): string {
  return `c${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}
