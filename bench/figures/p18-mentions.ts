// P18 the `@` list: a generated workspace of 100,000 files on disk (seeded: nested folders,
// camelCase, kebab-case and dotted names) indexed by the real walk (core/mention-index over the
// Node workspace file system, ignore rules on), then typed into as a user does: each abbreviation
// one keystroke at a time, the time of each keystroke's first results measured (the host's work:
// the fuzzy match over every path; the webview round trip is not in it). Warm: after a first
// round. Memory: the index's heap against the same path strings alone in an array.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildPathIndex, type SearchMemo, searchPathIndex } from "../../src/core/mention-index";
import { createNodeWorkspaceFs } from "../../src/core/tools/workspace-fs";
import { Rng } from "../lib/random";
import { gc, summarize, type Summary } from "../lib/stats";

export const P18_FILES = 100_000;
export const P18_GOAL_MS = 100;
export const P18_MEMORY_GOAL = 1.5;

export interface P18Result {
  files: number;
  indexed: number;
  buildMs: number;
  keystroke: Summary;
  p95: number;
  keystrokes: number;
  indexBytes: number;
  stringBytes: number;
  memoryRatio: number;
}

const WORDS = [
  "server",
  "config",
  "client",
  "router",
  "handler",
  "user",
  "session",
  "store",
  "cache",
  "auth",
  "util",
  "index",
  "model",
  "view",
  "test",
  "api",
  "core",
  "data",
  "event",
  "query",
  "schema",
  "worker",
  "queue",
  "render",
];
const EXT = [".ts", ".tsx", ".js", ".json", ".md", ".css", ".test.ts"];

function fileName(rng: Rng): string {
  const a = rng.pick(WORDS);
  const b = rng.pick(WORDS);
  switch (rng.int(0, 2)) {
    case 0:
      return `${a}${b[0]!.toUpperCase()}${b.slice(1)}${rng.pick(EXT)}`;
    case 1:
      return `${a}-${b}${rng.pick(EXT)}`;
    default:
      return `${a}.${b}${rng.pick(EXT)}`;
  }
}

/** Writes `count` files under `root`: ~20 files a folder, folders 1–5 deep. */
export function generateWorkspace(root: string, count: number, seed = 18): string[] {
  const rng = new Rng(seed);
  const written: string[] = [];
  while (written.length < count) {
    const depth = rng.int(1, 5);
    const parts: string[] = [];
    for (let i = 0; i < depth; i++) parts.push(`${rng.pick(WORDS)}${rng.int(0, 6)}`);
    const dir = parts.join("/");
    mkdirSync(join(root, dir), { recursive: true });
    const n = Math.min(count - written.length, rng.int(10, 30));
    for (let i = 0; i < n; i++) {
      const name = `${i}-${fileName(rng)}`;
      writeFileSync(join(root, dir, name), "");
      written.push(`${dir}/${name}`);
    }
  }
  return written;
}

/** What a user types: abbreviations of real paths (segments' first letters, file name words). */
function typedQueries(rng: Rng, paths: readonly string[], count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const path = rng.pick(paths);
    const segments = path.split("/");
    const file = segments[segments.length - 1]!.replace(/^\d+-/, "");
    const query =
      i % 3 === 0
        ? segments
            .slice(0, -1)
            .map((s) => s.slice(0, 2))
            .join("") + file.slice(0, 3)
        : i % 3 === 1
          ? file.replace(/[.-]/g, "").slice(0, 8)
          : `${segments[0]!.slice(0, 3)}${file.slice(0, 4)}`;
    out.push(query);
  }
  return out;
}

export async function runP18(scratch: string, log: (line: string) => void, quick: boolean): Promise<P18Result> {
  const root = join(scratch, "p18-workspace");
  mkdirSync(root, { recursive: true });
  const files = quick ? 20_000 : P18_FILES;
  log(`  P18: writing ${files.toLocaleString("en-US")} files …`);
  const written = generateWorkspace(root, files);
  const fs = createNodeWorkspaceFs(root);

  gc();
  const before = process.memoryUsage().heapUsed;
  const started = performance.now();
  const index = await buildPathIndex(fs, {});
  const buildMs = performance.now() - started;
  gc();
  const indexBytes = process.memoryUsage().heapUsed - before;
  // The same strings alone: flat copies in an array (what "the path strings" cost).
  const copies = index.paths.map((p) => Buffer.from(p, "utf8").toString("utf8"));
  gc();
  const withCopies = process.memoryUsage().heapUsed;
  const stringBytes = withCopies - before - indexBytes;
  log(
    `  P18: indexed ${index.paths.length.toLocaleString("en-US")} paths in ${Math.round(buildMs)} ms; index ${Math.round(indexBytes / 1e6)} MB, strings ${Math.round(stringBytes / 1e6)} MB`,
  );

  const rng = new Rng(1818);
  const queries = typedQueries(rng, written, quick ? 10 : 40);
  const times: number[] = [];
  // Warm-up round (JIT, scratch buffers), then the measured one: every keystroke of every query.
  for (const round of [0, 1]) {
    for (const query of queries) {
      // Each abbreviation is typed into a fresh `@`: its first keystroke searches every path.
      const memo: SearchMemo = {};
      for (let k = 1; k <= query.length; k++) {
        const t = performance.now();
        const hits = searchPathIndex(index, query.slice(0, k), undefined, memo);
        const elapsed = performance.now() - t;
        if (round === 1) times.push(elapsed);
        if (hits.length === 0 && k === query.length) log(`  P18: no hit for ${query}`);
      }
    }
  }
  void copies.length;
  const sorted = [...times].sort((a, b) => a - b);
  const p95 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]!;
  return {
    files,
    indexed: index.paths.length,
    buildMs,
    keystroke: summarize(times),
    p95,
    keystrokes: times.length,
    indexBytes,
    stringBytes,
    memoryRatio: indexBytes / stringBytes,
  };
}
