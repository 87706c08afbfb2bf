// The pi session folders over Node's file system: read-only for opening a session, and one
// exclusive create (never a write over a file) for handing a chat to pi; finding pi on the PATH.
import { constants } from "node:fs";
import { access, mkdir, open, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { delimiter, isAbsolute, join } from "node:path";
import type { PiSessionWriter } from "./save";
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

/** New files only (`wx`: fails on an existing file, a link included), owner-only like pi's own. */
export const nodePiSessionWriter: PiSessionWriter = {
  makeDir: async (dir) => {
    await mkdir(dir, { recursive: true });
  },
  createExclusive: async (path, text) => {
    try {
      await writeFile(path, text, { flag: "wx", mode: 0o600 });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw err;
    }
  },
};

/**
 * The executable `name` in the PATH's folders (with PATHEXT's extensions on Windows), as a shell
 * would find it, without running a shell. Relative PATH entries are skipped: they would depend
 * on the folder VS Code started in.
 */
export async function findOnPath(name: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Promise<string | undefined> {
  const windows = platform === "win32";
  const path = env["PATH"] ?? env["Path"] ?? "";
  const exts = windows ? (env["PATHEXT"] ?? ".COM;.EXE;.BAT;.CMD").split(";").filter(Boolean) : [""];
  for (const dir of path.split(windows ? ";" : delimiter)) {
    if (dir === "" || !isAbsolute(dir)) continue;
    for (const ext of exts) {
      const candidate = join(dir, name + ext.toLowerCase());
      const s = await stat(candidate).catch(() => undefined);
      if (!s?.isFile()) continue;
      if (windows || (await isExecutable(candidate))) return candidate;
    }
  }
  return undefined;
}

function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}
