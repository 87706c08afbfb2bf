// The message list: the settled rows, windowed (only those near the viewport are in the DOM, plus
// the one holding the keyboard focus; blank space of their height stands for the rest), the live
// items of the turn being streamed (always drawn), the earlier-messages button of a restored
// chat, and Jump to latest. Its three behaviours each have a hook: drawing rows
// (use-row-window.ts), staying in place (use-scroll-anchor.ts) and the keyboard feed
// (use-feed-keys.ts); the pure part is chat-window.ts. Hand-written rather than a library: the ones
// that fit Preact without preact/compat do not pin a focused row (docs/architecture.md).
import { useEffect, useMemo, useRef } from "preact/hooks";
import type { ChatItem } from "../../src/shared/chat-items";
import type { ChatState } from "../../src/shared/reducer";
import type { ViewStatus } from "../../src/shared/protocol";
import { answerToContinue, BranchContext, forksByItem } from "../branch-controls";
import { Item } from "../cards/item";
import { ArrowDownIcon, Spinner } from "../icons";
import { onMarkdownClick } from "../markdown/code-block-clicks";
import { memo } from "../memo";
import { announce } from "../live-region";
import { slots } from "./chat-window";
import { EarlierMessages, useEarlierMessages } from "./earlier-messages";
import { EmptyChat, SetUpAModel } from "./empty-chat";
import { useFeedKeys } from "./use-feed-keys";
import { type ListElements, useRowWindow } from "./use-row-window";
import { useScrollAnchor, useViewStand } from "./use-scroll-anchor";

/** The last host ask for the focus on an item that was carried out (ViewModel.focusRequests). */
let focusAsksDone = 0;

/** One drawn settled item, in the wrapper that is measured (its height includes the gap below it). */
const Row = memo(function Row({ rowKey, item }: { rowKey: string; item: ChatItem }) {
  return (
    <div class="row" data-row={rowKey}>
      <Item item={item} />
    </div>
  );
});

export function MessageList({
  chat,
  ready,
  setup,
  vscodeModels,
  onRelease,
  focusItem,
}: {
  chat: ChatState;
  ready: boolean;
  setup: ViewStatus["setup"];
  /** VS Code has models Pi Chat may use: the setup offers them first. */
  vscodeModels: boolean;
  /** Back at the newest messages: the earlier items may be let go of (ChatClient.releaseEarlier). */
  onRelease: (firstDrawn: number, focused: number | undefined) => boolean;
  /** The host asked for the focus on this item (Show Model Context's link back to it); `request` counts the asks. */
  focusItem?: { id: string; request: number } | undefined;
}) {
  const els: ListElements = {
    scroller: useRef<HTMLDivElement>(null),
    content: useRef<HTMLDivElement>(null),
    list: useRef<HTMLDivElement>(null),
    liveList: useRef<HTMLDivElement>(null),
  };
  const stand = useViewStand();
  /** The key of the row holding the keyboard focus: drawn while it has it, wherever the view is. */
  const pinned = useRef<string | null>(null);
  // The order matters: after every render the rows are measured, then the view is put back, then
  // a pending keyboard move is done (each hook's layout effect, in this order).
  const rows = useRowWindow(chat, els, stand, pinned);
  const scroll = useScrollAnchor({ els, stand, rows, pinned, earlier: chat.earlier, onRelease });
  const feed = useFeedKeys(els, stand, rows, pinned);
  useEffect(() => {
    // Each ask once, though the list is drawn anew for another chat (the ask may come with the switch).
    if (focusItem === undefined || focusItem.request === focusAsksDone) return;
    focusAsksDone = focusItem.request;
    if (!feed.focusItemById(focusItem.id)) announce("That message is not in the part of the chat loaded now");
  }, [focusItem?.request]);
  const askEarlier = useEarlierMessages(chat.earlier, rows.keys[0], pinned, rows.rowEl);

  const isEmpty = chat.settled.length === 0 && chat.live.length === 0 && chat.earlier === undefined;
  const forks = useMemo(() => forksByItem(chat.forks), [chat.forks]);
  const continuable = answerToContinue(chat);
  const branchView = useMemo(() => ({ forks, running: chat.running, ...(continuable ? { continuable } : {}) }), [forks, chat.running, continuable]);
  return (
    <BranchContext.Provider value={branchView}>
      <main class="chat" aria-label="Chat">
        {/* biome-ignore lint/a11y/useKeyWithClickEvents lint/a11y/noStaticElementInteractions: one delegated handler for the buttons and links inside rendered answers, which take the keyboard themselves. */}
        <div class="scroller" ref={els.scroller} onScroll={scroll.onScroll} onClick={onMarkdownClick}>
          <div class="chat-content" ref={els.content} role="log" aria-label="Messages" aria-live="off" onKeyDown={feed.onKeyDown}>
            {isEmpty && ready && !chat.running && (setup ? <SetUpAModel setup={setup} vscodeModels={vscodeModels} /> : <EmptyChat />)}
            {chat.earlier !== undefined && (
              // Keyed by the count: a new count (the path changed below it) is a new ask.
              <EarlierMessages key={chat.earlier} count={chat.earlier} root={els.scroller} onAsk={askEarlier} />
            )}
            <div class="rows" ref={els.list} onFocusIn={feed.onFocusIn} onFocusOut={feed.onFocusOut}>
              {slots(rows.offsets, rows.range, rows.pins).map((slot, i) =>
                slot.kind === "gap" ? (
                  <div key={`gap${i === 0 ? "-top" : `-${slot.from}`}`} class="rows-gap" style={{ height: `${slot.height}px` }} aria-hidden="true" />
                ) : (
                  <Row key={rows.keys[slot.index]!} rowKey={rows.keys[slot.index]!} item={rows.items[slot.index]!} />
                ),
              )}
            </div>
            <div class="live" ref={els.liveList}>
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
        {scroll.showJump && (
          <button type="button" class="jump-button" onClick={scroll.jumpToLatest}>
            <ArrowDownIcon /> Jump to latest
          </button>
        )}
      </main>
    </BranchContext.Provider>
  );
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
