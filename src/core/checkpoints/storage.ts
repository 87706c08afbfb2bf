// Where checkpoints are kept, outside the workspace: `<storage>/checkpoints/` holds
// content-addressed blobs (`blobs/ab/<sha256>`), one append-only journal per chat
// (`chats/<chatId>.jsonl`) and, only while a restore runs, `restore-pending.json`.
// Blobs are written to a temporary name and renamed, so a blob that exists is whole.
import { createHash, randomUUID } from "node:crypto";
import { promises as fs } from "node:fs";
import { join } from "node:path";
import type { JournalEntry } from "./types";

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function code(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : undefined;
}

/** A chat id is used as a file name: only the characters chat ids have. */
function safeId(chatId: string): string {
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(chatId) || chatId.startsWith(".")) throw new Error(`Not a chat id: ${JSON.stringify(chatId)}`);
  return chatId;
}

export class CheckpointStorage {
  readonly dir: string;
  constructor(storageRoot: string) {
    this.dir = join(storageRoot, "checkpoints");
  }

  private blobPath(hash: string): string {
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`Not a blob hash: ${hash}`);
    return join(this.dir, "blobs", hash.slice(0, 2), hash);
  }

  /** Keeps `bytes`; returns their hash. `durable`: flushed to disk before it resolves (a restore's saved copies). */
  async putBlob(bytes: Uint8Array, durable = false): Promise<string> {
    const hash = sha256(bytes);
    const path = this.blobPath(hash);
    if (await this.hasBlob(hash)) return hash;
    await fs.mkdir(join(path, ".."), { recursive: true });
    const tmp = `${path}.${randomUUID()}.tmp`;
    const handle = await fs.open(tmp, "w");
    try {
      await handle.writeFile(bytes);
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, path);
    return hash;
  }

  async hasBlob(hash: string): Promise<boolean> {
    try {
      await fs.access(this.blobPath(hash));
      return true;
    } catch {
      return false;
    }
  }

  /** The bytes of a blob, checked against their hash (a damaged blob is never written into the workspace). */
  async getBlob(hash: string): Promise<Uint8Array | undefined> {
    let bytes: Uint8Array;
    try {
      bytes = await fs.readFile(this.blobPath(hash));
    } catch (error) {
      if (code(error) === "ENOENT") return undefined;
      throw error;
    }
    return sha256(bytes) === hash ? bytes : undefined;
  }

  private journalPath(chatId: string): string {
    return join(this.dir, "chats", `${safeId(chatId)}.jsonl`);
  }

  async append(chatId: string, entries: readonly JournalEntry[], durable = false): Promise<void> {
    if (entries.length === 0) return;
    const path = this.journalPath(chatId);
    await fs.mkdir(join(path, ".."), { recursive: true });
    const handle = await fs.open(path, "a");
    try {
      await handle.write(entries.map((e) => `${JSON.stringify(e)}\n`).join(""));
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
  }

  /** The chat's journal; a line cut off by a crash (or otherwise unreadable) is skipped. */
  async journal(chatId: string): Promise<JournalEntry[]> {
    let text: string;
    try {
      text = await fs.readFile(this.journalPath(chatId), "utf8");
    } catch (error) {
      if (code(error) === "ENOENT") return [];
      throw error;
    }
    const out: JournalEntry[] = [];
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      try {
        const entry = JSON.parse(line) as JournalEntry;
        if (entry && (entry.t === "mark" || entry.t === "change" || entry.t === "restored")) out.push(entry);
      } catch {
        // a torn last line
      }
    }
    return out;
  }

  async deleteJournal(chatId: string): Promise<void> {
    await fs.rm(this.journalPath(chatId), { force: true });
  }

  async chatIds(): Promise<string[]> {
    try {
      return (await fs.readdir(join(this.dir, "chats"))).filter((n) => n.endsWith(".jsonl")).map((n) => n.slice(0, -".jsonl".length));
    } catch (error) {
      if (code(error) === "ENOENT") return [];
      throw error;
    }
  }

  get pendingPath(): string {
    return join(this.dir, "restore-pending.json");
  }

  /** Written (and flushed) before a restore changes anything. */
  async writePending(data: unknown): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    const tmp = `${this.pendingPath}.${randomUUID()}.tmp`;
    const handle = await fs.open(tmp, "w");
    try {
      await handle.writeFile(JSON.stringify(data));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, this.pendingPath);
  }

  async readPending(): Promise<unknown> {
    try {
      return JSON.parse(await fs.readFile(this.pendingPath, "utf8")) as unknown;
    } catch (error) {
      if (code(error) === "ENOENT") return undefined;
      // A pending file is only ever renamed into place whole; unreadable means damaged storage.
      throw error;
    }
  }

  async clearPending(): Promise<void> {
    await fs.rm(this.pendingPath, { force: true });
  }

  /**
   * Deletes every blob no journal (and no `alsoKeep` hash: the command baseline) refers to.
   * Returns how many bytes were freed.
   */
  async collectGarbage(alsoKeep: Iterable<string> = []): Promise<number> {
    const live = new Set<string>(alsoKeep);
    for (const id of await this.chatIds()) {
      for (const e of await this.journal(id)) {
        if (e.t !== "change") continue;
        for (const s of [e.before, e.after]) if ("hash" in s) live.add(s.hash);
      }
    }
    const pending = await this.readPending().catch(() => undefined);
    if (pending !== undefined) for (const h of JSON.stringify(pending).match(/[0-9a-f]{64}/g) ?? []) live.add(h);
    let freed = 0;
    const root = join(this.dir, "blobs");
    let prefixes: string[];
    try {
      prefixes = await fs.readdir(root);
    } catch {
      return 0;
    }
    for (const prefix of prefixes) {
      for (const name of await fs.readdir(join(root, prefix)).catch(() => [] as string[])) {
        if (live.has(name)) continue;
        const path = join(root, prefix, name);
        const st = await fs.stat(path).catch(() => undefined);
        await fs.rm(path, { force: true });
        freed += st?.size ?? 0;
      }
    }
    return freed;
  }

  /** Bytes the blobs take. */
  async blobBytes(): Promise<number> {
    let total = 0;
    const root = join(this.dir, "blobs");
    for (const prefix of await fs.readdir(root).catch(() => [] as string[])) {
      for (const name of await fs.readdir(join(root, prefix)).catch(() => [] as string[])) {
        total += (await fs.stat(join(root, prefix, name)).catch(() => undefined))?.size ?? 0;
      }
    }
    return total;
  }
}
