// The view layer: what the webview draws. Built only by the reducer (reducer.ts) from
// ChatEvents; never sent to the model, never saved (the transcript is the source of truth).
import type { ImageRef } from "./images";
import type { BackgroundRunState } from "./background-state";

import type { ChatMode, FixCommandId, TaskItem } from "./app-messages";
import type { ContextMeter } from "./context-meter";
import type { StructuredDiff } from "./structured-diff";
import type { ModelMark } from "./model-visibility";

/** Marks any item can carry. */
export interface ItemMarks {
  /** A compaction summary stands for this item's message in the model's context (it is still shown). */
  summarized?: boolean;
  /** What the model receives of it when not as shown (model-visibility.ts); absent: as shown. */
  modelMark?: ModelMark;
}

export interface UserItem extends ItemMarks {
  kind: "user";
  id: string;
  text: string;
  timestamp: number;
  /** Attached images, shown as thumbnails from their blob files beside the chat. */
  images?: ImageRef[];
}

/** "Ask about this file": shown as a chip above the message it was attached to. */
export interface AttachmentItem extends ItemMarks {
  kind: "attachment";
  id: string;
  path: string;
  range?: { startLine: number; endLine: number };
  /** An `@` mention other than a file: the chip shows its token; `note` says what was cut. */
  mention?: "folder" | "problems" | "selection" | "changes" | "terminal";
  note?: string;
}

export interface AssistantBlock {
  /** The block's index in the assistant message's `content` (tool calls included), which deltas name. */
  index: number;
  type: "text" | "thinking";
  text: string;
  /** Thinking the provider redacted: shown as such, the text is an opaque signature. */
  redacted?: boolean;
}

export interface AssistantItem extends ItemMarks {
  kind: "assistant";
  id: string;
  blocks: AssistantBlock[];
  isStreaming: boolean;
  stopReason?: string;
  errorMessage?: string;
  model?: string;
  timestamp: number;
}

export type ToolStatus = "pending" | "running" | "success" | "error";

export interface ToolItem extends ItemMarks {
  kind: "tool";
  /** The toolCallId: tool cards are keyed by it. */
  id: string;
  name: string;
  args: unknown;
  status: ToolStatus;
  /** The text the model got back (what `content` said), shortened by the renderer if long. */
  resultText?: string;
  /** Structured data for the UI (file range, counts). Never shown to the model by this layer. */
  details?: unknown;
  /** An edit's result: the change written, as hunks (its text is not kept in `details`). */
  diff?: StructuredDiff;
  /** While it runs: the tool's latest progress details (run_command's live tail). Live only. */
  progress?: unknown;
  /**
   * The permission gate's question and the user's answer, on the card of the call it is about:
   * one edit (or command) is one card: running → waiting for your decision → applied or denied.
   * Live from approval/request and approval/decided, restored from the transcript's approvalNotice.
   */
  approval?: ApprovalItem;
  /** run_command left it running in the background: running, or how it ended (live events, or the transcript). */
  background?: BackgroundRunState;
  /** An applied edit whose file a later *Restore files to here* put back (until its Redo). */
  undoneByRestore?: boolean;
}

export type ApprovalState = "pending" | "allowed" | "denied";

/** What a card asks about: the event that opens it and the item that keeps it carry the same facts. */
export interface ApprovalFacts {
  path?: string;
  /** edit_file: the change as hunks; a secret file (.env*): only how many lines changed. */
  diff?: StructuredDiff;
  /** Why it is asked although the settings would have applied it (a protected file, Restricted Mode). */
  protection?: string;
  /** A secret file (.env*): `diff` is only a count of changed lines; its diff opens in VS Code's editor only on request. */
  secret?: boolean;
  /** run_command: the exact command, its workspace-relative folder, the rules the card offers. */
  command?: string;
  cwd?: string;
  suggestedRules?: string[];
  /** Why no rule is offered (the command always asks, or rules are off on Windows). */
  ruleNote?: string;
  /** run_command with `background: true`: it keeps running after the yes (and the ready line Pi waits for). */
  background?: { readyPattern?: string };
  /** An MCP call: server and tool (live: also the arguments and annotations the card showed). */
  mcp?: McpCardFacts;
}

/** The question on a tool's card and its answer (carried by the ToolItem; not an item of its own). */
export interface ApprovalItem extends ApprovalFacts {
  kind: "approval";
  /** `approval:<toolCallId>` */
  id: string;
  toolCallId: string;
  toolName: string;
  state: ApprovalState;
  /** The rule that allowed it, or the one the user added. */
  rule?: string;
  reason?: string;
  /** An edit allowed in part: the hunks of `diff` the user rejected (0-based); the others were written. */
  rejectedHunks?: number[];
  /** An edit's hunks the user changed before accepting: with the text while it waits (the host's record), the indices once decided. */
  editedHunks?: { hunk: number; text?: string }[];
}

