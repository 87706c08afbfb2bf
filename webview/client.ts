// The protocol client: turns the host's sequenced messages into the view model the UI draws.
// A snapshot replaces everything; every later message must carry the next `seq`. On a gap (or a
// message that breaks the reducer) it asks once for a resync and ignores all until the snapshot.
// Chat events go through the shared reducer, the same one the host uses to rebuild saved chats.
import {
  DeltaFrameReader,
  isHostMessageType,
  PROTOCOL_VERSION,
  type ChatEvent,
  type ChatSummary,
  type FilesOffer,
  type HostMessage,
  type PendingAttachment,
  type PendingCheckpoint,
  type PendingFileSummary,
  type ViewStatus,
} from "../src/shared/protocol";
import { emptyChatState, reduce, type ChatState } from "../src/shared/reducer";
import type { HistorySearch } from "./history";
import type { Outgoing } from "./vscode-api";
import type { MentionOption, MentionRef, SlashCommand } from "../src/shared/mentions";

/** The changed-files list as the view holds it (`n` counts the host's messages, so each outcome is said once). */
export interface PendingChangesState {
  readonly files: readonly PendingFileSummary[];
  readonly since?: PendingCheckpoint;
  readonly checkpoints: readonly PendingCheckpoint[];
  readonly said?: string;
  readonly n: number;
}

function isPendingCheckpoint(value: unknown): value is PendingCheckpoint {
  const v = value as Record<string, unknown> | null | undefined;
  return typeof v === "object" && v !== null && typeof v["markId"] === "string" && typeof v["number"] === "number" && typeof v["text"] === "string";
}

export interface ViewModel {
  /** False until the first snapshot arrived. */
  readonly ready: boolean;
  readonly chatId: string;
  readonly title: string;
  readonly chat: ChatState;
  readonly status: ViewStatus;
  readonly chats: readonly ChatSummary[];
  readonly attachments: readonly PendingAttachment[];
  /** Webview URL of this chat's image folder. */
  readonly imageBase?: string;
  /** Grows by one per `view/focus` message: the composer focuses itself when it changes. */
  readonly focusRequests: number;
  /** Where the last `view/focus` message asked the focus to go. */
  readonly focusTarget: "composer" | "approval" | "item";
  /** With target "item": the chat item to focus (Show Model Context's link back to it). */
  readonly focusItemId?: string;
  /** Grows by one per `history/show` message: the history opens when it changes. */
  readonly historyRequests: number;
  /** Counts `/help` answers: each one opens the help panel. */
  readonly helpRequests: number;
  /** The last `composer/restore`: a sent text that did not run (or a template's expansion to read), for the composer to take back. */
  readonly restore?: { readonly text: string; readonly n: number; readonly expanded?: string };
  /** The chat deleted last, while Undo can bring it back (until the list has it again). */
  readonly deleted?: { readonly chatId: string; readonly title: string };
  /** The host's answer to the history's last search. */
  readonly search?: HistorySearch;
  /** The newest `@` list the host sent (the composer shows it only for its latest request). */
  readonly mentionResults?: { readonly requestId: number; readonly options: readonly MentionOption[]; readonly indexing: boolean; readonly truncated: boolean };
  /** Edit or Retry asks "also restore files?" (checkpoint/offer) until it is answered. */
  readonly filesOffer?: FilesOffer;
  /** The changed-files list (`pending/changes`): what Pi wrote since the last prompt, still pending; `said` the last decision, `n` counts messages. */
  /** `since`: the checkpoint picked (none: the last prompt); `checkpoints`: the chat's, newest first. */
  readonly pendingChanges?: PendingChangesState;
  /** The `/` list, as last sent. */
  readonly commandList?: { readonly commands: readonly SlashCommand[]; readonly notes: readonly string[] };
  /** The host's last answer about dropped or pasted paths (`mention/pathsResolved`). */
  readonly pathMentions?: PathMentions;
  /** The host's last template expansion (`composer/expanded`). */
  readonly expanded?: { readonly requestId: number; readonly name?: string; readonly text?: string };
}

export interface PathMentions {
  readonly requestId: number;
  readonly origin: "drop" | "paste";
  readonly refs: readonly MentionRef[];
  readonly refused: readonly string[];
}

