// The shapes of the app messages Pi Chat adds to the agent transcript, merged into pi-agent-core's
// `CustomAgentMessages` so `AgentMessage` includes them. Declared in the shared layer because both
// sides read them: the core saves them and feeds them to the context policy, the reducer turns
// them into chat items. Whether the user sees a kind and whether the model gets it are two flags
// per kind in src/core/messages.ts (APP_MESSAGE_KINDS), the one list to read for that.
/** The user's decision on a gated tool call (edit_file). The model must learn of a denial. */
export interface ApprovalNoticeMessage {
  role: "approvalNotice";
  toolCallId: string;
  toolName: string;
  decision: "allowed" | "denied";
  /** Optional words of the user, shown to the model with a denial. */
  reason?: string;
  /** Workspace-relative path the call was about, for the UI and the model's fact sentence. */
  path?: string;
  /** The unified diff the user decided on, kept so a restored chat shows the same card. UI only. */
  diff?: string;
  /** A secret file (.env*): `diff` is only "secret file: N lines changed", never the content. */
  secret?: boolean;
  /** edit_file allowed in part: the hunks of `diff` the user rejected (0-based); only the others were written. */
  rejectedHunks?: number[];
  /** edit_file: the hunks of `diff` the user changed before accepting (0-based); they were written as the user's text. */
  editedHunks?: number[];
  /** run_command: the exact command and its workspace-relative folder, as the card showed them. */
  command?: string;
  cwd?: string;
  /** run_command: the allow rule(s) that let it run without asking, or the rule the user added. */
  rule?: string;
  /** An MCP call: which server and tool (the rule "Always allow" added is `server/tool`). */
  mcp?: { server: string; tool: string };
  timestamp: number;
}

/**
 * A file (and optionally a line range) the user attached with "Ask about this file", or something
 * the user mentioned with `@` in the composer. A file or folder is a reference, not a copy; what
 * `@problems`, `@changes` and `@terminal` brought is kept here as it was sent (never read again).
 */
export interface FileAttachmentMessage {
  role: "fileAttachment";
  /** Workspace-relative POSIX path; for a mention that names no path, its token (`@changes`). */
  path: string;
  /** 1-based, inclusive line range of the selection, if there was one. */
  range?: { startLine: number; endLine: number };
  /** Set when it came from an `@` mention other than a plain file. */
  mention?: "folder" | "problems" | "selection" | "changes" | "terminal";
  /** What the mention carried, as the model got it (already capped). */
  text?: string;
  /** What was cut or missing, in words ("first 200 of 1,300 lines"), said to the model and shown on the chip. */
  note?: string;
  timestamp: number;
}

/** Something the user should see that the model must not: an error explained, a turn cut off by a reload. */
export interface LocalNoticeMessage {
  role: "localNotice";
  level: "error" | "info";
  text: string;
  /** What to do about it, in words ("Run “Pi Chat: Set API Key” or set ANTHROPIC_API_KEY."). */
  fix?: string;
  /** The command that does the fix, offered as a button beside the words. */
  fixCommand?: FixCommandId;
  /** Other ways out, offered as buttons after it (choose another model, use a local model, retry). */
  moreFixCommands?: FixCommandId[];
  /** The provider's own words, one click away (the card says what failed and why in its own). */
  detail?: string;
  /** The notice says this background command (a run_command call id) is not running any more: its card follows. */
  backgroundId?: string;
  timestamp: number;
}

/**
 * Commands a notice may offer as its fix (the webview's `workbench/runCommand` message runs them;
 * `retry` is the chat's own Continue).
 */
export type FixCommandId =
  | "setApiKey"
  | "selectModel"
  | "selectChatModel"
  | "useLocalModel"
  | "openSettings"
  | "retry"
  | "compact"
  | "newChatFromSummary"
  | "mcpSignIn"
  | "signIn";

