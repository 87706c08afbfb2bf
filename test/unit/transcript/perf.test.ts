// Measurements for a 10,000-message chat of realistic shape. Figures are printed, not
// asserted, except a loose check that append cost does not grow with the chat's length.

import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { join } from "node:path";
import { assistantToolCall, openStore, realisticMessages, tempDir, toolResult, type TestMessage } from "./fixtures";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

describe("TranscriptStore: performance (10,000 messages)", function () {
  this.timeout(120_000);
  let dir: string;
  let cleanup: () => void;
  before(async () => {
    const big = realisticMessages(10_000);
    ({ dir, cleanup } = tempDir());
    const store = openStore(dir);
    await store.createChat({ id: "big", messages: big.slice(0, 1) });
    for (let i = 1; i < big.length; i += 1000) await store.appendMany("big", big.slice(i, i + 1000));
    await store.createChat({ id: "small", messages: big.slice(0, 10) });
    await store.close();
  });
  after(() => cleanup());

  it("loads a 10,000-message transcript", async () => {
    const size = statSync(join(dir, "chats", "big.jsonl")).size;
    const times: number[] = [];
    let count = 0;
    for (let run = 0; run < 5; run++) {
      const store = openStore(dir);
      const t0 = performance.now();
      const loaded = await store.load("big");
      times.push(performance.now() - t0);
      assert.ok(loaded.ok);
      count = loaded.messages.length;
    }
    assert.equal(count, 10_000);
    console.log(`      load 10,000 messages (${(size / 1024 / 1024).toFixed(1)} MiB): median ${median(times).toFixed(1)} ms, runs ${times.map((t) => t.toFixed(0)).join("/")} ms`);
    const t0 = performance.now();
    const list = await openStore(dir).rebuildIndex();
    console.log(`      rebuildIndex over both chats: ${(performance.now() - t0).toFixed(1)} ms`);
    assert.equal(list.find((c) => c.id === "big")?.messageCount, 10_000);
  });

  it("append into a 10,000-message chat costs about the same as into a 10-message chat", async () => {
    const store = openStore(dir);
    const message = (i: number): TestMessage => (i % 2 === 0 ? assistantToolCall(`perf_${i}`, i) : toolResult(`perf_${i}`, i, 3000));
    // Warm-up: the first write to each chat probes the file, the first write at all reads index.json.
    for (let i = 0; i < 20; i++) {
      await store.append("small", message(i));
      await store.append("big", message(i));
    }
    const small: number[] = [];
    const large: number[] = [];
    for (let i = 0; i < 300; i++) {
      // Interleaved, so disk and GC noise hits both alike.
      let t0 = performance.now();
      await store.append("small", message(i));
      small.push(performance.now() - t0);
      t0 = performance.now();
      await store.append("big", message(i));
      large.push(performance.now() - t0);
    }
    const ratio = median(large) / median(small);
    console.log(
      `      append (median of 300): into 10 msgs ${(median(small) * 1000).toFixed(0)} µs, into 10,000 msgs ${(median(large) * 1000).toFixed(0)} µs, ratio ${ratio.toFixed(2)}`,
    );

    const synced = openStore(dir, { fsync: true });
    await synced.append("small", message(0));
    const syncTimes: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      await synced.append("small", message(i));
      syncTimes.push(performance.now() - t0);
    }
    console.log(`      append with fsync: true (median of 30): ${(median(syncTimes) * 1000).toFixed(0)} µs`);
    await store.close();
    await synced.close();
    assert.ok(ratio < 5, `append into the long chat is ${ratio.toFixed(2)}x slower`);
    const loaded = await openStore(dir).load("big");
    assert.ok(loaded.ok);
    assert.equal(loaded.messages.length, 10_000 + 320);
  });
});
