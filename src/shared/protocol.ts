// The one typed channel between the extension host and the webview.
// Host → webview: sequenced messages (`seq` grows by one per message), so the webview can
// detect a gap and ask for a full resync. Streaming sends deltas, never the whole message again.
// Webview → host: untrusted input, validated with `parseWebviewMessage` before anything reads it.
// Names are grouped by concern, `concern/action` (view/, chat/, message/, tool/, approval/,
// command/, compaction/, context/, branch/, queue/, tasks/, composer/, mention/, history/, editor/, workbench/), as
// the protocols of other assistants in the editor name theirs (Continue's `history/list`): one
// glance at a name says which part of the view sends or handles it.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ApprovalFacts, ChatItem, ChatState, ForkMark, PendingAttachment, QueuedInput } from "./chat-items";

export type { ForkMark, PendingAttachment, QueuedInput } from "./chat-items";
import type { ContextMeter } from "./context-meter";
import type { StructuredDiff } from "./structured-diff";
import type { BackgroundRunState } from "./background-state";
import type { MentionOption, MentionRef, SlashCommand } from "./mentions";
import type { ChatMode, TaskItem, TaskState } from "./app-messages";

export const PROTOCOL_VERSION = 1;

/** What the reducer consumes: agent events in a compact, delta-based form (see event-encoder.ts). */
export type ChatEvent =
  /** A new message. For an assistant this is the empty start of a stream; for others, the whole message. */
  | { type: "message/start"; message: AgentMessage }
  /** A new content block of the streaming assistant message. */
  | { type: "message/blockStart"; index: number; block: "text" | "thinking" | "toolCall" }
  /** Text appended to block `index` of the streaming assistant message. */
  | { type: "message/delta"; index: number; text: string }
  /**
   * The final message. For an assistant that was streamed, the text of the blocks listed in `elided`
   * is left empty: the receiver already has it from the deltas (saves re-sending the whole answer).
   */
  | {
      type: "message/end";
      message: AgentMessage;
      elided?: number[];
      /**
       * The edit this message carries (an edit_file result, an approvalNotice) as hunks, built by the
       * host (`withStructuredDiff`); the message then goes without its diff text.
       */
      diff?: StructuredDiff;
    }
  | { type: "tool/start"; toolCallId: string; toolName: string; args: unknown }
  | { type: "tool/end"; toolCallId: string; isError: boolean }
  /** The permission gate is waiting for the user on this call. Live only: the decision is saved as an approvalNotice. */
  | ({ type: "approval/request"; toolCallId: string; toolName: string } & ApprovalFacts)
  /** The user decided; the approvalNotice saying so reaches the transcript after the tool result. */
  | {
      type: "approval/decided";
      toolCallId: string;
      decision: "allowed" | "denied";
      reason?: string;
      rule?: string;
      rejectedHunks?: number[];
      editedHunks?: number[];
    }
  /** The user's running `!cmd` (the open bashExecution message): its last lines, at a bounded rate. */
  | { type: "command/progress"; tail: string[]; elapsedMs: number }
  /** A running tool's latest progress (run_command: the last lines of output), at a bounded rate. */
  | { type: "tool/progress"; toolCallId: string; details: unknown }
  /** A command run_command left running in the background ended (exited, or was stopped): its card follows. */
  | { type: "command/backgroundState"; id: string; state: BackgroundRunState }
  /** The gate stopped waiting without a decision (the run was aborted). */
  | { type: "approval/cancelled"; toolCallId: string }
  /** The hunks of a waiting edit rejected so far, on its card or in its editor (the host keeps the one record both show). */
  | { type: "approval/hunks"; toolCallId: string; rejectedHunks: number[]; editedHunks?: { hunk: number; text: string }[] }
  | { type: "chat/runState"; running: boolean }
  /** A summary of the earlier conversation is being written ("Compacting…"). */
  | { type: "compaction/start"; trigger: "threshold" | "overflow" | "manual" }
  /** The summary request is over; when done, the compactionSummary message follows as message_start/end. */
  | { type: "compaction/end"; status: "done" | "nothing" | "cancelled" | "failed"; error?: string }
  /** New figures for the context meter (after every final message, and after a request). */
  | { type: "context/meter"; meter: ContextMeter }
  /** The path changed below message `keep` (an edit, a retry, a branch switch): drop the items of later messages. */
  | { type: "branch/rewind"; keep: number }
  /** The items of the first `count` messages, which a restore left unbuilt (`ChatState.earlier`), in order. */
  | { type: "items/earlier"; count: number; items: ChatItem[] }
  /** The forks of the path from message `from` on (earlier ones stay as they are). */
  | { type: "branch/forks"; from: number; forks: ForkMark[] }
  /** What the user queued during the run, not delivered yet; `kept`: a Stop left it for the user to send or clear. */
  | { type: "queue/changed"; items: QueuedInput[]; kept: boolean }
  /** The chat's task list as it is now (the model's todo calls, the user's edits): the panel above the composer. */
  | { type: "tasks/list"; items: TaskItem[] }
  /** The chat's mode as it is now (a switch, another branch). */
  | { type: "chat/mode"; mode: ChatMode }
  /** The proposed plan the user may approve now (the newest, with nothing after it), or none. */
  | { type: "chat/planOffer"; toolCallId?: string };

