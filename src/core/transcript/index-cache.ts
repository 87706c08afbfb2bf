// index.json, the rebuildable cache behind the history list: the entries in memory, when they
// are written (at most once per flush delay, merged with what other windows wrote), and how a
// list knows they still describe the chat files (list-freshness.ts). The chat files themselves
// are TranscriptStore's (store.ts); this cache only reads them to describe them.
import { entryFromParsed, parseIndex, readIndexFile, serializeIndex, toSummary, unreadableEntry, type IndexEntry } from "./chat-index";
import { parseTranscript } from "./format";
import { chatIdsOf, observe, unchanged, type Observed } from "./list-freshness";
import type { ChatSummary, FileStat, TranscriptStorage } from "./types";

const INDEX_PATH = "index.json";
const CHATS_DIR = "chats";
const SCAN_CONCURRENCY = 8;

const encoder = new TextEncoder();

/** Runs a task in the chat's write queue (TranscriptStore's), so a write in progress is never half seen. */
export type ChatQueue = <T>(chatId: string, task: () => Promise<T>) => Promise<T>;

export function chatPath(chatId: string): string {
  return `${CHATS_DIR}/${chatId}.jsonl`;
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class IndexCache {
  private index: Map<string, IndexEntry> | undefined;
  private indexLoading: Promise<Map<string, IndexEntry>> | undefined;
  private indexDirty = false;
  /** Chats this store saw deleted: an index another window wrote must not bring them back. */
  private readonly gone = new Set<string>();
  private indexWrite: Promise<void> | undefined;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  /** What the last list saw (the chats folder, index.json, the chat files); undefined before the first. */
  private seen: { folder: Observed | undefined; indexFile: Observed | undefined; names: Set<string> } | undefined;
  /** Chats whose entry was dropped as stale: the next list reads them again. */
  private readonly rescan = new Set<string>();
  /** The list as the index has it now, sorted, and its titles lower-cased; cleared by every index change. */
  private summaries: { chats: readonly ChatSummary[]; titleKeys: readonly string[] } | undefined;

  constructor(
    private readonly storage: TranscriptStorage,
    private readonly flushDelay: number,
    private readonly enqueue: ChatQueue,
  ) {}

  /** The entries, if already read from index.json (a load does not read it just to correct an entry). */
  get loaded(): Map<string, IndexEntry> | undefined {
    return this.index;
  }

  /** The chat's file is in chats/ (created or brought back): other windows' entries for it count again. */
  present(chatId: string): void {
    this.gone.delete(chatId);
  }

  /** The chat's entry was dropped: the next list reads its file again. */
  rescanLater(chatId: string): void {
    this.rescan.add(chatId);
  }

  /** A chat whose file left chats/ (deleted or trashed): out of the index, and kept out of what other windows' index.json says. */
  async forget(chatId: string): Promise<void> {
    this.rescan.delete(chatId);
    this.gone.add(chatId);
    const index = await this.load();
    index.delete(chatId);
    // Written even when this window's index did not have it: another window's index.json may.
    this.scheduleWrite();
  }

  /**
   * Another VS Code window on this folder writes index.json too. Before writing it, take in what
   * that window knows and this one does not: chats it created, and newer states (bigger files) of
   * chats both know. Without this the last writer's index dropped the other's new chats (the
   * files stayed, so listing found them again, but only by reading them).
   */
  private async mergeIndexOnDisk(index: Map<string, IndexEntry>): Promise<void> {
    const onDisk = parseIndex(await this.storage.read(INDEX_PATH).catch(() => undefined));
    for (const [id, theirs] of onDisk) {
      if (this.gone.has(id)) continue;
      const mine = index.get(id);
      if (mine === undefined || theirs.fileSize > mine.fileSize) {
        index.set(id, theirs);
        this.summaries = undefined;
      }
    }
  }
  async refresh(rebuild: boolean): Promise<{ chats: readonly ChatSummary[]; titleKeys: readonly string[] }> {
    if (rebuild) {
      this.index = new Map();
      this.indexLoading = undefined;
      this.indexDirty = true;
      this.seen = undefined;
      this.summaries = undefined;
    }
    const index = await this.load();
    // Observed before reading: a change after this point changes what the next list observes.
    const [folder, indexFile] = await Promise.all([observe(this.storage, CHATS_DIR), observe(this.storage, INDEX_PATH)]);
    const seen = this.seen;
    let names: Set<string>;
    if (seen === undefined) {
      names = await this.verifyAll(index);
    } else {
      names = seen.names;
      if (!unchanged(seen.folder, folder)) {
        // A chat came or went (this window's or another's): look at those only.
        names = chatIdsOf(await this.storage.list(CHATS_DIR));
        const changed = [...names].filter((id) => !index.has(id));
        for (const id of index.keys()) if (!names.has(id)) changed.push(id);
        await this.refreshEntries(changed, index);
      }
      if (this.rescan.size > 0) await this.refreshEntries([...this.rescan], index);
      if (!unchanged(seen.indexFile, indexFile) && !(await this.mergeIndexFile(index, names))) {
        // index.json is missing or corrupt: check every file as a first list does, then write it again.
        names = await this.verifyAll(index);
        this.scheduleWrite();
      }
    }
    this.seen = { folder, indexFile, names };
    if (this.summaries === undefined) {
      const chats = [...index.values()]
        .map((entry) => Object.freeze(toSummary(entry)))
        .sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      this.summaries = { chats, titleKeys: chats.map((c) => c.title.toLowerCase()) };
    }
    return this.summaries;
  }
  /** Stats every chat file (the folder's and the index's), rereading those the index does not describe. */
  private async verifyAll(index: Map<string, IndexEntry>): Promise<Set<string>> {
    const names = chatIdsOf(await this.storage.list(CHATS_DIR));
    const ids = new Set(names);
    for (const id of index.keys()) ids.add(id);
    await this.refreshEntries([...ids], index);
    return names;
  }
  /** Brings the entries of `ids` up to date with their files (dropping those whose file is gone). */
  async refreshEntries(ids: readonly string[], index: Map<string, IndexEntry>): Promise<void> {
    await forEachLimited(ids, SCAN_CONCURRENCY, (id) =>
      // In the chat's queue, so a write in progress is never half seen.
      this.enqueue(id, async () => {
        this.rescan.delete(id);
        const entry = await this.freshEntry(id, index.get(id));
        if (entry === undefined) {
          this.gone.add(id);
          if (index.delete(id)) this.scheduleWrite();
          return;
        }
        this.gone.delete(id);
        if (entry !== index.get(id)) {
          // A read error is not cached: the next list tries again.
          if (entry.unreadable?.code === "readError") {
            index.delete(id);
            this.rescan.add(id);
          } else index.set(id, entry);
          this.scheduleWrite();
        }
      }),
    );
  }
  /**
   * Takes in what another window wrote to index.json: entries of chats whose files are there
   * (`names`) and that describe more of the file than this store's (files only grow). False
   * when index.json is missing or is not an index.
   */
  private async mergeIndexFile(index: Map<string, IndexEntry>, names: ReadonlySet<string>): Promise<boolean> {
    const theirs = readIndexFile(await this.storage.read(INDEX_PATH).catch(() => undefined));
    if (theirs === undefined) return false;
    let changed = false;
    for (const [id, entry] of theirs) {
      if (this.gone.has(id) || !names.has(id)) continue;
      const mine = index.get(id);
      if (mine === undefined || entry.fileSize > mine.fileSize) {
        index.set(id, entry);
        changed = true;
      }
    }
    if (changed) this.summaries = undefined;
    return true;
  }
  /** The cached entry if it still describes the file, a rescanned one, or undefined if the file is gone. */
  async freshEntry(id: string, cached: IndexEntry | undefined): Promise<IndexEntry | undefined> {
    const path = chatPath(id);
    let stat: FileStat | undefined;
    try {
      stat = await this.storage.stat(path);
    } catch (err) {
      return unreadableEntry(id, "readError", errorText(err), 0, 0);
    }
    if (!stat) return undefined;
    if (cached && cached.fileSize === stat.size) return cached;
    try {
      const bytes = await this.storage.read(path);
      if (!bytes) return undefined;
      const outcome = parseTranscript(bytes, id);
      if (!outcome.ok) return unreadableEntry(id, outcome.code, outcome.reason, bytes.length, stat.mtimeMs);
      return entryFromParsed(id, outcome.parsed, bytes.length, stat.mtimeMs);
    } catch (err) {
      return unreadableEntry(id, "readError", errorText(err), stat.size, stat.mtimeMs);
    }
  }
  load(): Promise<Map<string, IndexEntry>> {
    if (this.index) return Promise.resolve(this.index);
    this.indexLoading ??= this.storage
      .read(INDEX_PATH)
      .catch(() => undefined)
      .then((bytes) => {
        // rebuildIndex may have replaced the cache while this read was in flight.
        this.index ??= parseIndex(bytes);
        return this.index;
      });
    return this.indexLoading;
  }
  scheduleWrite(): void {
    // Every change to the index comes through here: the sorted list is made again on the next list.
    this.summaries = undefined;
    this.indexDirty = true;
    if (this.flushTimer !== undefined) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      // The index is a cache: a failed write is retried on the next change or flush().
      this.flush().catch(() => undefined);
    }, this.flushDelay);
    // Do not keep a process (a test run, a CLI) alive just to write the cache.
    this.flushTimer.unref?.();
  }
  /** Writes index.json now if it has pending changes. */
  async flush(options: { fromFilesOnly?: boolean } = {}): Promise<void> {
    if (this.flushTimer !== undefined) {
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
    }
    for (;;) {
      if (this.indexWrite !== undefined) {
        await this.indexWrite;
        continue;
      }
      if (!this.indexDirty || !this.index) return;
      this.indexDirty = false;
      const index = this.index;
      this.indexWrite = (async () => {
        if (!options.fromFilesOnly) await this.mergeIndexOnDisk(index);
        await this.storage.writeAtomic(INDEX_PATH, encoder.encode(serializeIndex(index.values())));
      })().finally(() => (this.indexWrite = undefined));
      try {
        await this.indexWrite;
      } catch (err) {
        this.indexDirty = true;
        throw err;
      }
    }
  }
}

async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
