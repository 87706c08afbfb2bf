// The message list. Settled items are windowed: only those within OVERSCAN_PX of the viewport are
// in the DOM (plus the one holding the keyboard focus); blank space of their measured (or estimated)
// height stands for the rest, so the scrollbar is right and a 10,000-message chat costs the DOM of
// a screenful. The live items (the turn being streamed) are always drawn. Where the view stands is
// an item and its distance from the viewport's top (chat-window.ts), put back after every redraw,
// so rows drawn above at their real height, or earlier messages put before everything, move
// nothing on screen; at the bottom the view follows the stream instead. Hand-written rather than a
// library: the ones that fit Preact without preact/compat do not pin a focused row, and we need
// the keyboard rules below (docs/architecture.md, "The message list is windowed").
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { ChatItem } from "../src/shared/chat-items";
import type { ChatState } from "../src/shared/reducer";
import type { ViewStatus, WebviewCommand } from "../src/shared/protocol";
import { BranchContext, forksByItem } from "./branch-controls";
import {
  type Anchor,
  atBottom,
  HeightCache,
  indexAt,
  itemKeys,
  itemOffsets,
  type Range,
  sameRange,
  slots,
  tabReveal,
  viewTop,
  nextRange,
  fromTurnStart,
} from "./chat-window";
import { focusComposer, tabbables } from "./focus";
import { ArrowDownIcon, CloseIcon, Spinner } from "./icons";
import { Item } from "./cards/item";
import { announce } from "./live-region";
import { onMarkdownClick } from "./markdown/code-block-clicks";
import { memo } from "./memo";
import { loadUiState, post, saveUiState } from "./vscode-api";
import { groupDigits } from "./format";
import { onFollowLatest } from "./follow-latest";

/** "Show N earlier messages" asks by itself when it comes within this distance of the view. */
const ASK_AHEAD = "1500px 0px";

/**
 * Stands for the earlier messages of a restored long chat, whose items the host has not sent:
 * they are asked for when this comes within ASK_AHEAD of the view, or with the button (keyboard).
 */
