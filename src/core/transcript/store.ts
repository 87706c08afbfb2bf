// TranscriptStore: the full AgentMessage[] of every chat, one append-only JSONL file per
// chat (`chats/<id>.jsonl`), plus `index.json`, a rebuildable cache for the history list.
//
// Decisions:
// - append costs O(size of the new lines): one open(O_APPEND) + write + close. It never
//   reads or rewrites the file. The first write to a chat in this process reads the file's
//   first line (version check) and last byte (damaged tail?); later writes trust their own
//   bookkeeping.
// - Writes to one chat run one at a time (a promise chain per chat), so lines never
//   interleave and appear in call order. load() waits for writes queued before it.
// - A damaged tail (a cut-off last line, no "\n" at the end) is not truncated: the next
//   write starts with "\n", so the fragment becomes one skipped, reported line and every
//   byte that was on disk stays there. Truncating could destroy a complete last record
//   that only lacks its newline, and nothing gets lost by keeping the fragment.
// - fsync: off by default. A completed write() is in the OS page cache, so it survives
//   the extension host or VS Code being killed; only an OS crash or power loss can lose
//   the last writes, and load tolerates the cut tail that leaves. `fsync: true` syncs each
//   write (costs milliseconds per message on many disks).
// - index.json (index-cache.ts) is updated in memory on each write and written (temp + rename) at most once
//   per `indexFlushDelayMs`, so append stays O(1) in the number of chats. Each entry keeps
//   the file size it describes. The first listChats of a store stats every chat file and
//   rescans those whose size differs or that have no entry, so a missing, corrupt or stale
//   index costs time, never chats. Later lists come from the index in memory after two stats
//   (list-freshness.ts): the chats folder (its mtime changes when a chat file is created,
//   deleted or moved: then it is read again and only the chats that came or went are looked
//   at) and index.json (another window writes it at most `indexFlushDelayMs` after each of its
//   writes: then it is merged). A chat appended by a writer that never updates index.json is
//   seen when this store loads it, or by the next store's first list.
// - load() never throws: bad data gives `damaged` lines or an `ok: false` result.
//   Writes reject (the message was not saved) with a TranscriptError or the I/O error.

import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { applyMessages, applyPath, entryFromParsed, explicitTitle, type IndexEntry, type PathSummary } from "./chat-index";
import { chatPath, errorText, IndexCache } from "./index-cache";
import { TRASH_DIR, trashEntriesOf, trashPath, type TrashEntry } from "./trash";
import { searchChatText, type ChatTextHit } from "./chat-search";
import { headerLine, isValidNodeId, leafLine, messageLine, metaLine, modelLine, parseTranscript, probeHeader, versionLine } from "./format";
import { DEFAULT_TITLE, deriveTitle } from "./title";
import {
  isValidChatId,
  StorageNotFoundError,
  TRANSCRIPT_FORMAT_VERSION,
  type ChatModelChoice,
  type ChatSummary,
  type CreateChatOptions,
  type ImportChatOptions,
  type LoadResult,
  type StoredMessage,
  type TranscriptHeader,
  type TranscriptStorage,
} from "./types";

export interface TranscriptStoreOptions {
  /** fsync every chat-file write. Default false (see the notes at the top of store.ts). */
  fsync?: boolean;
  /** How long index.json changes wait before being written. Default 1000 ms. */
  indexFlushDelayMs?: number;
  /** Clock, Unix ms. */
  now?: () => number;
  /** Id generator for createChat; must return a valid chat id. */
  newId?: () => string;
  /** Id generator for message nodes; must return a valid node id (format.ts). */
  newNodeId?: () => string;
}

/** Where an appended message goes in the chat's tree. */
export interface AppendOptions {
  /**
   * The parent of the (first) message: a node id, or null for a root. Omitted: the record
   * continues the current leaf of the file as it is read.
   */
  parentId?: string | null;
  /**
   * The chat's current path once these messages are saved, when they do not continue the path
   * the file had (the first message of an edit or a retry): the history list's count and
   * preview then describe it. Omitted: the messages continue the path, and the entry follows.
   */
  path?: PathSummary;
}

export type TranscriptErrorCode = "notFound" | "invalidId" | "exists" | "unsupportedVersion";