/** Every FixCommandId, to check one read back from a saved chat or thrown by another bundle. */
export const FIX_COMMAND_IDS: readonly FixCommandId[] = [
  "setApiKey",
  "selectModel",
  "selectChatModel",
  "useLocalModel",
  "openSettings",
  "retry",
  "compact",
  "newChatFromSummary",
  "mcpSignIn",
  "signIn",
];

export function isFixCommandId(value: unknown): value is FixCommandId {
  return typeof value === "string" && (FIX_COMMAND_IDS as readonly string[]).includes(value);
}

/** What started a compaction. */
export type CompactionTrigger = "threshold" | "overflow" | "manual";

/**
 * A summary of the earlier conversation, written by the model in a separate request. Appended
 * like every other message: nothing before it is removed from disk or from the view. From here
 * on the model gets the system prompt, this summary, the `keptMessageCount` messages right
 * before it verbatim, then what came after (context/compaction.ts, `applyCompaction`).
 */
export interface CompactionSummaryMessage {
  role: "compactionSummary";
  /** The structured summary (goal, constraints, progress, decisions, files, next steps, facts). */
  summary: string;
  /**
   * How many messages right before this one the model still gets verbatim. Counted back from
   * this message, so it means the same on any branch of a chat tree and in a chat that starts
   * from a summary.
   */
  keptMessageCount: number;
  /** Messages the summary replaces in the model's context (system messages are never among them). */
  summarizedMessageCount: number;
  /** Estimated tokens of the model's context before and after (system prompt and tools included). */
  tokensBefore: number;
  tokensAfter: number;
  /** Files read and files modified, from the tool calls (not from the model's memory), earlier summaries included. */
  readFiles: string[];
  modifiedFiles: string[];
  trigger: CompactionTrigger;
  /** The user's words on what to keep, for a compaction by hand. */
  instructions?: string;
  /** The user's own prompts kept verbatim beside the summary (the first, then the newest; bounded). */
  userMessages?: string[];
  /** The task list when the summary was made, kept verbatim beside it (the list's messages may be summarized). */
  taskList?: TaskItem[];
  /** The summary request's own usage (what the compaction cost). */
  usage?: { input: number; output: number; cacheRead: number; cacheWrite: number; cost: number };
  timestamp: number;
}

/**
 * A command the user ran from the composer: `!cmd` (the model gets it with the next request, as
 * a user message stating the command, exit code and output) or `!!cmd` (`excludeFromContext`:
 * shown, saved, restored, never in any request). The user typed it, so it was not approved.
 */
export interface BashExecutionMessage {
  role: "bashExecution";
  command: string;
  /** Cleaned and capped like run_command's (2,000 lines / 50 KB, head and tail). */
  output: string;
  exitCode: number | null;
  /** Stopped by the user or by the time-out. */
  cancelled: boolean;
  /** Lines were cut from the middle of `output`. */
  truncated: boolean;
  /** `!!`: never part of a model request. */
  excludeFromContext: boolean;
  durationMs?: number;
  /** The whole output, for the card. UI only. */
  logFile?: string;
  /** Which path ran it: a VS Code terminal or a child process. */
  via?: "terminal" | "process";
  /** The folder it ran in (`folderName/…`), in a workspace of several folders. */
  cwd?: string;
  timestamp: number;
}

/**
 * The user put the files back to how they were before one of their messages (*Restore files to
 * here*, or its *Redo changes*). The model is told, so it does not assume its later edits are there.
 */
export interface FilesRestoredMessage {
  role: "filesRestored";
  /** The prompt's number on the chat's path (1 for the first), and its first words. */
  messageNumber: number;
  messageText: string;
  /** A Redo: the files were put back to how they were just before that restore. */
  redo: boolean;
  /**
   * The checkpoint a Redo puts the files back to (the restore's own; a Redo note names the one it
   * redid), so *Redo* on the note works as long as the chat shows it. Absent in older chats.
   */
  redoMarkId?: string;
  /** The prompt's index on the chat's path: the turns from it on are the ones whose edits were restored. */
  messageIndex?: number;
  restored: string[];
  deleted: string[];
  skipped: { path: string; reason: string }[];
  timestamp: number;
}

