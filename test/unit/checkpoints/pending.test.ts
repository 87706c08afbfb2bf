// The pending changes model: Pi's hunks from the journal's recorded writes, the user's edits since
// never shown as Pi's, a hunk the user changed refused by Undo, and Undo putting back exactly
// what was there before Pi's write.
import assert from "node:assert/strict";
import {
  applyTextEdits,
  CHANGED_BY_YOU,
  type FileState,
  journalMarks,
  type HunkDecision,
  type JournalEntry,
  lineHunks,
  pendingCounts,
  pendingWrites,
  reviewFile,
  undoEdits,
} from "../../../src/core/checkpoints";

const lines = (n: number, f = (i: number) => `line ${i + 1}`) => `${Array.from({ length: n }, (_, i) => f(i)).join("\n")}\n`;
const BEFORE = lines(30);
/** Pi changed line 5 and removed line 20. */
const PI = BEFORE.replace("line 5\n", "line 5 by pi\nline 5b by pi\n").replace("line 20\n", "");
const state = (hash: string): FileState => ({ hash: hash.padEnd(64, "0"), size: 1, kept: true });
const change = (path: string, before: FileState, after: FileState, by: "edit" | "apply" | "command" | "restore" = "edit"): JournalEntry => ({
  t: "change",
  path,
  before,
  after,
  by,
  at: 1,
});

