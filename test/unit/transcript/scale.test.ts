// A 10,000-message chat of realistic shape: it loads whole, and appending to it touches only
// the new line — no read and no rewrite of what is already there, whatever the chat's length.
// (How long these take is measured by `npm run bench`, P2 and P3, not asserted here.)
import assert from "node:assert/strict";
import { TranscriptStore } from "../../../src/core/transcript";
import { createNodeTranscriptStorage } from "../../../src/core/transcript/node-storage";
import type { TranscriptStorage } from "../../../src/core/transcript/types";
import { assistantToolCall, realisticMessages, tempDir, toolResult, type TestMessage } from "./fixtures";

/** The real Node storage, counting what each call reads and writes. */
function countingStorage(dir: string) {
  const inner = createNodeTranscriptStorage(dir);
  const counts = { bytesRead: 0, appendCalls: 0, bytesAppended: 0, rewrites: 0 };
  const storage: TranscriptStorage = {
    ...inner,
    read: async (path) => {
      const data = await inner.read(path);
      counts.bytesRead += data?.length ?? 0;
      return data;
    },
    readRange: async (path, position, length) => {
      const data = await inner.readRange(path, position, length);
      counts.bytesRead += data?.length ?? 0;
      return data;
    },
    append: async (path, data, options) => {
      counts.appendCalls += 1;
      counts.bytesAppended += data.length;
      return inner.append(path, data, options);
    },
    writeAtomic: async (path, data) => {
      if (path.startsWith("chats/")) counts.rewrites += 1;
      return inner.writeAtomic(path, data);
    },
  };
  return { storage, counts };
}

describe("TranscriptStore at 10,000 messages", function () {
  this.timeout(120_000);
  let dir: string;
  let cleanup: () => void;
  const big = realisticMessages(10_000);

  before(async () => {
    ({ dir, cleanup } = tempDir());
    const store = new TranscriptStore<TestMessage>(createNodeTranscriptStorage(dir));
    await store.createChat({ id: "big", messages: big.slice(0, 1) });
    for (let i = 1; i < big.length; i += 1000) await store.appendMany("big", big.slice(i, i + 1000));
    await store.close();
  });
  after(() => cleanup());

  it("loads every message back, deep-equal", async () => {
    const loaded = await new TranscriptStore<TestMessage>(createNodeTranscriptStorage(dir)).load("big");
    assert.ok(loaded.ok);
    assert.equal(loaded.damaged, undefined);
    assert.equal(loaded.messages.length, 10_000);
    assert.deepEqual(loaded.messages, JSON.parse(JSON.stringify(big)));
  });

  it("appends without reading or rewriting the chat: each message costs one line", async () => {
    const { storage, counts } = countingStorage(dir);
    let nextId = 0;
    const store = new TranscriptStore<TestMessage>(storage, { indexFlushDelayMs: 60_000, newNodeId: () => `n${nextId++}` });
    const message = (i: number): TestMessage => (i % 2 === 0 ? assistantToolCall(`scale_${i}`, i) : toolResult(`scale_${i}`, i, 3000));
    // The first write of a process looks at the file's header and last byte (and the index).
    await store.append("big", message(0));
    const afterFirst = { ...counts };
    let expectedBytes = 0;
    for (let i = 1; i <= 200; i++) {
      const m = message(i);
      expectedBytes += Buffer.byteLength(JSON.stringify({ type: "message", id: `n${nextId}`, message: m })) + 1;
      await store.append("big", m);
    }
    assert.equal(counts.bytesRead - afterFirst.bytesRead, 0, "no byte of the chat was read again");
    assert.equal(counts.rewrites, 0, "the chat file was never rewritten");
    assert.equal(counts.appendCalls - afterFirst.appendCalls, 200, "one append per message");
    assert.equal(counts.bytesAppended - afterFirst.bytesAppended, expectedBytes, "only the new lines were written");
    assert.ok(afterFirst.bytesRead < 200_000, `the first append read ${afterFirst.bytesRead} bytes, not the 10,000-message file`);
    await store.close();
    const loaded = await new TranscriptStore<TestMessage>(createNodeTranscriptStorage(dir)).load("big");
    assert.ok(loaded.ok);
    assert.equal(loaded.messages.length, 10_201);
  });
});
