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

declare module "@earendil-works/pi-agent-core" {
  interface CustomAgentMessages {
    approvalNotice: ApprovalNoticeMessage;
    fileAttachment: FileAttachmentMessage;
    localNotice: LocalNoticeMessage;
  }
}

export type AppMessage = ApprovalNoticeMessage | FileAttachmentMessage | LocalNoticeMessage;
export type AppMessageRole = AppMessage["role"];

/**
 * Two separate questions per kind: does the user see it, does the model get it.
 * One boolean must never answer both.
 */
export const APP_MESSAGE_KINDS: Readonly<Record<AppMessageRole, { visibleInUI: boolean; includeInModelContext: boolean }>> = {
  approvalNotice: { visibleInUI: true, includeInModelContext: true },
  fileAttachment: { visibleInUI: true, includeInModelContext: true },
  localNotice: { visibleInUI: true, includeInModelContext: false },
};

const STANDARD_ROLES = new Set<string>(["system", "user", "assistant", "toolResult"]);

export function isStandardMessage(message: AgentMessage): message is Message {
  return STANDARD_ROLES.has(message.role);
}

export function isAppMessage(message: AgentMessage): message is AppMessage {
  return Object.prototype.hasOwnProperty.call(APP_MESSAGE_KINDS, message.role);
}
