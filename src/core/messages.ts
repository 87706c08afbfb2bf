// The app messages Pi Chat adds to the agent transcript, declared once, here.
// They live in `agent.state.messages` and on disk beside the standard pi-ai messages;
// `convertToLlm` (context-policy.ts) alone decides what the model sees of them.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";

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
  /** run_command: the exact command and its workspace-relative folder, as the card showed them. */
  command?: string;
  cwd?: string;
  /** run_command: the allow rule(s) that let it run without asking, or the rule the user added. */
  rule?: string;
  timestamp: number;
}

/** A file (and optionally a line range) the user attached with "Ask about this file". A reference, not a copy. */
export interface FileAttachmentMessage {
  role: "fileAttachment";
  /** Workspace-relative POSIX path. */
  path: string;
  /** 1-based, inclusive line range of the selection, if there was one. */
  range?: { startLine: number; endLine: number };
  timestamp: number;
}

/** Something the user should see that the model must not: an error explained, a turn cut off by a reload. */
export interface LocalNoticeMessage {
  role: "localNotice";
  level: "error" | "info" | "interrupted";
  text: string;
  /** A hint the UI can show as the fix ("Run Pi Chat: Set API Key"). */
  fix?: string;
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
  timestamp: number;
}

declare module "@earendil-works/pi-agent-core" {
  interface CustomAgentMessages {
    approvalNotice: ApprovalNoticeMessage;
    fileAttachment: FileAttachmentMessage;
    localNotice: LocalNoticeMessage;
    bashExecution: BashExecutionMessage;
  }
}

export type AppMessage = ApprovalNoticeMessage | FileAttachmentMessage | LocalNoticeMessage | BashExecutionMessage;
export type AppMessageRole = AppMessage["role"];

/**
 * Two separate questions per kind: does the user see it, does the model get it.
 * One boolean must never answer both.
 */
export const APP_MESSAGE_KINDS: Readonly<Record<AppMessageRole, { visibleInUI: boolean; includeInModelContext: boolean }>> = {
  approvalNotice: { visibleInUI: true, includeInModelContext: true },
  fileAttachment: { visibleInUI: true, includeInModelContext: true },
  localNotice: { visibleInUI: true, includeInModelContext: false },
  // Per message, `excludeFromContext` (`!!cmd`) leaves it out as well: see convertToLlm.
  bashExecution: { visibleInUI: true, includeInModelContext: true },
};

const STANDARD_ROLES = new Set<string>(["system", "user", "assistant", "toolResult"]);

export function isStandardMessage(message: AgentMessage): message is Message {
  return STANDARD_ROLES.has(message.role);
}

export function isAppMessage(message: AgentMessage): message is AppMessage {
  return Object.prototype.hasOwnProperty.call(APP_MESSAGE_KINDS, message.role);
}
