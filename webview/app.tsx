// The whole view: header, banners, the chat (settled chunks + live items), the composer.
// Per streamed delta only the live part changes: each settled chunk is a memoized component
// that skips while its (immutable) array is the same, and is `content-visibility: auto`, so
// the browser also skips layout and paint of chunks out of view. Chunks far from the view are
// not drawn until scrolled near (a long chat opens at the bottom).
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { ChatItem } from "../src/shared/chat-items";
import type { ChatState } from "../src/shared/reducer";
import type { ViewStatus, WebviewCommand } from "../src/shared/protocol";
import type { ChatClient, ViewModel } from "./client";
import { BranchContext, forksByItem } from "./branch-controls";
import { Composer } from "./composer";
import { FilesOfferPanel } from "./files-offer";
import { ImageBaseContext } from "./composer-images";
import { ContextMeterButton } from "./context-meter";
import { ArrowDownIcon, InfoIcon, Spinner, WarningIcon } from "./icons";
import { Item } from "./items";
import { onMarkdownClick } from "./markdown";
import { memo } from "./memo";
import { forgetOpenSections } from "./cards/collapsible";
import { paceByFrame, renderedSeq } from "./frame-pacing";
import { focusComposer, focusPendingApproval } from "./focus";
import { Header } from "./header";
import { History } from "./history";
import { Announcer, queueRemovedByUser } from "./announce";
import { announce, LiveRegions } from "./live-region";
import { post } from "./vscode-api";

/** The client's view, rendered at most once per animation frame (see frame-pacing.ts). */
function useView(client: ChatClient): ViewModel {
  const [shown, setShown] = useState({ view: client.model, seq: client.lastSeq });
  useEffect(() => {
    const show = paceByFrame(() => setShown({ view: client.model, seq: client.lastSeq }));
    const unsubscribe = client.subscribe(show);
    show();
    return unsubscribe;
  }, [client]);
  useLayoutEffect(() => {
    renderedSeq.value = shown.seq;
    renderedSeq.commits += 1;
  }, [shown]);
  return shown.view;
}

/** Alt+Shift+A from anywhere in the view: to the first approval waiting (KeyboardEvent.code: any layout). */
function isGoToApprovalKey(e: KeyboardEvent): boolean {
  return e.altKey && e.shiftKey && !e.ctrlKey && !e.metaKey && e.code === "KeyA";
}

export function App({ client }: { client: ChatClient }) {
  const view = useView(client);
  const { status, chat } = view;
  const [historyOpen, setHistoryOpen] = useState(false);
  const chatIdRef = useRef(view.chatId);
  if (chatIdRef.current !== view.chatId) {
    chatIdRef.current = view.chatId;
    forgetOpenSections();
  }
  // A chat switch or a new chat replaces everything on screen: start again in the composer. Not
  // while the history dialog is open: deleting the chat on screen, or Undo, changes the chat behind
  // it, and the keyboard stays in the dialog (Escape takes it to the composer).
  const shownChat = useRef(view.chatId);
  useEffect(() => {
    if (shownChat.current !== "" && shownChat.current !== view.chatId && !historyOpen) focusComposer();
    shownChat.current = view.chatId;
  }, [view.chatId]);
  useEffect(() => {
    if (view.focusRequests === 0) return;
    if (view.focusTarget !== "approval" || !focusPendingApproval()) focusComposer();
  }, [view.focusRequests]);
  useEffect(() => {
    if (view.historyRequests > 0) setHistoryOpen(true);
  }, [view.historyRequests]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isGoToApprovalKey(e)) return;
      e.preventDefault();
      focusPendingApproval();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
  return (
    <ImageBaseContext.Provider value={view.imageBase}>
      <div class="app">
        <Header title={view.title} status={status}>
          <ContextMeterButton meter={requestSent(chat) ? chat.meter : undefined} running={chat.running} />
        </Header>
        {historyOpen && (
          <History chats={view.chats} currentId={view.chatId} deleted={view.deleted} search={view.search} onClose={() => setHistoryOpen(false)} />
        )}
        {status.storage === "globalFallback" && (
          <section class="banner banner-warning" aria-label="Where chats are saved">
            <WarningIcon class="warn" />
            <span>No folder is open: chats are saved in VS Code's global storage, not in a workspace.</span>
          </section>
        )}
        {status.writtenElsewhere === true && (
          <div class="banner banner-warning written-elsewhere" role="status">
            <WarningIcon class="warn" />
            <span>Open in another window: this chat is being written there, so it is read-only here. It reloads when that window is done.</span>
          </div>
        )}
        {status.modelNote && (
          <div class="banner banner-info model-note" role="status">
            <InfoIcon class="muted" />
            <span>{status.modelNote}</span>
          </div>
        )}
        {status.branchNote && (
          <div class="banner banner-info" role="status">
            <WarningIcon class="warn" />
            <span>{status.branchNote}</span>
          </div>
        )}
        <ChatView key={view.chatId} chat={chat} ready={view.ready} setup={status.setup} />
        {status.canContinue && !chat.running && status.writtenElsewhere !== true && (
          <section class="continue-bar" aria-label="Interrupted turn">
            <WarningIcon class="warn" />
            <span class="grow">Interrupted — the last turn did not finish.</span>
            <button type="button" class="button primary" onClick={() => post({ type: "chat/continue" })}>
              Continue
            </button>
          </section>
        )}
        {view.filesOffer && <FilesOfferPanel key={view.filesOffer.id} offer={view.filesOffer} />}
        <Composer
          running={chat.running}
          attachments={view.attachments}
          editsAllowedForChat={status.editsAllowedForChat}
          readOnly={status.writtenElsewhere === true}
          imageInput={status.imageInput}
          modelLabel={status.modelLabel}
          queue={chat.queue}
          queueKept={chat.queueKept}
          restore={view.restore}
          mentionResults={view.mentionResults}
          commandList={view.commandList}
        />
        <Announcements chat={chat} chatId={view.chatId} />
        <LiveRegions />
      </div>
    </ImageBaseContext.Provider>
  );
}