const initialStatus: ViewStatus = { modelLabel: "", storage: "workspace", canContinue: false, editsAllowedForChat: false };

export const initialViewModel: ViewModel = {
  ready: false,
  chatId: "",
  title: "",
  chat: emptyChatState,
  status: initialStatus,
  chats: [],
  attachments: [],
  focusRequests: 0,
  focusTarget: "composer",
  historyRequests: 0,
  helpRequests: 0,
};

/** Earlier items are let go of only while the view is at least this many items below them. */
const RELEASE_MARGIN_ITEMS = 100;

/** A request for a snapshot that got no answer is sent again after this long. */
const SNAPSHOT_RETRY_MS = 4000;

export class ChatClient {
  private view: ViewModel = initialViewModel;
  private seq = -1;
  /** Set while waiting for a snapshot (after `view/ready` or `view/resync`): every other message is dropped. */
  private waiting: "ready" | "resync" | null = null;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private readonly frames = new DeltaFrameReader();
  private readonly listeners = new Set<(view: ViewModel) => void>();
  /**
   * The earlier items the host sent (`items/earlier`: their messages' count, how many items) while
   * the view holds them: what `releaseEarlier` can let go of and ask for again.
   */
  private earlierHeld: { count: number; items: number } | null = null;

  /** Where `editor/codeApplied` goes (main.tsx: the code block's own status line). */
  codeApplied: (requestId: number, path: string, state: "applied" | "undone") => void = () => {};

  constructor(private readonly send: (message: Outgoing) => void) {}

  get model(): ViewModel {
    return this.view;
  }

  get lastSeq(): number {
    return this.seq;
  }

  start(): void {
    this.requestSnapshot("ready");
  }

  /**
   * Lets go of the earlier items of a restored long chat while the view is far from them (it is
   * back at the newest messages, `firstDrawn` items down, no focus among them): the chat is as
   * restored again, "Show N earlier messages" above, and they are asked for again when scrolled
   * near. So a long chat scrolled end to end and back holds what it held when opened. False when
   * there is nothing to let go of, or they are in use.
   */
  releaseEarlier(firstDrawn: number, focused: number | undefined): boolean {
    const held = this.earlierHeld;
    const chat = this.view.chat;
    if (!held || chat.earlier !== undefined || firstDrawn < held.items + RELEASE_MARGIN_ITEMS) return false;
    if (focused !== undefined && focused < held.items + RELEASE_MARGIN_ITEMS) return false;
    let items = 0;
    let chunks = 0;
    while (items < held.items && chunks < chat.settled.length) items += chat.settled[chunks++]!.length;
    // They came as whole chunks before the rest; a change that rebuilt the chunks since leaves them be.
    if (items !== held.items) return false;
    this.earlierHeld = null;
    this.update({ ...this.view, chat: { ...chat, settled: chat.settled.slice(chunks), earlier: held.count } });
    return true;
  }

