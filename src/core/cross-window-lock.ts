// One lock shared by every VS Code window (and every process) on this machine: a directory made
// with mkdir, which only one caller can create. Used where a refresh token that rotates must be
// spent once: MCP servers' OAuth tokens (src/core/mcp/oauth.ts) and providers' sign-ins
// (src/host/providers/sign-in.ts). Windows share SecretStorage, so they must share this lock too.
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import * as path from "node:path";

/** A lock older than this was left by a window that died mid-refresh. */
export const CROSS_WINDOW_LOCK_STALE_MS = 60_000;

export interface CrossWindowLockOptions {
  /** Folder of the lock directories (the extension's global storage). */
  lockDir: string;
  /** What is locked (a server URL, a provider id): hashed into the lock's name. */
  name: string;
  /** How long to wait for another holder before giving up. */
  waitMs: number;
  /** Called each time the lock is found held by another: a settled point for tests and logs. */
  onHeld?: () => void;
  /** The error thrown when the wait ends without the lock. */
  busyError: () => Error;
}

/** The lock directory of `name` in `lockDir`. */
export function lockPath(lockDir: string, name: string): string {
  return path.join(lockDir, `${createHash("sha256").update(name).digest("hex").slice(0, 24)}.lock`);
}

/** Runs `fn` holding the lock of `name`; one holder at a time across windows. */
export async function withCrossWindowLock<T>(options: CrossWindowLockOptions, fn: () => Promise<T>): Promise<T> {
  const lock = lockPath(options.lockDir, options.name);
  await fsp.mkdir(options.lockDir, { recursive: true });
  await acquire(lock, options);
  try {
    return await fn();
  } finally {
    await fsp.rm(lock, { recursive: true, force: true });
  }
}

async function acquire(lock: string, options: CrossWindowLockOptions): Promise<void> {
  const end = Date.now() + options.waitMs;
  for (;;) {
    try {
      await fsp.mkdir(lock);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const stat = await fsp.stat(lock).catch(() => undefined);
    if (stat && Date.now() - stat.mtimeMs > CROSS_WINDOW_LOCK_STALE_MS) {
      await fsp.rm(lock, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > end) throw options.busyError();
    options.onHeld?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
