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
  level: "error" | "info";
  text: string;
  /** What to do about it, in words ("Run “Pi Chat: Set API Key” or set ANTHROPIC_API_KEY."). */
  fix?: string;
  /** The command that does the fix, offered as a button beside the words. */
  fixCommand?: FixCommandId;
  timestamp: number;
}

/** Commands a notice may offer as its fix (the webview's `command` message runs them). */
export type FixCommandId = "setApiKey" | "selectModel";

declare module "@earendil-works/pi-agent-core" {
  interface CustomAgentMessages {
    approvalNotice: ApprovalNoticeMessage;
    fileAttachment: FileAttachmentMessage;
    localNotice: LocalNoticeMessage;
  }
}

export type AppMessage = ApprovalNoticeMessage | FileAttachmentMessage | LocalNoticeMessage;
export type AppMessageRole = AppMessage["role"];

