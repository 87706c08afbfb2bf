// The chat session's folder, re-exported: `../core/session` keeps meaning the session, its
// options and the types its API speaks. Nothing is defined here.
export { ChatSession } from "./chat-session";
export type { EditApprovalRequest, EditApprover, EditDecision } from "../permissions";
export type { BranchChange } from "./branching";
export type { ChatSessionOptions, CommandOptions, ModelBinding, Redactor, RequestContextStep } from "./types";
export { DEFAULT_SYSTEM_PROMPT } from "./types";