describe("pending changes: the model", () => {
  it("finds the hunks between Pi's before and after, with no context", () => {
    const hunks = lineHunks(BEFORE, PI);
    assert.equal(hunks.length, 2);
    assert.deepEqual(hunks[0], { index: 0, oldStart: 4, newStart: 4, removed: ["line 5\n"], added: ["line 5 by pi\n", "line 5b by pi\n"] });
    assert.deepEqual(hunks[1], { index: 1, oldStart: 19, newStart: 20, removed: ["line 20\n"], added: [] });
  });

  it("a user edit elsewhere is not Pi's: the same two hunks, none changed by you, and Undo leaves the user's line", () => {
    const current = PI.replace("line 12\n", "line 12 edited by the user\nand one more\n");
    const hunks = reviewFile({ before: BEFORE, after: PI, current }, new Map());
    assert.equal(hunks.length, 2);
    assert.deepEqual(
      hunks.map((h) => h.changedByYou),
      [false, false],
    );
    const { edits, undone, refused } = undoEdits(hunks, [1], current);
    assert.deepEqual(undone, [1]);
    assert.deepEqual(refused, []);
    const after = applyTextEdits(current, edits);
    assert.equal(after, BEFORE.replace("line 5\n", "line 5 by pi\nline 5b by pi\n").replace("line 12\n", "line 12 edited by the user\nand one more\n"));
    // Both undone: exactly the old file plus the user's edit.
    const both = applyTextEdits(current, undoEdits(hunks, [0, 1], current).edits);
    assert.equal(both, BEFORE.replace("line 12\n", "line 12 edited by the user\nand one more\n"));
  });

  it("a user change inside Pi's hunk makes it changed by you, and Undo refuses it with the reason", () => {
    const current = PI.replace("line 5b by pi\n", "line 5b fixed by the user\n");
    const hunks = reviewFile({ before: BEFORE, after: PI, current }, new Map());
    assert.deepEqual(
      hunks.map((h) => h.changedByYou),
      [true, false],
    );
    const { edits, refused } = undoEdits(hunks, [0], current);
    assert.deepEqual(edits, []);
    assert.deepEqual(refused, [{ index: 0, reason: CHANGED_BY_YOU }]);
  });

  it("lines put right before or after a hunk are not in it; lines put inside it are", () => {
    const around = PI.replace("line 5 by pi\n", "mine before\nline 5 by pi\n").replace("line 5b by pi\n", "line 5b by pi\nmine after\n");
    assert.equal(reviewFile({ before: BEFORE, after: PI, current: around }, new Map())[0]?.changedByYou, false);
    const inside = PI.replace("line 5b by pi\n", "mine inside\nline 5b by pi\n");
    assert.equal(reviewFile({ before: BEFORE, after: PI, current: inside }, new Map())[0]?.changedByYou, true);
    // A deletion's place: a line removed across it (line 19 and 21 around the removed line 20) makes it the user's.
    const across = PI.replace("line 19\nline 21\n", "merged by the user\n");
    assert.equal(reviewFile({ before: BEFORE, after: PI, current: across }, new Map())[1]?.changedByYou, true);
    // Undo with the user's lines around keeps them.
    const hunks = reviewFile({ before: BEFORE, after: PI, current: around }, new Map());
    assert.equal(
      applyTextEdits(around, undoEdits(hunks, [0], around).edits),
      BEFORE.replace("line 5\n", "mine before\nline 5\nmine after\n").replace("line 20\n", ""),
    );
  });

  it("kept and undone hunks are decided: not counted, not undone again; an undone hunk is not the user's change", () => {
    const once = reviewFile({ before: BEFORE, after: PI, current: PI }, new Map());
    const afterUndo = applyTextEdits(PI, undoEdits(once, [0], PI).edits);
    const decisions = new Map<number, HunkDecision>([[0, "undone"]]);
    const hunks = reviewFile({ before: BEFORE, after: PI, current: afterUndo }, decisions);
    assert.deepEqual(
      hunks.map((h) => [h.decision, h.changedByYou]),
      [
        ["undone", false],
        [undefined, false],
      ],
    );
    assert.deepEqual(pendingCounts(hunks), { added: 0, removed: 1, pending: 1, changedByYou: 0 });
    assert.deepEqual(undoEdits(hunks, [0], afterUndo).refused, [{ index: 0, reason: "already undone" }]);
    // Hunk 2 found at its place in the text with hunk 1 undone (one line less above it).
    assert.equal(applyTextEdits(afterUndo, undoEdits(hunks, [1], afterUndo).edits), BEFORE);
  });

  it("CRLF and a last line without a line ending are put back byte for byte", () => {
    const before = "a\r\nb\r\nc";
    const pi = "a\r\nB\r\nc\r\nd";
    const hunks = reviewFile({ before, after: pi, current: pi }, new Map());
    assert.equal(applyTextEdits(pi, undoEdits(hunks, [0, 1], pi).edits), before);
  });

  it("a file Pi created: one hunk, every line added; gone since: changed by you", () => {
    const created = reviewFile({ before: null, after: "x\ny\n", current: "x\ny\n" }, new Map());
    assert.equal(created.length, 1);
    assert.deepEqual(pendingCounts(created), { added: 2, removed: 0, pending: 1, changedByYou: 0 });
    assert.equal(reviewFile({ before: null, after: "x\ny\n", current: null }, new Map())[0]?.changedByYou, true);
    assert.equal(reviewFile({ before: "x\n", after: null, current: "y\n" }, new Map())[0]?.changedByYou, true);
    assert.equal(reviewFile({ before: "x\n", after: null, current: null }, new Map())[0]?.changedByYou, false);
  });

  it("takes the writes after the last prompt only, chained per file; a restore or a break ends what came before", () => {
    const [a, b, c, d] = [state("a"), state("b"), state("c"), state("d")];
    const journal: JournalEntry[] = [
      change("old.txt", a, b),
      { t: "mark", id: "m1", at: 1 },
      change("old.txt", b, c),
      { t: "mark", id: "m2", at: 2 },
      change("chain.txt", a, b),
      change("chain.txt", b, c, "command"),
      // d → a: the user changed the file between (c ≠ d): only the last write is attributable.
      change("broken.txt", a, b),
      change("broken.txt", d, a, "apply"),
      change("restored.txt", a, b),
      change("restored.txt", b, a, "restore"),
      change("back.txt", a, b),
      change("back.txt", b, a),
    ];
    const { markId, writes } = pendingWrites(journal);
    assert.equal(markId, "m2");
    assert.deepEqual(writes, [
      { path: "broken.txt", before: d, after: a, by: ["apply"] },
      { path: "chain.txt", before: a, after: c, by: ["edit", "command"] },
    ]);
  });

  it("since a checkpoint picked: every write after its mark, two prompts' writes to one file chained into one change", () => {
    const [a, b, c, x, y] = [state("a"), state("b"), state("c"), state("x"), state("y")];
    const journal: JournalEntry[] = [
      change("early.txt", x, y),
      { t: "mark", id: "m1", at: 1 },
      change("both.txt", a, b),
      change("first-only.txt", x, y, "command"),
      { t: "mark", id: "m2", at: 2 },
      change("both.txt", b, c),
    ];
    assert.deepEqual([...journalMarks(journal)], ["m1", "m2"]);
    // Since the last prompt: the second prompt's write only.
    assert.deepEqual(pendingWrites(journal).writes, [{ path: "both.txt", before: b, after: c, by: ["edit"] }]);
    const since = pendingWrites(journal, "m1");
    assert.equal(since.markId, "m1");
    assert.deepEqual(since.writes, [
      { path: "both.txt", before: a, after: c, by: ["edit"] },
      { path: "first-only.txt", before: x, after: y, by: ["command"] },
    ]);
    // A mark the journal does not have is not a checkpoint: since the last prompt, as if none were picked.
    for (const forged of ["m3", "", "__proto__", "m1 "]) assert.deepEqual(pendingWrites(journal, forged), pendingWrites(journal));
  });
});
