// pi session import: damaged and hostile files, the folder pi keeps sessions in, the listing.
// Real files in temp folders, read through the same Node I/O the command uses.
import assert from "node:assert/strict";
import { closeSync, mkdirSync, openSync, readFileSync, statSync, utimesSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import {
  importPiSession,
  listPiSessions,
  MAX_PI_SESSION_BYTES,
  nodePiSessionsIO,
  parsePiSession,
  piSessionFolderName,
  piSessionLocation,
  readPiSession,
} from "../../../src/core/pi-sessions";
import { tempDir } from "../../support/temp";

const HEADER = { type: "session", version: 3, id: "11111111-2222-3333-4444-555555555555", timestamp: "2026-01-02T03:04:05.000Z", cwd: "/p" };

function entry(id: string, parentId: string | null, message: Record<string, unknown>): string {
  return JSON.stringify({ type: "message", id, parentId, timestamp: "2026-01-02T03:04:06.000Z", message });
}
const user = (text: string) => ({ role: "user", content: text, timestamp: 1 });
const answer = (text: string) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "openai-completions",
  provider: "local",
  model: "m",
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
  stopReason: "stop",
  timestamp: 2,
});

function file(...lines: string[]): Buffer {
  return Buffer.from(`${[JSON.stringify(HEADER), ...lines].join("\n")}\n`);
}

describe("pi session import: damaged and hostile files", () => {
  it("a torn last line: the entries before it are read, and the note says so", () => {
    const bytes = Buffer.concat([file(entry("a1", null, user("hello")), entry("a2", "a1", answer("hi"))), Buffer.from('{"type":"message","id":"a3","par')]);
    const parsed = parsePiSession(bytes);
    assert.ok(parsed.ok);
    assert.equal(parsed.session.entries.length, 2);
    const imported = importPiSession(parsed.session, { path: "/x.jsonl" }, 0);
    assert.equal(imported.leafId, "pi-a2");
    assert.match(imported.notice.text, /line 4: the last line is cut off/);
  });

  it("a bad entry in the middle is skipped and said; the rest reads on", () => {
    const parsed = parsePiSession(file(entry("a1", null, user("hello")), "{not json", '{"type":"message"}', entry("a2", "a1", answer("hi"))));
    assert.ok(parsed.ok);
    assert.deepEqual(
      parsed.session.entries.map((e) => e.id),
      ["a1", "a2"],
    );
    assert.equal(parsed.session.notes.length, 2);
    assert.match(parsed.session.notes[0]!, /line 3: not valid JSON/);
    assert.match(parsed.session.notes[1]!, /without an id/);
  });

  it("a loop in parentId ends: an entry naming a later (or its own) parent starts a new root, said", () => {
    // a1 -> a2 -> a1 would loop; a3 names itself.
    const parsed = parsePiSession(file(entry("a1", "a2", user("one")), entry("a2", "a1", answer("two")), entry("a3", "a3", user("three"))));
    assert.ok(parsed.ok);
    const imported = importPiSession(parsed.session, { path: "/x.jsonl" }, 0);
    assert.deepEqual(
      imported.nodes.map((n) => [n.id, n.parentId]),
      [
        ["pi-a1", null],
        ["pi-a2", "pi-a1"],
        ["pi-a3", null],
      ],
    );
    assert.match(imported.notice.text, /a loop or a damaged line/);
    assert.equal(imported.leafId, "pi-a3");
  });

  it("a newer format (version 4) is refused with the reason, nothing read", () => {
    const parsed = parsePiSession(Buffer.from(`${JSON.stringify({ ...HEADER, version: 4 })}\n${entry("a1", null, user("x"))}\n`));
    assert.equal(parsed.ok, false);
    assert.match(parsed.ok ? "" : parsed.reason, /format version 4, newer than Pi Chat reads \(up to 3\)/);
  });

  it("not a session (no header), and an empty file, are refused", () => {
    const a = parsePiSession(Buffer.from(`${entry("a1", null, user("x"))}\n`));
    assert.equal(a.ok, false);
    assert.match(a.ok ? "" : a.reason, /not a pi session file/);
    assert.equal(parsePiSession(new Uint8Array()).ok, false);
  });

  it("entries Pi Chat has no place for are counted in the note, never silently dropped; children of a skipped entry stay on the branch", () => {
    const lines = [
      entry("a1", null, user("hello")),
      JSON.stringify({ type: "label", id: "l1", parentId: "a1", timestamp: "", targetId: "a1", label: "x" }),
      JSON.stringify({ type: "usage", id: "u1", parentId: "l1", timestamp: "", kind: "cache_warm" }),
      JSON.stringify({ type: "future_kind", id: "f1", parentId: "u1", timestamp: "" }),
      entry("a2", "f1", answer("hi")),
    ];
    const parsed = parsePiSession(file(...lines));
    assert.ok(parsed.ok);
    const imported = importPiSession(parsed.session, { path: "/x.jsonl" }, 0);
    assert.deepEqual(
      imported.nodes.map((n) => [n.id, n.parentId]),
      [
        ["pi-a1", null],
        ["pi-a2", "pi-a1"],
      ],
    );
    assert.match(imported.notice.text, /1 label, 1 usage record, 1 unknown entry "future_kind"/);
  });

  it("the model of the active branch is taken over only when Pi Chat can reach its provider; the note says which model the chat uses", () => {
    const lines = [
      entry("a1", null, user("hello")),
      JSON.stringify({ type: "model_change", id: "m1", parentId: "a1", timestamp: "", provider: "anthropic", modelId: "claude-sonnet-4-5" }),
      JSON.stringify({ type: "thinking_level_change", id: "t1", parentId: "m1", timestamp: "", thinkingLevel: "high" }),
    ];
    const parsed = parsePiSession(file(...lines));
    assert.ok(parsed.ok);
    const known = importPiSession(parsed.session, { path: "/x" }, 0, { knowsProvider: (p) => p === "anthropic" });
    assert.deepEqual(known.model, { provider: "anthropic", modelId: "claude-sonnet-4-5", thinkingLevel: "high" });
    assert.match(known.notice.text, /Model of the pi session: anthropic\/claude-sonnet-4-5, thinking high; this chat goes on with it\./);
    const unknown = importPiSession(parsed.session, { path: "/x" }, 0, { knowsProvider: () => false, defaultModel: "gpt-5 (OpenAI)" });
    assert.equal(unknown.model, undefined);
    assert.doesNotMatch(unknown.notice.text, /has no provider/);
    assert.match(unknown.notice.text, /does not say where its provider "anthropic" is, so this chat uses your default model, gpt-5 \(OpenAI\)\./);
  });

  it("a context edit on the active branch: a left-out message stays visible as a note and leaves the model's context", () => {
    const parsed = parsePiSession(
      file(
        entry("a1", null, user("secret plan")),
        entry("a2", "a1", answer("ok")),
        JSON.stringify({ type: "context_edit", id: "e1", parentId: "a2", timestamp: "", targetId: "a1", replacement: null }),
        JSON.stringify({ type: "context_edit", id: "e2", parentId: "e1", timestamp: "", targetId: "a2", replacement: { content: "edited" } }),
      ),
    );
    assert.ok(parsed.ok);
    const imported = importPiSession(parsed.session, { path: "/x.jsonl" }, 0);
    assert.equal(imported.nodes[0]!.message.role, "localNotice");
    const second = imported.nodes[1]!.message;
    assert.ok(second.role === "assistant");
    assert.deepEqual(second.content, [{ type: "text", text: "edited" }]);
    assert.match(imported.notice.text, /2 applied/);
  });
});