export class TranscriptError extends Error {
  constructor(
    readonly code: TranscriptErrorCode,
    readonly chatId: string,
    message: string,
  ) {
    super(message);
    this.name = "TranscriptError";
  }
}

const HEAD_PROBE_BYTES = 64 * 1024;
const TITLE_MAX_STORED = 200;

/** What this process knows about a chat file's end, so appends need not look. */
interface FileState {
  size: number;
  endsWithNewline: boolean;
  /** The record shape the file is at: a version 1 file gets a version record before its first version 2 record. */
  version: number;
  /** Set for a file this build must not write to (a newer format). */
  refuse?: string;
}

const encoder = new TextEncoder();

export class TranscriptStore<M extends StoredMessage = AgentMessage> {
  private readonly sync: boolean;
  private readonly now: () => number;
  private readonly newId: () => string;
  private readonly newNodeId: () => string;
  private readonly queues = new Map<string, Promise<void>>();
  private readonly files = new Map<string, FileState>();
  /** index.json, the history list's cache (index-cache.ts). */
  private readonly cache: IndexCache;

  constructor(
    private readonly storage: TranscriptStorage,
    options: TranscriptStoreOptions = {},
  ) {
    this.sync = options.fsync ?? false;
    this.now = options.now ?? Date.now;
    this.newId = options.newId ?? defaultId;
    this.newNodeId = options.newNodeId ?? defaultNodeId;
    this.cache = new IndexCache(storage, options.indexFlushDelayMs ?? 1000, (chatId, task) => this.enqueue(chatId, task));
  }

  /** Creates the chat file (header + optional first messages, a chain from a root, in one write). */
  async createChat(options: CreateChatOptions<M> = {}): Promise<TranscriptHeader & { nodeIds: string[] }> {
    const chatId = options.id ?? this.newId();
    checkId(chatId);
    const header: TranscriptHeader = {
      type: "header",
      version: TRANSCRIPT_FORMAT_VERSION,
      chatId,
      createdAt: options.createdAt ?? this.now(),
    };
    const title = normalizeTitle(options.title);
    if (title !== null) header.title = title;
    const messages = options.messages ?? [];
    const headBytes = encoder.encode(headerLine(header));
    const body = this.messageLines(messages, null);
    const bodyBytes = encoder.encode(body.text);
    const data = concat(headBytes, bodyBytes);

    await this.enqueue(chatId, async () => {
      const created = await this.storage.createExclusive(chatPath(chatId), data, { sync: this.sync });
      if (!created) throw new TranscriptError("exists", chatId, `chat ${chatId} already exists`);
      this.files.set(chatId, { size: data.length, endsWithNewline: true, version: TRANSCRIPT_FORMAT_VERSION });
      this.cache.present(chatId);
      const index = await this.cache.load();
      const entry: IndexEntry = { id: chatId, createdAt: header.createdAt, updatedAt: header.createdAt, messageCount: 0, fileSize: headBytes.length };
      if (title !== null) entry.explicitTitle = title;
      applyMessages(entry, messages, bodyBytes.length);
      index.set(chatId, entry);
      this.cache.scheduleWrite();
    });
    return { ...header, nodeIds: body.ids };
  }

  /**
   * Writes a whole chat tree in one write (a conversation opened from a pi session): header with
   * its origin, every node with its id and parent, the current leaf, the model. A new file only.
   */
  async importChat(options: ImportChatOptions<M>): Promise<string> {
    const chatId = this.newId();
    checkId(chatId);
    const header: TranscriptHeader = {
      type: "header",
      version: TRANSCRIPT_FORMAT_VERSION,
      chatId,
      createdAt: options.createdAt ?? this.now(),
      origin: options.origin,
    };
    const title = normalizeTitle(options.title);
    if (title !== null) header.title = title;
    let text = headerLine(header);
    for (const node of options.nodes) {
      if (!isValidNodeId(node.id)) throw new TypeError(`invalid node id ${JSON.stringify(node.id)}`);
      text += messageLine(node.message, node.id, node.parentId);
    }
    if (options.leafId !== null) text += leafLine({ type: "leaf", id: options.leafId, at: this.now() });
    const model = options.model;
    if (model)
      text += modelLine({
        type: "model",
        provider: model.provider,
        modelId: model.modelId,
        ...(model.thinkingLevel ? { thinkingLevel: model.thinkingLevel } : {}),
        at: this.now(),
      });
    const data = encoder.encode(text);
    await this.enqueue(chatId, async () => {
      const created = await this.storage.createExclusive(chatPath(chatId), data, { sync: this.sync });
      if (!created) throw new TranscriptError("exists", chatId, `chat ${chatId} already exists`);
      this.files.set(chatId, { size: data.length, endsWithNewline: true, version: TRANSCRIPT_FORMAT_VERSION });
      this.cache.present(chatId);
    });
    // The index entry of a tree is what a scan of the file gives: take it from there.
    await this.cache.refreshEntries([chatId], await this.cache.load());
    return chatId;
  }