export interface ChatSummary {
  id: string;
  title: string;
  updatedAt: number;
}

/** Facts about the session the view shows around the chat (not part of it). */
export interface ViewStatus {
  /** The chat's model by its name ("Claude Sonnet 4.5"), as the header shows it. */
  modelLabel: string;
  /** Where it runs, for the header's tooltip: "Anthropic · claude-sonnet-4-5 · thinking high". */
  modelDetail?: string;
  /**
   * Why no model can answer yet: no key for the provider, or no local server set. Absent when
   * one can (or while the keys are still being read). The empty chat then offers the ways to set one up.
   */
  setup?: "noKey" | "noServer";
  /** VS Code has language models Pi Chat may use (no key needed): the empty chat offers them first. */
  vscodeModels?: boolean;
  /** Said once after the chat's model changed ("This chat now uses …"). */
  modelNote?: string;
  /** Where chats are saved; `globalFallback` when no folder is open. */
  storage: "workspace" | "globalFallback";
  /** The last turn was cut off (a reload, a crash): offer "Continue". */
  canContinue: boolean;
  /** Edits are applied without asking for the rest of this chat. */
  editsAllowedForChat: boolean;
  /** Whether the current model accepts images; absent while not known (the view asks with `composer/checkImageInput`). */
  imageInput?: boolean;
  /** Another VS Code window is writing this chat (a run): read-only here until it is done. */
  writtenElsewhere?: boolean;
  /** Said once after an edit, retry or switch left a branch whose edits stay in the files. */
  branchNote?: string;
}

type Sequenced = { v: typeof PROTOCOL_VERSION; seq: number };

