import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openStore, tempDir, toolResult, userMessage, type TestMessage } from "./fixtures";

describe("TranscriptStore: concurrent writes", () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());

  it("200 concurrent appends: every line intact and in call order", async () => {
    const store = openStore(dir);
    await store.createChat({ id: "c" });
    // Mixed sizes (some tool results of ~20 KB) so writes would interleave if they could.
    const messages: TestMessage[] = Array.from({ length: 200 }, (_, i) => (i % 7 === 0 ? toolResult(`call_${i}`, i, 20_000) : userMessage(`message ${i}`, i)));
    await Promise.all(messages.map((m) => store.append("c", m)));
    const loaded = await openStore(dir).load("c");
    assert.ok(loaded.ok);
    assert.equal(loaded.damaged, undefined);
    assert.deepStrictEqual(loaded.messages, messages);
    const lines = readFileSync(join(dir, "chats", "c.jsonl"), "utf8").split("\n");
    assert.equal(lines.length, 202);
    for (const line of lines.slice(0, -1)) JSON.parse(line);
  });

  it("appends racing with createChat, loads, renames and other chats stay ordered", async () => {
    const store = openStore(dir);
    const created = store.createChat({ id: "x" });
    const ops: Promise<unknown>[] = [created];
    const expected: TestMessage[] = [];
    for (let i = 0; i < 50; i++) {
      const m = userMessage(`x${i}`, i);
      expected.push(m);
      ops.push(store.append("x", m));
      if (i % 10 === 0) ops.push(store.load("x"), store.renameChat("x", `title ${i}`));
    }
    const loadAfter = store.load("x");
    await Promise.all(ops);
    const loaded = await loadAfter;
    assert.ok(loaded.ok);
    assert.deepStrictEqual(loaded.messages, expected);
    assert.equal(loaded.title, "title 40");
    const list = await store.listChats();
    assert.equal(list[0]?.messageCount, 50);
  });

  it("a failed append does not block the queue", async () => {
    const store = openStore(dir);
    await store.createChat({ id: "q" });
    const results = await Promise.allSettled([
      store.append("missing", userMessage("a", 1)),
      store.append("q", userMessage("b", 2)),
      store.append("q", { role: "user", content: "c", timestamp: 3, big: BigInt(1) } as unknown as TestMessage),
      store.append("q", userMessage("d", 4)),
    ]);
    assert.deepStrictEqual(
      results.map((r) => r.status),
      ["rejected", "fulfilled", "rejected", "fulfilled"],
    );
    const loaded = await store.load("q");
    assert.ok(loaded.ok);
    assert.deepStrictEqual(loaded.messages, [userMessage("b", 2), userMessage("d", 4)]);
  });
});
