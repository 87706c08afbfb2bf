// The benchmark data (bench/lib/data.ts) stands for real chats, so each edit it generates must
// carry a unified diff that the project's own parser reads back as the hunk it describes: a
// malformed one (a generated source line holding "\n") gave a card without a diff, and the
// restore figure (P3) timed a path real chats do not take.
import assert from "node:assert/strict";
import { generateTranscript } from "../../../bench/lib/data";
import { hunksFromPatch, hunksFromUnifiedDiff } from "../../../src/shared/diff-hunks";
import { diffLines } from "../../../src/shared/structured-diff";

describe("benchmark data: generated edits", () => {
  it("every diff a generated chat holds parses to the hunk its edit describes", () => {
    let diffs = 0;
    for (const [size, seed] of [
      [10_000, 1],
      [3_000, 3],
    ] as const) {
      const messages = generateTranscript(size, seed);
      // An edit's hunk as the generator built it (the result's details), to compare the notice's diff with.
      const built = new Map<string, ReturnType<typeof hunksFromPatch>>();
      for (const m of messages) {
        if (m.role !== "toolResult" || m.toolName !== "edit_file" || m.isError) continue;
        const details = m.details as unknown as { diff: string; hunks: Parameters<typeof hunksFromPatch>[0] };
        const expected = hunksFromPatch(details.hunks);
        assert.deepStrictEqual(hunksFromUnifiedDiff(details.diff), expected, `seed ${seed}: result ${m.toolCallId}`);
        built.set(m.toolCallId, expected);
        diffs++;
      }
      for (const m of messages) {
        if (m.role !== "approvalNotice" || !m.diff) continue;
        const hunks = hunksFromUnifiedDiff(m.diff);
        assert.equal(hunks.length, 1, `seed ${seed}: notice ${m.toolCallId} has one hunk`);
        const [hunk] = hunks;
        const count = (kinds: string[]) => diffLines(hunk!).filter((l) => kinds.includes(l.kind)).length;
        assert.equal(count(["context", "del"]), hunk!.oldLines, `seed ${seed}: notice ${m.toolCallId}, old side`);
        assert.equal(count(["context", "add"]), hunk!.newLines, `seed ${seed}: notice ${m.toolCallId}, new side`);
        if (built.has(m.toolCallId)) assert.deepStrictEqual(hunks, built.get(m.toolCallId), `seed ${seed}: notice ${m.toolCallId}`);
        diffs++;
      }
    }
    assert.ok(diffs > 1_000, `${diffs} diffs checked`);
  });
});
