// Multi-root workspaces: with more than one folder open, every tool takes and gives paths as
// `folderName/relative/path`. One composite WorkspaceFileSystem puts each folder's own file system
// (with its own containment check) under its name, so every tool works unchanged; the workspace
// root "." is a virtual folder holding the folders. A single-folder workspace keeps plain paths.
import { compareMatches, type SearchBackend, type SearchMatch } from "./search-backend";
import { compileGlob } from "./glob";
import { WorkspaceToolError } from "./tool-error";
import type { WorkspaceDirEntry, WorkspaceFileSystem, WorkspaceRealPath, WorkspaceStat } from "./workspace-fs";

export interface RootFolder<T> {
  /** The name paths start with: unique in the workspace (see folderNames). */
  readonly name: string;
  readonly value: T;
}

/**
 * A path segment per folder, unique: VS Code's folder name, made safe as a segment ("/", "\\",
 * ":" and control characters become "_"; "." and ".." get a "_"), and a second folder of the
 * same name gets "-2" (then "-3"…), so two `app` folders are `app` and `app-2`.
 */
export function folderNames(names: readonly string[]): string[] {
  const taken = new Set<string>();
  const out: string[] = [];
  for (const raw of names) {
    let base = raw.replace(/[/\\:\u0000-\u001f\u007f]/g, "_").trim();
    if (base === "" || base === "." || base === "..") base = `_${base}`;
    let name = base;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base}-${n}`;
    taken.add(name.toLowerCase());
    out.push(name);
  }
  return out;
}

function split(path: string): { folder: string; rest: string } {
  const at = path.indexOf("/");
  return at === -1 ? { folder: path, rest: "." } : { folder: path.slice(0, at), rest: path.slice(at + 1) };
}

function noFolder(path: string): Error {
  return new Error(`${path} is not inside a workspace folder`);
}

/** Folders under their names; paths are `name/relative/path`, "." is the list of folders. */
export function createMultiRootFs(folders: readonly RootFolder<WorkspaceFileSystem>[]): WorkspaceFileSystem {
  const byName = new Map(folders.map((f) => [f.name, f.value]));
  const route = (path: string): { fs: WorkspaceFileSystem; name: string; rest: string } | undefined => {
    const { folder, rest } = split(path);
    const fs = byName.get(folder);
    return fs ? { fs, name: folder, rest } : undefined;
  };
  return {
    async stat(path): Promise<WorkspaceStat | undefined> {
      if (path === ".") return { type: "directory", size: 0 };
      const r = route(path);
      return r ? r.fs.stat(r.rest) : undefined;
    },
    async readFile(path) {
      const r = route(path);
      if (!r || r.rest === ".") throw noFolder(path);
      return r.fs.readFile(r.rest);
    },
    async writeFile(path, data) {
      const r = route(path);
      if (!r || r.rest === ".") throw noFolder(path);
      return r.fs.writeFile(r.rest, data);
    },
    async realPath(path): Promise<WorkspaceRealPath> {
      if (path === ".") return { inside: true, path: "." };
      const r = route(path);
      // No folder of that name: nothing exists there, and stat will say so.
      if (!r) return { inside: true, path };
      const real = await r.fs.realPath(r.rest);
      if (!real.inside) return real;
      return { inside: true, path: real.path === "." ? r.name : `${r.name}/${real.path}` };
    },
    async readDirectory(path): Promise<WorkspaceDirEntry[]> {
      if (path === ".") return folders.map((f) => ({ name: f.name, type: "directory" }));
      const r = route(path);
      if (!r) throw noFolder(path);
      return r.fs.readDirectory(r.rest);
    },
  };
}

/**
 * Search over several folders, each with its own engine (ripgrep in its folder, or the portable
 * one). A search of the whole workspace asks every folder and filters `include` against the
 * `folderName/…` paths, as find_files matches them; a search under one folder goes to it alone.
 */
export function createMultiRootSearch(folders: readonly RootFolder<SearchBackend>[]): SearchBackend {
  const byName = new Map(folders.map((f) => [f.name, f.value]));
  return {
    async search(request) {
      if (request.path !== ".") {
        const { folder, rest } = split(request.path);
        const backend = byName.get(folder);
        if (!backend) throw new WorkspaceToolError("not_found", `Not found: ${request.path}`);
        const outcome = await backend.search({ ...request, path: rest });
        return { ...outcome, matches: outcome.matches.map((m) => ({ ...m, path: `${folder}/${m.path}` })) };
      }
      let include: ((path: string) => boolean) | undefined;
      if (request.include !== undefined) {
        const glob = compileGlob(request.include);
        if (!glob.ok) throw new WorkspaceToolError("invalid_path", glob.error);
        include = glob.test;
      }
      const { include: _dropped, ...perFolder } = request;
      const outcomes = await Promise.all(folders.map(async (f) => ({ name: f.name, outcome: await f.value.search(perFolder) })));
      const matches: SearchMatch[] = [];
      let incomplete = false;
      for (const { name, outcome } of outcomes) {
        incomplete ||= outcome.incomplete;
        for (const m of outcome.matches) {
          const path = `${name}/${m.path}`;
          if (!include || include(path)) matches.push({ ...m, path });
        }
      }
      matches.sort(compareMatches);
      return { matches, incomplete, engine: outcomes[0]?.outcome.engine ?? "none" };
    },
  };
}

/** What the system prompt says about the folders, so the model knows the first path segment. */
export function multiRootPrompt(folders: readonly { name: string; location: string }[]): string {
  return [
    "This workspace has several folders. Every path starts with the folder's name: folderName/relative/path.",
    ...folders.map((f) => `- ${f.name}: ${f.location}`),
  ].join("\n");
}
