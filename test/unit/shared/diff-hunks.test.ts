// The hunks an edit card draws are built once, in the host, from the diff library's structures:
// structuredPatch's hunks for a live edit, parsePatch over the text a saved chat holds. Both must
// give the same hunks, whatever the file: several hunks, no newline at the end, CRLF, a secret file.
import assert from "node:assert/strict";
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from "diff";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { editDiff } from "../../../src/core/tools/edit-diff";
import { hunksFromPatch, hunksFromUnifiedDiff, SavedDiffs, structuredDiffFromText, structuredDiffOf, withStructuredDiff } from "../../../src/shared/diff-hunks";
import type { ChatEvent } from "../../../src/shared/protocol";
import { diffLines, secretDiffSummary, unifiedDiffText, type DiffHunk } from "../../../src/shared/structured-diff";
import { isStructuredDiff, parseWebviewMessage } from "../../../src/shared/validate";

function patch(oldText: string, newText: string, context = 3) {
  return structuredPatch("a/f.ts", "b/f.ts", oldText, newText, undefined, undefined, { context });
}

/** The live hunks (from structuredPatch) and the restored ones (from the saved text) of one change. */
function bothWays(oldText: string, newText: string, context = 3): { live: DiffHunk[]; restored: DiffHunk[] } {
  const p = patch(oldText, newText, context);
  return { live: hunksFromPatch(p.hunks), restored: hunksFromUnifiedDiff(formatPatch(p, FILE_HEADERS_ONLY)) };
}

/** The hunks as the card draws them: typed lines. */
const drawn = (hunks: readonly DiffHunk[]) => hunks.map((h) => ({ ...h, lines: diffLines(h) }));

const lines = (n: number, mark = "") => Array.from({ length: n }, (_, i) => `line ${i + 1}${mark}`);