describe("pi session import: files and folders", () => {
  let dir: { path: string; cleanup: () => void };
  beforeEach(() => {
    dir = tempDir("pi-sessions");
  });
  afterEach(() => dir.cleanup());

  it("names pi's folder as pi does, and follows PI_CODING_AGENT_DIR and PI_CODING_AGENT_SESSION_DIR", () => {
    assert.equal(piSessionFolderName("/home/u/my proj"), "--home-u-my proj--");
    assert.equal(piSessionFolderName("C:\\work\\app"), "--C--work-app--");
    assert.deepEqual(piSessionLocation("/w", {}, "/home/u"), { dir: "/home/u/.pi/agent/sessions/--w--" });
    assert.deepEqual(piSessionLocation("/w", { PI_CODING_AGENT_DIR: "~/agent" }, "/home/u"), { dir: "/home/u/agent/sessions/--w--" });
    assert.deepEqual(piSessionLocation("/w", { PI_CODING_AGENT_SESSION_DIR: "/s" }, "/home/u"), { dir: "/s", cwdFilter: "/w" });
  });

  it("lists the sessions of the workspace folders: name, first prompt, size, newest first; a too-new one says why", async () => {
    const cwd = join(dir.path, "proj");
    const sessions = join(dir.path, "agent", "sessions", piSessionFolderName(cwd));
    mkdirSync(sessions, { recursive: true });
    const env = { PI_CODING_AGENT_DIR: join(dir.path, "agent") };
    writeFileSync(join(sessions, "2026-01-01_a.jsonl"), file(entry("a1", null, user("first prompt\nsecond line"))));
    writeFileSync(
      join(sessions, "2026-01-02_b.jsonl"),
      file(entry("b1", null, user("x")), JSON.stringify({ type: "session_info", id: "s1", parentId: "b1", timestamp: "", name: "Named one" })),
    );
    writeFileSync(join(sessions, "2026-01-03_c.jsonl"), `${JSON.stringify({ ...HEADER, version: 9 })}\n`);
    writeFileSync(join(sessions, "notes.txt"), "not a session");
    utimesSync(join(sessions, "2026-01-01_a.jsonl"), new Date(1000), new Date(1000));
    utimesSync(join(sessions, "2026-01-02_b.jsonl"), new Date(3000), new Date(3000));
    utimesSync(join(sessions, "2026-01-03_c.jsonl"), new Date(2000), new Date(2000));
    const list = await listPiSessions(nodePiSessionsIO, [cwd], env, dir.path);
    assert.deepEqual(
      list.map((s) => [s.name, s.named]),
      [
        ["Named one", true],
        ["2026-01-03_c.jsonl", false],
        ["first prompt", false],
      ],
    );
    assert.match(list[1]!.unreadable ?? "", /version 9 is newer/);
    assert.equal(list[2]!.sizeBytes, statSync(join(sessions, "2026-01-01_a.jsonl")).size);
    assert.equal(list[2]!.id, HEADER.id);
  });

  it("a path outside pi's folder, or a crafted name, is refused before it is read", async () => {
    const cwd = join(dir.path, "proj");
    const env = { PI_CODING_AGENT_DIR: join(dir.path, "agent") };
    const sessions = join(dir.path, "agent", "sessions", piSessionFolderName(cwd));
    mkdirSync(sessions, { recursive: true });
    const outside = join(dir.path, "elsewhere.jsonl");
    writeFileSync(outside, file(entry("a1", null, user("x"))));
    for (const path of [outside, join(sessions, "..", "..", "..", "elsewhere.jsonl"), join(sessions, "sub", "x.jsonl"), `${sessions}-evil/x.jsonl`]) {
      const r = await readPiSession(nodePiSessionsIO, path, [cwd], env, dir.path);
      assert.equal(r.ok, false, path);
      assert.match(r.ok ? "" : r.reason, /not a session file in pi's session folder/);
    }
  });

  it(`a 100 MB session is refused by its size (over ${MAX_PI_SESSION_BYTES / 1024 / 1024} MB), without reading it`, async () => {
    const cwd = join(dir.path, "proj");
    const env = { PI_CODING_AGENT_DIR: join(dir.path, "agent") };
    const sessions = join(dir.path, "agent", "sessions", piSessionFolderName(cwd));
    mkdirSync(sessions, { recursive: true });
    const big = join(sessions, "big.jsonl");
    // Sparse: a header, then a hole up to 100 MB (no disk used, nothing kept).
    const fd = openSync(big, "w");
    writeSync(fd, file(entry("a1", null, user("big"))));
    writeSync(fd, "\n", 100 * 1024 * 1024 - 1);
    closeSync(fd);
    let reads = 0;
    const io = {
      ...nodePiSessionsIO,
      read: (p: string) => {
        reads++;
        return nodePiSessionsIO.read(p);
      },
    };
    const r = await readPiSession(io, big, [cwd], env, dir.path);
    assert.equal(r.ok, false);
    assert.match(r.ok ? "" : r.reason, /100 MB, larger than the 50 MB Pi Chat opens/);
    assert.equal(reads, 0, "the bytes were never read");
    const list = await listPiSessions(nodePiSessionsIO, [cwd], env, dir.path);
    assert.equal(list[0]!.name, "big", "the listing reads only the head");
    assert.match(list[0]!.unreadable ?? "", /100 MB/);
  });

  it("reading never writes the pi file", async () => {
    const cwd = join(dir.path, "proj");
    const env = { PI_CODING_AGENT_DIR: join(dir.path, "agent") };
    const sessions = join(dir.path, "agent", "sessions", piSessionFolderName(cwd));
    mkdirSync(sessions, { recursive: true });
    const path = join(sessions, "a.jsonl");
    writeFileSync(path, Buffer.concat([file(entry("a1", null, user("x"))), Buffer.from('{"torn')]));
    const before = readFileSync(path);
    const mtime = statSync(path).mtimeMs;
    const r = await readPiSession(nodePiSessionsIO, path, [cwd], env, dir.path);
    assert.ok(r.ok);
    assert.deepEqual(readFileSync(path), before, "a torn line is not repaired in pi's file");
    assert.equal(statSync(path).mtimeMs, mtime);
  });
});
