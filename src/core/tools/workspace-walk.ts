// Walking a workspace folder the way a developer sees it: ignore files honoured (.gitignore,
// .ignore, .rgignore, nested, with `!` re-includes, as git and ripgrep read them), VS Code's
// excludes applied, `.git` always skipped, `node_modules` skipped unless asked, symlinks listed
// but never followed. The same walk feeds list_files, find_files and the portable search, so all
// three agree on what "the workspace" is, and the ripgrep adapter is given the same rules.
import ignore, { type Ignore } from "ignore";
import picomatch from "picomatch";
import { isInsideGitDir } from "../permissions/protected-paths";
import { throwIfAborted } from "./tool-error";
import type { WorkspaceDirEntry, WorkspaceFileSystem } from "./workspace-fs";

/** The ignore files read in each folder; later ones win (ripgrep's order). */
export const IGNORE_FILE_NAMES = [".gitignore", ".ignore", ".rgignore"] as const;

/** Never walked into: git's own data (also a protected path). */
export const ALWAYS_SKIPPED = [".git"] as const;
/** Skipped unless the caller asks for ignored entries: dependencies, rarely what a question is about. */
export const SKIPPED_BY_DEFAULT = ["node_modules"] as const;

/** A walk visits at most this many entries: a question about a huge tree gets a partial answer, not a hang. */
export const MAX_WALK_ENTRIES = 200_000;

export interface WalkRules {
  /** Honour ignore files and skip SKIPPED_BY_DEFAULT. Default true. */
  readonly useIgnoreFiles?: boolean;
  /** VS Code's files.exclude (and, for search, search.exclude) globs, relative to the folder root. */
  readonly excludes?: readonly string[];
}

export interface WalkOptions extends WalkRules {
  /** A real, validated, workspace-relative directory to start from ("." for the root). */
  readonly start: string;
  /** Levels below `start` to visit (1: its own entries). Default: all. */
  readonly maxDepth?: number;
  readonly signal?: AbortSignal;
}

export interface WalkEntry {
  /** Workspace-relative POSIX path. */
  readonly path: string;
  readonly name: string;
  readonly type: WorkspaceDirEntry["type"];
  /** 1 for an entry of `start` itself. */
  readonly depth: number;
}

interface IgnoreLevel {
  /** Folder the rules are relative to ("" for the root). */
  readonly dir: string;
  readonly rules: Ignore;
}

function join(dir: string, name: string): string {
  return dir === "." || dir === "" ? name : `${dir}/${name}`;
}

function parentOf(path: string): string {
  const at = path.lastIndexOf("/");
  return at === -1 ? "." : path.slice(0, at);
}

/** Compiles the exclude globs once; they match paths relative to the folder root. */
export function compileExcludes(excludes: readonly string[] | undefined): (relPath: string) => boolean {
  const valid = (excludes ?? []).filter((g) => typeof g === "string" && g.trim() !== "");
  if (valid.length === 0) return () => false;
  const matchers = valid.flatMap((g) => {
    try {
      return [picomatch(g, { dot: true })];
    } catch {
      return []; // a broken user setting must not break every tool
    }
  });
  return (relPath) => matchers.some((m) => m(relPath));
}

/**
 * Decides whether entries are walked, reading ignore files as folders are entered. One instance
 * per walk: the rules of a folder are read when the walk first needs them.
 */
export class IgnoreRules {
  private readonly levels = new Map<string, IgnoreLevel | null>();
  private readonly skipped: ReadonlySet<string>;
  private readonly excluded: (relPath: string) => boolean;
  private readonly useIgnoreFiles: boolean;

  constructor(
    /** Only ignore files are read through it (checkpoints pass their own disk reader). */
    private readonly fs: Pick<WorkspaceFileSystem, "readFile">,
    rules: WalkRules,
  ) {
    this.useIgnoreFiles = rules.useIgnoreFiles ?? true;
    this.skipped = new Set<string>([...ALWAYS_SKIPPED, ...(this.useIgnoreFiles ? SKIPPED_BY_DEFAULT : [])]);
    this.excluded = compileExcludes(rules.excludes);
  }

