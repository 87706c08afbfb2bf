// TranscriptStorage over a folder with Node fs: used by tests and by the extension
// (over its global storage folder; the extension host is Node). All the store's I/O is here.

import { constants, promises as fs } from "node:fs";
import { dirname, join } from "node:path";
import { StorageNotFoundError, type FileStat, type TranscriptStorage } from "./types";

export function createNodeTranscriptStorage(root: string): TranscriptStorage {
  const resolve = (path: string): string => join(root, ...path.split("/"));

  return {
    async read(path) {
      try {
        return await fs.readFile(resolve(path));
      } catch (err) {
        if (errorCode(err) === "ENOENT") return undefined;
        throw err;
      }
    },

    async readRange(path, position, length) {
      let handle: fs.FileHandle;
      try {
        handle = await fs.open(resolve(path), "r");
      } catch (err) {
        if (errorCode(err) === "ENOENT") return undefined;
        throw err;
      }
      try {
        const buffer = new Uint8Array(length);
        const { bytesRead } = await handle.read(buffer, 0, length, position);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },

    async stat(path): Promise<FileStat | undefined> {
      try {
        const st = await fs.stat(resolve(path));
        return { size: st.size, mtimeMs: st.mtimeMs };
      } catch (err) {
        if (errorCode(err) === "ENOENT") return undefined;
        throw err;
      }
    },

    async append(path, data, { sync }) {
      let handle: fs.FileHandle;
      try {
        // No O_CREAT: appending to a deleted chat must fail, not create a headerless file.
        // O_APPEND: every write lands at the current end, even if another process appended.
        handle = await fs.open(resolve(path), constants.O_WRONLY | constants.O_APPEND);
      } catch (err) {
        if (errorCode(err) === "ENOENT") throw new StorageNotFoundError(path);
        throw err;
      }
      try {
        // One write() for the whole data: with O_APPEND the kernel places it at the end in one
        // piece, so another window appending at the same time cannot land inside a line.
        // (handle.writeFile splits anything over 512 KiB into several writes, and did.) A short
        // write (disk full, a signal) goes on with the rest; load() reports a line cut that way.
        let written = 0;
        while (written < data.length) {
          const { bytesWritten } = await handle.write(data, written, data.length - written);
          if (bytesWritten <= 0) throw new Error(`could not append to ${path}`);
          written += bytesWritten;
        }
        if (sync) await handle.sync();
      } finally {
        await handle.close();
      }
    },

    async createExclusive(path, data, { sync }) {
      const file = resolve(path);
      await fs.mkdir(dirname(file), { recursive: true });
      let handle: fs.FileHandle;
      try {
        handle = await fs.open(file, "wx");
      } catch (err) {
        if (errorCode(err) === "EEXIST") return false;
        throw err;
      }
      try {
        await handle.writeFile(data);
        if (sync) await handle.sync();
        await handle.close();
      } catch (err) {
        // A half-written new file is worse than none.
        await handle.close().catch(() => undefined);
        await fs.rm(file, { force: true }).catch(() => undefined);
        throw err;
      }
      return true;
    },

    async writeAtomic(path, data) {
      const file = resolve(path);
      await fs.mkdir(dirname(file), { recursive: true });
      const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`;
      try {
        await fs.writeFile(temp, data);
        await renameWithRetry(temp, file);
      } catch (err) {
        await fs.rm(temp, { force: true }).catch(() => undefined);
        throw err;
      }
    },

    async remove(path) {
      await fs.rm(resolve(path), { force: true });
    },

    async move(from, to) {
      const target = resolve(to);
      await fs.mkdir(dirname(target), { recursive: true });
      // rename() replaces an existing target: look first (two windows restoring the same chat in
      // the same instant is the only race, and it loses nothing: both copies are that chat).
      if (await exists(target)) return false;
      try {
        await renameWithRetry(resolve(from), target);
        return true;
      } catch (err) {
        if (errorCode(err) === "ENOENT") return false;
        throw err;
      }
    },

    async list(dir) {
      try {
        const entries = await fs.readdir(resolve(dir), { withFileTypes: true });
        return entries.filter((e) => e.isFile()).map((e) => e.name);
      } catch (err) {
        if (errorCode(err) === "ENOENT") return [];
        throw err;
      }
    },
  };
}

// On Windows a rename over a file another process (a virus scanner, an indexer) has open
// fails briefly with EPERM/EACCES/EBUSY.
async function renameWithRetry(from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await fs.rename(from, to);
      return;
    } catch (err) {
      const code = errorCode(err);
      if (attempt >= 4 || (code !== "EPERM" && code !== "EACCES" && code !== "EBUSY")) throw err;
      await new Promise((r) => setTimeout(r, 20 * (attempt + 1)));
    }
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await fs.lstat(path);
    return true;
  } catch (err) {
    if (errorCode(err) === "ENOENT") return false;
    throw err;
  }
}

function errorCode(err: unknown): string | undefined {
  if (typeof err === "object" && err !== null && "code" in err && typeof err.code === "string") return err.code;
  return undefined;
}
