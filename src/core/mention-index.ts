// The workspace's paths for the composer's `@` list: the walk the tools use (ignore files,
// files.exclude, `.git` and `node_modules` skipped, links not followed, MAX_WALK_ENTRIES), kept
// in memory and matched with the shared fuzzy matcher on each keystroke. The index holds the path
// strings themselves and one byte per entry (file or folder): P18 holds it to 1.5× the strings.
import { fuzzyFilter, MAX_FUZZY_RESULTS } from "../shared/fuzzy";
import { walkWorkspace, type WalkRules } from "./tools/workspace-walk";
import type { WorkspaceFileSystem } from "./tools/workspace-fs";

export interface IndexedPath {
  readonly path: string;
  readonly folder: boolean;
  readonly positions: readonly number[];
}

export interface PathIndexSnapshot {
  readonly paths: readonly string[];
  /** 1 where the entry is a folder. */
  readonly folders: Uint8Array;
  /** The walk stopped at MAX_WALK_ENTRIES. */
  readonly truncated: boolean;
}

/** Walks the workspace once into a snapshot (paths in walk order: shallow first). */
export async function buildPathIndex(fs: WorkspaceFileSystem, rules: WalkRules, signal?: AbortSignal): Promise<PathIndexSnapshot> {
  const paths: string[] = [];
  const kinds: number[] = [];
  const state = { truncated: false };
  for await (const entry of walkWorkspace(fs, { ...rules, start: ".", ...(signal ? { signal } : {}) }, state)) {
    if (entry.type === "other") continue;
    paths.push(entry.path);
    kinds.push(entry.type === "directory" ? 1 : 0);
  }
  return { paths, folders: Uint8Array.from(kinds), truncated: state.truncated };
}

/** The last query's matches: typing one more character only narrows them (a subsequence match stays one for a prefix). */
export interface SearchMemo {
  snapshot?: PathIndexSnapshot;
  query?: string;
  matched?: Int32Array;
}

/** The best matches of `query` (without the `@`), best first. With a memo, a query extending the last one searches only its matches. */
export function searchPathIndex(index: PathIndexSnapshot, query: string, limit = MAX_FUZZY_RESULTS, memo?: SearchMemo): IndexedPath[] {
  const key = query.replace(/\s+/g, "").toLowerCase();
  const narrowing = memo && memo.snapshot === index && memo.query !== undefined && memo.matched !== undefined && key.startsWith(memo.query);
  const matched: number[] = [];
  const hits = fuzzyFilter(query, index.paths, limit, { ...(narrowing ? { within: memo.matched! } : {}), ...(memo ? { matched } : {}) });
  if (memo) {
    memo.snapshot = index;
    memo.query = key;
    memo.matched = Int32Array.from(matched);
  }
  return hits.map((m) => ({ path: index.paths[m.index]!, folder: index.folders[m.index] === 1, positions: m.positions }));
}

/**
 * A snapshot kept up to date lazily: built on the first query, built again (in the background,
 * the old one answering meanwhile) after `invalidate()` — the host calls it when files are created
 * or deleted, or the exclude settings change.
 */
export class PathIndex {
  private snapshot: PathIndexSnapshot | undefined;
  private building: Promise<PathIndexSnapshot> | undefined;
  private stale = true;
  private generation = 0;
  /** The last query's matches (the next keystroke narrows them). */
  readonly memo: SearchMemo = {};

  constructor(
    private readonly fs: WorkspaceFileSystem,
    private readonly rules: () => WalkRules,
    private readonly log: (line: string) => void = () => {},
  ) {}

  invalidate(): void {
    this.stale = true;
    this.generation++;
  }

  /** The current snapshot, starting a walk when it is stale; waits only when there is none yet. */
  async current(): Promise<{ snapshot: PathIndexSnapshot; indexing: boolean }> {
    if (this.stale && !this.building) this.rebuild();
    if (this.snapshot) return { snapshot: this.snapshot, indexing: this.building !== undefined };
    const built = await this.building!;
    return { snapshot: built, indexing: this.building !== undefined };
  }

  private rebuild(): void {
    const generation = this.generation;
    this.stale = false;
    const started = Date.now();
    const building = buildPathIndex(this.fs, this.rules());
    this.building = building;
    building.then(
      (snapshot) => {
        this.snapshot = snapshot;
        this.building = undefined;
        // A change during the walk: the next query walks again.
        if (generation !== this.generation) this.stale = true;
        this.log(`mentions: indexed ${snapshot.paths.length} paths in ${Date.now() - started} ms${snapshot.truncated ? " (stopped at the cap)" : ""}`);
      },
      (error: unknown) => {
        this.building = undefined;
        this.stale = true;
        this.log(`mentions: the workspace walk failed: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  }
}
