// The windowing of the message list, without the DOM: which settled items are drawn (those near
// the viewport, plus the one holding the keyboard focus), how tall the ones not drawn are taken to
// be (their measured height once drawn, an estimate by kind before), where the view stands (an
// item and its distance from the top of the viewport, so items put above it move nothing), and
// when the keyboard needs an item drawn before it can move to it. Pure: the list (use-row-window.ts) feeds
// it measurements and scroll positions; test/unit/webview/chat-window.test.ts covers it in Node.
import type { ChatItem } from "../../src/shared/chat-items";

/** Rough heights (px) for an item never drawn, so the scrollbar is about right from the start. */
export const ESTIMATED_HEIGHT: Record<ChatItem["kind"], number> = {
  user: 48,
  attachment: 28,
  assistant: 140,
  tool: 44,
  notice: 48,
  summary: 40,
  userCommand: 90,
};

/** Drawn beyond the viewport on each side (px): scrolling a screen's worth shows no blank. */
export const OVERSCAN_PX = 1200;

/** Distance from the bottom (px) within which the view keeps following the stream. */
export const FOLLOW_SLACK_PX = 40;

/**
 * Keys for the items, unique in the list: the item id, with `#n` for the n-th repeat (tool call
 * ids may repeat across a chat). The same item keeps its key when items are put before it.
 */
export function itemKeys(items: readonly ChatItem[]): string[] {
  const seen = new Map<string, number>();
  return items.map((item) => {
    const n = seen.get(item.id) ?? 0;
    seen.set(item.id, n + 1);
    return n === 0 ? item.id : `${item.id}#${n}`;
  });
}

/**
 * Measured heights by item key. Kept for the chat on screen (a number per item: small), so a row
 * drawn again, or passed by the scrollbar, has the height it really had.
 */
export class HeightCache {
  private readonly heights = new Map<string, number>();

  get(key: string): number | undefined {
    return this.heights.get(key);
  }

  /** True when the height changed (a new measurement, or a different one). */
  set(key: string, height: number): boolean {
    if (this.heights.get(key) === height) return false;
    this.heights.set(key, height);
    return true;
  }

  get size(): number {
    return this.heights.size;
  }

  /** Keeps only the heights of these keys (items let go of take their heights with them). */
  retain(keys: readonly string[]): void {
    const kept = new Set(keys);
    for (const key of this.heights.keys()) if (!kept.has(key)) this.heights.delete(key);
  }
}

/**
 * offsets[i] = top of item i in the list (px), offsets[n] = the list's height; the gap between
 * rows is counted with the row above it.
 */
export function itemOffsets(items: readonly ChatItem[], keys: readonly string[], heights: HeightCache, gap: number): Float64Array {
  const offsets = new Float64Array(items.length + 1);
  for (let i = 0; i < items.length; i++) {
    const h = heights.get(keys[i]!) ?? ESTIMATED_HEIGHT[items[i]!.kind];
    offsets[i + 1] = offsets[i]! + h + gap;
  }
  return offsets;
}

/** The item at list position y (px): the last whose top is ≤ y, clamped to the list. */
export function indexAt(offsets: Float64Array, y: number): number {
  const n = offsets.length - 1;
  if (n <= 0) return 0;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid]! <= y) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Items [start, end) drawn. */
export interface Range {
  start: number;
  end: number;
}

/** The items that overlap [top - overscan, top + height + overscan] of the list. */
export function visibleRange(offsets: Float64Array, top: number, height: number, overscan = OVERSCAN_PX): Range {
  const n = offsets.length - 1;
  if (n <= 0) return { start: 0, end: 0 };
  const start = indexAt(offsets, Math.max(0, top - overscan));
  const end = Math.min(n, indexAt(offsets, top + height + overscan) + 1);
  return { start, end };
}

/**
 * The range to draw: the one drawn while it still covers the viewport with at least `margin` px on
 * each side (within the list), else a fresh one. Small moves (a streamed answer growing below,
 * a short scroll) then change no row at all.
 */
export function nextRange(offsets: Float64Array, drawn: Range, top: number, height: number, overscan = OVERSCAN_PX, margin = OVERSCAN_PX / 2): Range {
  const n = offsets.length - 1;
  const fresh = visibleRange(offsets, top, height, overscan);
  if (drawn.end > n || drawn.start >= drawn.end) return fresh;
  const total = offsets[n]!;
  const coversTop = drawn.start === 0 || offsets[drawn.start]! <= Math.max(0, top - margin);
  const coversBottom = drawn.end === n || offsets[drawn.end]! >= Math.min(total, top + height + margin);
  const tooMuch = drawn.end - drawn.start > 2 * (fresh.end - fresh.start) + 8;
  return coversTop && coversBottom && !tooMuch ? drawn : fresh;
}

