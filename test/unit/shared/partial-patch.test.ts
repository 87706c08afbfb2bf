// Taking part of an edit: only the accepted hunks are applied, each at its own place whatever the
// hunks before it did (a rejected hunk that added lines must not shift the ones after it), line
// endings and the end of the file kept, and hunks that do not describe the texts write nothing.
import assert from "node:assert/strict";
import { editDiff } from "../../../src/core/tools/edit-diff";
import { applyAcceptedHunks, checkedRejectedHunks, HunkMismatchError, hunkNames, hunkNewText, linesWithEndings } from "../../../src/shared/partial-patch";
import type { DiffHunk } from "../../../src/shared/structured-diff";

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`);

/** The hunks the product computes for an edit (edit_file's own diff, 3 lines of context). */
function hunksOf(oldText: string, newText: string): DiffHunk[] {
  return editDiff("f.ts", oldText.replace(/\r\n/g, "\n"), newText.replace(/\r\n/g, "\n"), 3).hunks;
}

/** Replaces whole lines (0-based, by number) of a file of `lines(n)`; later lines keep their own text. */
function withChanges(base: string[], changes: ReadonlyMap<number, string[]>): string {
  return `${base.flatMap((line, i) => changes.get(i) ?? [line]).join("\n")}\n`;
}

describe("partial patch: only the accepted hunks", () => {
  const base = lines(60);
  // Three changes far apart: three hunks. The first adds lines, so every later hunk's new side moves.
  const first: [number, string[]] = [5, ["line 6", "added a", "added b", "added c"]];
  const second: [number, string[]] = [25, ["LINE 26"]];
  const third: [number, string[]] = [50, []];
  const oldText = withChanges(base, new Map());
  const newText = withChanges(base, new Map([first, second, third]));
  const hunks = hunksOf(oldText, newText);

  it("a three-hunk edit with hunk 2 rejected is hunks 1 and 3 applied, at their own places", () => {
    assert.equal(hunks.length, 3);
    assert.equal(applyAcceptedHunks(oldText, newText, hunks, new Set([1])), withChanges(base, new Map([first, third])));
  });

  it("rejecting the first hunk, which added lines, does not shift the later ones", () => {
    assert.equal(applyAcceptedHunks(oldText, newText, hunks, new Set([0])), withChanges(base, new Map([second, third])));
    assert.equal(applyAcceptedHunks(oldText, newText, hunks, new Set([0, 1])), withChanges(base, new Map([third])));
  });

  it("every subset of hunks gives exactly the file with those changes (all accepted: the proposal; none: the file)", () => {
    const changes = [first, second, third];
    for (let mask = 0; mask < 8; mask++) {
      const rejected = new Set([0, 1, 2].filter((i) => (mask & (1 << i)) !== 0));
      const expected = withChanges(base, new Map(changes.filter((_, i) => !rejected.has(i))));
      assert.equal(applyAcceptedHunks(oldText, newText, hunks, rejected), expected, `rejected ${[...rejected]}`);
    }
    assert.equal(applyAcceptedHunks(oldText, newText, hunks, new Set()), newText);
    assert.equal(applyAcceptedHunks(oldText, newText, hunks, new Set([0, 1, 2])), oldText);
  });

  it("keeps a CRLF file's line endings, in accepted and rejected hunks and between them", () => {
    const crlf = (text: string) => text.replace(/\n/g, "\r\n");
    const result = applyAcceptedHunks(crlf(oldText), crlf(newText), hunksOf(oldText, newText), new Set([1]));
    assert.equal(result, crlf(withChanges(base, new Map([first, third]))));
    assert.ok(!/[^\r]\n/.test(result), "every line break is CRLF");
  });

  it("keeps the end of a file without a final newline, whichever side the last hunk takes", () => {
    const old = `${lines(20).join("\n")}`;
    const proposed = `${lines(20)
      .map((l, i) => (i === 1 ? "LINE 2" : l))
      .join("\n")}\nline 21\n`;
    const h = hunksOf(old, proposed);
    assert.equal(h.length, 2);
    assert.equal(applyAcceptedHunks(old, proposed, h, new Set([1])), old.replace("line 2\n", "LINE 2\n"));
    assert.equal(applyAcceptedHunks(old, proposed, h, new Set([0])), `${lines(20).join("\n")}\nline 21\n`);
  });

  it("applies an addition to an empty file, or keeps it empty", () => {
    const h = hunksOf("", "one\ntwo\n");
    assert.equal(applyAcceptedHunks("", "one\ntwo\n", h, new Set()), "one\ntwo\n");
    assert.equal(applyAcceptedHunks("", "one\ntwo\n", h, new Set([0])), "");
  });

  it("refuses hunks that do not describe the texts: changed lines, moved starts, reordered, overlapping", () => {
    const tampered: DiffHunk[][] = [
      hunks.map((h, i) => (i === 1 ? { ...h, lines: h.lines.map((l) => (l.startsWith("+") ? "+rm -rf /" : l)) } : h)),
      hunks.map((h, i) => (i === 2 ? { ...h, oldStart: h.oldStart + 1 } : h)),
      hunks.map((h, i) => (i === 2 ? { ...h, newStart: h.newStart - 1 } : h)),
      [hunks[1]!, hunks[0]!, hunks[2]!],
      [hunks[0]!, { ...hunks[0]!, oldStart: hunks[0]!.oldStart + 1, newStart: hunks[0]!.newStart + 1 }],
      hunks.slice(0, 2), // the proposal's third change would be missing from the result: not these texts
    ];
    for (const [n, bad] of tampered.entries()) {
      assert.throws(() => applyAcceptedHunks(oldText, newText, bad, new Set([0])), HunkMismatchError, `tampered ${n}`);
    }
  });

  it("splits lines keeping each one's ending", () => {
    assert.deepEqual(linesWithEndings(""), []);
    assert.deepEqual(linesWithEndings("a\r\nb\nc"), ["a\r\n", "b\n", "c"]);
    assert.deepEqual(linesWithEndings("a\n"), ["a\n"]);
  });
});

describe("partial patch: the decision's hunk list, checked at the boundary", () => {
  it("takes in-range indices, sorted", () => {
    assert.deepEqual(checkedRejectedHunks([2, 0], 3), [0, 2]);
    assert.deepEqual(checkedRejectedHunks([], 3), []);
  });

  it("drops a list that does not fit the edit: out of range, negative, fractional, repeated, not numbers", () => {
    for (const bad of [[3], [-1], [1.5], [1, 1], ["1"], [Number.NaN], [0, 99]]) assert.equal(checkedRejectedHunks(bad, 3), undefined, JSON.stringify(bad));
    assert.equal(checkedRejectedHunks([0], 0), undefined, "a secret file's edit has no hunks to reject");
  });

  it("names hunks 1-based, as the card numbers them", () => {
    assert.equal(hunkNames([1]), "hunk 2");
    assert.equal(hunkNames([2, 0]), "hunks 1 and 3");
    assert.equal(hunkNames([0, 1, 3]), "hunks 1, 2 and 4");
  });
});

describe("partial patch: a hunk the user edited before accepting", () => {
  const base = lines(30);
  const oldText = withChanges(base, new Map());
  const newText = withChanges(
    base,
    new Map([
      [4, ["LINE 5"]],
      [20, ["LINE 21"]],
    ]),
  );
  const hunks = hunksOf(oldText, newText);

  it("writes the user's text in place of the hunk's lines; the other hunks as proposed", () => {
    assert.equal(hunks.length, 2);
    const mine = hunkNewText(hunks[1]!).replace("LINE 21", "line 21, mine\nand one more");
    const result = applyAcceptedHunks(oldText, newText, hunks, new Set(), new Map([[1, mine]]));
    assert.equal(
      result,
      withChanges(
        base,
        new Map([
          [4, ["LINE 5"]],
          [20, ["line 21, mine", "and one more"]],
        ]),
      ),
    );
  });

  it("an edited hunk that is also rejected keeps the file's lines; CRLF files get CRLF", () => {
    assert.equal(applyAcceptedHunks(oldText, newText, hunks, new Set([1]), new Map([[1, "anything"]])), withChanges(base, new Map([[4, ["LINE 5"]]])));
    const crlf = (t: string) => t.replace(/\n/g, "\r\n");
    const mine = hunkNewText(hunks[0]!).replace("LINE 5", "five");
    const result = applyAcceptedHunks(crlf(oldText), crlf(newText), hunks, new Set([1]), new Map([[0, mine]]));
    assert.equal(result, crlf(withChanges(base, new Map([[4, ["five"]]]))));
  });
});