  /** Appends one final message as one line; resolves to its node id. */
  async append(chatId: string, message: M, options: AppendOptions = {}): Promise<string> {
    const [id] = await this.appendMany(chatId, [message], options);
    return id!;
  }

  /**
   * Appends messages in one write (all lines or, on a crash, a prefix of them), each the child
   * of the one before; resolves to their node ids.
   */
  async appendMany(chatId: string, messages: readonly M[], options: AppendOptions = {}): Promise<string[]> {
    checkId(chatId);
    if (messages.length === 0) return [];
    // Serialize before queueing: an unstorable message rejects with nothing written.
    const { text, ids } = this.messageLines(messages, options.parentId);
    const data = encoder.encode(text);
    const path = options.path;
    await this.enqueue(chatId, () =>
      this.write(chatId, data, (entry, bytes) => {
        applyMessages(entry, messages, bytes);
        if (path) applyPath(entry, path);
      }),
    );
    return ids;
  }

  /**
   * Makes node `nodeId` the chat's current leaf (appends a leaf line). The caller knows the node
   * exists, and gives the summary of the path to it: the history list's entry is updated in
   * place (it is never dropped: a list taken meanwhile would miss the chat).
   */
  async setLeaf(chatId: string, nodeId: string, path?: PathSummary): Promise<void> {
    checkId(chatId);
    const data = encoder.encode(leafLine({ type: "leaf", id: nodeId, at: this.now() }));
    await this.enqueue(chatId, () =>
      this.write(chatId, data, (entry, bytes) => {
        entry.fileSize += bytes;
        if (path) applyPath(entry, path);
      }),
    );
  }

  /** Saves the chat's model choice (appends a model line; the last one wins). */
  async setModel(chatId: string, choice: ChatModelChoice): Promise<void> {
    checkId(chatId);
    const record = {
      type: "model" as const,
      provider: choice.provider,
      modelId: choice.modelId,
      ...(choice.thinkingLevel ? { thinkingLevel: choice.thinkingLevel } : {}),
      at: this.now(),
    };
    const data = encoder.encode(modelLine(record));
    await this.enqueue(chatId, () =>
      this.write(chatId, data, (entry, bytes) => {
        entry.fileSize += bytes;
        entry.model = `${choice.provider}/${choice.modelId}`;
      }),
    );
  }

  /** Sets the title (appends a meta line); null or blank clears it back to the derived one. */
  async renameChat(chatId: string, title: string | null): Promise<void> {
    checkId(chatId);
    const normalized = normalizeTitle(title);
    const data = encoder.encode(metaLine({ type: "meta", title: normalized, at: this.now() }));
    await this.enqueue(chatId, () =>
      this.write(chatId, data, (entry, bytes) => {
        entry.fileSize += bytes;
        if (normalized === null) delete entry.explicitTitle;
        else entry.explicitTitle = normalized;
      }),
    );
  }

  /**
   * Saves a title the model suggested (a meta line marked `source: "model"`), unless the chat has
   * a title of its own by now (the user renamed it): false then, and nothing is written.
   */
  async suggestTitle(chatId: string, title: string): Promise<boolean> {
    checkId(chatId);
    const normalized = normalizeTitle(title);
    if (normalized === null) return false;
    return this.enqueue(chatId, async () => {
      const index = await this.cache.load();
      let entry = index.get(chatId);
      if (entry === undefined) {
        entry = await this.cache.freshEntry(chatId, undefined);
        if (entry === undefined) return false;
      }
      if (entry.explicitTitle !== undefined) return false;
      const data = encoder.encode(metaLine({ type: "meta", title: normalized, at: this.now(), source: "model" }));
      await this.write(chatId, data, (current, bytes) => {
        current.fileSize += bytes;
        current.explicitTitle = normalized;
      });
      return true;
    });
  }