  subscribe(listener: (view: ViewModel) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Handles one `message` event's data; anything that is not a host message of this protocol is ignored. */
  receive(data: unknown): void {
    const delta = this.frames.read(data);
    if (delta) {
      if (this.waiting !== null) return;
      // Frames carry no seq: each is the next one. A gap shows at the next sequenced message.
      this.seq += 1;
      this.applyEvent(delta);
      return;
    }
    const message = asHostMessage(data);
    if (!message) return;
    if (message.type === "view/snapshot") {
      this.applySnapshot(message);
      return;
    }
    if (this.waiting !== null) return;
    if (message.seq !== this.seq + 1) {
      this.requestSnapshot("resync");
      return;
    }
    this.seq = message.seq;
    if (message.type === "chat/event") this.applyEvent(message.event);
    else this.apply(message);
  }

  private applyEvent(event: ChatEvent): void {
    try {
      const chat: ChatState | undefined = reduce(this.view.chat, event);
      if (typeof chat !== "object" || chat === null) throw new Error(`unknown chat event ${String(event.type)}`);
      if (event.type === "items/earlier" && this.view.chat.earlier === event.count && chat.earlier === undefined) {
        this.earlierHeld = { count: event.count, items: event.items.length };
      } else if (event.type.startsWith("branch/")) {
        // The path changed: the items before the cut may not be the ones sent.
        this.earlierHeld = null;
      }
      if (chat !== this.view.chat) this.update({ ...this.view, chat });
    } catch {
      // A malformed event must not leave a half-updated view behind: start over from a snapshot.
      this.requestSnapshot("resync");
    }
  }

  private applySnapshot(message: Extract<HostMessage, { type: "view/snapshot" }>): void {
    const chat = message.state;
    if (typeof chat !== "object" || chat === null || !Array.isArray(chat.settled) || !Array.isArray(chat.live)) return;
    clearTimeout(this.retry);
    this.waiting = null;
    this.earlierHeld = null;
    this.seq = message.seq;
    this.update({
      ready: true,
      chatId: String(message.chatId),
      title: String(message.title ?? ""),
      chat,
      status: { ...initialStatus, ...message.status },
      chats: Array.isArray(message.chats) ? message.chats : [],
      attachments: Array.isArray(message.attachments) ? message.attachments : [],
      ...(typeof message.imageBase === "string" ? { imageBase: message.imageBase } : {}),
      focusRequests: this.view.focusRequests,
      focusTarget: this.view.focusTarget,
      historyRequests: this.view.historyRequests,
      helpRequests: this.view.helpRequests,
      ...(this.view.restore ? { restore: this.view.restore } : {}),
      ...(this.view.deleted ? { deleted: this.view.deleted } : {}),
      ...(this.view.search ? { search: this.view.search } : {}),
      ...(this.view.mentionResults ? { mentionResults: this.view.mentionResults } : {}),
      ...(this.view.commandList ? { commandList: this.view.commandList } : {}),
      // The host sends the list when it changes (a switch to another chat's list too), not with the snapshot.
      ...(this.view.pendingChanges ? { pendingChanges: this.view.pendingChanges } : {}),
      // A resync of the same chat keeps an open question; another chat's snapshot ends it.
      ...(this.view.filesOffer && String(message.chatId) === this.view.chatId ? { filesOffer: this.view.filesOffer } : {}),
    });
  }

  // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one case per host message type
  private apply(message: Exclude<HostMessage, { type: "view/snapshot" | "chat/event" }>): void {
    switch (message.type) {
      case "history/list": {
        const chats = Array.isArray(message.chats) ? message.chats : [];
        // The list carries the current chat's title too: a new chat gets its title after the first answer.
        const title = chats.find((c) => c.id === this.view.chatId)?.title ?? this.view.title;
        const { deleted, ...rest } = this.view;
        // A deleted chat listed again was restored: nothing left to undo.
        const stillDeleted = deleted && !chats.some((c) => c.id === deleted.chatId);
        this.update({ ...rest, chats, title, ...(stillDeleted ? { deleted } : {}) });
        return;
      }
      case "history/deleted":
        if (typeof message.chatId !== "string" || typeof message.title !== "string") return;
        this.update({ ...this.view, deleted: { chatId: message.chatId, title: message.title } });
        return;
      case "history/results": {
        if (typeof message.query !== "string" || !Array.isArray(message.hits)) return;
        const hits = message.hits.flatMap((h) =>
          typeof h === "object" && h !== null && typeof h.chatId === "string"
            ? [{ chatId: h.chatId, ...(typeof h.snippet === "string" ? { snippet: h.snippet } : {}) }]
            : [],
        );
        this.update({ ...this.view, search: { query: message.query, hits, complete: message.complete === true } });
        return;
      }
      case "view/status":
        this.update({ ...this.view, status: { ...initialStatus, ...message.status } });
        return;
      case "composer/attachments":
        this.update({ ...this.view, attachments: Array.isArray(message.attachments) ? message.attachments : [] });
        return;
      case "view/focus":
        this.update({ ...this.view, focusRequests: this.view.focusRequests + 1, ...focusOf(message) });
        return;
      case "view/help":
        this.update({ ...this.view, helpRequests: this.view.helpRequests + 1 });
        return;
      case "history/show":
        this.update({ ...this.view, historyRequests: this.view.historyRequests + 1 });
        return;
      case "composer/restore":
        if (typeof message.text !== "string") return;
        this.update({
          ...this.view,
          restore: {
            text: message.text,
            n: (this.view.restore?.n ?? 0) + 1,
            ...(typeof message.expanded === "string" ? { expanded: message.expanded } : {}),
          },
        });
        return;
      case "mention/results":
        if (typeof message.requestId !== "number" || !Array.isArray(message.options)) return;
        this.update({
          ...this.view,
          mentionResults: {
            requestId: message.requestId,
            options: message.options,
            indexing: message.indexing === true,
            truncated: message.truncated === true,
          },
        });
        return;
      case "composer/commands":
        if (!Array.isArray(message.commands)) return;
        this.update({ ...this.view, commandList: { commands: message.commands, notes: Array.isArray(message.notes) ? message.notes : [] } });
        return;
      case "mention/pathsResolved":
        if (typeof message.requestId !== "number" || !Array.isArray(message.refs)) return;
        this.update({
          ...this.view,
          pathMentions: {
            requestId: message.requestId,
            origin: message.origin === "paste" ? "paste" : "drop",
            refs: message.refs,
            refused: Array.isArray(message.refused) ? message.refused.filter((r) => typeof r === "string") : [],
          },
        });
        return;
      case "composer/expanded":
        if (typeof message.requestId !== "number") return;
        this.update({
          ...this.view,
          expanded: {
            requestId: message.requestId,
            ...(typeof message.name === "string" ? { name: message.name } : {}),
            ...(typeof message.text === "string" ? { text: message.text } : {}),
          },
        });
        return;
      case "checkpoint/offer": {
        const { filesOffer: _old, ...rest } = this.view;
        const offer = message.offer;
        const valid = offer !== null && typeof offer === "object" && typeof offer.id === "number" && Array.isArray(offer.files) && Array.isArray(offer.skipped);
        this.update(valid ? { ...rest, filesOffer: offer } : rest);
        return;
      }
      case "pending/changes": {
        if (!Array.isArray(message.files)) return;
        const n = (this.view.pendingChanges?.n ?? 0) + 1;
        const checkpoints = Array.isArray(message.checkpoints) ? message.checkpoints.filter(isPendingCheckpoint) : [];
        this.update({
          ...this.view,
          pendingChanges: {
            files: message.files,
            n,
            checkpoints,
            ...(isPendingCheckpoint(message.since) ? { since: message.since } : {}),
            ...(typeof message.said === "string" ? { said: message.said } : {}),
          },
        });
        return;
      }
      case "editor/codeApplied":
        // Drawn into the code block itself (it is markdown HTML, outside the view model).
        if (typeof message.requestId !== "number" || typeof message.path !== "string") return;
        this.codeApplied(message.requestId, message.path, message.state === "undone" ? "undone" : "applied");
        return;
    }
  }

  private requestSnapshot(kind: "ready" | "resync"): void {
    this.waiting = kind;
    if (kind === "ready") this.send({ type: "view/ready" });
    else this.send({ type: "view/resync", lastSeq: this.seq });
    clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      if (this.waiting !== null) this.requestSnapshot(this.waiting);
    }, SNAPSHOT_RETRY_MS);
  }

  private update(view: ViewModel): void {
    this.view = view;
    for (const listener of this.listeners) listener(view);
  }
}

function asHostMessage(data: unknown): HostMessage | null {
  if (typeof data !== "object" || data === null) return null;
  const { type, seq, v } = data as { type?: unknown; seq?: unknown; v?: unknown };
  if (v !== PROTOCOL_VERSION) return null;
  if (!isHostMessageType(type)) return null;
  if (typeof seq !== "number" || !Number.isInteger(seq)) return null;
  if (type === "chat/event") {
    const event = (data as { event?: unknown }).event;
    if (typeof event !== "object" || event === null || typeof (event as { type?: unknown }).type !== "string") return null;
  }
  return data as HostMessage;
}

/** Items in the chat, settled and live. */
export function itemCount(chat: ChatState): number {
  let count = chat.live.length;
  for (const chunk of chat.settled) count += chunk.length;
  return count;
}

/** Where a `view/focus` message sends the focus: an item only with its id (a string), else the approval or the composer. */
function focusOf(message: { target?: unknown; itemId?: unknown }): Pick<ViewModel, "focusTarget" | "focusItemId"> {
  if (message.target === "item" && typeof message.itemId === "string") return { focusTarget: "item", focusItemId: message.itemId };
  return { focusTarget: message.target === "approval" ? "approval" : "composer" };
}
