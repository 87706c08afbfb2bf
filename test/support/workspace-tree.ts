// A generated workspace of realistic shape for the discovery tools' tests and benchmarks: packages
// with sources and tests, .gitignore rules (a folder, a pattern, a re-include, a nested file),
// node_modules, binary files and one huge file. The generator records, as it writes, which files a
// developer would see and which lines hold a word: the tests' expectations come from here, not
// from the code under test.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Rng as Seeded } from "./seeded-random";

export interface GeneratedTree {
  root: string;
  /** Every file written, workspace-relative. */
  allFiles: string[];
  /** Files not ignored (.gitignore, node_modules), binary and huge ones included. */
  visibleFiles: string[];
  /** Visible text files at most 1 MB: what a search reads. */
  searchableFiles: string[];
  /** Folders not ignored. */
  visibleDirs: string[];
  /** Lines of the searchable files, to count matches independently of the tools. */
  lines(path: string): string[];
}

const LINE_TEMPLATES: readonly ((r: Seeded, i: number) => string)[] = [
  (r) => `import { ${r.pick(["helper", "Config", "render", "parse", "useState"])} } from "./${r.pick(["util", "types", "lib/core", "state"])}";`,
  (_r, i) => `export function handler${i}(input: string): number {`,
  (r) => `  const value = ${r.int(0, 9999)};`,
  (r) => `  return value * ${r.int(2, 9)};`,
  () => "}",
  (r) => `// ${r.pick(["TODO: tidy this", "Keeps the cache warm", "See the README", "Numbers from the report", "Résumé of the café’s menu"])}`,
  (r) => `export const listenPort = ${r.int(1000, 9999)};`,
  (r) => `  timeout: ${r.int(1, 60)}_000,`,
  (r) => `const message = "${r.pick(["hello", "Hello, world", "a\ttab", "ünïcödé ✓ on port 80", "PORT is set by the environment"])}";`,
  (r) => `    ${"x".repeat(r.int(0, 40))}`,
];

/**
 * Writes about `fileCount` files under `root` (which must exist and be empty). Deterministic for
 * a seed. Roughly: 6% ignored by .gitignore, 5% node_modules, 1% binary, one 3 MB file.
 */
export function generateTree(root: string, fileCount: number, seed = 7): GeneratedTree {
  const r = new Seeded(seed);
  const allFiles: string[] = [];
  const visibleFiles: string[] = [];
  const searchableFiles: string[] = [];
  const visibleDirs = new Set<string>();
  const texts = new Map<string, string>();

  const made = new Set<string>();
  const write = (rel: string, content: string | Uint8Array, kind: "text" | "binary" | "huge" | "ignored"): void => {
    const full = join(root, rel);
    const parent = join(full, "..");
    if (!made.has(parent)) {
      mkdirSync(parent, { recursive: true });
      made.add(parent);
    }
    writeFileSync(full, content);
    allFiles.push(rel);
    if (kind === "ignored") return;
    visibleFiles.push(rel);
    const parts = rel.split("/");
    for (let i = 1; i < parts.length; i++) visibleDirs.add(parts.slice(0, i).join("/"));
    if (kind === "text") {
      searchableFiles.push(rel);
      texts.set(rel, content as string);
    }
  };
  const source = (n: number): string => {
    const lines: string[] = [];
    const count = r.int(4, 14);
    for (let i = 0; i < count; i++) lines.push(r.pick(LINE_TEMPLATES)(r, n * 100 + i));
    // A few files end without a newline, a few use CRLF: both engines must count lines alike.
    const eol = r.next() < 0.05 ? "\r\n" : "\n";
    return lines.join(eol) + (r.next() < 0.1 ? "" : eol);
  };

  // Root ignore rules: a folder, a pattern with a re-include, a pattern anchored at the root.
  write(".gitignore", "dist/\n*.log\n!keep.log\n/coverage\n", "text");
  write("README.md", "# Generated workspace\n\nThe server reads its port from config/server.ts.\n", "text");
  write("config/server.ts", 'export const server = {\n  host: "0.0.0.0",\n  port: 3000,\n};\n', "text");
  write("keep.log", "kept despite *.log: port 1\n", "text");
  write("debug.log", "ignored log: port 2\n", "ignored");
  write("coverage/lcov.info", "port coverage\n", "ignored");
  write(
    "assets/huge.json",
    `[${Array.from({ length: 60_000 }, (_, i) => `{"id":${i},"port":${1000 + (i % 9000)},"pad":"${"p".repeat(20)}"}`).join(",\n")}]\n`,
    "huge",
  );

  let n = 0;
  const budget = fileCount - allFiles.length;
  const modules = Math.round(budget * 0.05);
  const binaries = Math.round(budget * 0.01);
  const ignoredBuild = Math.round(budget * 0.06);
  for (let i = 0; i < modules; i++) write(`node_modules/dep-${i % 40}/lib/file-${i}.js`, `module.exports = { port: ${i} };\n`, "ignored");
  for (let i = 0; i < binaries; i++) {
    const bytes = new Uint8Array(600);
    for (let k = 0; k < bytes.length; k++) bytes[k] = r.int(0, 255);
    bytes[3] = 0; // a NUL early: every tool calls it binary
    bytes.set(new TextEncoder().encode("port listenPort"), 100);
    write(`assets/img-${i}.png`, bytes, "binary");
  }
  const packages = Math.max(1, Math.round((budget - modules - binaries - ignoredBuild) / 40));
  for (let i = 0; i < ignoredBuild; i++) {
    const pkg = `packages/pkg-${String(i % packages).padStart(3, "0")}`;
    write(`${pkg}/dist/out-${i}.js`, `var port = ${i};\n`, "ignored");
  }
  // A nested .gitignore in the first package, with a re-include.
  write(`packages/pkg-000/.gitignore`, "*.snap\n!important.snap\n", "text");
  write(`packages/pkg-000/test/a.snap`, "snapshot port\n", "ignored");
  write(`packages/pkg-000/test/important.snap`, "snapshot listenPort = 1\n", "text");
  while (allFiles.length < fileCount) {
    const pkg = `packages/pkg-${String(n % packages).padStart(3, "0")}`;
    const dir = r.pick(["src", "src", "src/lib", "src/components", "test", "docs"]);
    const ext = dir === "docs" ? "md" : r.pick(["ts", "ts", "tsx", "js"]);
    write(`${pkg}/${dir}/file-${n}.${ext}`, source(n), "text");
    n++;
  }

  return {
    root,
    allFiles,
    visibleFiles,
    searchableFiles,
    visibleDirs: [...visibleDirs].sort(),
    lines: (path) => {
      const text = texts.get(path) ?? "";
      const lines = text.split("\n");
      if (text.endsWith("\n")) lines.pop();
      return lines.map((l) => l.replace(/\r$/, ""));
    },
  };
}

/** Matching lines, counted from the generator's own record: [path, 1-based line] pairs. */
export function expectedMatches(tree: GeneratedTree, test: (line: string) => boolean, under = ""): [string, number][] {
  const out: [string, number][] = [];
  for (const path of [...tree.searchableFiles].sort()) {
    if (under && !path.startsWith(`${under}/`)) continue;
    tree.lines(path).forEach((line, i) => {
      if (test(line)) out.push([path, i + 1]);
    });
  }
  return out;
}
