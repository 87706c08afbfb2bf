// Staying in place: where the view stands is an item and its distance from the viewport's top
// (the anchor), put back after every redraw, so rows measured above and earlier messages put
// before everything move nothing on screen; at the bottom the view follows the stream instead.
// A resize (markdown highlighted later, a section opened, the panel resized) measures again and
// stays. Back at the newest messages, the earlier items of a restored chat may be let go of.
import { useEffect, useLayoutEffect, useRef, useState, type MutableRef } from "preact/hooks";
import { onFollowLatest } from "../follow-latest";
import { type Anchor, atBottom, indexAt, sameRange, type ViewStand } from "./chat-window";
import type { ListElements, RowWindow } from "./use-row-window";

export function useViewStand(): MutableRef<ViewStand> {
  return useRef<ViewStand>({ follow: true, anchor: null, lastTop: 0, viewport: typeof window === "undefined" ? 800 : window.innerHeight, tail: 0 });
}

export function useScrollAnchor(opts: {
  els: ListElements;
  stand: MutableRef<ViewStand>;
  rows: RowWindow;
  pinned: MutableRef<string | null>;
  /** Earlier messages not sent yet (a restored long chat). */
  earlier: number | undefined;
  /** Back at the newest messages: the earlier items may be let go of (ChatClient.releaseEarlier). */
  onRelease: (firstDrawn: number, focused: number | undefined) => boolean;
}) {
  const { els, stand, rows } = opts;
  const [showJump, setShowJump] = useState(false);

  /** Puts the view back where it stands: the bottom when following, else the anchor at its offset. */
  const place = () => {
    const box = els.scroller.current;
    if (!box) return;
    if (stand.current.follow) {
      box.scrollTop = box.scrollHeight;
      return;
    }
    const kept = stand.current.anchor;
    const el = kept && rows.rowEl(kept.key);
    if (!kept || !el) return;
    const delta = el.getBoundingClientRect().top - box.getBoundingClientRect().top - kept.offset;
    if (Math.abs(delta) >= 0.5) box.scrollTop += delta;
  };

  /** The item at the viewport's top, from the rows drawn, else from the heights (the view jumped into blank space). */
  const findAnchor = (): Anchor | null => {
    const box = els.scroller.current;
    const list = els.list.current;
    if (!box || !list) return null;
    const boxRect = box.getBoundingClientRect();
    for (const row of list.children) {
      const key = (row as HTMLElement).dataset.row;
      if (key === undefined) continue;
      const rect = row.getBoundingClientRect();
      if (rect.bottom <= boxRect.top) continue;
      if (rect.top < boxRect.bottom) return { key, offset: rect.top - boxRect.top };
      break;
    }
    const { offsets: at, keys: k } = rows.current.current;
    if (k.length === 0) return null;
    const y = boxRect.top - list.getBoundingClientRect().top;
    const index = indexAt(at, y);
    return { key: k[index]!, offset: at[index]! - y };
  };

  // After every render, once the rows are measured: put the view back where it stands.
  useLayoutEffect(place);

  useEffect(() => {
    const box = els.scroller.current;
    const inner = els.content.current;
    if (!box || !inner || typeof ResizeObserver === "undefined") return;
    // Markdown highlighted in a later frame, a section opened, the panel resized: measure again
    // and stay where the view stands.
    const observer = new ResizeObserver(() => {
      stand.current.viewport = box.clientHeight || stand.current.viewport;
      const changed = rows.measure();
      place();
      if (changed) rows.remeasured();
      else if (!sameRange(rows.current.current.rangeNow(), rows.drawn.current.range)) rows.redraw();
    });
    observer.observe(inner);
    observer.observe(box);
    return () => observer.disconnect();
  }, []);

  /** To the newest message, following it from there on (Jump to latest, and every send). */
  const jumpToLatest = () => {
    stand.current.follow = true;
    stand.current.anchor = null;
    setShowJump(false);
    place();
    rows.redraw();
  };
  useEffect(() => onFollowLatest(jumpToLatest), []);

  const onScroll = () => {
    const box = els.scroller.current;
    if (!box) return;
    const s = stand.current;
    s.follow = atBottom(box.scrollHeight, box.scrollTop, box.clientHeight);
    setShowJump(!s.follow);
    s.viewport = box.clientHeight || s.viewport;
    s.anchor = s.follow ? null : findAnchor();
    if (s.follow && opts.earlier === undefined) {
      const pinned = opts.pinned.current;
      const focused = pinned === null ? undefined : rows.current.current.indexOf.get(pinned);
      if (opts.onRelease(rows.drawn.current.range.start, focused)) return;
    }
    if (!sameRange(rows.current.current.rangeNow(), rows.drawn.current.range)) rows.redraw();
  };

  return { showJump, jumpToLatest, onScroll };
}