/** What an MCP card shows about the call. Annotations are the server's words: shown, never obeyed. */
export interface McpCardFacts {
  server: string;
  tool: string;
  arguments?: string;
  annotations?: string[];
}

export type ToolApproval = ApprovalItem;

export interface NoticeItem extends ItemMarks {
  kind: "notice";
  id: string;
  level: "error" | "info";
  text: string;
  fix?: string;
  /** Offered as a button: the command that does the fix. */
  fixCommand?: FixCommandId;
  /** Further buttons after it. */
  moreFixCommands?: FixCommandId[];
  /** The provider's own words, behind a toggle. */
  detail?: string;
  /** A restore's note: *Redo changes* puts back what it replaced ("offered"), until that is done ("done"). */
  redo?: { markId: string; state: "offered" | "done" };
}

/** A command the user ran from the composer (`!cmd`, or `!!cmd` kept from Pi). */
export interface UserCommandItem extends ItemMarks {
  kind: "userCommand";
  id: string;
  command: string;
  /** Between start and end: the last lines so far. */
  running: boolean;
  output: string;
  exitCode: number | null;
  cancelled: boolean;
  truncated: boolean;
  excludeFromContext: boolean;
  durationMs?: number;
  /** The whole output's log file (the host opens it; the view only shows the button). */
  logFile?: string;
  via?: "terminal" | "process";
  /** The folder it ran in, in a workspace of several folders. */
  cwd?: string;
  elapsedMs?: number;
}

/**
 * A compaction: "Compacting…" while the summary is written, then the figures, expandable to the
 * summary and the two file lists.
 */
export interface SummaryItem extends ItemMarks {
  kind: "summary";
  id: string;
  state: "running" | "done";
  trigger: "threshold" | "overflow" | "manual";
  summary?: string;
  tokensBefore?: number;
  tokensAfter?: number;
  summarizedMessageCount?: number;
  readFiles?: string[];
  modifiedFiles?: string[];
  instructions?: string;
  /** What the summary request cost, when the model has prices. */
  cost?: number;
}

export type ChatItem = UserItem | AttachmentItem | AssistantItem | ToolItem | NoticeItem | SummaryItem | UserCommandItem;

/** The view model of one chat: what the reducer builds from chat events and the webview draws. */
export interface ChatState {
  /** Items that no later event can change, in chunks of at most SETTLED_CHUNK_SIZE; never edited in place. */
  readonly settled: readonly (readonly ChatItem[])[];
  /** Items of the current step (a user turn starting, or one assistant message with its tool calls). */
  readonly live: readonly ChatItem[];
  /** Messages seen so far, system included: item ids derive from it, so live and replayed ids agree. */
  readonly messageCount: number;
  /**
   * A long chat was restored from its newest part: the items of its first `earlier` messages are
   * not built yet (the view asks for them, `items/earlier`, when scrolled near). Absent: all are here.
   */
  readonly earlier?: number;
  /** Id of the item of the message between its message_start and message_end. */
  readonly openId: string | null;
  readonly running: boolean;
  /** The context meter's figures (set by the host from the transcript; absent until it sends them). */
  readonly meter?: ContextMeter;
  /** Where the path forks, by message index, ascending (set by `branch/forks` events; the transcript alone does not know). */
  readonly forks: readonly ForkMark[];
  /** Follow-ups and steering queued during the run, not delivered yet (never saved: UI state until delivered). */
  readonly queue: readonly QueuedInput[];
  /** A Stop kept the queue for the user to send or clear. */
  readonly queueKept: boolean;
  /** The chat's task list as it is now (`tasks/list` events; from the transcript on a restore). Absent: none. */
  readonly tasks?: readonly TaskItem[];
  /** The chat's mode (`chat/mode` events; from the transcript on a restore). Absent: act. */
  readonly mode?: ChatMode;
  /** The tool call id of the proposed plan the user may approve now (its card offers *Approve and act*). */
  readonly planOffer?: string | undefined;
}

/** A file (and lines) the user attached to the next message: a chip in the composer. */
export interface PendingAttachment {
  path: string;
  range?: { startLine: number; endLine: number };
}

/** A follow-up or steering message waiting for the running reply: a chip above the composer. */
export interface QueuedInput {
  id: string;
  /** followUp: when the run would stop; steer: after the current tool call, before the next step. */
  kind: "followUp" | "steer";
  text: string;
  attachments: PendingAttachment[];
  /** Pasted images travelling with it. */
  imageCount: number;
}

/** Where the path forks: shown as `‹ index+1 / count ›` on an item. */
export interface ForkMark {
  /** Index on the path of the message that has siblings (what `branch/switch` names). */
  messageIndex: number;
  /** Index of the message whose item shows the switcher (the user message of a turn that starts with attachments). */
  showAt: number;
  /** 0-based position among the siblings. */
  index: number;
  count: number;
}
