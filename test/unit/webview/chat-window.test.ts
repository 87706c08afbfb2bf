// The windowing of the message list without a DOM (webview/message-list/chat-window.ts): which rows are drawn,
// the blank space that stands for the others, where the view stands across items put before it,
// when the keyboard needs a row drawn first; and the bounded cache of rendered markdown (lru.ts).
import assert from "node:assert/strict";
import type { ChatItem } from "../../../src/shared/chat-items";
import {
  atBottom,
  drawnBetween,
  ESTIMATED_HEIGHT,
  fromTurnStart,
  HeightCache,
  indexAt,
  itemKeys,
  itemOffsets,
  nextRange,
  slots,
  tabReveal,
  viewTop,
  visibleRange,
} from "../../../webview/message-list/chat-window";
import { Lru } from "../../../webview/lru";

function user(id: string): ChatItem {
  return { kind: "user", id, text: id, timestamp: 0 };
}

function chat(n: number): ChatItem[] {
  return Array.from({ length: n }, (_, i) => user(`m${i}`));
}

/** A list where every row is 100 px, measured. */
function measured(n: number) {
  const items = chat(n);
  const keys = itemKeys(items);
  const heights = new HeightCache();
  for (const key of keys) heights.set(key, 100);
  return { items, keys, heights, offsets: itemOffsets(items, keys, heights, 0), indexOf: new Map(keys.map((k, i) => [k, i])) };
}

