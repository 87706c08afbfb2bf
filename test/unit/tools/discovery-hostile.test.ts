// The hostile-path suite for list_files, find_files and search, plus what only globs can try:
// patterns that climb (`../**`, `{..,x}`), absolute and home patterns, symlinked folders leading
// out, and a `path` that is a file. Nothing outside the workspace is ever read or named.
import assert from "node:assert/strict";
import type { AgentTool } from "@earendil-works/pi-agent-core";
import {
  createFindFilesTool,
  createListFilesTool,
  createNodeWorkspaceFs,
  createPortableSearch,
  createSearchTool,
  type SearchBackend,
} from "../../../src/core/tools";
import { createRipgrepSearch } from "../../../src/host/adapters/ripgrep-search";
import { hostilePaths, makeHostileSandbox, rejection, SECRET, snapshotTree, textOf, type Sandbox } from "./helpers";

const RG = "/usr/bin/rg";

describe("hostile paths: list_files, find_files, search", () => {
  let s: Sandbox;
  let snapshot: Map<string, string>;
  before(() => {
    s = makeHostileSandbox();
    s.write("sub/config.ts", "export const port = 3000;\n");
    snapshot = snapshotTree(s.base);
  });
  after(() => s.cleanup());

  const fs = () => createNodeWorkspaceFs(s.ws);
  const backends = (): [string, SearchBackend][] => [
    ["portable", createPortableSearch(fs())],
    ["ripgrep", createRipgrepSearch({ rgPath: RG, folderPath: s.ws })],
  ];
  const tools = (): [string, AgentTool, (path: string) => Record<string, unknown>][] => [
    ["list_files", createListFilesTool(fs(), { root: s.ws }) as AgentTool, (path) => ({ path })],
    ["find_files", createFindFilesTool(fs(), { root: s.ws }) as AgentTool, (path) => ({ pattern: "**", path })],
    ...backends().map(([name, backend]): [string, AgentTool, (path: string) => Record<string, unknown>] => [
      `search (${name})`,
      createSearchTool(fs(), { root: s.ws, backend }) as AgentTool,
      (path) => ({ query: "SECRET", path }),
    ]),
  ];

  it("refuse every hostile path argument, never naming the secret", async () => {
    for (const [name, tool, args] of tools()) {
      for (const path of hostilePaths(s)) {
        if (path === "") continue; // no path: the whole workspace, checked below
        let text: string;
        try {
          text = textOf(await tool.execute("call", args(path) as never));
        } catch (error) {
          assert.ok(error instanceof Error);
          assert.ok(!error.message.includes(SECRET), `${name}: error for ${JSON.stringify(path)} leaks the secret`);
          continue;
        }
        assert.fail(`${name} accepted ${JSON.stringify(path)}: ${text.slice(0, 120)}`);
      }
    }
    assert.deepEqual(snapshotTree(s.base), snapshot);
  });

  it("never walk through symlinked folders: the whole workspace shows the links but nothing behind them", async () => {
    const list = textOf(await createListFilesTool(fs(), { root: s.ws }).execute("c", { depth: 5 }));
    assert.match(list, /^link-dir@$/m);
    assert.match(list, /^link-root@$/m);
    assert.doesNotMatch(list, /secret|passwd|outside/);
    const found = textOf(await createFindFilesTool(fs(), { root: s.ws }).execute("c", { pattern: "**/secret*" }));
    assert.match(found, /^No files match/);
    for (const [name, backend] of backends()) {
      const result = await createSearchTool(fs(), { root: s.ws, backend }).execute("c", { query: "TOP-SECRET" });
      assert.equal(result.details.total, 0, name);
      assert.match(textOf(result), /^No matches/, name);
      const inside = await createSearchTool(fs(), { root: s.ws, backend }).execute("c", { query: "port = 3000" });
      assert.deepEqual(
        inside.details.matches.map((m) => m.path),
        ["sub/config.ts"],
        name,
      );
    }
  });

  it("refuse globs that climb, are absolute or start at home, in find_files and in search's include", async () => {
    const escapes = [
      "../**",
      "../outside/*",
      "../../etc/passwd",
      "/etc/*",
      "/**",
      "{..,x}/**",
      "x/{a,..}/**",
      "**/../**",
      "@(..|x)/*",
      "C:/Windows/*",
      "c:*",
      "~/*",
      "..\\outside\\*",
      "a\u0000b",
      "..",
    ];
    for (const pattern of escapes) {
      const error = await rejection(() => createFindFilesTool(fs(), { root: s.ws }).execute("c", { pattern }));
      assert.match(error.message, /^Invalid pattern/, `find_files ${JSON.stringify(pattern)}`);
      for (const [name, backend] of backends()) {
        const err = await rejection(() => createSearchTool(fs(), { root: s.ws, backend }).execute("c", { query: "SECRET", include: pattern }));
        assert.match(err.message, /^Invalid pattern/, `search (${name}) include ${JSON.stringify(pattern)}`);
      }
    }
  });

  it("a glob naming a symlinked folder finds nothing behind it", async () => {
    for (const pattern of ["link-dir/**", "link-dir/secret.txt", "link-up/**", "link-root/etc/*", "sub/deep/*"]) {
      const found = await createFindFilesTool(fs(), { root: s.ws }).execute("c", { pattern });
      assert.equal(found.details.total, 0, pattern);
      for (const [name, backend] of backends()) {
        const result = await createSearchTool(fs(), { root: s.ws, backend }).execute("c", { query: "SECRET", include: pattern });
        assert.equal(result.details.total, 0, `${name} ${pattern}`);
      }
    }
  });

  it("a path that is a file: list_files and find_files say so, search searches just that file", async () => {
    const listError = await rejection(() => createListFilesTool(fs(), { root: s.ws }).execute("c", { path: "sub/config.ts" }));
    assert.match(listError.message, /sub\/config\.ts is a file, not a folder/);
    const findError = await rejection(() => createFindFilesTool(fs(), { root: s.ws }).execute("c", { pattern: "*", path: "sub/config.ts" }));
    assert.match(findError.message, /sub\/config\.ts is a file, not a folder/);
    for (const [name, backend] of backends()) {
      const result = await createSearchTool(fs(), { root: s.ws, backend }).execute("c", { query: "port", path: "sub/config.ts" });
      assert.equal(textOf(result), "sub/config.ts:1:3: export const port = 3000;", name);
    }
  });

  it("refuse .git as a path", async () => {
    s.write(".git/config", "[remote]\n url = https://token@example.com\n");
    try {
      for (const [name, tool, args] of tools()) {
        const error = await rejection(() => tool.execute("c", args(".git") as never));
        assert.match(error.message, /inside \.git/, name);
      }
      const all = textOf(await createListFilesTool(fs(), { root: s.ws }).execute("c", { includeIgnored: true }));
      assert.doesNotMatch(all, /\.git\//);
    } finally {
      s.write(".git/config", "");
    }
  });
});