function EmptyChat() {
  return (
    <div class="empty">
      <div class="empty-title">Ask Pi about your code</div>
      <div class="empty-hint">Pi can read files in this workspace and propose edits. Every edit is shown as a diff and applied only when you allow it.</div>
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

/**
 * Whether a request of this chat reached a model: the meter counts what was sent, so a chat whose
 * only request failed before it went out (no key, a server that is down) shows none, not "~2.1k".
 */
function requestSent(chat: ChatState): boolean {
  const meter = chat.meter;
  if (!meter) return false;
  const usage = meter.chat;
  if (usage.input + usage.output + usage.cacheRead + usage.cacheWrite > 0 || meter.reduced !== undefined || chat.earlier !== undefined) return true;
  // A local server may report no usage: an answer that did not fail says the request went out.
  const answered = (items: readonly ChatItem[]) => items.some((i) => i.kind === "assistant" && i.stopReason !== "error");
  return answered(chat.live) || chat.settled.some(answered);
}

/** Rough heights (px) for a chunk not drawn yet, so the scrollbar is about right. */
const ESTIMATED_HEIGHT: Record<ChatItem["kind"], number> = { user: 48, attachment: 28, assistant: 140, tool: 44, notice: 48, summary: 40, userCommand: 90 };

/** A chunk is drawn once it comes within this distance of the visible part of the chat. */
const DRAW_AHEAD = "1500px 0px";

/**
 * A settled chunk. Chunks out of view start as an empty placeholder of about the right height
 * and are drawn (for good) when scrolled near, so opening a long chat parses only what is seen.
 */
const SettledChunk = memo(function SettledChunk(props: {
  chunkKey: string;
  items: readonly ChatItem[];
  eager: boolean;
  root: { current: HTMLElement | null };
}) {
  const [drawn, setDrawn] = useState(props.eager);
  const placeholder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = placeholder.current;
    if (drawn || !el || typeof IntersectionObserver === "undefined") {
      if (!drawn) setDrawn(true);
      return;
    }
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setDrawn(true), {
      root: props.root.current,
      rootMargin: DRAW_AHEAD,
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [drawn]);
  if (!drawn) {
    const height = props.items.reduce((sum, item) => sum + ESTIMATED_HEIGHT[item.kind], 0);
    return <div ref={placeholder} class="chunk chunk-pending" data-chunk={props.chunkKey} style={{ height: `${height}px` }} aria-hidden="true" />;
  }
  return (
    <div class="chunk" data-chunk={props.chunkKey}>
      {props.items.map((item) => (
        <Item key={item.id} item={item} />
      ))}
    </div>
  );
});

/**
 * Stands for the earlier messages of a restored long chat, whose items the host has not sent:
 * they are asked for when this comes within DRAW_AHEAD of the view, or with the button (keyboard).
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
      rootMargin: DRAW_AHEAD,
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  const count = props.count.toLocaleString("en-US");
  return (
    <div ref={marker} class="earlier-messages">
      <button type="button" class="text-button" aria-busy={asked} onClick={(e) => ask(e.detail === 0)}>
        {asked ? <Spinner /> : null}
        {asked ? `Loading ${count} earlier messages…` : `Show ${count} earlier messages`}
      </button>
    </div>
  );
}

/**
 * A chunk's key: its first message's item id (`m<index>`, unique in a chat; tool call ids may
 * repeat), so chunks keep their DOM when earlier ones are put before them.
 */
function chunkKey(chunk: readonly ChatItem[], index: number): string {
  return chunk.find((item) => item.kind !== "tool" && /^m\d+$/.test(item.id))?.id ?? `${chunk[0]?.id ?? ""}#${index}`;
}

/** How long the message read is held in place while the earlier chunks above it settle. */
const HOLD_AFTER_EARLIER_MS = 600;

/** Distance from the bottom (px) within which the view keeps following the stream. */
const FOLLOW_SLACK_PX = 40;

function ChatView({ chat, ready, setup }: { chat: ChatState; ready: boolean; setup: ViewStatus["setup"] }) {
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const follow = useRef(true);
  const [showJump, setShowJump] = useState(false);

  const toBottom = () => {
    const el = scroller.current;
    if (el) el.scrollTop = el.scrollHeight;
  };

  // After every render, and whenever the content changes size (markdown parsed in a later frame,
  // a section opened), stay at the bottom unless the user scrolled away from it.
  useLayoutEffect(() => {
    if (follow.current) toBottom();
  });
  useEffect(() => {
    const el = content.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(() => {
      if (follow.current) toBottom();
      else keepHeld();
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  // Earlier items arrive above what is on screen: what the user was looking at stays in place
  // (measured here, before the DOM changes; put back after it did, unless the browser's own
  // scroll anchoring already did).
  const earlierAsk = useRef<{ byKeyboard: boolean; count: number } | null>(null);
  // For a moment after they came, chunks above are still drawn (placeholders replaced, sizes
  // settling): the message read is held where it was through those changes.
  const held = useRef<{ el: HTMLElement; top: number; until: number } | null>(null);
  const keepHeld = () => {
    const hold = held.current;
    const box = scroller.current;
    if (!hold || !box) return;
    if (performance.now() > hold.until || !hold.el.isConnected) {
      held.current = null;
      return;
    }
    box.scrollTop += hold.el.getBoundingClientRect().top - hold.top;
  };
  const anchor = useRef<{ key: string; top: number; focus: boolean; count: number } | null>(null);
  const firstChunk = chat.settled[0];
  const previousFirst = useRef<string | undefined>(undefined);
  if (
    earlierAsk.current &&
    chat.earlier === undefined &&
    firstChunk &&
    previousFirst.current !== undefined &&
    chunkKey(firstChunk, 0) !== previousFirst.current
  ) {
    const el = scroller.current?.querySelector<HTMLElement>(`[data-chunk="${CSS.escape(previousFirst.current)}"]`);
    if (el)
      anchor.current = {
        key: previousFirst.current,
        top: el.getBoundingClientRect().top,
        focus: earlierAsk.current.byKeyboard,
        count: earlierAsk.current.count,
      };
    earlierAsk.current = null;
  }
  previousFirst.current = firstChunk ? chunkKey(firstChunk, 0) : undefined;
  useLayoutEffect(() => {
    const kept = anchor.current;
    if (!kept) return;
    anchor.current = null;
    const el = scroller.current?.querySelector<HTMLElement>(`[data-chunk="${CSS.escape(kept.key)}"]`);
    const box = scroller.current;
    if (!el || !box) return;
    // At the bottom the view keeps following (the effect above); else what was on screen stays.
    if (!follow.current) {
      held.current = { el, top: kept.top, until: performance.now() + HOLD_AFTER_EARLIER_MS };
      keepHeld();
    }
    announce(`Showing ${kept.count.toLocaleString("en-US")} earlier messages`);
    if (kept.focus) {
      // The button is gone: the keyboard goes on from the first message it was above.
      const first = el.querySelector<HTMLElement>("[data-item]") ?? el;
      first.tabIndex = -1;
      first.focus({ preventScroll: true });
    }
  });
  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    follow.current = el.scrollHeight - el.scrollTop - el.clientHeight <= FOLLOW_SLACK_PX;
    setShowJump(!follow.current);
  };

  const empty = chat.settled.length === 0 && chat.live.length === 0 && chat.earlier === undefined;
  const forks = useMemo(() => forksByItem(chat.forks), [chat.forks]);
  const branchView = useMemo(() => ({ forks, running: chat.running }), [forks, chat.running]);
  return (
    <BranchContext.Provider value={branchView}>
      <main class="chat" aria-label="Chat">
        {/* biome-ignore lint/a11y/useKeyWithClickEvents lint/a11y/noStaticElementInteractions: one delegated handler for the buttons and links inside rendered answers, which take the keyboard themselves. */}
        <div class="scroller" ref={scroller} onScroll={onScroll} onClick={onMarkdownClick}>
          <div class="chat-content" ref={content} role="log" aria-label="Messages" aria-live="off">
            {empty && ready && !chat.running && (setup ? <SetUpAModel setup={setup} /> : <EmptyChat />)}
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
                  if (!pending) post({ type: "chat/loadEarlier" });
                }}
              />
            )}
            {chat.settled.map((chunk, index) => (
              <SettledChunk
                key={chunkKey(chunk, index)}
                chunkKey={chunkKey(chunk, index)}
                items={chunk}
                eager={index >= chat.settled.length - 2}
                root={scroller}
              />
            ))}
            <div class="live">
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
          <button
            type="button"
            class="jump-button"
            onClick={() => {
              follow.current = true;
              setShowJump(false);
              toBottom();
            }}
          >
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

/** Speaks what changed in meaning (see announce.ts); a chat switched to is not news. */
function Announcements({ chat, chatId }: { chat: ChatState; chatId: string }) {
  const announcer = useRef({ chatId, announcer: new Announcer(queueRemovedByUser) });
  if (announcer.current.chatId !== chatId) announcer.current = { chatId, announcer: new Announcer(queueRemovedByUser) };
  useEffect(() => {
    for (const a of announcer.current.announcer.next(chat)) announce(a.text, a.assertive);
  }, [chat, chatId]);
  return null;
}
