// Drawing the message list: which settled rows are in the DOM. Heights are measured per item key
// once a row is drawn (estimated by kind before), the offsets follow from them, and the range
// drawn is what covers the viewport where the view stands (use-scroll-anchor.ts), plus the row
// holding the keyboard focus (pinned: use-feed-keys.ts). The pure part is chat-window.ts.
import { useLayoutEffect, useMemo, useRef, useState, type MutableRef } from "preact/hooks";
import type { ChatState } from "../../src/shared/reducer";
import { fromTurnStart, HeightCache, itemKeys, itemOffsets, nextRange, type Range, type ViewStand, viewTop } from "./chat-window";

/** The list's elements: the scrolling box, all it holds, the settled rows, the live items. */
export interface ListElements {
  readonly scroller: MutableRef<HTMLDivElement | null>;
  readonly content: MutableRef<HTMLDivElement | null>;
  readonly list: MutableRef<HTMLDivElement | null>;
  readonly liveList: MutableRef<HTMLDivElement | null>;
}

export function useRowWindow(chat: ChatState, els: ListElements, stand: MutableRef<ViewStand>, pinned: MutableRef<string | null>) {
  const [heights] = useState(() => new HeightCache());
  const [heightsVersion, setHeightsVersion] = useState(0);
  const [, redraw] = useState(0);

  const items = useMemo(() => chat.settled.flat(), [chat.settled]);
  const keys = useMemo(() => itemKeys(items), [items]);
  const indexOf = useMemo(() => new Map(keys.map((key, i) => [key, i])), [keys]);
  // Items let go of (earlier messages released) leave no heights behind.
  useMemo(() => {
    if (heights.size > keys.length + 1000) heights.retain(keys);
  }, [keys]);
  const offsets = useMemo(() => itemOffsets(items, keys, heights, 0), [items, keys, heightsVersion]);

  const pinnedRows = (): number[] => {
    const index = pinned.current === null ? undefined : indexOf.get(pinned.current);
    return index === undefined ? [] : [index];
  };
  const rangeNow = (): Range => {
    const s = stand.current;
    const top = viewTop({ offsets, indexOf, follow: s.follow, anchor: s.anchor, viewport: s.viewport, tail: s.tail, fallbackTop: s.lastTop });
    s.lastTop = top;
    return fromTurnStart(items, nextRange(offsets, drawn.current?.range ?? { start: 0, end: 0 }, top, s.viewport));
  };
  /** The range and the pinned rows of the last render. */
  const drawn = useRef<{ range: Range; pins: number[] } | null>(null);
  const range = rangeNow();
  const pins = pinnedRows();
  drawn.current = { range, pins };
  // What the scroll handler, the observers and the keys need of this render.
  const current = useRef({ offsets, keys, indexOf, rangeNow });
  current.current = { offsets, keys, indexOf, rangeNow };

  const rowEl = (key: string) => els.list.current?.querySelector<HTMLElement>(`:scope > [data-row="${CSS.escape(key)}"]`) ?? null;

  /** Measures the drawn rows into the cache; true when a height changed. */
  const measure = (): boolean => {
    const el = els.list.current;
    if (!el) return false;
    let changed = false;
    for (const row of el.children) {
      const key = (row as HTMLElement).dataset.row;
      if (key !== undefined && heights.set(key, row.getBoundingClientRect().height)) changed = true;
    }
    const box = els.content.current;
    if (box) stand.current.tail = Math.max(0, box.getBoundingClientRect().bottom - el.getBoundingClientRect().bottom);
    return changed;
  };

  // After every render, first of all: measure what was drawn (then the view is put back, then a
  // pending keyboard move is done: the effects of the two other hooks, in that order).
  useLayoutEffect(() => {
    if (measure()) setHeightsVersion((v) => v + 1);
  });

  return {
    items,
    keys,
    offsets,
    range,
    pins,
    /** The last render's range and pins. */
    drawn: drawn as MutableRef<{ range: Range; pins: number[] }>,
    /** The last render's offsets, keys, index by key, and the range for where the view now stands. */
    current,
    rowEl,
    measure,
    /** Draw again (the range may have changed). */
    redraw: () => redraw((v) => v + 1),
    /** Heights changed: offsets again, and draw. */
    remeasured: () => setHeightsVersion((v) => v + 1),
  };
}

export type RowWindow = ReturnType<typeof useRowWindow>;