export type HostMessage =
  | (Sequenced & {
      type: "view/snapshot";
      chatId: string;
      title: string;
      state: ChatState;
      status: ViewStatus;
      chats: ChatSummary[];
      attachments: PendingAttachment[];
      /** Webview URL of the folder holding this chat's images (`<imageBase>/<sha256>.<ext>`). */
      imageBase?: string;
    })
  | (Sequenced & { type: "chat/event"; event: ChatEvent })
  | (Sequenced & { type: "history/list"; chats: ChatSummary[] })
  | (Sequenced & { type: "view/status"; status: ViewStatus })
  | (Sequenced & { type: "composer/attachments"; attachments: PendingAttachment[] })
  /** A `!cmd` that did not run (no folder picked): its text goes back into the composer, unless something was typed since. */
  /**
   * A sent text that did not run, back in the box. `expanded`: the text is the expansion of the
   * template of that name, which the user had not read yet: Enter sends it as it reads.
   */
  | (Sequenced & { type: "composer/restore"; text: string; expanded?: string })
  /**
   * Ask the webview to move the focus: to the composer ("Ask about this file"), or to the first
   * approval waiting (Pi Chat: Go to Pending Approval; the composer when none waits).
   */
  | (Sequenced & { type: "view/focus"; target?: "composer" | "approval" | "item"; itemId?: string })
  /** `/help`: the view shows the commands, the mention kinds and the keys. */
  | (Sequenced & { type: "view/help" })
  /** Open the chat history in the view (the view title's History action). */
  | (Sequenced & { type: "history/show" })
  /** A chat went to the trash: the history offers Undo (`history/undoDelete`) until it is listed again. */
  | (Sequenced & { type: "history/deleted"; chatId: string; title: string })
  /**
   * What `history/search` found: title matches first, then (`complete`) chats whose message text
   * holds the words, each with the words around the first match.
   */
  | (Sequenced & { type: "history/results"; query: string; hits: HistoryHit[]; complete: boolean })
  /**
   * The `@` list for `mention/query` number `requestId` (the webview shows only the newest); `indexing`:
   * the workspace is still being walked, more may come; `truncated`: the walk stopped at its cap.
   */
  | (Sequenced & { type: "mention/results"; requestId: number; options: MentionOption[]; indexing: boolean; truncated: boolean })
  /** The `/` list: the chat's actions, the prompt templates and the skills, read when asked (`composer/listCommands`). */
  | (Sequenced & { type: "composer/commands"; commands: SlashCommand[]; notes: string[] })
  /**
   * The answer to `mention/paths` number `requestId`: what exists in the workspace folders, as
   * mentions, and what was refused (outside the folders, missing), in words.
   */
  | (Sequenced & { type: "mention/pathsResolved"; requestId: number; origin: "drop" | "paste"; refs: MentionRef[]; refused: string[] })
  /** The answer to `composer/expandTemplate`: the template `name` expanded, or neither field when the draft names no template. */
  | (Sequenced & { type: "composer/expanded"; requestId: number; name?: string; text?: string })
  /** An Apply to file (`requestId` from `editor/applyCode`) was written, or undone: the block says so. */
  | (Sequenced & { type: "editor/codeApplied"; requestId: number; path: string; state: "applied" | "undone" })
  /**
   * Edit or Retry of a message whose checkpoint has files Pi changed since: "also restore files?"
   * (answered with `checkpoint/answer`); `offer: null` takes a stale offer away.
   */
  | (Sequenced & { type: "checkpoint/offer"; offer: FilesOffer | null })
  /**
   * The files Pi changed since the last prompt (or since `since`, the checkpoint the user picked)
   * with changes still pending Keep or Undo; `checkpoints`: the chat's, newest first, to pick
   * from; `said`: the decision just made, to announce.
   */
  | (Sequenced & {
      type: "pending/changes";
      files: PendingFileSummary[];
      since?: PendingCheckpoint;
      checkpoints?: PendingCheckpoint[];
      said?: string;
    });

/** A checkpoint of the chat: its prompt's transcript node (the journal's mark), number on the path and first words. */
export interface PendingCheckpoint {
  markId: string;
  number: number;
  text: string;
}

/** One file of the changed-files list: what Pi (or a command it ran) changed there, still pending. */
export interface PendingFileSummary {
  path: string;
  by: "pi" | "command" | "both";
  kind: "modified" | "created" | "deleted";
  /** Lines added and removed by the pending hunks. */
  added: number;
  removed: number;
  /** Hunks still pending, and how many of them the user changed since (Undo refuses those). */
  pending: number;
  changedByYou: number;
}

/** What the "also restore files?" choice shows: the restore's preview, and what the user was doing. */
export interface FilesOffer {
  /** Answered by this id; a newer offer replaces an older one. */
  id: number;
  action: "edit" | "retry";
  /** The message whose Edit or Retry was clicked (path index). */
  messageIndex: number;
  /** The prompt whose checkpoint would be restored: its number and first words. */
  messageNumber: number;
  messageText: string;
  files: { path: string; piDid: "modified" | "created" | "deleted" }[];
  skipped: { path: string; piDid: "modified" | "created" | "deleted"; reason: string }[];
  /** An edit's text (and images left out), so Cancel can put it back in its box. */
  edit?: { text: string; removeImages?: number[] };
}

export interface HistoryHit {
  chatId: string;
  snippet?: string;
}

export type ChatEventType = ChatEvent["type"];
export type HostMessageType = HostMessage["type"];

/**
 * Every host message name, once. Keyed by the union, so a name missing here or misspelt fails the
 * build; the webview ignores any message whose name is not in it.
 */
