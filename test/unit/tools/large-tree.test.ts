// list_files, find_files and search on a generated 10,000-file workspace: right results (counted
// by the generator, not by the tools), caps that hold, and ripgrep (Debian's, the same program
// VS Code ships) agreeing with the portable engine on every match.
import assert from "node:assert/strict";
import {
  createFindFilesTool,
  createListFilesTool,
  createNodeWorkspaceFs,
  createPortableSearch,
  createSearchTool,
  FIND_CAPS,
  LIST_CAPS,
  SEARCH_CAPS,
  SEARCH_MAX_COLLECTED,
  type SearchBackend,
  type SearchRequest,
} from "../../../src/core/tools";
import { createRipgrepSearch } from "../../../src/host/adapters/ripgrep-search";
import { tempDir } from "../../support/temp";
import { expectedMatches, generateTree, type GeneratedTree } from "../../support/workspace-tree";
import { textOf } from "./helpers";

const RG = "/usr/bin/rg";

describe("discovery tools on a generated 10,000-file tree", function () {
  this.timeout(120_000);
  let dir: ReturnType<typeof tempDir>;
  let tree: GeneratedTree;
  let portable: SearchBackend;
  let ripgrep: SearchBackend;
  before(() => {
    dir = tempDir("tree");
    tree = generateTree(dir.path, 10_000);
    portable = createPortableSearch(createNodeWorkspaceFs(dir.path));
    ripgrep = createRipgrepSearch({ rgPath: RG, folderPath: dir.path });
  });
  after(() => dir.cleanup());

  const fs = () => createNodeWorkspaceFs(dir.path);

  it("has the promised shape", () => {
    assert.equal(tree.allFiles.length, 10_000);
    assert.ok(tree.visibleFiles.length > 8_000 && tree.visibleFiles.length < 9_500, String(tree.visibleFiles.length));
    assert.ok(tree.visibleFiles.some((f) => f.endsWith(".png")));
    assert.ok(tree.visibleFiles.includes("assets/huge.json"));
  });

  it("list_files: the top levels, capped, with the count of the rest and folders saying what they hold", async () => {
    const result = await createListFilesTool(fs(), { root: dir.path }).execute("c", {});
    const depthOf = (p: string) => p.split("/").length;
    const expectedTotal = tree.visibleFiles.filter((f) => depthOf(f) <= 3).length + tree.visibleDirs.filter((d) => depthOf(d) <= 3).length;
    assert.equal(result.details.total, expectedTotal);
    const shown = result.details.entries.length;
    assert.ok(shown > 40 && shown <= LIST_CAPS.maxLines, String(shown));
    const text = textOf(result);
    assert.match(text, new RegExp(`\\[${expectedTotal - shown} more entries not shown \\(the (${LIST_CAPS.maxLines} entry|2 KB output) limit\\)`));
    // Folders first; ignored and skipped entries never listed.
    const top = text.split("\n").filter((l) => /^\S/.test(l) && !l.startsWith("["));
    assert.deepEqual(
      top.map((l) => l.replace(/ \(\+\d+\)$/, "")),
      ["assets/", "config/", "packages/", ".gitignore", "README.md", "keep.log"],
    );
    assert.match(top[2]!, /^packages\/ \(\+\d+\)$/);
    assert.doesNotMatch(text, /node_modules|debug\.log|coverage|dist\//);
    assert.match(text, /^keep\.log$/m);
    assert.ok(Buffer.byteLength(text) <= LIST_CAPS.maxBytes + 200);
  });

  it("list_files with includeIgnored lists node_modules and the ignored files, never .git", async () => {
    const result = await createListFilesTool(fs(), { root: dir.path }).execute("c", { depth: 1, includeIgnored: true });
    const names = result.details.entries.map((e) => e.path).sort();
    assert.deepEqual(names, [".gitignore", "README.md", "assets", "config", "coverage", "debug.log", "keep.log", "node_modules", "packages"]);
  });

  it("find_files: every match counted, shortest first, capped", async () => {
    const result = await createFindFilesTool(fs(), { root: dir.path }).execute("c", { pattern: "*.tsx" });
    const expected = tree.visibleFiles.filter((f) => f.endsWith(".tsx")).sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
    assert.ok(expected.length > FIND_CAPS.maxLines);
    assert.equal(result.details.total, expected.length);
    assert.deepEqual(result.details.files, expected.slice(0, result.details.files.length));
    assert.ok(result.details.files.length > 0 && result.details.files.length <= FIND_CAPS.maxLines);
    assert.match(textOf(result), new RegExp(`\\[${expected.length - result.details.files.length} more files not shown`));
    const logs = await createFindFilesTool(fs(), { root: dir.path }).execute("c", { pattern: "*.log" });
    assert.deepEqual(logs.details.files, ["keep.log"]);
    const snaps = await createFindFilesTool(fs(), { root: dir.path }).execute("c", { pattern: "**/*.snap", path: "packages/pkg-000" });
    assert.deepEqual(snaps.details.files, ["packages/pkg-000/test/important.snap"]);
  });

  // The whole tree twice; narrower requests for the other cases (the portable engine reads every
  // file it is given, and this suite runs on a shared 2-core machine).
  const FEW_PACKAGES = "**/pkg-00[0-4]/**";
  const requests: [string, Omit<SearchRequest, "rules">, (line: string) => boolean, ((path: string) => boolean)?][] = [
    [
      "literal, any case",
      { query: "listenport", regex: false, caseSensitive: false, path: ".", pathIsFile: false },
      (l) => l.toLowerCase().includes("listenport"),
    ],
    ["regex", { query: "listenPort = [0-9]{4};$", regex: true, caseSensitive: true, path: ".", pathIsFile: false }, (l) => /listenPort = [0-9]{4};$/.test(l)],
    [
      "literal, exact case",
      { query: "PORT", regex: false, caseSensitive: true, include: FEW_PACKAGES, path: ".", pathIsFile: false },
      (l) => l.includes("PORT"),
      (p) => /\/pkg-00[0-4]\//.test(p),
    ],
    [
      "non-ASCII before the match",
      { query: "on port 80", regex: false, caseSensitive: false, include: FEW_PACKAGES, path: ".", pathIsFile: false },
      (l) => l.toLowerCase().includes("on port 80"),
      (p) => /\/pkg-00[0-4]\//.test(p),
    ],
    [
      "include and path",
      { query: "port", regex: false, caseSensitive: false, include: "**/*.md", path: "packages/pkg-003", pathIsFile: false },
      (l) => l.toLowerCase().includes("port"),
      (p) => p.startsWith("packages/pkg-003/") && p.endsWith(".md"),
    ],
  ];

  for (const [name, request, test, files] of requests) {
    it(`search (${name}): ripgrep and the portable engine agree with the generator`, async () => {
      const full: SearchRequest = { ...request, rules: {} };
      const [fromRg, fromPortable] = [await ripgrep.search(full), await portable.search(full)];
      const expected = expectedMatches(tree, test).filter(([p]) => !files || files(p));
      assert.ok(expected.length > 0, "the query must match something");
      assert.equal(fromRg.incomplete, false);
      assert.deepEqual(
        fromPortable.matches.map((m) => [m.path, m.line]),
        expected,
      );
      assert.deepEqual(fromRg.matches, fromPortable.matches);
    });
  }

  it("search: columns count UTF-16 units after non-ASCII text, as VS Code does", async () => {
    const result = await ripgrep.search({ query: "on port 80", regex: false, caseSensitive: false, path: ".", pathIsFile: false, rules: {} });
    const first = result.matches[0]!;
    assert.equal(first.text.slice(first.column - 1, first.column - 1 + "on port 80".length), "on port 80");
  });

  it("search: binary files, the huge file, ignored files and node_modules are never searched", async () => {
    for (const backend of [ripgrep, portable]) {
      const result = await backend.search({ query: "port", regex: false, caseSensitive: false, path: "assets", pathIsFile: false, rules: {} });
      assert.deepEqual(result.matches, []);
      const logs = await backend.search({ query: "port", regex: false, caseSensitive: false, include: "*.log", path: ".", pathIsFile: false, rules: {} });
      assert.deepEqual(
        logs.matches.map((m) => m.path),
        ["keep.log"],
      );
      const snaps = await backend.search({ query: "snapshot", regex: false, caseSensitive: false, path: "packages/pkg-000", pathIsFile: false, rules: {} });
      assert.deepEqual(
        snaps.matches.map((m) => m.path),
        ["packages/pkg-000/test/important.snap"],
      );
    }
  });

  it("search: VS Code's excludes apply to both engines", async () => {
    const rules = { excludes: ["**/docs/**", "**/*.tsx"] };
    const request: SearchRequest = { query: "listenport", regex: false, caseSensitive: false, path: ".", pathIsFile: false, include: FEW_PACKAGES, rules };
    const [a, b] = [await ripgrep.search(request), await portable.search(request)];
    assert.deepEqual(a.matches, b.matches);
    assert.ok(a.matches.length > 0);
    assert.ok(a.matches.every((m) => !m.path.includes("/docs/") && !m.path.endsWith(".tsx")));
  });

  it("the search tool: 100 lines at most, shortened, with the count of the rest; a flood says 'more than'", async () => {
    const expected = expectedMatches(tree, (l) => l.toLowerCase().includes("listenport"));
    for (const backend of [ripgrep, portable]) {
      const tool = createSearchTool(fs(), { root: dir.path, backend });
      const some = await tool.execute("c", { query: "listenPort" });
      assert.equal(some.details.total, expected.length);
      assert.equal(some.details.matches.length, SEARCH_CAPS.maxLines);
      assert.match(textOf(some).split("\n")[0]!, /^[^:]+:\d+:\d+: /);
      assert.match(textOf(some), new RegExp(`\\[${expected.length - SEARCH_CAPS.maxLines} more matching lines not shown`));
      const flood = await tool.execute("c", { query: "port" });
      assert.equal(flood.details.incomplete, true);
      assert.equal(flood.details.total, SEARCH_MAX_COLLECTED);
      assert.match(textOf(flood), new RegExp(`\\[more than ${SEARCH_MAX_COLLECTED - SEARCH_CAPS.maxLines} more matching lines not shown`));
      assert.ok(Buffer.byteLength(textOf(flood)) <= SEARCH_CAPS.maxBytes + 300);
    }
  });
});