/**
 * The user asked the model to go on with an answer the server cut at its output token limit
 * (`stopReason: "length"`): the model is told what happened, so it continues instead of starting over.
 */
export interface AnswerContinuedMessage {
  role: "answerContinued";
  /** Why the answer stopped: the server's token limit. */
  reason: "length";
  timestamp: number;
}

/** One item of the chat's task list (src/shared/task-list.ts). */
export type TaskState = "pending" | "in_progress" | "done" | "blocked";
export interface TaskItem {
  /** Stable while the item stays on the list ("t3"). */
  id: string;
  text: string;
  state: TaskState;
}

/**
 * The user changed the task list the model keeps (ticked, reordered or deleted items). The model
 * is told what changed and the list as it now is, with its next request; the chat shows a quiet line.
 */
export interface TaskListEditedMessage {
  role: "taskListEdited";
  /** The list after the edit. */
  items: TaskItem[];
  /** What changed, in words ("marked "Write tests" done", "deleted "…"", "reordered the list"). */
  changes: string[];
  timestamp: number;
}

/** How the chat works: plan (read and explore, change nothing) or act (the tools as the settings allow). */
export type ChatMode = "plan" | "act";

/**
 * The user switched the chat's mode. The model is told with its next request (and a run's tools
 * follow the mode); the chat shows a divider. The newest on the path is the chat's mode.
 */
export interface ModeChangedMessage {
  role: "modeChanged";
  mode: ChatMode;
  timestamp: number;
}

/**
 * The user approved a proposed plan (*Approve and act*): the chat is in act mode and this is the
 * model's next message. `plan` is the approved text, the user's edits included: what the model gets.
 */
export interface PlanApprovedMessage {
  role: "planApproved";
  /** The propose_plan call it approves. */
  toolCallId: string;
  plan: string;
  /** The user changed the plan before approving it. */
  edited: boolean;
  timestamp: number;
}

/** One comment of the user's on a line of a proposed plan. */
export interface PlanLineComment {
  /** 1-based line of the plan's Markdown. */
  line: number;
  /** That line's text, as the user saw it (what the model reads beside the comment). */
  lineText: string;
  comment: string;
}

/**
 * The user commented on a proposed plan line by line and asked for a revision (*Revise*): the
 * model gets each comment with the line it is on; the chat shows the comments.
 */
export interface PlanCommentsMessage {
  role: "planComments";
  /** The propose_plan call the comments are on. */
  toolCallId: string;
  comments: PlanLineComment[];
  timestamp: number;
}

declare module "@earendil-works/pi-agent-core" {
  interface CustomAgentMessages {
    planComments: PlanCommentsMessage;
    planApproved: PlanApprovedMessage;
    modeChanged: ModeChangedMessage;
    taskListEdited: TaskListEditedMessage;
    answerContinued: AnswerContinuedMessage;
    filesRestored: FilesRestoredMessage;
    approvalNotice: ApprovalNoticeMessage;
    fileAttachment: FileAttachmentMessage;
    localNotice: LocalNoticeMessage;
    compactionSummary: CompactionSummaryMessage;
    bashExecution: BashExecutionMessage;
  }
}

export type AppMessage =
  | PlanCommentsMessage
  | PlanApprovedMessage
  | ModeChangedMessage
  | TaskListEditedMessage
  | AnswerContinuedMessage
  | FilesRestoredMessage
  | ApprovalNoticeMessage
  | FileAttachmentMessage
  | LocalNoticeMessage
  | CompactionSummaryMessage
  | BashExecutionMessage;
export type AppMessageRole = AppMessage["role"];