const HOST_MESSAGE_TYPES: Readonly<Record<HostMessageType, true>> = {
  "view/snapshot": true,
  "view/status": true,
  "view/focus": true,
  "view/help": true,
  "chat/event": true,
  "history/list": true,
  "history/show": true,
  "history/deleted": true,
  "history/results": true,
  "composer/attachments": true,
  "composer/restore": true,
  "composer/commands": true,
  "mention/results": true,
  "mention/pathsResolved": true,
  "composer/expanded": true,
  "editor/codeApplied": true,
  "checkpoint/offer": true,
  "pending/changes": true,
};

export function isHostMessageType(type: unknown): type is HostMessageType {
  return typeof type === "string" && Object.hasOwn(HOST_MESSAGE_TYPES, type);
}

/**
 * A streamed delta on the wire, as small as it can be: at 60 tokens a second the view wants a
 * post every ~33 ms, each carrying a few characters, so any envelope soon outweighs the text.
 * - `[blockIndex, text]` opens a run of deltas (the first after any other message);
 * - a bare `text` string continues the block of the frame before it.
 * A frame has no `seq` of its own: it counts as the previous message's seq + 1, so the next
 * sequenced message still shows whether anything went missing.
 */
export type DeltaFrame = [index: number, text: string] | string;

/** Everything the host posts to the webview. */
export type HostPost = HostMessage | DeltaFrame;

/**
 * Reads delta frames in the order they were posted. Feed it every post: a frame gives its delta
 * event, any other value gives null and ends the run of frames (the next must name its block).
 */
export class DeltaFrameReader {
  private index: number | undefined;

  read(data: unknown): Extract<ChatEvent, { type: "message/delta" }> | null {
    if (typeof data === "string") {
      // A continuation without an opening frame: not a frame this reader can place.
      if (this.index === undefined) return null;
      return { type: "message/delta", index: this.index, text: data };
    }
    if (Array.isArray(data) && data.length === 2 && Number.isInteger(data[0]) && (data[0] as number) >= 0 && typeof data[1] === "string") {
      this.index = data[0] as number;
      return { type: "message/delta", index: this.index, text: data[1] };
    }
    this.index = undefined;
    return null;
  }

  /** Forget the open run (a snapshot replaced everything). */
  reset(): void {
    this.index = undefined;
  }
}

export type HostMessageBody = HostMessage extends infer M ? (M extends HostMessage ? Omit<M, "v" | "seq"> : never) : never;

/** An image attached in the composer, already scaled there (long side at most 2,000 px). */
export interface PromptImage {
  /** What the webview believes; the host decides from the bytes. */
  mimeType: string;
  /** Base64 of the bytes. */
  data: string;
}

/** At most this many images per message, each at most this many bytes once decoded. */
export const MAX_PROMPT_IMAGES = 10;
export const MAX_PROMPT_IMAGE_BYTES = 8 * 1024 * 1024;
/** The long side an attached or read image is scaled down to (what pi's read tool does). */
export const MAX_IMAGE_SIDE_PX = 2000;