/**
 * A range that starts at its turn's start: the user's message (its heading is the h2 the answer's
 * h3 is under), so a screen reader's heading list of what is drawn is in order. At most `maxBack`
 * rows back (a turn of hundreds of tool calls still draws a bounded number).
 */
export function fromTurnStart(items: readonly ChatItem[], range: Range, maxBack = 40): Range {
  let start = range.start;
  for (let back = 0; start > 0 && items[start]?.kind !== "user" && back < maxBack; back++) start--;
  return start === range.start ? range : { start, end: range.end };
}

/**
 * Where the view stands when it does not follow the stream: an item (by key) and the distance of
 * its top below the viewport's top (negative: it starts above).
 */
export interface Anchor {
  key: string;
  offset: number;
}

/**
 * The list position shown at the viewport's top. Following: the bottom (`tail` px of content
 * below the list, the live items, are shown under it). Else the anchor's top less its offset;
 * an anchor no longer in the list falls back to `fallbackTop`.
 */
export function viewTop(p: {
  offsets: Float64Array;
  indexOf: ReadonlyMap<string, number>;
  follow: boolean;
  anchor: Anchor | null;
  viewport: number;
  tail: number;
  fallbackTop: number;
}): number {
  const total = p.offsets[p.offsets.length - 1]!;
  if (p.follow || !p.anchor) return p.follow ? Math.max(0, total + p.tail - p.viewport) : p.fallbackTop;
  const index = p.indexOf.get(p.anchor.key);
  if (index === undefined) return p.fallbackTop;
  return p.offsets[index]! - p.anchor.offset;
}

/** What the list draws, in order: runs of rows, and blank space of the height of the rows left out. */
export type Slot = { kind: "row"; index: number } | { kind: "gap"; height: number; from: number };

/**
 * The slots for a range plus pinned rows outside it (the focused item: never taken away while it
 * has the focus), with the blank heights from the offsets.
 */
export function slots(offsets: Float64Array, range: Range, pinned: readonly number[]): Slot[] {
  const n = offsets.length - 1;
  const drawn = new Set<number>();
  for (let i = range.start; i < range.end; i++) drawn.add(i);
  for (const p of pinned) if (p >= 0 && p < n) drawn.add(p);
  const order = [...drawn].sort((a, b) => a - b);
  const out: Slot[] = [];
  let at = 0;
  for (const index of order) {
    if (index > at) out.push({ kind: "gap", height: offsets[index]! - offsets[at]!, from: at });
    out.push({ kind: "row", index });
    at = index + 1;
  }
  if (at < n) out.push({ kind: "gap", height: offsets[n]! - offsets[at]!, from: at });
  return out;
}

/** Whether every row strictly between two rows is drawn (the keyboard can move between them as the DOM has them). */
export function drawnBetween(range: Range, pinned: readonly number[], from: number, to: number): boolean {
  const lo = Math.min(from, to) + 1;
  const hi = Math.max(from, to);
  for (let i = lo; i < hi; i++) if (!(i >= range.start && i < range.end) && !pinned.includes(i)) return false;
  return true;
}

/**
 * Tab (dir 1) or Shift+Tab (dir -1) from a control in row `from`: null when the browser's own
 * move is right (the next control in the DOM is the next in the chat), else the first row to
 * draw before moving. `to` is the row of the control the browser would go to (undefined: it is
 * outside the list), `count` the rows in the list.
 */
export function tabReveal(range: Range, pinned: readonly number[], from: number, to: number | undefined, dir: 1 | -1, count: number): number | null {
  const next = from + dir;
  if (next < 0 || next >= count) return null;
  const target = to ?? (dir === 1 ? count : -1);
  if (drawnBetween(range, pinned, from, target)) return null;
  return next;
}

/** At the bottom (within the slack): the view keeps following what is added. */
export function atBottom(scrollHeight: number, scrollTop: number, clientHeight: number, slack = FOLLOW_SLACK_PX): boolean {
  return scrollHeight - scrollTop - clientHeight <= slack;
}

/** Two ranges are the same: nothing to redraw. */
export function sameRange(a: Range, b: Range): boolean {
  return a.start === b.start && a.end === b.end;
}

/** Where the view stands. */
export interface ViewStand {
  /** At the bottom: the view follows the newest message. */
  follow: boolean;
  anchor: Anchor | null;
  /** The list position last shown at the viewport's top (an anchor lost in a rewind falls back to it). */
  lastTop: number;
  viewport: number;
  /** The height of what is under the list (the live items), which the bottom of the view shows first. */
  tail: number;
}
