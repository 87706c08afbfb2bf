// CheckpointIo over folders on disk with Node's fs: reads and stats for every use, and writes
// for the unit tests and the benchmarks (the extension writes through workspace.fs instead:
// src/host/checkpoints/host-checkpoints.ts). One folder: plain paths; several: `folderName/path`.
import { lstatSync, readdirSync } from "node:fs";
import { lstat, mkdir, readdir, unlink, writeFile } from "node:fs/promises";
import * as nodePath from "node:path";
import { readRegularFile, type WorkspaceDirEntry } from "../tools/workspace-fs";
import type { CheckpointIo, EntryStat } from "./types";

export interface CheckpointFolder {
  /** The folder's tool name (ignored with one folder). */
  readonly name: string;
  /** Absolute path on disk. */
  readonly root: string;
}

/** Maps tool paths to disk paths: `undefined` for a path outside every folder (or malformed). */
export function folderResolver(folders: readonly CheckpointFolder[]): (path: string) => { root: string; rest: string[] } | undefined {
  const single = folders.length === 1 ? folders[0] : undefined;
  const byName = new Map(folders.map((f) => [f.name, f]));
  return (path) => {
    if (path.includes("\0") || path.includes("\\") || path.startsWith("/")) return undefined;
    const parts = path === "." ? [] : path.split("/");
    if (parts.some((p) => p === "" || p === "." || p === "..")) return undefined;
    if (single) return { root: single.root, rest: parts };
    const [first, ...rest] = parts;
    const folder = first === undefined ? undefined : byName.get(first);
    return folder ? { root: folder.root, rest } : undefined;
  };
}

export function createNodeCheckpointIo(folders: readonly CheckpointFolder[], isDirty: (path: string) => boolean = () => false): CheckpointIo {
  const resolve = folderResolver(folders);
  const abs = (path: string): string => {
    const r = resolve(path);
    if (!r) throw new Error(`Not inside a workspace folder: ${path}`);
    return nodePath.join(r.root, ...r.rest);
  };
  return {
    async lstat(path): Promise<EntryStat | undefined> {
      try {
        const s = await lstat(abs(path));
        const type = s.isSymbolicLink() ? "symlink" : s.isFile() ? "file" : s.isDirectory() ? "directory" : "other";
        return { type, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, links: s.nlink, ctimeMs: s.ctimeMs };
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === "ENOENT" || code === "ENOTDIR") return undefined;
        throw error;
      }
    },
    async readDirectory(path): Promise<WorkspaceDirEntry[]> {
      if (path === "." && folders.length > 1) return folders.map((f) => ({ name: f.name, type: "directory" }));
      const entries = await readdir(abs(path), { withFileTypes: true });
      return entries.map((e) => ({
        name: e.name,
        type: e.isSymbolicLink() ? "symlink" : e.isDirectory() ? "directory" : e.isFile() ? "file" : "other",
      }));
    },
    async statDirectory(path) {
      const files = new Map<string, EntryStat>();
      if (path === "." && folders.length > 1) return { entries: folders.map((f) => ({ name: f.name, type: "directory" as const })), files };
      const dir = abs(path);
      const entries: WorkspaceDirEntry[] = [];
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const type = e.isSymbolicLink() ? "symlink" : e.isDirectory() ? "directory" : e.isFile() ? "file" : "other";
        entries.push({ name: e.name, type });
        if (type !== "file") continue;
        try {
          const s = lstatSync(nodePath.join(dir, e.name));
          if (s.isFile()) files.set(e.name, { type: "file", size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, ctimeMs: s.ctimeMs });
        } catch {
          // gone meanwhile
        }
      }
      return { entries, files };
    },
    readFile: (path, maxBytes) => readRegularFile(abs(path), path, { maxBytes }),
    async plainPath(path) {
      const r = resolve(path);
      if (!r || r.rest.length === 0) return false;
      let at = r.root;
      for (const part of r.rest.slice(0, -1)) {
        at = nodePath.join(at, part);
        const s = await lstat(at).catch(() => undefined);
        if (s === undefined) return true; // missing from here on: nothing to follow
        if (s.isSymbolicLink() || !s.isDirectory()) return false;
      }
      return true;
    },
    async writeFile(path, data) {
      const target = abs(path);
      await mkdir(nodePath.dirname(target), { recursive: true });
      await writeFile(target, data);
    },
    async deleteFile(path) {
      await unlink(abs(path));
    },
    isDirty,
  };
}
