// Where the pi CLI keeps the sessions of a workspace folder, listing them, and reading one. The
// file system comes in (PiSessionsIO), so tests run over temp folders and the host over Node fs.
// Only reads: nothing here writes, renames or locks a pi file.
import { isObject, type ParseProgress, type PiReadResult, parsePiSession, parsePiSessionInSlices, sizeRefusal } from "./reader";

export interface PiSessionsIO {
  /** File names in `dir`; [] when it does not exist. */
  list(dir: string): Promise<string[]>;
  stat(path: string): Promise<{ size: number; mtimeMs: number; isFile: boolean } | undefined>;
  /** Up to `length` bytes from `position`. */
  readRange(path: string, position: number, length: number): Promise<Uint8Array | undefined>;
  read(path: string): Promise<Uint8Array | undefined>;
}

export interface PiLocation {
  /** Folder of the session files. */
  dir: string;
  /** pi's session folder override is one flat folder for every cwd: keep only sessions whose header names this one. */
  cwdFilter?: string;
}

export interface PiEnv {
  PI_CODING_AGENT_DIR?: string | undefined;
  PI_CODING_AGENT_SESSION_DIR?: string | undefined;
}

/** pi's folder for a working directory: `--<path>--`, the leading separator dropped, `/ \ :` as `-`. */
export function piSessionFolderName(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

function expandTilde(path: string, home: string): string {
  if (path === "~") return home;
  return path.startsWith("~/") || path.startsWith("~\\") ? join(home, path.slice(2)) : path;
}

/** POSIX or Windows joining without node:path (core stays free of Node where it can). */
function join(a: string, b: string): string {
  const sep = a.includes("\\") && !a.includes("/") ? "\\" : "/";
  return a.endsWith("/") || a.endsWith("\\") ? a + b : a + sep + b;
}

/** Where pi keeps the sessions of `cwd`, as pi computes it (env overrides as pi reads them). */
export function piSessionLocation(cwd: string, env: PiEnv, home: string): PiLocation {
  const sessionDir = env.PI_CODING_AGENT_SESSION_DIR;
  if (sessionDir) return { dir: expandTilde(sessionDir, home), cwdFilter: cwd };
  const agentDir = env.PI_CODING_AGENT_DIR ? expandTilde(env.PI_CODING_AGENT_DIR, home) : join(join(home, ".pi"), "agent");
  return { dir: join(join(agentDir, "sessions"), piSessionFolderName(cwd)) };
}

export interface PiSessionSummary {
  /** Absolute path of the file. */
  path: string;
  /** The workspace folder whose sessions it is. */
  cwd: string;
  id: string;
  /** Session name, else the first prompt, else the file name. */
  name: string;
  /** True when `name` is pi's session name. */
  named: boolean;
  /** Unix ms: the header's time, else the file's. */
  createdAt: number;
  modifiedAt: number;
  sizeBytes: number;
  /** Why it cannot be opened (too large, newer format, not a session), said in the list. */
  unreadable?: string;
}

/** A pi session file name: `<timestamp>_<id>.jsonl`, no separators, nothing that leaves the folder. */
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.jsonl$/;
const HEAD_BYTES = 256 * 1024;
const TAIL_BYTES = 64 * 1024;

/** The sessions of the workspace folders, newest first. */
export async function listPiSessions(io: PiSessionsIO, folders: readonly string[], env: PiEnv, home: string): Promise<PiSessionSummary[]> {
  const out: PiSessionSummary[] = [];
  const seen = new Set<string>();
  for (const cwd of folders) {
    const location = piSessionLocation(cwd, env, home);
    let names: string[];
    try {
      names = await io.list(location.dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!FILE_NAME.test(name) || name.includes("..")) continue;
      const path = join(location.dir, name);
      if (seen.has(path)) continue;
      const summary = await summarize(io, path, cwd).catch(() => undefined);
      if (!summary) continue;
      if (location.cwdFilter !== undefined && summary.headerCwd !== location.cwdFilter) continue;
      seen.add(path);
      out.push(summary.summary);
    }
  }
  return out.sort((a, b) => b.modifiedAt - a.modifiedAt);
}

// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: reads a session's head and tail for the same few entries; split, the two passes would repeat the checks
async function summarize(io: PiSessionsIO, path: string, cwd: string): Promise<{ summary: PiSessionSummary; headerCwd: string } | undefined> {
  const stat = await io.stat(path);
  if (!stat?.isFile) return undefined;
  const head = (await io.readRange(path, 0, Math.min(HEAD_BYTES, stat.size))) ?? new Uint8Array();
  const lines = completeLines(head, stat.size <= HEAD_BYTES);
  const header = lines[0];
  if (!isObject(header) || header["type"] !== "session") return undefined;
  let name: string | undefined;
  let firstPrompt: string | undefined;
  for (const entry of lines) {
    if (!isObject(entry)) continue;
    if (entry["type"] === "session_info" && typeof entry["name"] === "string" && entry["name"].trim()) name = entry["name"].trim();
    if (firstPrompt === undefined && entry["type"] === "message" && isObject(entry["message"]) && entry["message"]["role"] === "user") {
      firstPrompt = textOf(entry["message"]["content"]);
    }
  }
  // A name set late in a long session is near the end.
  if (stat.size > HEAD_BYTES) {
    const start = Math.max(HEAD_BYTES, stat.size - TAIL_BYTES);
    const tail = (await io.readRange(path, start, stat.size - start)) ?? new Uint8Array();
    for (const entry of completeLines(tail.subarray(tail.indexOf(0x0a) + 1), true)) {
      if (isObject(entry) && entry["type"] === "session_info" && typeof entry["name"] === "string" && entry["name"].trim()) name = entry["name"].trim();
    }
  }
  const version = typeof header["version"] === "number" ? header["version"] : 1;
  const created = Date.parse(String(header["timestamp"] ?? ""));
  const unreadable = sizeRefusal(stat.size) ?? (version > 3 ? `format version ${version} is newer than Pi Chat reads (up to 3)` : undefined);
  const fileName = path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
  const shown = name ?? firstPrompt ?? fileName;
  return {
    headerCwd: typeof header["cwd"] === "string" ? header["cwd"] : "",
    summary: {
      path,
      cwd,
      id: typeof header["id"] === "string" ? header["id"] : "",
      name: shown.length > 120 ? `${shown.slice(0, 119)}…` : shown,
      named: name !== undefined,
      createdAt: Number.isFinite(created) ? created : stat.mtimeMs,
      modifiedAt: stat.mtimeMs,
      sizeBytes: stat.size,
      ...(unreadable ? { unreadable } : {}),
    },
  };
}

/** The parsed lines of a chunk; the last one only when the chunk is the whole rest of the file. */
function completeLines(bytes: Uint8Array, toEnd: boolean): unknown[] {
  const text = new TextDecoder().decode(bytes);
  const parts = text.split("\n");
  if (!toEnd) parts.pop();
  const out: unknown[] = [];
  for (const part of parts) {
    if (part.trim() === "") continue;
    try {
      out.push(JSON.parse(part));
    } catch {
      // A damaged line does not stop the listing.
    }
  }
  return out;
}

function textOf(content: unknown): string | undefined {
  if (typeof content === "string") return content.trim().split("\n")[0];
  if (!Array.isArray(content)) return undefined;
  for (const c of content) if (isObject(c) && c["type"] === "text" && typeof c["text"] === "string") return c["text"].trim().split("\n")[0];
  return undefined;
}

/** Reading in slices: `between` is awaited after each slice (the event loop runs, progress shows), `cancelled` asked there. */
export interface SlicedRead {
  between: (progress: ParseProgress) => Promise<void>;
  cancelled: () => boolean;
}

/**
 * Reads one session for opening. `path` must be a file pi's folders of `folders` hold (a crafted
 * path elsewhere is refused), and the size is checked before the bytes are read. With `slices`,
 * the lines are read a slice at a time (the extension host goes on answering meanwhile).
 */
export async function readPiSession(
  io: PiSessionsIO,
  path: string,
  folders: readonly string[],
  env: PiEnv,
  home: string,
  slices?: SlicedRead,
): Promise<PiReadResult> {
  const inside = folders.some((cwd) => {
    const { dir } = piSessionLocation(cwd, env, home);
    const name = path.startsWith(dir) ? path.slice(dir.length + 1) : undefined;
    return name !== undefined && (path[dir.length] === "/" || path[dir.length] === "\\") && FILE_NAME.test(name) && !name.includes("..");
  });
  if (!inside) return { ok: false, reason: `${path} is not a session file in pi's session folder of this workspace` };
  const stat = await io.stat(path).catch(() => undefined);
  if (!stat?.isFile) return { ok: false, reason: `${path} does not exist` };
  const refused = sizeRefusal(stat.size);
  if (refused) return { ok: false, reason: refused };
  let bytes: Uint8Array | undefined;
  try {
    bytes = await io.read(path);
  } catch (err) {
    return { ok: false, reason: `cannot read ${path}: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!bytes) return { ok: false, reason: `${path} does not exist` };
  // The size was checked on the stat; the file may have grown since.
  return slices ? parsePiSessionInSlices(bytes, slices.between, slices.cancelled) : parsePiSession(bytes);
}
