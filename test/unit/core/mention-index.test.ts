// The `@` list's index: the tools' walk of a real temp folder (ignore files honoured, .git and
// node_modules skipped), and a keystroke that narrows the last query's matches finds exactly
// what a full search finds.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildPathIndex, type SearchMemo, searchPathIndex } from "../../../src/core/mention-index";
import { createNodeWorkspaceFs } from "../../../src/core/tools/workspace-fs";
import { Rng } from "../../support/seeded-random";

describe("mention index", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "pi-mentions-"));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("lists files and folders the way the tools see the workspace", async () => {
    for (const f of ["server/config.ts", "server/routes.ts", "dist/bundle.js", "node_modules/x/index.js", ".git/HEAD", "src/keep.log"]) {
      mkdirSync(join(root, f, ".."), { recursive: true });
      writeFileSync(join(root, f), "");
    }
    writeFileSync(join(root, ".gitignore"), "dist/\n*.log\n!src/keep.log\n");
    const index = await buildPathIndex(createNodeWorkspaceFs(root), { excludes: ["**/routes.ts"] });
    const listed = [...index.paths].sort();
    assert.deepEqual(listed, [".gitignore", "server", "server/config.ts", "src", "src/keep.log"]);
    assert.equal(index.folders[index.paths.indexOf("server")], 1);
    assert.equal(index.folders[index.paths.indexOf("server/config.ts")], 0);
    assert.deepEqual(
      searchPathIndex(index, "srvcfg").map((h) => h.path),
      ["server/config.ts"],
    );
  });

  it("typing narrows: each keystroke's results equal a full search's", () => {
    const rng = new Rng(7);
    const words = ["server", "config", "client", "route", "userStore", "auth-cache", "index"];
    const paths = Array.from({ length: 3000 }, () => `${rng.pick(words)}/${rng.pick(words)}${rng.int(0, 9)}/${rng.pick(words)}.ts`);
    const index = { paths, folders: new Uint8Array(paths.length), truncated: false };
    for (const typed of ["srvcfg", "usStIn", "auth cache", "xq"]) {
      const memo: SearchMemo = {};
      for (let k = 1; k <= typed.length; k++) {
        const query = typed.slice(0, k);
        assert.deepEqual(searchPathIndex(index, query, 20, memo), searchPathIndex(index, query, 20), `after "${query}"`);
      }
    }
    // A query that does not extend the last one searches everything again.
    const memo: SearchMemo = {};
    searchPathIndex(index, "zzz", 20, memo);
    assert.ok(searchPathIndex(index, "cfg", 20, memo).length > 0);
  });
});
