// pi session import against files built to stall the extension host: thousands of compactions
// (mapping was quadratic), one huge entry, too many entries, and ids built to collide. Work is
// counted (reads of the entries' fields), never timed.
import assert from "node:assert/strict";
import {
  importPiSession,
  MAX_PI_ENTRIES,
  MAX_PI_ENTRY_BYTES,
  type PiEntry,
  type PiSessionFile,
  parsePiSession,
  parsePiSessionInSlices,
} from "../../../src/core/pi-sessions";

const HEADER = { type: "session", version: 3, id: "11111111-2222-3333-4444-555555555555", timestamp: "2026-01-02T03:04:05.000Z", cwd: "/p" };
const user = (text: string) => ({ role: "user", content: text, timestamp: 1 });
const message = (id: string, parentId: string | null, text: string) => ({ type: "message", id, parentId, timestamp: "", message: user(text) });

function file(lines: readonly unknown[]): Buffer {
  return Buffer.from(`${[HEADER, ...lines].map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n")}\n`);
}

/** A chain: a prompt, then `n` compactions, each keeping the entry before it. */
function compactionChain(n: number): unknown[] {
  const lines: unknown[] = [message("u0", null, "hello")];
  let parent = "u0";
  for (let i = 0; i < n; i++) {
    lines.push({ type: "compaction", id: `c${i}`, parentId: parent, timestamp: "", summary: `summary ${i}`, firstKeptEntryId: parent, tokensBefore: 100 });
    parent = `c${i}`;
  }
  return lines;
}

/** The session with every entry behind a proxy that counts reads of its fields: the mapper's work. */
function counted(session: PiSessionFile): { session: PiSessionFile; reads: () => number } {
  let reads = 0;
  const entries = session.entries.map(
    (e) =>
      new Proxy(e, {
        get(target, key, receiver) {
          reads++;
          return Reflect.get(target, key, receiver) as unknown;
        },
      }) as PiEntry,
  );
  return { session: { ...session, entries }, reads: () => reads };
}

describe("pi session import: limits and linear work", () => {
  it("thousands of compaction entries are mapped with work linear in the entries (a field read count, not a clock)", () => {
    const n = 3000;
    const parsed = parsePiSession(file(compactionChain(n)));
    assert.ok(parsed.ok);
    const { session, reads } = counted(parsed.session);
    const imported = importPiSession(session, { path: "/x.jsonl" }, 0);
    assert.equal(imported.nodes.length, n + 1);
    // Walking each compaction's ancestors read about n²/2 × 3 fields (13 million here).
    assert.ok(reads() < 60 * (n + 1), `${reads()} field reads for ${n + 1} entries`);
    // And the counts are still pi's: each compaction keeps the one message before it and summarizes the rest.
    const last = imported.nodes[n]!.message;
    assert.ok(last.role === "compactionSummary");
    assert.equal(last.keptMessageCount, 1);
    assert.equal(last.summarizedMessageCount, n - 1);
  });

  it("a first kept entry on another branch keeps nothing: everything before the compaction is summarized", () => {
    const parsed = parsePiSession(
      file([
        message("u0", null, "root"),
        message("b1", "u0", "branch one"),
        message("b2", "u0", "branch two"),
        { type: "compaction", id: "c1", parentId: "b2", timestamp: "", summary: "s", firstKeptEntryId: "b1", tokensBefore: 1 },
      ]),
    );
    assert.ok(parsed.ok);
    const summary = importPiSession(parsed.session, { path: "/x.jsonl" }, 0).nodes[3]!.message;
    assert.ok(summary.role === "compactionSummary");
    assert.equal(summary.keptMessageCount, 0);
    assert.equal(summary.summarizedMessageCount, 2);
  });

  it(`a 40 MB first message is refused before it is parsed, with the line, its size and the ${MAX_PI_ENTRY_BYTES / 1024 / 1024} MB limit`, () => {
    const parsed = parsePiSession(file([message("u0", null, "x".repeat(40 * 1024 * 1024))]));
    assert.equal(parsed.ok, false);
    assert.match(parsed.ok ? "" : parsed.reason, /^line 2 of the pi session is 40 MB, larger than the 10 MB one entry may be in a chat Pi Chat opens/);
  });

  it(`more than ${MAX_PI_ENTRIES.toLocaleString("en-US")} entries are refused, said so`, () => {
    const lines: string[] = [];
    for (let i = 0; i <= MAX_PI_ENTRIES; i++) lines.push(`{"type":"label","id":"l${i}","parentId":${i === 0 ? "null" : `"l${i - 1}"`},"timestamp":""}`);
    const parsed = parsePiSession(file(lines));
    assert.equal(parsed.ok, false);
    assert.match(parsed.ok ? "" : parsed.reason, /more than 100,000 entries/);
  });

  it("an entry whose id is `line3` and an unusable id on line 3 get two nodes, never one id", () => {
    const parsed = parsePiSession(
      file([message("u0", null, "first"), message("not a usable id!", "u0", "second"), message("line3", "not a usable id!", "third")]),
    );
    assert.ok(parsed.ok);
    const ids = importPiSession(parsed.session, { path: "/x.jsonl" }, 0).nodes.map((n) => n.id);
    assert.equal(ids.length, 3);
    assert.equal(new Set(ids).size, 3, `ids: ${ids.join(", ")}`);
  });

  it("the sliced reader yields between slices, and a cancel there stops it", async () => {
    const lines = compactionChain(9_999);
    const whole = parsePiSession(file(lines));
    let slices = 0;
    const sliced = await parsePiSessionInSlices(file(lines), async () => {
      slices++;
    });
    assert.ok(whole.ok && sliced.ok);
    assert.equal(sliced.session.entries.length, whole.session.entries.length);
    assert.equal(slices, 5);
    let asked = 0;
    const cancelled = await parsePiSessionInSlices(
      file(lines),
      async () => {
        asked++;
      },
      () => true,
    );
    assert.deepEqual(cancelled, { ok: false, reason: "cancelled" });
    assert.equal(asked, 1);
  });
});