describe("diff hunks for the view", () => {
  it("one change: context, removed and added lines, with the hunk's starts and lengths", () => {
    const { live, restored } = bothWays("a\nb\nc\nd\n", "a\nb\nC\nd\n");
    assert.deepEqual(drawn(live), [
      {
        oldStart: 1,
        oldLines: 4,
        newStart: 1,
        newLines: 4,
        lines: [
          { kind: "context", text: "a" },
          { kind: "context", text: "b" },
          { kind: "del", text: "c" },
          { kind: "add", text: "C" },
          { kind: "context", text: "d" },
        ],
      },
    ]);
    assert.deepEqual(restored, live);
  });

  it("changes far apart are separate hunks, each starting where its change is", () => {
    const before = lines(40);
    const after = [...before];
    after[4] = "five";
    after.splice(30, 1);
    const { live, restored } = bothWays(`${before.join("\n")}\n`, `${after.join("\n")}\n`);
    assert.deepEqual(
      live.map((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines]),
      [
        [2, 7, 2, 7],
        [28, 7, 28, 6],
      ],
    );
    assert.deepEqual(
      diffLines(live[1]!).filter((l) => l.kind !== "context"),
      [{ kind: "del", text: "line 31" }],
    );
    assert.deepEqual(restored, live);
  });

  it("a file without a newline at its end: the last old and new lines say so, nothing else does", () => {
    const { live, restored } = bothWays("a\nb", "a\nc");
    assert.deepEqual(diffLines(live[0]!), [
      { kind: "context", text: "a" },
      { kind: "del", text: "b", noNewline: true },
      { kind: "add", text: "c", noNewline: true },
    ]);
    assert.deepEqual(restored, live);
    // Adding the newline: only the old last line lacked it.
    const added = bothWays("a\nb", "a\nb\n").live;
    assert.deepEqual(diffLines(added[0]!), [
      { kind: "context", text: "a" },
      { kind: "del", text: "b", noNewline: true },
      { kind: "add", text: "b" },
    ]);
  });

  it("CRLF: a diff text saved with CRLF lines draws as the LF one; no drawn line keeps a \\r", () => {
    const text = formatPatch(patch("a\nb\nc", "a\nB\nc"), FILE_HEADERS_ONLY);
    const lf = hunksFromUnifiedDiff(text);
    const crlf = hunksFromUnifiedDiff(text.replace(/\n/g, "\r\n"));
    assert.deepEqual(drawn(crlf), drawn(lf));
    assert.equal(diffLines(lf[0]!).length, 4);
    // A CRLF file diffed as it is (the edit tool diffs with "\n"; another tool may not): the "\r" is the line ending, not text.
    const raw = hunksFromPatch(patch("a\r\nb\r\n", "a\r\nX\r\n").hunks);
    assert.deepEqual(diffLines(raw[0]!), [
      { kind: "context", text: "a" },
      { kind: "del", text: "b" },
      { kind: "add", text: "X" },
    ]);
  });

  it("the edit tool's own diff (computed on the changed window) gives the same hunks live and restored", () => {
    const before = `${lines(2000).join("\n")}\n`;
    const after = before.replace("line 1000\n", "line one thousand\n").replace("line 1500\n", "");
    const diff = editDiff("src/big.ts", before, after, 3);
    const live = hunksFromPatch(diff.hunks);
    assert.equal(live.length, 2);
    assert.equal(live[0]!.oldStart, 997);
    assert.deepEqual(hunksFromUnifiedDiff(diff.diff), live);
  });

  it("a secret file is only a count, from the notice's summary or from the result's counts", () => {
    assert.deepEqual(structuredDiffFromText("secret file: 3 lines changed", true), { kind: "secret", changedLines: 3 });
    assert.deepEqual(structuredDiffFromText(secretDiffSummary(1), true), { kind: "secret", changedLines: 1 });
    // Whatever the text, a secret file's change is never drawn as hunks.
    assert.deepEqual(structuredDiffFromText("@@ -1 +1 @@\n-API_KEY=a\n+API_KEY=b\n", true), { kind: "secret", changedLines: 0 });
    const result: AgentMessage = {
      role: "toolResult",
      toolCallId: "s1",
      toolName: "edit_file",
      content: [{ type: "text", text: "Edited .env." }],
      details: { path: ".env", additions: 2, deletions: 5, secret: true, summary: "secret file: 5 lines changed" },
      isError: false,
      timestamp: 1,
    };
    assert.deepEqual(structuredDiffOf(result), { kind: "secret", changedLines: 5 });
  });

  it("the message/end event carries the hunks and not the text; other events pass unchanged", () => {
    const text = formatPatch(patch("port = 3000\n", "port = 8080\n"), FILE_HEADERS_ONLY);
    const notice: AgentMessage = {
      role: "approvalNotice",
      toolCallId: "e1",
      toolName: "edit_file",
      decision: "allowed",
      path: "a.ts",
      diff: text,
      timestamp: 1,
    };
    const event = new SavedDiffs([notice]).event(notice);
    assert.deepEqual(event.diff, { kind: "hunks", hunks: hunksFromUnifiedDiff(text) });
    assert.equal(JSON.stringify(event.message).includes("3000"), false, "the text is not sent beside the hunks");
    const result: AgentMessage = {
      role: "toolResult",
      toolCallId: "e1",
      toolName: "edit_file",
      content: [{ type: "text", text: "Edited a.ts." }],
      details: {
        path: "a.ts",
        diff: text,
        hunks: JSON.parse(JSON.stringify(patch("port = 3000\n", "port = 8080\n").hunks)),
        additions: 1,
        deletions: 1,
        firstChangedLine: 1,
      },
      isError: false,
      timestamp: 2,
    };
    const ended = new SavedDiffs([result]).event(result);
    assert.deepEqual(ended.diff, event.diff);
    // The saved library hunks and the text alone (an older chat) give the same; damaged hunks fall back to the text.
    const textOnly = { ...result, details: { path: "a.ts", diff: text } } as AgentMessage;
    assert.deepEqual(structuredDiffOf(textOnly), event.diff);
    const damaged = { ...result, details: { path: "a.ts", diff: text, hunks: [{ oldStart: "1", lines: [] }] } } as AgentMessage;
    assert.deepEqual(structuredDiffOf(damaged), event.diff);
    assert.deepEqual(ended.message.role === "toolResult" && ended.message.details, { path: "a.ts", additions: 1, deletions: 1, firstChangedLine: 1 });
    // Live, the session builds the same from each message on its own.
    assert.deepEqual(withStructuredDiff({ type: "message/end", message: notice }), event);
    assert.deepEqual(withStructuredDiff({ type: "message/end", message: result }), ended);
    const user: ChatEvent = { type: "message/end", message: { role: "user", content: "hi", timestamp: 3 } };
    assert.equal(withStructuredDiff(user), user);
    const delta: ChatEvent = { type: "message/delta", index: 0, text: "@@ -1 +1 @@" };
    assert.equal(withStructuredDiff(delta), delta);
    // A damaged saved diff gives no hunks, never an exception.
    assert.equal(structuredDiffFromText("@@ not a hunk\n+x", false), undefined);
  });

  it("a restore gives an applied edit's notice the hunks its result saved, and parses only a notice without them", () => {
    const before = `${lines(30).join("\n")}\n`;
    const after = before.replace("line 12\n", "line twelve\n");
    const edit = editDiff("src/a.ts", before, after, 3);
    // As read from a file.
    const details = JSON.parse(JSON.stringify({ path: "src/a.ts", diff: edit.diff, hunks: edit.hunks, additions: 1, deletions: 1, firstChangedLine: 12 }));
    const result: AgentMessage = {
      role: "toolResult",
      toolCallId: "e1",
      toolName: "edit_file",
      content: [{ type: "text", text: "Edited src/a.ts." }],
      details,
      isError: false,
      timestamp: 1,
    };
    const notice: AgentMessage = {
      role: "approvalNotice",
      toolCallId: "e1",
      toolName: "edit_file",
      decision: "allowed",
      path: "src/a.ts",
      diff: edit.diff,
      timestamp: 2,
    };
    const denied: AgentMessage = { ...notice, toolCallId: "e2", decision: "denied" } as AgentMessage;
    const diffs = new SavedDiffs([notice, result, denied]);
    // The notice comes before or after its result: either way the same hunks as parsing its own text.
    assert.deepEqual(diffs.of(notice), structuredDiffOf(notice));
    assert.deepEqual(diffs.of(notice), { kind: "hunks", hunks: hunksFromPatch(edit.hunks) });
    // Both cards draw the very hunks read from the file: not a copy of each line.
    const saved: DiffHunk[] = details.hunks;
    const shared = diffs.of(notice);
    assert.ok(shared?.kind === "hunks" && shared.hunks.every((h, i) => h === saved[i]), "the saved hunks, not copies");
    assert.equal(diffs.of(result), shared);
    assert.deepEqual(diffs.of(denied), structuredDiffOf(denied), "a denied edit has no result: its text is parsed");
    // A notice whose text is not the result's (not written by this build) is parsed, not matched by id alone.
    const other: AgentMessage = { ...notice, diff: formatPatch(patch("x\n", "y\n"), FILE_HEADERS_ONLY) } as AgentMessage;
    assert.deepEqual(diffs.of(other), structuredDiffOf(other));
    assert.notDeepEqual(diffs.of(other), diffs.of(notice));
  });

  it("hunks drawn back as text (the Markdown export) read back as the same hunks", () => {
    for (const [a, b] of [
      ["a\nb\nc\n", "a\nB\nc\n"],
      ["a\nb", "a\nc"],
      ["", "new\nfile\n"],
      [`${lines(30).join("\n")}\n`, `${lines(30, "!").join("\n")}\n`],
    ] as const) {
      const hunks = hunksFromPatch(patch(a, b).hunks);
      assert.deepEqual(hunksFromUnifiedDiff(unifiedDiffText(hunks)), hunks);
    }
  });

  it("every built diff has the shape the shared type and the validator's schema say; a wrong one fails", () => {
    const built = [
      structuredDiffFromText(formatPatch(patch("a\nb", "a\nc"), FILE_HEADERS_ONLY), false),
      structuredDiffFromText("secret file: 2 lines changed", true),
    ];
    for (const diff of built) assert.equal(isStructuredDiff(diff), true, JSON.stringify(diff));
    assert.equal(
      isStructuredDiff({ kind: "hunks", hunks: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: [{ kind: "add", text: "x" }] }] }),
      false,
    );
    assert.equal(isStructuredDiff({ kind: "hunks", hunks: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ["+x"], extra: 1 }] }), false);
    assert.equal(isStructuredDiff({ kind: "hunks", hunks: [{ oldStart: -1, oldLines: 1, newStart: 1, newLines: 1, lines: [] }] }), false);
    assert.equal(isStructuredDiff({ kind: "secret", changedLines: 1, text: "API_KEY=1" }), false);
    assert.equal(isStructuredDiff("@@ -1 +1 @@"), false);
  });

  it("the webview cannot hand the host hunks: no message of it accepts a diff", () => {
    const hunks = hunksFromPatch(patch("a\n", "b\n").hunks);
    for (const message of [
      { type: "approval/decide", v: 1, toolCallId: "t1", decision: "allow", diff: { kind: "hunks", hunks } },
      { type: "approval/decide", v: 1, toolCallId: "t1", decision: "allow", hunks },
      { type: "editor/applyCode", v: 1, code: "b", hunks },
      { type: "editor/openDiff", v: 1, toolCallId: "t1", diff: { kind: "hunks", hunks } },
    ]) {
      assert.equal(parseWebviewMessage(message).ok, false, JSON.stringify(message));
    }
    // The same messages without the diff are accepted (the refusal is the diff's).
    assert.equal(parseWebviewMessage({ type: "approval/decide", v: 1, toolCallId: "t1", decision: "allow" }).ok, true);
    assert.equal(parseWebviewMessage({ type: "editor/openDiff", v: 1, toolCallId: "t1" }).ok, true);
  });
});
