// One writer per chat across VS Code windows. Two windows on the same folder share the storage
// folder; if both ran the same chat at once, their appends would interleave (a tool result
// landing after the other window's call) and each window's in-memory transcript would miss the
// other's turns. So a window takes `locks/<chatId>.lock` when a run of that chat starts and
// gives it back when the run ends. The file says who holds it (a random owner id per window,
// its pid and host) and when it last said so: the holder rewrites `heartbeatAt` every few
// seconds, and a lock whose heartbeat is older than STALE_AFTER_MS, or whose process is gone
// (same host, pid not alive), is taken over — a crashed window never blocks a chat for good.
import { hostname } from "node:os";
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { isValidChatId } from "./types";

/** How often the holder says it is alive. */
export const HEARTBEAT_MS = 2_000;
/** A lock not refreshed for this long belongs to a window that hung or died: it is taken over. */
export const STALE_AFTER_MS = 15_000;

export interface LockOwner {
  /** Random per window (per ChatLocks instance). */
  readonly owner: string;
  readonly pid: number;
  readonly host: string;
  /** Unix ms of the last heartbeat. */
  readonly heartbeatAt: number;
}

export type AcquireResult = { readonly ok: true; readonly lock: HeldLock } | { readonly ok: false; readonly heldBy: LockOwner };

export interface HeldLock {
  readonly chatId: string;
  /** Stops the heartbeat and removes the file (if it is still this window's). */
  release(): Promise<void>;
}

export interface ChatLocksOptions {
  now?: () => number;
  /** Whether a process of this host is alive (tests give a fake to simulate a dead window). */
  isAlive?: (pid: number) => boolean;
  heartbeatMs?: number;
  staleAfterMs?: number;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as { code?: string }).code === "EPERM";
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null) return undefined;
    const { owner, pid, host, heartbeatAt } = value as Record<string, unknown>;
    if (typeof owner !== "string" || typeof pid !== "number" || typeof host !== "string" || typeof heartbeatAt !== "number") return undefined;
    return { owner, pid, host, heartbeatAt };
  } catch {
    return undefined;
  }
}

export class ChatLocks {
  /** This window's id in lock files. */
  readonly owner = `${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  private readonly dir: string;
  private readonly now: () => number;
  private readonly isAlive: (pid: number) => boolean;
  private readonly heartbeatMs: number;
  /** Chats whose heartbeat is being written now. */
  private readonly beating = new Set<string>();
  private readonly staleAfterMs: number;
  private readonly held = new Map<string, ReturnType<typeof setInterval>>();

  constructor(storageDir: string, options: ChatLocksOptions = {}) {
    this.dir = join(storageDir, "locks");
    this.now = options.now ?? Date.now;
    this.isAlive = options.isAlive ?? processAlive;
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.staleAfterMs = options.staleAfterMs ?? STALE_AFTER_MS;
  }

  private file(chatId: string): string {
    if (!isValidChatId(chatId)) throw new Error(`invalid chat id ${JSON.stringify(chatId)}`);
    return join(this.dir, `${chatId}.lock`);
  }

  private record(): string {
    const me: LockOwner = { owner: this.owner, pid: process.pid, host: hostname(), heartbeatAt: this.now() };
    return JSON.stringify(me);
  }

  /** Who holds the chat now, other than this window; undefined when nobody (or only a stale lock) does. */
  async holder(chatId: string): Promise<LockOwner | undefined> {
    const current = await this.read(chatId);
    if (!current || current.owner === this.owner || this.isStale(current)) return undefined;
    return current;
  }

  /** Takes the chat for a run; refuses (saying who holds it) while another live window does. */
  async acquire(chatId: string): Promise<AcquireResult> {
    const path = this.file(chatId);
    await fs.mkdir(this.dir, { recursive: true });
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await fs.writeFile(path, this.record(), { flag: "wx" });
        return { ok: true, lock: this.hold(chatId) };
      } catch (error) {
        if ((error as { code?: string }).code !== "EEXIST") throw error;
      }
      const current = await this.read(chatId);
      if (current === undefined) continue; // removed meanwhile (or unreadable half-written): try again
      if (current.owner === this.owner) return { ok: true, lock: this.hold(chatId) };
      if (!this.isStale(current)) return { ok: false, heldBy: current };
      // A dead or hung window's lock: remove it only if it is still that one, then take it.
      const again = await this.read(chatId);
      if (again && again.owner === current.owner && again.heartbeatAt === current.heartbeatAt) await fs.rm(path, { force: true });
    }
    const current = await this.read(chatId);
    return current ? { ok: false, heldBy: current } : { ok: false, heldBy: { owner: "unknown", pid: 0, host: "", heartbeatAt: 0 } };
  }

  /** Releases every lock this window holds (the window is closing). */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.held.keys()].map((chatId) => this.release(chatId)));
  }

  private isStale(owner: LockOwner): boolean {
    if (this.now() - owner.heartbeatAt > this.staleAfterMs) return true;
    return owner.host === hostname() && owner.pid !== process.pid && !this.isAlive(owner.pid);
  }

  private async read(chatId: string): Promise<LockOwner | undefined> {
    try {
      return parseOwner(await fs.readFile(this.file(chatId), "utf8"));
    } catch {
      return undefined;
    }
  }

  private hold(chatId: string): HeldLock {
    if (!this.held.has(chatId)) {
      const timer = setInterval(() => void this.beat(chatId), this.heartbeatMs);
      timer.unref?.();
      this.held.set(chatId, timer);
    }
    return { chatId, release: () => this.release(chatId) };
  }

  /**
   * Rewrites the heartbeat in place ("r+": never creates the file, so a beat racing a release
   * cannot bring a removed lock back), and only while the file is still this window's. The new
   * record is written over the old one and the file then cut to its length, never emptied first:
   * a window reading the lock meanwhile (a release, the other window's acquire) always finds a
   * whole record (the heartbeat's digits keep their length). One beat at a time per chat.
   */
  private async beat(chatId: string): Promise<void> {
    if (this.beating.has(chatId)) return;
    this.beating.add(chatId);
    try {
      const current = await this.read(chatId);
      if (current?.owner !== this.owner) return;
      const handle = await fs.open(this.file(chatId), "r+");
      try {
        const record = new TextEncoder().encode(this.record());
        await handle.write(record, 0, record.length, 0);
        await handle.truncate(record.length);
      } finally {
        await handle.close();
      }
    } catch {
      // The next beat tries again; a lock that stays silent is taken over as stale.
    } finally {
      this.beating.delete(chatId);
    }
  }

  private async release(chatId: string): Promise<void> {
    const timer = this.held.get(chatId);
    if (timer === undefined) return;
    clearInterval(timer);
    this.held.delete(chatId);
    const current = await this.read(chatId);
    if (current?.owner === this.owner) await fs.rm(this.file(chatId), { force: true });
  }
}
