// The pi session folders over Node's file system, read-only (the command and the tests use it).
import { open, readdir, readFile, stat } from "node:fs/promises";
import type { PiSessionsIO } from "./sessions";

/** Node's file system, read-only, for the pi session folders. */
export const nodePiSessionsIO: PiSessionsIO = {
  list: (dir) => readdir(dir).catch(() => []),
  stat: async (path) => {
    const s = await stat(path).catch(() => undefined);
    return s ? { size: s.size, mtimeMs: s.mtimeMs, isFile: s.isFile() } : undefined;
  },
  readRange: async (path, position, length) => {
    const handle = await open(path, "r");
    try {
      const buffer = new Uint8Array(length);
      const { bytesRead } = await handle.read(buffer, 0, length, position);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  },
  read: (path) => readFile(path),
};