  /** Deletes the chat file and its index entry. False when there was no such chat. */
  async deleteChat(chatId: string): Promise<boolean> {
    checkId(chatId);
    return this.enqueue(chatId, async () => {
      const existed = (await this.storage.stat(chatPath(chatId))) !== undefined;
      await this.storage.remove(chatPath(chatId));
      await this.forget(chatId);
      return existed;
    });
  }

  /**
   * Deletes the chat so that it can come back: its file moves, as it is, to trash/ (see
   * trash.ts). False when there was no such chat.
   */
  async trashChat(chatId: string): Promise<boolean> {
    checkId(chatId);
    return this.enqueue(chatId, async () => {
      if (!(await this.storage.move(chatPath(chatId), trashPath(chatId, this.now())))) return false;
      await this.forget(chatId);
      return true;
    });
  }

  /**
   * Puts back the chat's last deleted copy exactly as it was (same id, branches and leaf) and
   * lists it again. False when the trash has no copy, or a chat with that id exists.
   */
  async restoreChat(chatId: string): Promise<boolean> {
    checkId(chatId);
    return this.enqueue(chatId, async () => {
      const newest = (await this.trashEntries()).filter((e) => e.chatId === chatId).sort((a, b) => b.deletedAt - a.deletedAt)[0];
      if (!newest || !(await this.storage.move(newest.path, chatPath(chatId)))) return false;
      this.cache.present(chatId);
      this.files.delete(chatId);
      const index = await this.cache.load();
      const entry = await this.cache.freshEntry(chatId, undefined);
      if (entry && entry.unreadable?.code !== "readError") index.set(chatId, entry);
      else {
        index.delete(chatId);
        this.cache.rescanLater(chatId);
      }
      this.cache.scheduleWrite();
      return true;
    });
  }

  /** Whether the chat's file is in chats/ (not deleted, not in the trash). */
  async hasChat(chatId: string): Promise<boolean> {
    return isValidChatId(chatId) && (await this.storage.stat(chatPath(chatId))) !== undefined;
  }

  /** What the trash holds, oldest first. */
  async trashEntries(): Promise<TrashEntry[]> {
    return trashEntriesOf(await this.storage.list(TRASH_DIR)).sort((a, b) => a.deletedAt - b.deletedAt);
  }

  /** Removes for good the trash entries deleted before `cutoff` (Unix ms); returns them. */
  async emptyTrash(cutoff: number): Promise<TrashEntry[]> {
    const removed: TrashEntry[] = [];
    for (const entry of await this.trashEntries()) {
      if (entry.deletedAt >= cutoff) continue;
      await this.enqueue(entry.chatId, () => this.storage.remove(entry.path));
      removed.push(entry);
    }
    return removed;
  }

  /**
   * Whether the chat file is exactly what this store last read or wrote (same size: chat files
   * only grow). False after another process (another VS Code window) appended to it, or when
   * this store has not read it.
   */
  isCurrent(chatId: string): Promise<boolean> {
    if (!isValidChatId(chatId)) return Promise.resolve(false);
    return this.enqueue(chatId, async () => {
      const known = this.files.get(chatId);
      if (!known) return false;
      const stat = await this.storage.stat(chatPath(chatId));
      return stat !== undefined && stat.size === known.size;
    });
  }

  /** Reads a whole chat. Never throws. */
  load(chatId: string): Promise<LoadResult<M>> {
    if (!isValidChatId(chatId)) {
      return Promise.resolve({ ok: false, chatId, code: "invalidId", reason: `invalid chat id ${JSON.stringify(chatId)}` });
    }
    return this.enqueue(chatId, async (): Promise<LoadResult<M>> => {
      try {
        return await this.loadNow(chatId);
      } catch (err) {
        return { ok: false, chatId, code: "readError", reason: `cannot read chat ${chatId}: ${errorText(err)}` };
      }
    });
  }

  /**
   * The history list, newest first. Correct even when index.json is missing, corrupt or
   * stale: the first list stats every chat file and reads the ones the index does not
   * describe; later ones look again only at what the folder and index.json say changed.
   */
  async listChats(): Promise<ChatSummary[]> {
    return (await this.cache.refresh(false)).chats.slice();
  }