describe("chat window (the windowed message list)", () => {
  it("keys are unique and stable: a repeated id gets #n, and items put before change no key after them", () => {
    const items = [user("a"), user("t1"), user("t1"), user("b")];
    assert.deepEqual(itemKeys(items), ["a", "t1", "t1#1", "b"]);
    const keys = itemKeys([user("x"), ...items]);
    assert.deepEqual(keys.slice(1), ["a", "t1", "t1#1", "b"]);
  });

  it("offsets: measured heights, estimates by kind for the rows never drawn", () => {
    const items = chat(3);
    const keys = itemKeys(items);
    const heights = new HeightCache();
    assert.equal(heights.set("m1", 300), true);
    assert.equal(heights.set("m1", 300), false, "the same height is no change");
    const offsets = itemOffsets(items, keys, heights, 0);
    const e = ESTIMATED_HEIGHT.user;
    assert.deepEqual([...offsets], [0, e, e + 300, e + 300 + e]);
  });

  it("indexAt: the row at a position, clamped to the list", () => {
    const { offsets } = measured(10);
    assert.deepEqual(
      [-50, 0, 99, 100, 950, 5000].map((y) => indexAt(offsets, y)),
      [0, 0, 0, 1, 9, 9],
    );
    assert.equal(indexAt(new Float64Array([0]), 10), 0, "an empty list");
  });

  it("the range covers the viewport plus the overscan on each side, and no more", () => {
    const { offsets } = measured(10_000);
    // Viewport 800 px at y = 500,000 (row 5000), overscan 1,200: rows 4988 … 5020.
    const r = visibleRange(offsets, 500_000, 800, 1200);
    assert.deepEqual(r, { start: 4988, end: 5021 });
    assert.deepEqual(visibleRange(offsets, 0, 800, 1200), { start: 0, end: 21 });
    assert.deepEqual(visibleRange(offsets, 999_200, 800, 1200), { start: 9980, end: 10_000 });
    assert.deepEqual(visibleRange(new Float64Array([0]), 0, 800), { start: 0, end: 0 });
  });

  it("nextRange keeps what is drawn while it covers the view with a margin; a far move draws afresh", () => {
    const { offsets } = measured(10_000);
    const drawn = visibleRange(offsets, 500_000, 800, 1200);
    assert.equal(nextRange(offsets, drawn, 500_300, 800, 1200, 600), drawn, "a short scroll changes no row");
    assert.deepEqual(nextRange(offsets, drawn, 501_000, 800, 1200, 600), visibleRange(offsets, 501_000, 800, 1200));
    assert.deepEqual(nextRange(offsets, drawn, 10_000, 800, 1200, 600), visibleRange(offsets, 10_000, 800, 1200));
    // Rows taken away (a rewind) below what was drawn: drawn afresh, never past the end.
    const short = measured(100).offsets;
    assert.deepEqual(nextRange(short, drawn, 0, 800, 1200, 600), visibleRange(short, 0, 800, 1200));
  });

  it("following: the bottom of the list and the live items under it; else the anchor at its offset", () => {
    const { offsets, indexOf } = measured(100);
    const base = { offsets, indexOf, viewport: 800, tail: 300, fallbackTop: 42 };
    assert.equal(viewTop({ ...base, follow: true, anchor: null }), 10_000 + 300 - 800);
    assert.equal(viewTop({ ...base, follow: false, anchor: { key: "m50", offset: 120 } }), 5000 - 120);
    assert.equal(viewTop({ ...base, follow: false, anchor: { key: "gone", offset: 0 } }), 42, "an anchor rewound away");
    assert.equal(viewTop({ ...base, follow: false, anchor: null }), 42);
  });

  it("items put before the anchor (earlier messages) keep the same item at the same place", () => {
    const before = measured(100);
    const anchor = { key: "m0", offset: 200 };
    const top = viewTop({ ...before, follow: false, anchor, viewport: 800, tail: 0, fallbackTop: 0 });
    assert.equal(top, -200);
    // 50 earlier items arrive, never measured: the anchor's row is now 50 estimates down.
    const items = [
      ...chat(150)
        .slice(100)
        .map((i, n) => ({ ...i, id: `e${n}` })),
      ...before.items,
    ];
    const keys = itemKeys(items);
    const offsets = itemOffsets(items, keys, before.heights, 0);
    const indexOf = new Map(keys.map((k, i) => [k, i]));
    const after = viewTop({ offsets, indexOf, follow: false, anchor, viewport: 800, tail: 0, fallbackTop: 0 });
    assert.equal(after, 50 * ESTIMATED_HEIGHT.user - 200);
    const r = visibleRange(offsets, after, 800, 1200);
    assert.ok(r.start < 50 && r.end > 50, "the anchor's row and rows around it are drawn");
  });

  it("slots: a run of rows, blank space of exactly the rows left out, the pinned row in its place", () => {
    const { offsets } = measured(100);
    assert.deepEqual(slots(offsets, { start: 40, end: 43 }, []), [
      { kind: "gap", height: 4000, from: 0 },
      { kind: "row", index: 40 },
      { kind: "row", index: 41 },
      { kind: "row", index: 42 },
      { kind: "gap", height: 5700, from: 43 },
    ]);
    // Row 5 holds the focus: drawn apart, the blank split around it; the total height is the same.
    const withPin = slots(offsets, { start: 40, end: 42 }, [5]);
    assert.deepEqual(withPin, [
      { kind: "gap", height: 500, from: 0 },
      { kind: "row", index: 5 },
      { kind: "gap", height: 3400, from: 6 },
      { kind: "row", index: 40 },
      { kind: "row", index: 41 },
      { kind: "gap", height: 5800, from: 42 },
    ]);
    const height = (s: ReturnType<typeof slots>) => s.reduce((sum, x) => sum + (x.kind === "gap" ? x.height : 100), 0);
    assert.equal(height(withPin), 10_000);
    assert.deepEqual(slots(offsets, { start: 0, end: 100 }, [50]).length, 100, "a pin inside the range adds nothing");
  });

  it("Tab: the browser's move when the rows between are drawn; else the next row is drawn first", () => {
    const range = { start: 40, end: 60 };
    assert.equal(tabReveal(range, [], 45, 46, 1, 100), null);
    assert.equal(tabReveal(range, [], 45, 50, 1, 100), null, "rows without controls between, all drawn");
    assert.equal(tabReveal(range, [], 59, undefined, 1, 100), 60, "the last row drawn: row 60 is next, not the live part");
    assert.equal(tabReveal(range, [], 40, undefined, -1, 100), 39, "Shift+Tab from the first row drawn");
    assert.equal(tabReveal(range, [], 99, undefined, 1, 100), null, "the last row of the chat: out to the live part");
    assert.equal(tabReveal(range, [], 0, undefined, -1, 100), null);
    // The pinned row 5 (the focus stayed there while the view moved): the next control the
    // browser finds is in row 40, but rows 6 … 39 come first.
    assert.equal(tabReveal(range, [5], 5, 40, 1, 100), 6);
    assert.equal(tabReveal(range, [5], 5, undefined, -1, 100), 4);
    assert.equal(drawnBetween(range, [5], 4, 6), true);
  });

  it("a range starts at its turn's user message (headings in order), at most maxBack rows back", () => {
    const answer = (id: string): ChatItem => ({ kind: "assistant", id, blocks: [], isStreaming: false, timestamp: 0 });
    const items = [user("m0"), answer("m1"), answer("m2"), answer("m3"), user("m4"), answer("m5")];
    assert.deepEqual(fromTurnStart(items, { start: 3, end: 6 }), { start: 0, end: 6 });
    assert.deepEqual(fromTurnStart(items, { start: 5, end: 6 }), { start: 4, end: 6 });
    assert.deepEqual(fromTurnStart(items, { start: 4, end: 6 }), { start: 4, end: 6 });
    assert.deepEqual(fromTurnStart(items, { start: 3, end: 6 }, 2), { start: 1, end: 6 });
  });

  it("at the bottom within the slack", () => {
    assert.equal(atBottom(5000, 4200, 800), true);
    assert.equal(atBottom(5000, 4161, 800), true);
    assert.equal(atBottom(5000, 4100, 800), false);
  });

  it("Lru: keeps the most recently used, drops the oldest past its bound, clears", () => {
    const cache = new Lru<string, number>(3);
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("c", 3);
    assert.equal(cache.get("a"), 1, "a is now the newest");
    cache.set("d", 4);
    assert.equal(cache.get("b"), undefined, "b was the oldest");
    assert.deepEqual([cache.get("a"), cache.get("c"), cache.get("d"), cache.size], [1, 3, 4, 3]);
    for (let i = 0; i < 1000; i++) cache.set(`k${i}`, i);
    assert.equal(cache.size, 3, "never more than the bound");
    cache.clear();
    assert.equal(cache.size, 0);
  });
});
