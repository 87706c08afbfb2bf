// The keyboard in the message list: the row holding the focus stays drawn (pinned) wherever the
// view goes; Tab from the last control drawn (or from the pinned row while the view is elsewhere)
// draws the next row first and goes on there; Page Up/Down in a message, and the arrows on a
// message itself, move to the previous or next message as in a feed, drawing it first, and from
// the last row on into the live items.
import { useLayoutEffect, useRef, type MutableRef } from "preact/hooks";
import { tabbables } from "../focus";
import { tabReveal, type ViewStand } from "./chat-window";
import type { ListElements, RowWindow } from "./use-row-window";

/** A move the keyboard asked for that needs a row drawn first: done after the redraw. */
interface PendingFocus {
  index: number;
  dir: 1 | -1;
  /** "control": the next control in that direction (Tab); "item": the message itself (arrows, Page Up/Down). */
  to: "control" | "item";
  /** Rows still to try when the rows drawn have nothing to focus. */
  tries: number;
}

export function useFeedKeys(els: ListElements, stand: MutableRef<ViewStand>, rows: RowWindow, pinned: MutableRef<string | null>) {
  const pendingFocus = useRef<PendingFocus | null>(null);

  const onFocusIn = (e: FocusEvent) => {
    const row = (e.target as Element | null)?.closest<HTMLElement>("[data-row]");
    pinned.current = row?.dataset.row ?? null;
  };
  const onFocusOut = (e: FocusEvent) => {
    const to = e.relatedTarget as Node | null;
    // The focus left the list (or the window): a focused row that goes is redrawn when it comes
    // back, and a row that keeps the focus while the window is away stays pinned.
    if (to && !els.list.current?.contains(to)) pinned.current = null;
  };

  /** Draws row `index` (the view goes to it), then moves the focus as asked. */
  const reveal = (move: PendingFocus) => {
    const key = rows.current.current.keys[move.index];
    if (key === undefined) return;
    const s = stand.current;
    s.follow = false;
    // Tab forward shows the row low in the view, back high; either way whole rows around it are drawn.
    s.anchor = { key, offset: move.dir === 1 ? Math.round(s.viewport * 0.6) : Math.round(s.viewport * 0.2) };
    pendingFocus.current = move;
    rows.redraw();
  };

  const focusPending = () => {
    const move = pendingFocus.current;
    if (!move || !els.list.current) return;
    pendingFocus.current = null;
    const { keys: k } = rows.current.current;
    for (let i = move.index, left = move.tries; i >= 0 && i < k.length && left > 0; i += move.dir, left--) {
      const el = rows.rowEl(k[i]!);
      if (!el) {
        // Not drawn yet (the rows ran out of view): go on from there after the next redraw.
        reveal({ ...move, index: i, tries: left });
        return;
      }
      const target = move.to === "item" ? itemElement(el) : move.dir === 1 ? tabbables(el)[0] : tabbables(el).at(-1);
      if (target) {
        pinned.current = k[i]!;
        target.focus();
        return;
      }
    }
  };
  // After every render, last: a keyboard move that waited for its row to be drawn.
  useLayoutEffect(focusPending);

  /** Tab out of a drawn row towards one that is not drawn: draw it, then go on there. */
  const onTab = (e: KeyboardEvent, active: HTMLElement, from: number) => {
    const { indexOf: at, keys: k } = rows.current.current;
    const dir = e.shiftKey ? -1 : 1;
    const order = tabbables(document.body);
    const next = order[order.indexOf(active) + dir];
    const to = next && els.list.current?.contains(next) ? rowOf(next, at) : undefined;
    const index = tabReveal(rows.drawn.current.range, rows.drawn.current.pins, from, to, dir, k.length);
    if (index === null) return;
    e.preventDefault();
    reveal({ index, dir, to: "control", tries: 50 });
  };

  /** From a live item: to the next or previous live item, or up into the list. */
  const inLive = (e: KeyboardEvent, active: HTMLElement, dir: 1 | -1, liveItems: readonly HTMLElement[]) => {
    const { keys: k } = rows.current.current;
    const at = liveItems.findIndex((el) => el.contains(active));
    if (at < 0) return;
    const target = liveItems[at + dir];
    e.preventDefault();
    if (target) focusItem(target);
    else if (dir === -1 && k.length > 0) reveal({ index: k.length - 1, dir, to: "item", tries: 50 });
  };

  /** From row `from`: to the next or previous message, drawn first if it is not; past the last, the live items. */
  const inRows = (e: KeyboardEvent, from: number, dir: 1 | -1, liveItems: readonly HTMLElement[]) => {
    const { keys: k } = rows.current.current;
    e.preventDefault();
    if (from + dir >= k.length) {
      if (liveItems[0]) focusItem(liveItems[0]);
      return;
    }
    if (from + dir < 0) return;
    const el = rows.rowEl(k[from + dir]!);
    const item = el && itemElement(el);
    if (item) {
      pinned.current = k[from + dir]!;
      item.focus();
    } else reveal({ index: from + dir, dir, to: "item", tries: 50 });
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const active = document.activeElement;
    if (e.defaultPrevented || !(active instanceof HTMLElement)) return;
    const from = rowOf(active, rows.current.current.indexOf);
    if (e.key === "Tab" && !e.altKey && !e.ctrlKey && !e.metaKey) {
      if (from !== undefined) onTab(e, active, from);
      return;
    }
    const dir = feedDirection(e, active);
    if (dir === undefined) return;
    const liveItems = Array.from(els.liveList.current?.querySelectorAll<HTMLElement>("[data-item]") ?? []).filter(
      (el) => !el.parentElement?.closest(".live [data-item]"),
    );
    if (from === undefined) inLive(e, active, dir, liveItems);
    else inRows(e, from, dir, liveItems);
  };

  /** The focus to the item with this id: a live one at once, a row drawn first. False when the chat on screen has none. */
  const focusItemById = (id: string): boolean => {
    const live = Array.from(els.liveList.current?.querySelectorAll<HTMLElement>("[data-item]") ?? []).find((el) => el.dataset.item === id);
    if (live) {
      focusItem(live);
      return true;
    }
    const index = rows.current.current.indexOf.get(id);
    if (index === undefined) return false;
    reveal({ index, dir: 1, to: "item", tries: 1 });
    return true;
  };

  return { onKeyDown, onFocusIn, onFocusOut, focusItemById };
}