export type WebviewMessage =
  | { type: "view/ready"; v: typeof PROTOCOL_VERSION }
  | { type: "view/resync"; v: typeof PROTOCOL_VERSION; lastSeq: number }
  /** `verbatim`: a template the composer expanded (`composer/expandTemplate`): sent as it reads, never run as a command. */
  | { type: "chat/send"; v: typeof PROTOCOL_VERSION; text: string; images?: PromptImage[]; mentions?: MentionRef[]; verbatim?: boolean }
  /** The `@` list for what was typed after `@` (answered with `mention/results`). */
  | { type: "mention/query"; v: typeof PROTOCOL_VERSION; requestId: number; query: string }
  /**
   * Files dropped on the composer (their URIs) or a pasted path: the host answers which exist in
   * the workspace folders (`mention/pathsResolved`).
   */
  | { type: "mention/paths"; v: typeof PROTOCOL_VERSION; requestId: number; origin: "drop" | "paste"; items: string[] }
  /** Enter on a draft `/name args`: the host answers with the template's expansion (`composer/expanded`). */
  | { type: "composer/expandTemplate"; v: typeof PROTOCOL_VERSION; requestId: number; text: string }
  /** `/` was typed at the start of the composer: send the command list (`composer/commands`). */
  | { type: "composer/listCommands"; v: typeof PROTOCOL_VERSION }
  /** Images were attached: the view needs to know whether the model accepts them before sending. */
  | { type: "composer/checkImageInput"; v: typeof PROTOCOL_VERSION }
  | { type: "chat/stop"; v: typeof PROTOCOL_VERSION }
  | { type: "chat/continue"; v: typeof PROTOCOL_VERSION }
  /**
   * The view came near the top of a restored long chat: send the items of its earlier messages
   * (`items/earlier`). `count`: the view let go of earlier items it had been sent (scrolled far
   * from them, to bound its memory) and wants the first `count` messages' items again.
   */
  | { type: "chat/loadEarlier"; v: typeof PROTOCOL_VERSION; count?: number }
  | {
      type: "approval/decide";
      v: typeof PROTOCOL_VERSION;
      toolCallId: string;
      decision: "allow" | "deny" | "allowForChat" | "allowAlways";
      reason?: string;
      rule?: string;
      /** An edit allowed in part: the card's hunks the user rejected (0-based). Checked against the pending edit by the host. */
      rejectedHunks?: number[];
      /** The hunks the card shows as edited by the user (0-based): the host's record must hold exactly these. */
      editedHunks?: number[];
    }
  /** Accept or reject one hunk of the edit waiting under toolCallId (the host checks both and tells the card and the editor). */
  | { type: "approval/hunk"; v: typeof PROTOCOL_VERSION; toolCallId: string; hunk: number; accept: boolean }
  /** The user's own text for one hunk of the waiting edit (its new side, edited), or null to take the proposal's again. */
  | { type: "approval/editHunk"; v: typeof PROTOCOL_VERSION; toolCallId: string; hunk: number; text: string | null }
  /** The Stop button of a background command's card: `id` is its run_command call id (the host checks it is of the chat on screen). */
  | { type: "command/stopBackground"; v: typeof PROTOCOL_VERSION; id: string }
  /** Open the whole output of a run_command call (its log file) in an editor. */
  | { type: "command/openOutput"; v: typeof PROTOCOL_VERSION; toolCallId: string }
  | { type: "chat/new"; v: typeof PROTOCOL_VERSION }
  | { type: "chat/switch"; v: typeof PROTOCOL_VERSION; chatId: string }
  | { type: "chat/delete"; v: typeof PROTOCOL_VERSION; chatId: string }
  /** Bring back a chat this window deleted (from the trash). */
  | { type: "history/undoDelete"; v: typeof PROTOCOL_VERSION; chatId: string }
  /** Search the chats' titles and message text (answered with `history/results`). */
  | { type: "history/search"; v: typeof PROTOCOL_VERSION; query: string }
  /** Rename a saved chat; an empty title goes back to the one from its first prompt. */
  | { type: "history/rename"; v: typeof PROTOCOL_VERSION; chatId: string; title: string }
  /** Open what the view shows of a chat as Markdown in a new untitled editor. */
  | { type: "history/export"; v: typeof PROTOCOL_VERSION; chatId: string }
  /** Write a saved chat as a pi session file and open it in the pi CLI ("Continue in pi CLI"). */
  | { type: "history/continueInPi"; v: typeof PROTOCOL_VERSION; chatId: string }
  | { type: "composer/removeAttachment"; v: typeof PROTOCOL_VERSION; index: number }
  | { type: "editor/openFile"; v: typeof PROTOCOL_VERSION; path: string; line?: number }
  | { type: "editor/openDiff"; v: typeof PROTOCOL_VERSION; toolCallId: string }
  /** "Insert at cursor" on a code block: the block's text (and its fence language), into the active editor. */
  | { type: "editor/insertCode"; v: typeof PROTOCOL_VERSION; code: string; language?: string }
  /**
   * "Apply to file" on a code block: its text, and the path the block names after its language, if
   * any. With `requestId`, the host answers `editor/codeApplied` when it was written.
   */
  | { type: "editor/applyCode"; v: typeof PROTOCOL_VERSION; code: string; path?: string; requestId?: number }
  /** "Undo" on a block that says it was applied: the host puts the file back if nothing changed it since. */
  | { type: "editor/undoApply"; v: typeof PROTOCOL_VERSION; requestId: number }
  /** "Run in terminal" on a shell block: the host shows the command and asks before it runs in a terminal. */
  | { type: "editor/runInTerminal"; v: typeof PROTOCOL_VERSION; command: string }
  | { type: "workbench/runCommand"; v: typeof PROTOCOL_VERSION; command: WebviewCommand }
  /** Send the prompt at path index `messageIndex` again with new text, as a new branch. */
  /** `removeImages`: the indices of the prompt's images the edited prompt goes without. */
  | { type: "branch/editPrompt"; v: typeof PROTOCOL_VERSION; messageIndex: number; text: string; removeImages?: number[] }
  /** Write the answer at path index `messageIndex` again, as a new branch. */
  | { type: "branch/retry"; v: typeof PROTOCOL_VERSION; messageIndex: number }
  /** "Restore files to here" on the prompt at path index `messageIndex`: the host previews, then restores. */
  | { type: "checkpoint/restore"; v: typeof PROTOCOL_VERSION; messageIndex: number }
  /** *Redo changes* on the restore's note at path index `messageIndex`. */
  | { type: "checkpoint/redo"; v: typeof PROTOCOL_VERSION; messageIndex: number }
  /** The answer to `checkpoint/offer` number `id`: restore the files too, keep them as they are, or do nothing. */
  | { type: "checkpoint/answer"; v: typeof PROTOCOL_VERSION; id: number; choice: "restore" | "keep" | "cancel" }
  /** Open one file of an offer as a diff (the checkpoint's content beside the file now). */
  | { type: "checkpoint/openDiff"; v: typeof PROTOCOL_VERSION; id: number; path: string }
  /** Keep or Undo the pending changes of one file (`path`, one the host listed) or of all (no path). */
  | { type: "pending/decide"; v: typeof PROTOCOL_VERSION; action: "keep" | "undo"; path?: string }
  /** Open a file of the changed-files list in its editor, at its first pending change. */
  | { type: "pending/open"; v: typeof PROTOCOL_VERSION; path: string }
  /** Review the changes since the checkpoint `markId` (one the host listed); none: since the last prompt again. */
  | { type: "pending/since"; v: typeof PROTOCOL_VERSION; markId?: string }
  /** While a reply runs: queue a follow-up or steer (with the attached files and pasted images). */
  | {
      type: "queue/add";
      v: typeof PROTOCOL_VERSION;
      kind: "followUp" | "steer";
      text: string;
      images?: PromptImage[];
      mentions?: MentionRef[];
      verbatim?: boolean;
    }
  /** Remove a queued chip before it is delivered. */
  | { type: "queue/remove"; v: typeof PROTOCOL_VERSION; id: string }
  /** After Stop: send what is queued now, or drop it. */
  | { type: "queue/sendNow"; v: typeof PROTOCOL_VERSION }
  | { type: "queue/clear"; v: typeof PROTOCOL_VERSION }
  /** Show sibling `to` of the message at path index `messageIndex`. */
  | { type: "branch/switch"; v: typeof PROTOCOL_VERSION; messageIndex: number; to: number }
  /** The user ticked, reordered or deleted task-list items: the whole list by id, in its new order. */
  | { type: "tasks/edit"; v: typeof PROTOCOL_VERSION; items: { id: string; state: TaskState }[] }
  /** *Approve and act* on a proposed plan (as the user left it in its editor, if they opened it there). */
  | { type: "plan/approve"; v: typeof PROTOCOL_VERSION; toolCallId: string }
  /** *Revise*: the user's comments on lines of the plan (1-based), sent back to the model. */
  | { type: "plan/revise"; v: typeof PROTOCOL_VERSION; toolCallId: string; comments: { line: number; comment: string }[] }
  /** Open a proposed plan in an editor to change it before approving. */
  | { type: "plan/openInEditor"; v: typeof PROTOCOL_VERSION; toolCallId: string }
  /** The composer's Plan / Act switch. */
  | { type: "chat/setMode"; v: typeof PROTOCOL_VERSION; mode: ChatMode };

export type WebviewMessageType = WebviewMessage["type"];

/** Commands the webview may ask the host to run (buttons in the view run the same commands as the palette). */
export const WEBVIEW_COMMANDS = [
  "setApiKey",
  "selectModel",
  "selectChatModel",
  "useLocalModel",
  "useVscodeModels",
  "openSettings",
  "openWalkthrough",
  "showHistory",
  "compact",
  "showModelContext",
  "newChatFromSummary",
  "mcpSignIn",
  "signIn",
] as const;
export type WebviewCommand = (typeof WEBVIEW_COMMANDS)[number];
