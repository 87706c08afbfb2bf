// The chat as a tree in the append-only file (format version 2), and chats saved in version 1.
import assert from "node:assert/strict";
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TranscriptError } from "../../../src/core/transcript";
import { assistantAnswer, openStore, scenarioMessages, systemMessage, tempDir, userMessage, type TestMessage } from "./fixtures";

const FIXTURE = join(__dirname, "../../../../test/fixtures/transcripts/v1-scenario.jsonl");

describe("TranscriptStore: the chat as a tree", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());

  const file = (id: string): string => join(dir, "chats", `${id}.jsonl`);
  const texts = (messages: readonly TestMessage[]): string[] =>
    messages.map((m) => (m.role === "user" || m.role === "assistant" ? JSON.stringify((m as { content: unknown }).content) : m.role));

  it("a sibling starts a branch; the last message saved is the current leaf; every branch survives a reload", async () => {
    const store = openStore(dir);
    await store.createChat({ id: "t", messages: [systemMessage(1)] });
    let loaded = await store.load("t");
    assert.ok(loaded.ok);
    const root = loaded.tree.leafId!;
    const [u1, a1] = await store.appendMany("t", [userMessage("one", 2), assistantAnswer("A1", 3)], { parentId: root });
    const [u2, a2] = await store.appendMany("t", [userMessage("two", 4), assistantAnswer("A2", 5)], { parentId: a1! });
    // Edit turn 2: a sibling of u2.
    const [u2b] = await store.appendMany("t", [userMessage("two, edited", 6), assistantAnswer("A2b", 7)], { parentId: a1! });

    loaded = await openStore(dir).load("t");
    assert.ok(loaded.ok);
    assert.equal(loaded.tree.size, 7);
    assert.deepStrictEqual(
      loaded.messages.map((m) => (m as { timestamp: number }).timestamp),
      [1, 2, 3, 6, 7],
      "the path to the newest leaf",
    );
    assert.deepStrictEqual(
      loaded.tree.childrenOf(a1!).map((n) => n.id),
      [u2, u2b],
    );
    assert.deepStrictEqual(loaded.tree.siblingPosition(u2b!), { index: 1, count: 2, siblings: loaded.tree.childrenOf(a1!) });
    assert.deepStrictEqual(
      loaded.tree.path(a2!).map((n) => n.id),
      [root, u1, a1, u2, a2],
    );
    assert.equal(loaded.tree.newestLeafUnder(u2!), a2);
  });

  it("a leaf record switches branches with one short line; the next message continues from it", async () => {
    const store = openStore(dir);
    await store.createChat({ id: "t", messages: [systemMessage(1)] });
    const [u1, a1] = await store.appendMany("t", [userMessage("q", 2), assistantAnswer("first answer", 3)]);
    const [a1b] = await store.append("t", assistantAnswer("retried answer", 4), { parentId: u1! }).then((id) => [id]);
    const before = readFileSync(file("t"));
    await store.setLeaf("t", a1!);
    const after = readFileSync(file("t"));
    assert.deepStrictEqual(after.subarray(0, before.length), before, "nothing written before is touched");
    const added = after.subarray(before.length).toString("utf8");
    assert.equal(added.split("\n").length, 2, "one line");
    assert.deepStrictEqual({ ...JSON.parse(added), at: 0 }, { type: "leaf", id: a1, at: 0 });

    let loaded = await openStore(dir).load("t");
    assert.ok(loaded.ok);
    assert.equal(loaded.tree.leafId, a1);
    assert.deepStrictEqual(texts(loaded.messages).slice(-1), [JSON.stringify(assistantAnswer("first answer", 3).content)]);

    // A message with no parent given continues the current leaf (the switched-to one).
    await openStore(dir).append("t", userMessage("follow-up on the first answer", 5));
    loaded = await openStore(dir).load("t");
    assert.ok(loaded.ok);
    assert.equal(loaded.tree.get(loaded.tree.leafId!)?.parentId, a1);
    assert.equal(loaded.tree.childrenOf(u1!).length, 2);
    assert.ok(loaded.tree.has(a1b!));
  });

  it("a message whose parent line was damaged is kept, attached to the message before it, and reported", async () => {
    const store = openStore(dir);
    await store.createChat({ id: "t", messages: [systemMessage(1)] });
    const first = await store.load("t");
    assert.ok(first.ok);
    await store.appendMany("t", [userMessage("q", 2), assistantAnswer("a", 3)], { parentId: first.tree.leafId });
    await store.close();
    const lines = readFileSync(file("t"), "utf8").split("\n");
    lines[2] = '{"type":"message","id":"gone","message":{"role":"us'; // the user line, damaged
    writeFileSync(file("t"), lines.join("\n"));
    const loaded = await openStore(dir).load("t");
    assert.ok(loaded.ok);
    assert.deepStrictEqual(
      loaded.messages.map((m) => m.role),
      ["system", "assistant"],
    );
    assert.equal(loaded.damaged?.length, 2);
    assert.match(loaded.damaged?.[1]?.reason ?? "", /parent .* is not in the file/);
  });

  it("the model choice is a line of the chat (last wins) and the history shows it", async () => {
    const store = openStore(dir);
    await store.createChat({ id: "m", messages: [systemMessage(1)] });
    await store.setModel("m", { provider: "openai", modelId: "gpt-5", thinkingLevel: "high" });
    await store.setModel("m", { provider: "anthropic", modelId: "claude-sonnet-4-5", thinkingLevel: "low" });
    await store.close();
    const reopened = openStore(dir);
    const loaded = await reopened.load("m");
    assert.ok(loaded.ok);
    assert.deepStrictEqual(loaded.model, { provider: "anthropic", modelId: "claude-sonnet-4-5", thinkingLevel: "low" });
    assert.equal((await reopened.rebuildIndex())[0]?.model, "anthropic/claude-sonnet-4-5");
  });
});