/** Arrows on a message itself, Page Up/Down anywhere in one (no modifier): the direction in the feed. */
function feedDirection(e: KeyboardEvent, active: HTMLElement): 1 | -1 | undefined {
  if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return undefined;
  const byArrow = active.matches("[data-item]") && (e.key === "ArrowDown" || e.key === "ArrowUp");
  const byPage = e.key === "PageDown" || e.key === "PageUp";
  if (!byArrow && !byPage) return undefined;
  return e.key === "ArrowDown" || e.key === "PageDown" ? 1 : -1;
}

/** Reading from a rendered row's element: its key and its index in the list. */
function rowOf(el: Element | null, indexOf: ReadonlyMap<string, number>): number | undefined {
  const row = el?.closest<HTMLElement>("[data-row]");
  const key = row?.dataset.row;
  return key === undefined ? undefined : indexOf.get(key);
}

/** Focuses a message element (focusable by script only). */
function focusItem(el: HTMLElement): void {
  if (!el.hasAttribute("tabindex")) el.tabIndex = -1;
  el.focus();
}

/** The message element of a row (focusable by script, not by Tab: tabIndex -1). */
export function itemElement(row: HTMLElement): HTMLElement | null {
  const el = row.querySelector<HTMLElement>("[data-item]");
  if (el && el.tabIndex < 0 && !el.hasAttribute("tabindex")) el.tabIndex = -1;
  return el;
}
