// The `@` list's matcher: VS Code quick-open style (segments, camel humps, runs), best first.
import assert from "node:assert/strict";
import { fuzzyFilter, fuzzyScore, prepareQuery } from "../../../src/shared/fuzzy";

const paths = [
  "README.md",
  "src/server.ts",
  "server/config.ts",
  "server/routes/configure-fallback.ts",
  "scripts/serve-vscode-config.sh",
  "src/core/tools/findFiles.ts",
  "src/core/tools/find-files.ts",
  "docs/fig.svg",
  "test/fixtures/srv/cfg.json",
];

function top(query: string, list = paths): string[] {
  return fuzzyFilter(query, list).map((m) => list[m.index]!);
}

describe("fuzzy matcher", () => {
  it("srvcfg finds server/config.ts by path segments", () => {
    const found = top("srvcfg");
    assert.ok(found.includes("server/config.ts"), found.join(", "));
    // The literal segments srv/cfg.json match best; server/config.ts beats the scattered ones.
    assert.ok(found.indexOf("server/config.ts") < found.indexOf("scripts/serve-vscode-config.sh"), found.join(", "));
  });

  it("camel humps and word starts: fiFi / ff find findFiles.ts and find-files.ts first", () => {
    assert.deepEqual(top("fiFi").slice(0, 2).sort(), ["src/core/tools/find-files.ts", "src/core/tools/findFiles.ts"]);
    assert.ok(top("ff")[0]!.includes("ind"), top("ff").join(", "));
  });

  it("is case-insensitive and returns the positions it matched", () => {
    const result = fuzzyScore(prepareQuery("SRVCFG"), "server/config.ts");
    assert.ok(result);
    assert.equal(result.positions.length, 6);
    assert.deepEqual(
      result.positions.map((p) => "server/config.ts"[p]),
      ["s", "r", "v", "c", "f", "g"],
    );
    assert.equal(result.positions[3], 7, "c at the start of the segment, not inside 'server'");
  });

  it("characters out of order, or missing, do not match", () => {
    assert.equal(fuzzyScore(prepareQuery("gfc"), "server/config.ts"), undefined);
    assert.equal(fuzzyScore(prepareQuery("xyz"), "server/config.ts"), undefined);
    assert.deepEqual(top("zzz"), []);
  });

  it("a whole file name ranks above the same letters scattered, and a shorter path wins a tie", () => {
    const list = ["a/config/b/c/d.ts", "lib/config.ts", "deep/nested/lib/config.ts"];
    assert.deepEqual(top("config", list).slice(0, 2), ["lib/config.ts", "deep/nested/lib/config.ts"]);
  });

  it("caps the results and keeps the order of the list for an empty query", () => {
    const many = Array.from({ length: 500 }, (_, i) => `dir${i}/file${i}.ts`);
    assert.equal(fuzzyFilter("file", many, 20).length, 20);
    assert.deepEqual(
      fuzzyFilter("", many, 3).map((m) => m.index),
      [0, 1, 2],
    );
  });

  it("odd file names (newlines, @, very long) are matched, not broken", () => {
    const odd = ["we@ird/na\nme.ts", `${"x/".repeat(400)}end.ts`];
    assert.deepEqual(top("weirdname", odd), ["we@ird/na\nme.ts"]);
    assert.deepEqual(top("end", odd), [odd[1]]);
  });
});
