// The diff of an edit is computed on the changed lines only (a whole-file diff of a file near the
// size cap froze the extension host for seconds). It must still be the right patch: the same as
// the whole-file diff for ordinary edits, and one that turns the old text into the new one always.
import assert from "node:assert/strict";
import { applyPatch, FILE_HEADERS_ONLY, formatPatch, structuredPatch } from "diff";
import { editDiff } from "../../../src/core/tools/edit-diff";

function wholeFileDiff(oldText: string, newText: string): string {
  return formatPatch(structuredPatch("a/f.ts", "b/f.ts", oldText, newText, undefined, undefined, { context: 3 }), FILE_HEADERS_ONLY);
}

/** A deterministic pseudo-random sequence, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe("editDiff (the changed region only)", () => {
  const lines = Array.from({ length: 200 }, (_, i) => `const value${i} = ${i};`);
  const file = `${lines.join("\n")}\n`;

  it("equals the whole-file diff for replacements, insertions and deletions anywhere", () => {
    const cases: [string, string][] = [
      [file, file.replace("const value100 = 100;", "const value100 = 8080;")],
      [file, file.replace("const value0 = 0;\n", "")],
      [file, file.replace("const value199 = 199;\n", "const value199 = 199;\nexport {};\n")],
      [file, file.replace("const value50 = 50;\nconst value51 = 51;\n", "// gone\n")],
      [file, file.replace("const value2 = 2;", "a\nb\nc")],
      [file, file.slice(0, -1)], // the last newline removed
      [file.slice(0, -1), file.slice(0, -1).replace("value199 = 199;", "value199 = 0;")], // no newline at the end
      ["", "first line\n"],
      ["only\n", ""],
      ["x", "y"],
    ];
    for (const [before, after] of cases) {
      assert.equal(editDiff("f.ts", before, after, 3).diff, wholeFileDiff(before, after));
    }
  });

  it("equals the whole-file diff for changes spread over a file (each region diffed on its own)", () => {
    const big = Array.from({ length: 5_000 }, (_, i) => `export const value${i} = ${i};`);
    const spread = (every: number, change: (line: string, i: number) => string[]) =>
      big.flatMap((line, i) => (i % every === every / 2 ? change(line, i) : [line])).join("\n");
    const before = big.join("\n");
    const cases = [
      spread(25, (line) => [`${line} // changed`]), // 200 hunks, as bench P25
      spread(50, (line) => [line, "inserted();"]),
      spread(40, () => []),
      spread(8, (line) => [`${line} // near`]), // changes 8 lines apart: hunks merge
      spread(100, (line, i) => (i % 200 === 50 ? [] : ["a", "b", line, "c"])),
    ];
    for (const after of cases) {
      assert.equal(editDiff("f.ts", before, after, 3).diff, wholeFileDiff(before, after));
      assert.equal(editDiff("f.ts", `${before}\n`, `${after}\n`, 3).diff, wholeFileDiff(`${before}\n`, `${after}\n`));
    }
  });

  it("many edits of a file of repeated lines: the patch always turns the old text into the new one (300 random files)", () => {
    const next = random(11);
    const pieces = ["same", "same", "x", "", "}", "other"];
    for (let round = 0; round < 300; round++) {
      const lines = Array.from({ length: 40 + Math.floor(next() * 200) }, () => pieces[Math.floor(next() * pieces.length)]!);
      const changed = lines.flatMap((line) => {
        const roll = next();
        if (roll < 0.03) return [];
        if (roll < 0.06) return [line, pieces[Math.floor(next() * pieces.length)]!];
        if (roll < 0.09) return ["changed"];
        return [line];
      });
      const before = lines.join("\n") + (next() < 0.5 ? "\n" : "");
      const after = changed.join("\n") + (next() < 0.5 ? "\n" : "");
      const { diff } = editDiff("f.ts", before, after, 3);
      assert.equal(applyPatch(before, diff), after, JSON.stringify({ before, after }));
    }
  });

  it("gives hunk line numbers of the whole file", () => {
    const { hunks } = editDiff("f.ts", file, file.replace("const value100 = 100;", "const value100 = 8080;"), 3);
    assert.equal(hunks.length, 1);
    assert.deepEqual([hunks[0]!.oldStart, hunks[0]!.oldLines, hunks[0]!.newStart, hunks[0]!.newLines], [98, 7, 98, 7]);
  });

  it("always yields a patch that turns the old text into the new one (600 random edits)", () => {
    const next = random(7);
    const pieces = ["a", "b", "\n", "x\n", "same\n", "same\n", ""];
    for (let round = 0; round < 600; round++) {
      const make = (n: number) => Array.from({ length: n }, () => pieces[Math.floor(next() * pieces.length)]).join("");
      const before = make(Math.floor(next() * 40));
      const at = Math.floor(next() * (before.length + 1));
      const cut = Math.floor(next() * (before.length - at + 1));
      const after = before.slice(0, at) + make(Math.floor(next() * 6)) + before.slice(at + cut);
      const { diff } = editDiff("f.ts", before, after, 3);
      assert.equal(applyPatch(before, diff), after, JSON.stringify({ before, after }));
    }
  });
});
