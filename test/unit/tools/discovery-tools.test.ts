// list_files, find_files and search on small hand-made trees: the exact text the model reads.
import assert from "node:assert/strict";
import {
  createFindFilesTool,
  createListFilesTool,
  createNodeWorkspaceFs,
  createPortableSearch,
  createSearchTool,
  type SearchBackend,
} from "../../../src/core/tools";
import { createRipgrepSearch, withPortableFallback } from "../../../src/host/adapters/ripgrep-search";
import { makeSandbox, rejection, textOf, type Sandbox } from "./helpers";

describe("discovery tools", () => {
  let s: Sandbox;
  beforeEach(() => {
    s = makeSandbox();
    s.write(".gitignore", "build/\n*.tmp\n");
    s.write("README.md", "# App\n");
    s.write("src/index.ts", "import { port } from './config';\nlisten(port);\n");
    s.write("src/config.ts", "export const port = 3000;\n");
    s.write("src/lib/.gitignore", "*.gen.ts\n!keep.gen.ts\n");
    s.write("src/lib/a.gen.ts", "generated\n");
    s.write("src/lib/keep.gen.ts", "kept\n");
    s.write("src/lib/util.ts", "export const twice = (n: number) => n * 2;\n");
    s.write("build/out.js", "var port = 3000;\n");
    s.write("notes.tmp", "port\n");
    s.write("node_modules/dep/index.js", "port\n");
    s.write("empty/.gitkeep", "");
    s.link("src/alias", "lib");
  });
  afterEach(() => s.cleanup());

  const fs = () => createNodeWorkspaceFs(s.ws);
  const engines = (): [string, SearchBackend][] => [
    ["portable", createPortableSearch(fs())],
    ["ripgrep", createRipgrepSearch({ rgPath: "/usr/bin/rg", folderPath: s.ws })],
  ];

  describe("list_files", () => {
    it("draws a tree: folders first, then files, nested .gitignore re-includes honoured, links marked", async () => {
      const result = await createListFilesTool(fs(), { root: s.ws }).execute("c", {});
      assert.equal(
        textOf(result),
        [
          "empty/",
          "  .gitkeep",
          "src/",
          "  lib/",
          "    .gitignore",
          "    keep.gen.ts",
          "    util.ts",
          "  alias@",
          "  config.ts",
          "  index.ts",
          ".gitignore",
          "README.md",
        ].join("\n"),
      );
      assert.equal(result.details.total, 12);
      assert.equal(result.details.truncated, false);
      assert.deepEqual(result.details.entries[3], { path: "src/lib", type: "directory" });
    });

    it("depth, a subfolder, includeIgnored, and a cap that says what folders hold", async () => {
      const tool = createListFilesTool(fs(), { root: s.ws, caps: { maxLines: 3, maxBytes: 10_000 } });
      const capped = textOf(await tool.execute("c", { depth: 2 }));
      assert.equal(
        capped,
        [
          "empty/ (+1)",
          "src/ (+4)",
          ".gitignore",
          "",
          "[6 more entries not shown (the 3 entry limit); (+N) is what a folder holds beyond those shown. List a subfolder with path to see inside it.]",
        ].join("\n"),
      );
      const sub = textOf(await createListFilesTool(fs(), { root: s.ws }).execute("c", { path: "src/lib", depth: 1 }));
      assert.equal(sub, [".gitignore", "keep.gen.ts", "util.ts"].join("\n"));
      const all = await createListFilesTool(fs(), { root: s.ws }).execute("c", { depth: 1, includeIgnored: true });
      assert.deepEqual(
        all.details.entries.map((e) => e.path),
        ["build", "empty", "node_modules", "src", ".gitignore", "README.md", "notes.tmp"],
      );
    });

    it("says when a folder is empty", async () => {
      s.write("void/.x.tmp", "");
      assert.match(textOf(await createListFilesTool(fs(), { root: s.ws }).execute("c", { path: "void" })), /^void is empty \(or everything in it is ignored/);
    });
  });

  describe("find_files", () => {
    it("matches names anywhere without /, paths with /, relative to the folder given; shortest first", async () => {
      const tool = createFindFilesTool(fs(), { root: s.ws });
      assert.deepEqual((await tool.execute("c", { pattern: "*.ts" })).details.files, [
        "src/index.ts",
        "src/config.ts",
        "src/lib/util.ts",
        "src/lib/keep.gen.ts",
      ]);
      assert.deepEqual((await tool.execute("c", { pattern: "lib/*.ts", path: "src" })).details.files, ["src/lib/util.ts", "src/lib/keep.gen.ts"]);
      assert.deepEqual((await tool.execute("c", { pattern: "{README,index}.*" })).details.files, ["README.md", "src/index.ts"]);
      assert.match(textOf(await tool.execute("c", { pattern: "*.py" })), /^No files match "\*\.py" in the workspace\.$/);
    });
  });

  describe("search", () => {
    it("gives path:line:column: line, sorted, with ignored files left out (both engines)", async () => {
      for (const [name, backend] of engines()) {
        const text = textOf(await createSearchTool(fs(), { root: s.ws, backend }).execute("c", { query: "PORT" }));
        assert.equal(
          text,
          [
            "src/config.ts:1:3: export const port = 3000;",
            "src/index.ts:1:3: import { port } from './config';",
            "src/index.ts:2:8: listen(port);",
            "src/lib/util.ts:1:3: export const twice = (n: number) => n * 2;",
          ].join("\n"),
          name,
        );
      }
    });

    it("shortens a long line around the match", async () => {
      s.write("long.txt", `${"a".repeat(5000)} needle ${"b".repeat(5000)}\n`);
      for (const [name, backend] of engines()) {
        const result = await createSearchTool(fs(), { root: s.ws, backend }).execute("c", { query: "needle" });
        const line = textOf(result);
        assert.match(line, /^long\.txt:1:5002: …a+ needle b+…$/, name);
        assert.ok(line.length < 260, name);
      }
    });

    it("refuses an empty query, a line break, and a regex neither engine can compile", async () => {
      const tool = createSearchTool(fs(), { root: s.ws, backend: withPortableFallback(engines()[1]![1], engines()[0]![1]) });
      assert.match((await rejection(() => tool.execute("c", { query: "" }))).message, /query is empty/);
      assert.match((await rejection(() => tool.execute("c", { query: "a\nb" }))).message, /line break/);
      assert.match((await rejection(() => tool.execute("c", { query: "(unclosed", regex: true }))).message, /Invalid regular expression/);
    });

    it("takes JavaScript-only regex syntax through the portable engine when ripgrep refuses it", async () => {
      const logs: string[] = [];
      const backend = withPortableFallback(engines()[1]![1], engines()[0]![1], (l) => logs.push(l));
      const result = await createSearchTool(fs(), { root: s.ws, backend }).execute("c", { query: "(?<=const )port", regex: true });
      assert.equal(textOf(result), "src/config.ts:1:14: export const port = 3000;");
      assert.equal(result.details.engine, "portable");
      assert.equal(logs.length, 1);
    });

    it("says so when nothing matches", async () => {
      const result = await createSearchTool(fs(), { root: s.ws, backend: engines()[0]![1] }).execute("c", { query: "nowhere", include: "*.md" });
      assert.equal(textOf(result), 'No matches for "nowhere" in the workspace (files matching *.md).');
    });
  });
});