  /** Reads the ignore files of `dir` (given its entries, when known), once. */
  async enter(dir: string, entries?: readonly WorkspaceDirEntry[]): Promise<void> {
    if (!this.useIgnoreFiles || this.levels.has(dir)) return;
    this.levels.set(dir, null);
    const present = entries ? new Set(entries.filter((e) => e.type === "file").map((e) => e.name)) : undefined;
    let rules: Ignore | undefined;
    for (const name of IGNORE_FILE_NAMES) {
      if (present && !present.has(name)) continue;
      let text: string;
      try {
        text = new TextDecoder().decode(await this.fs.readFile(join(dir, name)));
      } catch {
        continue; // missing, unreadable, or a link leading out: no rules from it
      }
      rules ??= ignore({ allowRelativePaths: true });
      rules.add(text);
    }
    if (rules) this.levels.set(dir, { dir: dir === "." ? "" : dir, rules });
  }

  /** Reads the ignore files of every folder from the root down to `dir` (a walk starting below the root). */
  async enterAncestors(dir: string): Promise<void> {
    const parts = dir === "." ? [] : dir.split("/");
    await this.enter(".");
    for (let i = 1; i <= parts.length; i++) await this.enter(parts.slice(0, i).join("/"));
  }

  /** Whether the walk skips `path` (a file or folder whose parent folders were entered). */
  skips(path: string, type: WorkspaceDirEntry["type"]): boolean {
    const name = path.slice(path.lastIndexOf("/") + 1);
    if (this.skipped.has(name) || isInsideGitDir(name)) return true;
    if (this.excluded(path)) return true;
    if (!this.useIgnoreFiles) return false;
    const asDir = type === "directory";
    // The deepest folder with an opinion decides (a nested file can re-include with `!`).
    for (let dir = parentOf(path); ; dir = parentOf(dir)) {
      const level = this.levels.get(dir);
      if (level) {
        const rel = level.dir === "" ? path : path.slice(level.dir.length + 1);
        const verdict = level.rules.test(asDir ? `${rel}/` : rel);
        if (verdict.ignored) return true;
        if (verdict.unignored) return false;
      }
      if (dir === ".") return false;
    }
  }
}

/**
 * Every entry below `start`, breadth first (a capped listing shows the top levels whole), each
 * folder's entries sorted folders first, then by name. Skipped folders are not entered; symlinks are yielded but not
 * followed. Stops quietly after MAX_WALK_ENTRIES; `walkState.truncated` says so.
 */
export async function* walkWorkspace(
  fs: WorkspaceFileSystem,
  options: WalkOptions,
  walkState: { truncated: boolean } = { truncated: false },
): AsyncGenerator<WalkEntry> {
  const rules = new IgnoreRules(fs, options);
  await rules.enterAncestors(parentOf(options.start === "." ? "." : options.start));
  const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
  let queue: string[] = [options.start];
  let visited = 0;
  for (let depth = 1; queue.length > 0 && depth <= maxDepth; depth++) {
    const next: string[] = [];
    for (const dir of queue) {
      throwIfAborted(options.signal);
      let entries: WorkspaceDirEntry[];
      try {
        entries = await fs.readDirectory(dir);
      } catch {
        continue; // vanished or unreadable meanwhile: the rest of the walk goes on
      }
      await rules.enter(dir, entries);
      // Folders first, then by name: a capped listing keeps the structure rather than loose files.
      entries.sort((a, b) => Number(b.type === "directory") - Number(a.type === "directory") || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        const path = join(dir, entry.name);
        if (rules.skips(path, entry.type)) continue;
        if (++visited > MAX_WALK_ENTRIES) {
          walkState.truncated = true;
          return;
        }
        yield { path, name: entry.name, type: entry.type, depth };
        if (entry.type === "directory") next.push(path);
      }
    }
    queue = next;
  }
}
