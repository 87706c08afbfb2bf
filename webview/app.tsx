// The whole view: header, banners, the chat (message-list/: the windowed message list and the
// live items), the composer. Per streamed delta only the live part changes; the settled rows are
// memoized on their (immutable) items, and only those near the viewport are in the DOM.
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { ChatItem } from "../src/shared/chat-items";
import type { ChatState } from "../src/shared/reducer";
import type { ChatClient, ViewModel } from "./client";
import { MessageList } from "./message-list/message-list";
import { Composer } from "./composer/composer";
import { FilePanels } from "./file-panels";
import { ImageBaseContext } from "./composer/composer-images";
import { ContextMeterButton } from "./context-meter";
import { InfoIcon, WarningIcon } from "./icons";
import { forgetChatCaches } from "./chat-caches";
import { paceByFrame, renderedSeq } from "./frame-pacing";
import { decideFirstPending, focusComposer, focusPendingApproval } from "./focus";
import { Header } from "./header";
import { History } from "./history";
import { HelpPanel } from "./help-panel";
import { Announcer, queueRemovedByUser } from "./announce";
import { announce, LiveRegions } from "./live-region";
import { post } from "./vscode-api";
import { showsTaskPanel, TaskPanel } from "./tasks/task-panel";
import { PlanOfferContext } from "./cards/plan-card";

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

/**
 * Alt+A / Alt+D (KeyboardEvent.code: any layout). Not where Alt types a letter of its own into a
 * text field (Option+A is "å" on a Mac keyboard): that keystroke is the user's text.
 */
function approvalKeyDecision(e: KeyboardEvent): "allow" | "deny" | undefined {
  if (!e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return undefined;
  const decision = e.code === "KeyA" ? "allow" : e.code === "KeyD" ? "deny" : undefined;
  const typesText = e.target instanceof HTMLElement && e.target.matches("textarea, input") && e.key.length === 1 && !/^[ad]$/i.test(e.key);
  return typesText ? undefined : decision;
}

/** Alt+Shift+A from anywhere in the view: to the first approval waiting (KeyboardEvent.code: any layout). */
function isGoToApprovalKey(e: KeyboardEvent): boolean {
  return e.altKey && e.shiftKey && !e.ctrlKey && !e.metaKey && e.code === "KeyA";
}

export function App({ client }: { client: ChatClient }) {
  const view = useView(client);
  const { status, chat } = view;
  const [historyOpen, setHistoryOpen] = useState(false);
  const [helpOpen, setHelpOpen] = useState(false);
  const chatIdRef = useRef(view.chatId);
  if (chatIdRef.current !== view.chatId) {
    chatIdRef.current = view.chatId;
    forgetChatCaches();
    // Queued messages of the old chat the user removed: its queue is not shown any more.
    queueRemovedByUser.clear();
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
    // An item (Show Model Context's link): the message list moves the focus to it.
    if (view.focusTarget === "item") return;
    if (view.focusTarget !== "approval" || !focusPendingApproval()) focusComposer();
  }, [view.focusRequests]);
  useEffect(() => {
    if (view.historyRequests > 0) setHistoryOpen(true);
  }, [view.historyRequests]);
  useEffect(() => {
    if (view.helpRequests > 0) setHelpOpen(true);
  }, [view.helpRequests]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isGoToApprovalKey(e)) {
        e.preventDefault();
        focusPendingApproval();
        return;
      }
      // Alt+A / Alt+D outside a waiting card (its own handler answers inside it): the first card waiting.
      const decision = approvalKeyDecision(e);
      if (decision && decideFirstPending(decision)) e.preventDefault();
    };
    // VS Code focuses the view's page (its own "focus view" command, a click on the view's title):
    // the keys go to the message box, not to <body>, where they would be lost.
    const onWindowFocus = () => {
      if (document.activeElement === null || document.activeElement === document.body) focusComposer();
    };
    document.addEventListener("keydown", onKey);
    window.addEventListener("focus", onWindowFocus);
    return () => {
      document.removeEventListener("keydown", onKey);
      window.removeEventListener("focus", onWindowFocus);
    };
  }, []);
  return (
    <ImageBaseContext.Provider value={view.imageBase}>
      <PlanOfferContext.Provider value={chat.running ? undefined : chat.planOffer}>
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
          <MessageList
            key={view.chatId}
            chat={chat}
            ready={view.ready}
            setup={status.setup}
            vscodeModels={status.vscodeModels === true}
            onRelease={(firstDrawn, focused) => client.releaseEarlier(firstDrawn, focused)}
            focusItem={view.focusTarget === "item" && view.focusItemId !== undefined ? { id: view.focusItemId, request: view.focusRequests } : undefined}
          />
          {status.canContinue && !chat.running && status.writtenElsewhere !== true && (
            <section class="continue-bar" aria-label="Interrupted turn">
              <WarningIcon class="warn" />
              <span class="grow">Interrupted — the last turn did not finish.</span>
              <button type="button" class="button primary" onClick={() => post({ type: "chat/continue" })}>
                Continue
              </button>
            </section>
          )}
          <FilePanels view={view} />
          {showsTaskPanel(chat.tasks, chat.running) && <TaskPanel tasks={chat.tasks} readOnly={status.writtenElsewhere === true} />}
          {helpOpen && <HelpPanel key={view.helpRequests} commands={view.commandList?.commands} onClose={() => setHelpOpen(false)} />}
          <Composer
            running={chat.running}
            attachments={view.attachments}
            editsAllowedForChat={status.editsAllowedForChat}
            readOnly={status.writtenElsewhere === true}
            imageInput={status.imageInput}
            modelLabel={status.modelLabel}
            mode={chat.mode}
            queue={chat.queue}
            queueKept={chat.queueKept}
            restore={view.restore}
            mentionResults={view.mentionResults}
            commandList={view.commandList}
            pathMentions={view.pathMentions}
            expanded={view.expanded}
          />
          <Announcements chat={chat} chatId={view.chatId} />
          <LiveRegions />
        </div>
      </PlanOfferContext.Provider>
    </ImageBaseContext.Provider>
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

/** Speaks what changed in meaning (see announce.ts); a chat switched to is not news. */
function Announcements({ chat, chatId }: { chat: ChatState; chatId: string }) {
  const announcer = useRef({ chatId, announcer: new Announcer(queueRemovedByUser) });
  if (announcer.current.chatId !== chatId) announcer.current = { chatId, announcer: new Announcer(queueRemovedByUser) };
  useEffect(() => {
    for (const a of announcer.current.announcer.next(chat)) announce(a.text, a.assertive);
  }, [chat, chatId]);
  return null;
}
