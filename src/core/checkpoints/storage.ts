// Where checkpoints are kept, outside the workspace: `<storage>/checkpoints/` holds
// content-addressed blobs (`blobs/ab/<sha256>`), one append-only journal per chat
// (`chats/<chatId>.jsonl`), `clock` (rewritten before each command to read the file system's
// clock) and, only while a restore runs, `restore-pending.json`.
// Blobs are written to a temporary name and renamed, so a blob that exists is whole.
// Readable by the user only: folders 0700 (checked again at the first write of each window, so
// storage an older version left at 0755 is closed before anything is added), files 0600 (an older
// file is set so when it is written or kept again, and every one by the clean-up at activation).
import { createHash, randomUUID } from "node:crypto";
import { promises as fs } from "node:fs";
import { join, relative, sep } from "node:path";
import { isSecretFile } from "../permissions/protected-paths";
import { isJournalEntry, type JournalEntry } from "./types";

/** Modes of everything under `checkpoints/`: the user's own, no one else's (no effect on Windows). */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

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
  /** Folders made or set to DIR_MODE by this instance. */
  private readonly secured = new Set<string>();
  /** Counts the clock file's writes (each write has new content, so its change time moves). */
  private clockReads = 0;
  constructor(storageRoot: string) {
    this.dir = join(storageRoot, "checkpoints");
  }

  /**
   * A stamp of the file system's clock below which every change made before this call is stamped,
   * and which every change made after it reaches: the change time of a file written here, written
   * again until the stamp moves past the first one (stamps are coarse: a change in the same tick
   * as the first would tie with it). The kernel stamps every file from one clock; Date.now() is
   * finer than the stamps and can run ahead of them.
   */
  async clock(): Promise<number> {
    await this.ensureDir(this.dir);
    const path = join(this.dir, "clock");
    const stamp = async (): Promise<number> => {
      await fs.writeFile(path, String(++this.clockReads), { mode: FILE_MODE });
      return (await fs.stat(path)).ctimeMs;
    };
    const first = await stamp();
    // A tick is a few milliseconds; a clock that does not move at all (set back) gives up on the tie.
    for (let tries = 0; tries < 100; tries++) {
      const next = await stamp();
      if (next > first) return next;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return first;
  }

  /** Makes `dir` (inside `checkpoints/`) and sets it and every folder above it up to `checkpoints/` to DIR_MODE. */
  private async ensureDir(dir: string): Promise<void> {
    if (this.secured.has(dir)) return;
    await fs.mkdir(dir, { recursive: true, mode: DIR_MODE });
    const parts = relative(this.dir, dir)
      .split(sep)
      .filter((p) => p !== "");
    for (let i = 0; i <= parts.length; i++) {
      const at = join(this.dir, ...parts.slice(0, i));
      if (this.secured.has(at)) continue;
      await fs.chmod(at, DIR_MODE);
      this.secured.add(at);
    }
  }

  private blobPath(hash: string): string {
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`Not a blob hash: ${hash}`);
    return join(this.dir, "blobs", hash.slice(0, 2), hash);
  }

  /** Keeps `bytes`; returns their hash. `durable`: flushed to disk before it resolves (a restore's saved copies). */
  async putBlob(bytes: Uint8Array, durable = false): Promise<string> {
    const hash = sha256(bytes);
    const path = this.blobPath(hash);
    await this.ensureDir(join(path, ".."));
    if (await this.hasBlob(hash)) {
      // One an older version wrote at 0644 is set right when it is kept again.
      await fs.chmod(path, FILE_MODE).catch(() => undefined);
      return hash;
    }
    const tmp = `${path}.${randomUUID()}.tmp`;
    const handle = await fs.open(tmp, "w", FILE_MODE);
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

  /** Told after lines were added to a chat's journal (pending changes are read again). */
  readonly appended = new Set<(chatId: string) => void>();

  async append(chatId: string, entries: readonly JournalEntry[], durable = false): Promise<void> {
    if (entries.length === 0) return;
    const path = this.journalPath(chatId);
    await this.ensureDir(join(path, ".."));
    const handle = await fs.open(path, "a", FILE_MODE);
    try {
      // A journal an older version made at 0644 is set right at its next line.
      if (((await handle.stat()).mode & 0o077) !== 0) await handle.chmod(FILE_MODE);
      await handle.write(entries.map((e) => `${JSON.stringify(e)}\n`).join(""));
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
    for (const listener of this.appended) listener(chatId);
  }

  /** The chat's journal; a line cut off by a crash, or otherwise not an entry, is skipped. */
  async journal(chatId: string): Promise<JournalEntry[]> {
    return (await this.readJournal(chatId)).entries;
  }

  /**
   * The chat's journal and how many lines were skipped: a line cut off by a crash, or one that is
   * not an entry (damaged or edited storage). Planning reads only entries whose fields it trusts.
   */
  async readJournal(chatId: string): Promise<{ entries: JournalEntry[]; damaged: number }> {
    let text: string;
    try {
      text = await fs.readFile(this.journalPath(chatId), "utf8");
    } catch (error) {
      if (code(error) === "ENOENT") return { entries: [], damaged: 0 };
      throw error;
    }
    const entries: JournalEntry[] = [];
    let damaged = 0;
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        value = undefined;
      }
      if (isJournalEntry(value)) entries.push(value);
      else damaged++;
    }
    return { entries, damaged };
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
    await this.ensureDir(this.dir);
    const tmp = `${this.pendingPath}.${randomUUID()}.tmp`;
    const handle = await fs.open(tmp, "w", FILE_MODE);
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
   * Deletes every blob no journal (and no `alsoKeep` hash: the command baseline) refers to, and
   * every blob only secret files refer to (an older version kept them: a restore never writes
   * them, and a copy must not outlive the key). Sets what is left to the user's own modes.
   * Returns how many bytes were freed.
   */
  async collectGarbage(alsoKeep: Iterable<string> = []): Promise<number> {
    const live = new Set<string>(alsoKeep);
    // An older version's storage, left readable by others: set right (what does not exist is skipped).
    for (const dir of [this.dir, join(this.dir, "chats"), join(this.dir, "blobs")]) await fs.chmod(dir, DIR_MODE).catch(() => undefined);
    for (const id of await this.chatIds()) {
      await fs.chmod(this.journalPath(id), FILE_MODE).catch(() => undefined);
      for (const e of await this.journal(id)) {
        if (e.t !== "change" || isSecretFile(e.path)) continue;
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
      await fs.chmod(join(root, prefix), DIR_MODE).catch(() => undefined);
      for (const name of await fs.readdir(join(root, prefix)).catch(() => [] as string[])) {
        const path = join(root, prefix, name);
        if (live.has(name)) {
          await fs.chmod(path, FILE_MODE).catch(() => undefined);
          continue;
        }
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