  /** The chats whose title contains `query` (any case), newest first: from the index, no chat file read. */
  async searchTitles(query: string): Promise<ChatSummary[]> {
    const needle = query.trim().toLowerCase();
    const { chats, titleKeys } = await this.cache.refresh(false);
    if (needle === "") return chats.slice();
    return chats.filter((_, i) => titleKeys[i]!.includes(needle));
  }

  /**
   * Chats whose prompts or answers contain `query` (any branch), newest first, at most `limit`.
   * Reads each chat file once; the titles are searched from the index by the caller.
   */
  async searchChats(query: string, limit = 100): Promise<ChatTextHit[]> {
    const hits: ChatTextHit[] = [];
    for (const chat of await this.listChats()) {
      if (hits.length >= limit) break;
      const bytes = await this.storage.read(chatPath(chat.id)).catch(() => undefined);
      const hit = bytes && searchChatText(bytes, chat.id, query);
      if (hit) hits.push(hit);
    }
    return hits;
  }

  /** Rebuilds index.json from the chat files alone and writes it now. */
  async rebuildIndex(): Promise<ChatSummary[]> {
    const { chats } = await this.cache.refresh(true);
    await this.flush({ fromFilesOnly: true });
    return chats.slice();
  }

  /** Writes index.json now if it has pending changes. */
  flush(options: { fromFilesOnly?: boolean } = {}): Promise<void> {
    return this.cache.flush(options);
  }

  /** Waits for every queued write, then writes index.json. */
  async close(): Promise<void> {
    while (this.queues.size > 0) await Promise.all(this.queues.values());
    await this.flush();
  }

  // --- internals -----------------------------------------------------------------------

  /** A chat whose file left chats/ (deleted or trashed): out of the index, and kept out of what other windows' index.json says. */
  private async forget(chatId: string): Promise<void> {
    this.files.delete(chatId);
    await this.cache.forget(chatId);
  }

  /** Lines for messages that chain from `parentId` (undefined: from the leaf the file has then). */
  private messageLines(messages: readonly M[], parentId: string | null | undefined): { text: string; ids: string[] } {
    const ids: string[] = [];
    let parent = parentId;
    let text = "";
    for (const message of messages) {
      const id = this.newNodeId();
      text += messageLine(message, id, parent);
      ids.push(id);
      parent = id;
    }
    return { text, ids };
  }

  private async loadNow(chatId: string): Promise<LoadResult<M>> {
    const path = chatPath(chatId);
    const stat = await this.storage.stat(path);
    const bytes = stat && (await this.storage.read(path));
    if (!stat || !bytes) {
      this.files.delete(chatId);
      return { ok: false, chatId, code: "notFound", reason: `chat ${chatId} does not exist` };
    }
    const outcome = parseTranscript<M>(bytes, chatId);
    if (!outcome.ok) {
      if (outcome.code === "unsupportedVersion") {
        this.files.set(chatId, { size: bytes.length, endsWithNewline: true, version: TRANSCRIPT_FORMAT_VERSION, refuse: outcome.reason });
      }
      return { ok: false, chatId, code: outcome.code, reason: outcome.reason };
    }
    const parsed = outcome.parsed;
    this.files.set(chatId, { size: parsed.byteLength, endsWithNewline: parsed.endsWithNewline, version: parsed.version });
    // The index entry comes free with a load; refresh it if the cache had it wrong.
    const cached = this.cache.loaded;
    if (cached && cached.get(chatId)?.fileSize !== parsed.byteLength) {
      cached.set(chatId, entryFromParsed(chatId, parsed, parsed.byteLength, stat.mtimeMs));
      this.cache.scheduleWrite();
    }
    const explicit = explicitTitle(parsed.header.title, parsed.metaTitle);
    const result: LoadResult<M> = {
      ok: true,
      chatId,
      header: parsed.header,
      title: explicit ?? deriveTitle(parsed.messages) ?? DEFAULT_TITLE,
      titleIsExplicit: explicit !== undefined,
      messages: parsed.messages,
      tree: parsed.tree,
    };
    if (parsed.model) result.model = parsed.model;
    if (parsed.damaged.length > 0) result.damaged = parsed.damaged;
    return result;
  }