function EarlierMessages(props: { count: number; root: { current: HTMLElement | null }; onAsk: (byKeyboard: boolean) => void }) {
  const marker = useRef<HTMLDivElement>(null);
  const [asked, setAsked] = useState(false);
  // The parent posts once per count; a press after the scroll asked still says it was the keyboard.
  const ask = (byKeyboard: boolean) => {
    setAsked(true);
    props.onAsk(byKeyboard);
  };
  useEffect(() => {
    const el = marker.current;
    if (!el || typeof IntersectionObserver === "undefined") return;
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && ask(false), {
      root: props.root.current,
      rootMargin: ASK_AHEAD,
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  const count = groupDigits(props.count);
  return (
    <div ref={marker} class="earlier-messages">
      <button type="button" class="text-button" aria-busy={asked} onClick={(e) => ask(e.detail === 0)}>
        {asked ? <Spinner /> : null}
        {asked ? `Loading ${count} earlier messages…` : `Show ${count} earlier messages`}
      </button>
    </div>
  );
}

/** One drawn settled item, in the wrapper that is measured (its height includes the gap below it). */
const Row = memo(function Row({ rowKey, item }: { rowKey: string; item: ChatItem }) {
  return (
    <div class="row" data-row={rowKey}>
      <Item item={item} />
    </div>
  );
});

/** A move the keyboard asked for that needs a row drawn first: done after the redraw. */
interface PendingFocus {
  index: number;
  dir: 1 | -1;
  /** "control": the next control in that direction (Tab); "item": the message itself (arrows, Page Up/Down). */
  to: "control" | "item";
  /** Rows still to try when the rows drawn have nothing to focus. */
  tries: number;
}

/** Reading from a rendered row's element: its key and its index in the list. */
function rowOf(el: Element | null, indexOf: ReadonlyMap<string, number>): number | undefined {
  const row = el?.closest<HTMLElement>("[data-row]");
  const key = row?.dataset.row;
  return key === undefined ? undefined : indexOf.get(key);
}

export function ChatView({
  chat,
  ready,
  setup,
  onRelease,
}: {
  chat: ChatState;
  ready: boolean;
  setup: ViewStatus["setup"];
  /** Back at the newest messages: the earlier items may be let go of (ChatClient.releaseEarlier). */
  onRelease: (firstDrawn: number, focused: number | undefined) => boolean;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const liveList = useRef<HTMLDivElement>(null);
  const follow = useRef(true);
  const anchor = useRef<Anchor | null>(null);
  /** The list position last shown at the viewport's top (an anchor lost in a rewind falls back to it). */
  const lastTop = useRef(0);
  const viewport = useRef(typeof window === "undefined" ? 800 : window.innerHeight);
  /** The height of what is under the list (the live items), which the bottom of the view shows first. */
  const tail = useRef(0);
  /** The key of the row holding the keyboard focus: drawn while it has it, wherever the view is. */
  const pinned = useRef<string | null>(null);
  const pendingFocus = useRef<PendingFocus | null>(null);
  const [heights] = useState(() => new HeightCache());
  const [heightsVersion, setHeightsVersion] = useState(0);
  const [, redraw] = useState(0);
  const [showJump, setShowJump] = useState(false);

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
    const top = viewTop({
      offsets,
      indexOf,
      follow: follow.current,
      anchor: anchor.current,
      viewport: viewport.current,
      tail: tail.current,
      fallbackTop: lastTop.current,
    });
    lastTop.current = top;
    return fromTurnStart(items, nextRange(offsets, drawn.current?.range ?? { start: 0, end: 0 }, top, viewport.current));
  };
  const drawn = useRef<{ range: Range; pins: number[] } | null>(null);
  const range = rangeNow();
  const pins = pinnedRows();
  drawn.current = { range, pins };
  // What onScroll and the observers need of this render.
  const current = useRef({ offsets, keys, indexOf, rangeNow });
  current.current = { offsets, keys, indexOf, rangeNow };

  const rowEl = (key: string) => list.current?.querySelector<HTMLElement>(`:scope > [data-row="${CSS.escape(key)}"]`) ?? null;

  /** Measures the drawn rows into the cache; true when a height changed. */
  const measure = (): boolean => {
    const el = list.current;
    if (!el) return false;
    let changed = false;
    for (const row of el.children) {
      const key = (row as HTMLElement).dataset.row;
      if (key !== undefined && heights.set(key, row.getBoundingClientRect().height)) changed = true;
    }
    const box = content.current;
    if (box) tail.current = Math.max(0, box.getBoundingClientRect().bottom - el.getBoundingClientRect().bottom);
    return changed;
  };

  /** Puts the view back where it stands: the bottom when following, else the anchor at its offset. */
  const place = () => {
    const box = scroller.current;
    if (!box) return;
    if (follow.current) {
      box.scrollTop = box.scrollHeight;
      return;
    }
    const kept = anchor.current;
    const el = kept && rowEl(kept.key);
    if (!kept || !el) return;
    const delta = el.getBoundingClientRect().top - box.getBoundingClientRect().top - kept.offset;
    if (Math.abs(delta) >= 0.5) box.scrollTop += delta;
  };

  /** The item at the viewport's top, from the rows drawn, else from the heights (the view jumped into blank space). */
  const findAnchor = (): Anchor | null => {
    const box = scroller.current;
    const rows = list.current;
    if (!box || !rows) return null;
    const boxRect = box.getBoundingClientRect();
    for (const row of rows.children) {
      const key = (row as HTMLElement).dataset.row;
      if (key === undefined) continue;
      const rect = row.getBoundingClientRect();
      if (rect.bottom <= boxRect.top) continue;
      if (rect.top < boxRect.bottom) return { key, offset: rect.top - boxRect.top };
      break;
    }
    const { offsets: at, keys: k } = current.current;
    if (k.length === 0) return null;
    const y = boxRect.top - rows.getBoundingClientRect().top;
    const index = indexAt(at, y);
    return { key: k[index]!, offset: at[index]! - y };
  };

  // After every render: measure what was drawn, then put the view back where it stands.
  useLayoutEffect(() => {
    if (measure()) setHeightsVersion((v) => v + 1);
    place();
    focusPending();
  });

  useEffect(() => {
    const box = scroller.current;
    const inner = content.current;
    if (!box || !inner || typeof ResizeObserver === "undefined") return;
    // Markdown highlighted in a later frame, a section opened, the panel resized: measure again
    // and stay where the view stands.
    const observer = new ResizeObserver(() => {
      viewport.current = box.clientHeight || viewport.current;
      const changed = measure();
      place();
      if (changed) setHeightsVersion((v) => v + 1);
      else if (!sameRange(current.current.rangeNow(), drawn.current!.range)) redraw((v) => v + 1);
    });
    observer.observe(inner);
    observer.observe(box);
    return () => observer.disconnect();
  }, []);

  /** To the newest message, following it from there on (Jump to latest, and every send). */
  const jumpToLatest = () => {
    follow.current = true;
    anchor.current = null;
    setShowJump(false);
    place();
    redraw((v) => v + 1);
  };
  useEffect(() => onFollowLatest(jumpToLatest), []);

  const onScroll = () => {
    const box = scroller.current;
    if (!box) return;
    follow.current = atBottom(box.scrollHeight, box.scrollTop, box.clientHeight);
    setShowJump(!follow.current);
    viewport.current = box.clientHeight || viewport.current;
    anchor.current = follow.current ? null : findAnchor();
    if (follow.current && chat.earlier === undefined) {
      const focused = pinned.current === null ? undefined : current.current.indexOf.get(pinned.current);
      if (onRelease(drawn.current!.range.start, focused)) return;
    }
    if (!sameRange(current.current.rangeNow(), drawn.current!.range)) redraw((v) => v + 1);
  };

  // ---- the keyboard: the focused row stays drawn; a move to a row not drawn draws it first ----

  const onFocusIn = (e: FocusEvent) => {
    const row = (e.target as Element | null)?.closest<HTMLElement>("[data-row]");
    pinned.current = row?.dataset.row ?? null;
  };
  const onFocusOut = (e: FocusEvent) => {
    const to = e.relatedTarget as Node | null;
    if (!to || !list.current?.contains(to)) {
      // The focus left the list (or the window): a focused row that goes is redrawn when it comes
      // back, and a row that keeps the focus while the window is away stays pinned.
      if (to) pinned.current = null;
    }
  };

  /** Draws row `index` (the view goes to it), then moves the focus as asked. */
  const reveal = (move: PendingFocus) => {
    const key = current.current.keys[move.index];
    if (key === undefined) return;
    follow.current = false;
    // Tab forward shows the row low in the view, back high; either way whole rows around it are drawn.
    anchor.current = { key, offset: move.dir === 1 ? Math.round(viewport.current * 0.6) : Math.round(viewport.current * 0.2) };
    pendingFocus.current = move;
    redraw((v) => v + 1);
  };

  const focusPending = () => {
    const move = pendingFocus.current;
    const rows = list.current;
    if (!move || !rows) return;
    pendingFocus.current = null;
    const { keys: k } = current.current;
    for (let i = move.index, left = move.tries; i >= 0 && i < k.length && left > 0; i += move.dir, left--) {
      const el = rowEl(k[i]!);
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

  const onKeyDown = (e: KeyboardEvent) => {
    const active = document.activeElement;
    const { indexOf: at, keys: k } = current.current;
    if (e.defaultPrevented || !(active instanceof HTMLElement)) return;
    const from = rowOf(active, at);
    const { range: r, pins: p } = drawn.current!;
    if (e.key === "Tab" && !e.altKey && !e.ctrlKey && !e.metaKey) {
      if (from === undefined) return;
      const dir = e.shiftKey ? -1 : 1;
      const order = tabbables(document.body);
      const next = order[order.indexOf(active) + dir];
      const to = next && list.current?.contains(next) ? rowOf(next, at) : undefined;
      const index = tabReveal(r, p, from, to, dir, k.length);
      if (index === null) return;
      e.preventDefault();
      reveal({ index, dir, to: "control", tries: 50 });
      return;
    }
    // Arrows on a message itself, Page Up/Down anywhere in one: the next or previous message
    // (as in a feed), drawn first when it is not; from the last row on into the live items.
    const onItem = active.matches("[data-item]");
    const plain = !e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey;
    const byArrow = onItem && (e.key === "ArrowDown" || e.key === "ArrowUp") && plain;
    const byPage = (e.key === "PageDown" || e.key === "PageUp") && plain;
    if (!byArrow && !byPage) return;
    const dir = e.key === "ArrowDown" || e.key === "PageDown" ? 1 : -1;
    const liveItems = Array.from(liveList.current?.querySelectorAll<HTMLElement>("[data-item]") ?? []).filter(
      (el) => !el.parentElement?.closest(".live [data-item]"),
    );
    if (from === undefined) {
      // In the live items: between them, and up into the list.
      const at = liveItems.findIndex((el) => el.contains(active));
      if (at < 0) return;
      const target = liveItems[at + dir];
      e.preventDefault();
      if (target) focusItem(target);
      else if (dir === -1 && k.length > 0) reveal({ index: k.length - 1, dir, to: "item", tries: 50 });
      return;
    }
    e.preventDefault();
    if (from + dir >= k.length) {
      if (liveItems[0]) focusItem(liveItems[0]);
      return;
    }
    if (from + dir < 0) return;
    const el = rowEl(k[from + dir]!);
    const item = el && itemElement(el);
    if (item) {
      pinned.current = k[from + dir]!;
      item.focus();
    } else reveal({ index: from + dir, dir, to: "item", tries: 50 });
  };

  // ---- earlier messages of a restored long chat ----

  // They arrive above what is on screen, which stays (the anchor is an item: see place()). From
  // the keyboard, the focus goes to the first message the button was above.
  const earlierAsk = useRef<{ byKeyboard: boolean; count: number } | null>(null);
  const arrived = useRef<{ key: string; focus: boolean; count: number } | null>(null);
  const previousFirst = useRef<string | undefined>(undefined);
  const firstKey = keys[0];
  if (earlierAsk.current && chat.earlier === undefined && firstKey !== undefined && previousFirst.current !== undefined && firstKey !== previousFirst.current) {
    arrived.current = { key: previousFirst.current, focus: earlierAsk.current.byKeyboard, count: earlierAsk.current.count };
    if (arrived.current.focus) pinned.current = previousFirst.current;
    earlierAsk.current = null;
  }
  previousFirst.current = firstKey;
  useLayoutEffect(() => {
    const came = arrived.current;
    if (!came) return;
    arrived.current = null;
    announce(`Showing ${groupDigits(came.count)} earlier messages`);
    const el = rowEl(came.key);
    if (came.focus && el) itemElement(el)?.focus({ preventScroll: true });
  });

  const isEmpty = chat.settled.length === 0 && chat.live.length === 0 && chat.earlier === undefined;
  const forks = useMemo(() => forksByItem(chat.forks), [chat.forks]);
  const branchView = useMemo(() => ({ forks, running: chat.running }), [forks, chat.running]);
  return (
    <BranchContext.Provider value={branchView}>
      <main class="chat" aria-label="Chat">
        {/* biome-ignore lint/a11y/useKeyWithClickEvents lint/a11y/noStaticElementInteractions: one delegated handler for the buttons and links inside rendered answers, which take the keyboard themselves. */}
        <div class="scroller" ref={scroller} onScroll={onScroll} onClick={onMarkdownClick}>
          <div class="chat-content" ref={content} role="log" aria-label="Messages" aria-live="off" onKeyDown={onKeyDown}>
            {isEmpty && ready && !chat.running && (setup ? <SetUpAModel setup={setup} /> : <EmptyChat />)}
            {chat.earlier !== undefined && (
              // Keyed by the count: a new count (the path changed below it) is a new ask.
              <EarlierMessages
                key={chat.earlier}
                count={chat.earlier}
                root={scroller}
                onAsk={(byKeyboard) => {
                  const count = chat.earlier ?? 0;
                  const pending = earlierAsk.current?.count === count ? earlierAsk.current : null;
                  earlierAsk.current = { byKeyboard: byKeyboard || (pending?.byKeyboard ?? false), count };
                  if (!pending) post({ type: "chat/loadEarlier", count });
                }}
              />
            )}
            <div class="rows" ref={list} onFocusIn={onFocusIn} onFocusOut={onFocusOut}>
              {slots(offsets, range, pins).map((slot, i) =>
                slot.kind === "gap" ? (
                  <div key={`gap${i === 0 ? "-top" : `-${slot.from}`}`} class="rows-gap" style={{ height: `${slot.height}px` }} aria-hidden="true" />
                ) : (
                  <Row key={keys[slot.index]!} rowKey={keys[slot.index]!} item={items[slot.index]!} />
                ),
              )}
            </div>
            <div class="live" ref={liveList}>
              {chat.live.map((item) => (
                <Item key={item.id} item={item} />
              ))}
            </div>
            {chat.running && !hasActiveItem(chat.live) && (
              <div class="working">
                <Spinner /> Working…
              </div>
            )}
          </div>
        </div>
        {showJump && (
          <button type="button" class="jump-button" onClick={jumpToLatest}>
            <ArrowDownIcon /> Jump to latest
          </button>
        )}
      </main>
    </BranchContext.Provider>
  );
}

function EmptyChat() {
  const [hints, setHints] = useState(() => !loadUiState().hintsDismissed);
  return (
    <div class="empty">
      <div class="empty-title">Ask Pi about your code</div>
      <div class="empty-hint">Pi can read files in this workspace and propose edits. Every edit is shown as a diff and applied only when you allow it.</div>
      {hints && (
        <div class="empty-tips" role="note" aria-label="Hints">
          <span>
            <kbd>@</kbd> a file, folder, problems or selection · <kbd>/</kbd> commands and templates (<kbd>/help</kbd>) · <kbd>!command</kbd> runs it yourself ·{" "}
            <em>Restore files to here</em> on a message undoes Pi's edits · the meter above shows the model's context.
          </span>
          <button
            type="button"
            class="icon-button empty-tips-close"
            aria-label="Dismiss hints"
            title="Dismiss hints"
            onClick={() => {
              saveUiState({ hintsDismissed: true });
              setHints(false);
              focusComposer();
            }}
          >
            <CloseIcon />
          </button>
        </div>
      )}
    </div>
  );
}

/** What the empty chat says while no model can answer: nothing is set up yet, and the ways to set one up. */
const SETUP_WORDS: Record<NonNullable<ViewStatus["setup"]>, { title: string; hint: string }> = {
  noKey: {
    title: "Set up a model to start",
    hint: "Pi Chat needs an API key for a provider (Anthropic, OpenAI or Google), or a model running on your machine. Nothing is set up yet.",
  },
  noServer: {
    title: "Set up your local server",
    hint: "Pi Chat is set to use a local, OpenAI-compatible server, but no base URL is set.",
  },
};

function SetUpAModel({ setup }: { setup: NonNullable<ViewStatus["setup"]> }) {
  const words = SETUP_WORDS[setup];
  const run = (command: WebviewCommand) => post({ type: "workbench/runCommand", command });
  return (
    <section class="empty empty-setup" aria-label="Set up a model">
      <h2 class="empty-title">{words.title}</h2>
      <div class="empty-hint">{words.hint}</div>
      <div class="setup-actions">
        <button type="button" class="button primary" onClick={() => run("selectChatModel")}>
          Choose provider and model
        </button>
        <button type="button" class="button secondary" onClick={() => run("setApiKey")}>
          Set API key
        </button>
        <button type="button" class="button secondary" onClick={() => run("useLocalModel")}>
          Use a local model
        </button>
        <button type="button" class="button secondary" onClick={() => run("openWalkthrough")}>
          Get started: walkthrough
        </button>
      </div>
    </section>
  );
}

/** Focuses a message element (focusable by script only). */
function focusItem(el: HTMLElement): void {
  if (!el.hasAttribute("tabindex")) el.tabIndex = -1;
  el.focus();
}

/** The message element of a row (focusable by script, not by Tab: tabIndex -1). */
function itemElement(row: HTMLElement): HTMLElement | null {
  const el = row.querySelector<HTMLElement>("[data-item]");
  if (el && el.tabIndex < 0 && !el.hasAttribute("tabindex")) el.tabIndex = -1;
  return el;
}

/** Something in the live part already shows progress (a streaming answer, a running tool, a pending approval). */
function hasActiveItem(live: readonly ChatItem[]): boolean {
  return live.some(
    (i) =>
      (i.kind === "assistant" && i.isStreaming) ||
      (i.kind === "tool" && (i.status === "running" || i.approval?.state === "pending")) ||
      (i.kind === "summary" && i.state === "running"),
  );
}