describe("TranscriptStore: chats saved in format version 1", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    mkdirSync(join(dir, "chats"));
    copyFileSync(FIXTURE, file());
  });
  afterEach(() => cleanup());

  const file = (): string => join(dir, "chats", "v1-scenario.jsonl");
  const original = (): Buffer => readFileSync(FIXTURE);

  it("the committed version 1 file opens as one chain, with ids from its line numbers", async () => {
    const loaded = await openStore(dir).load("v1-scenario");
    assert.ok(loaded.ok);
    assert.equal(loaded.damaged, undefined);
    assert.equal(loaded.header.version, 1);
    assert.deepStrictEqual(loaded.messages, JSON.parse(JSON.stringify(scenarioMessages())));
    assert.deepStrictEqual(
      loaded.tree.path().map((n) => n.id),
      ["L2", "L3", "L4", "L5", "L6", "L7", "L8", "L9", "L10"],
    );
  });

  it("continues and branches it without rewriting a byte: one version line, then version 2 records", async () => {
    const store = openStore(dir);
    const loaded = await store.load("v1-scenario");
    assert.ok(loaded.ok);
    const leaf = loaded.tree.leafId!;
    await store.append("v1-scenario", userMessage("and now 9090", 1_750_000_000_100), { parentId: leaf });
    // Edit the second prompt ("Change it to 8080.", line 7): a sibling of it.
    const editParent = loaded.tree.get("L7")!.parentId!;
    const [edited] = await store.appendMany(
      "v1-scenario",
      [userMessage("Change it to 8081.", 1_750_000_000_200), assistantAnswer("Done: 8081.", 1_750_000_000_201)],
      {
        parentId: editParent,
      },
    );
    await store.close();

    const bytes = readFileSync(file());
    assert.deepStrictEqual(bytes.subarray(0, original().length), original(), "the version 1 part is untouched");
    const added = bytes
      .subarray(original().length)
      .toString("utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.deepStrictEqual(
      added.map((r) => r.type),
      ["version", "message", "message", "message"],
    );
    assert.equal(added[0].version, 2);

    const reloaded = await openStore(dir).load("v1-scenario");
    assert.ok(reloaded.ok);
    assert.equal(reloaded.damaged, undefined);
    assert.deepStrictEqual(
      reloaded.messages.map((m) => (m as { timestamp: number }).timestamp),
      [0, 1, 2, 3, 4, 200, 201].map((d) => 1_750_000_000_000 + d),
      "the edited branch: turn 1 and the edited turn 2",
    );
    assert.deepStrictEqual(reloaded.tree.siblingPosition(edited!)?.count, 2);
    const other = reloaded.tree.newestLeafUnder("L7");
    assert.deepStrictEqual(
      reloaded.tree
        .pathMessages(other)
        .map((m) => (m as { timestamp: number }).timestamp)
        .slice(-2),
      [1_750_000_000_008, 1_750_000_000_100],
      "the old branch with its continuation",
    );
  });

  it("a newer format is refused and named, in the header or in a version line, and the file is not written", async () => {
    appendFileSync(file(), JSON.stringify({ type: "version", version: 3, at: 1 }) + "\n");
    const store = openStore(dir);
    const loaded = await store.load("v1-scenario");
    assert.equal(loaded.ok, false);
    assert.equal(!loaded.ok && loaded.code, "unsupportedVersion");
    assert.match(!loaded.ok ? loaded.reason : "", /version 3 is newer than this build of Pi Chat reads \(up to 2\)/);
    const size = readFileSync(file()).length;
    await assert.rejects(store.append("v1-scenario", userMessage("x", 1)), (e: unknown) => e instanceof TranscriptError && e.code === "unsupportedVersion");
    assert.equal(readFileSync(file()).length, size);
  });
});