  /** One write to a chat file; runs inside the chat's queue. */
  private async write(chatId: string, body: Uint8Array, updateEntry: (entry: IndexEntry, bytes: number) => void): Promise<void> {
    const path = chatPath(chatId);
    const state = this.files.get(chatId) ?? (await this.probe(chatId));
    if (state.refuse) throw new TranscriptError("unsupportedVersion", chatId, state.refuse);

    let data = body;
    if (state.size === 0) {
      // An empty file (a create cut off by a crash): give it its header first.
      data = concat(encoder.encode(headerLine({ type: "header", version: TRANSCRIPT_FORMAT_VERSION, chatId, createdAt: this.now() })), body);
    } else {
      // An older file is continued, never rewritten: one line says the records after it are newer.
      if (state.version < TRANSCRIPT_FORMAT_VERSION)
        data = concat(encoder.encode(versionLine({ type: "version", version: TRANSCRIPT_FORMAT_VERSION, at: this.now() })), data);
      if (!state.endsWithNewline) data = concat(NEWLINE_BYTES, data);
    }
    // Unknown until the write succeeds: a failed write may have written part of the data.
    this.files.delete(chatId);
    try {
      await this.storage.append(path, data, { sync: this.sync });
    } catch (err) {
      if (err instanceof StorageNotFoundError) throw notFound(chatId);
      throw err;
    }
    this.files.set(chatId, { size: state.size + data.length, endsWithNewline: true, version: TRANSCRIPT_FORMAT_VERSION });

    const index = await this.cache.load();
    const entry = index.get(chatId);
    if (entry && entry.fileSize === state.size && !entry.unreadable && state.size > 0) {
      updateEntry(entry, data.length);
    } else {
      // No entry, or one describing another version of the file: let listChats rescan it.
      index.delete(chatId);
      this.cache.rescanLater(chatId);
    }
    this.cache.scheduleWrite();
  }

  /** Reads just enough of a file to append to it safely: its size, first line, last byte. */
  private async probe(chatId: string): Promise<FileState> {
    const path = chatPath(chatId);
    const stat = await this.storage.stat(path);
    if (!stat) throw notFound(chatId);
    if (stat.size === 0) return { size: 0, endsWithNewline: true, version: TRANSCRIPT_FORMAT_VERSION };
    const head = (await this.storage.readRange(path, 0, Math.min(stat.size, HEAD_PROBE_BYTES))) ?? new Uint8Array();
    const header = probeHeader(head);
    const last = await this.storage.readRange(path, stat.size - 1, 1);
    if (!last) throw notFound(chatId);
    // A file without a readable header reads as version 1 onwards (format.ts).
    const version = typeof header === "object" && "version" in header ? header.version : 1;
    const state: FileState = { size: stat.size, endsWithNewline: last[0] === NEWLINE_BYTES[0], version };
    if (typeof header === "object" && "unsupported" in header) state.refuse = header.unsupported;
    return state;
  }

  private enqueue<T>(chatId: string, task: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(chatId) ?? Promise.resolve();
    const run = previous.then(task);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(chatId, settled);
    void settled.then(() => {
      if (this.queues.get(chatId) === settled) this.queues.delete(chatId);
    });
    return run;
  }
}

const NEWLINE_BYTES = new Uint8Array([0x0a]);

function checkId(chatId: string): void {
  if (!isValidChatId(chatId)) throw new TranscriptError("invalidId", chatId, `invalid chat id ${JSON.stringify(chatId)}`);
}

function notFound(chatId: string): TranscriptError {
  return new TranscriptError("notFound", chatId, `chat ${chatId} does not exist`);
}

function normalizeTitle(title: string | null | undefined): string | null {
  const flat = (title ?? "").replace(/\s+/g, " ").trim();
  return flat === "" ? null : Array.from(flat).slice(0, TITLE_MAX_STORED).join("");
}

/** Time-ordered (file names sort by creation) and unique enough. */
function defaultId(): string {
  return `${Date.now().toString(36)}-${globalThis.crypto.randomUUID().slice(0, 8)}`;
}

/** 48 random bits: a collision among a chat's messages is as likely as a cosmic-ray bit flip. */
function defaultNodeId(): string {
  return globalThis.crypto.randomUUID().replace(/-/g, "").slice(0, 12);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
