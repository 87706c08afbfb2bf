// What a webview message handler may use: the chat on screen, a way to answer the view, and the
// controller's operations by name. The controller keeps its state; handlers only reach it here.
import type { FilesRestoredMessage } from "../../core/messages";
import type { BranchChange, ChatSession, EditApprovalRequest } from "../../core/session";
import type { HostMessageBody, PendingAttachment, PromptImage, ViewStatus, WebviewMessage } from "../../shared/protocol";
import type { MentionRef } from "../../shared/mentions";
import type { CodeApplier } from "../code-blocks/apply-code";
import type { CodeInserter } from "../code-blocks/insert-code";
import type { TerminalLauncher } from "../code-blocks/run-in-terminal";
import type { WorkspaceMentions } from "../adapters/mentions";
import type { ChatDeletion } from "../chat-deletion";
import type { HostMcp } from "../mcp";
import type { HostShellCommands } from "../shell/shell-commands";
import type { HistoryViewRequests } from "../views/history-view";
import type { ProposalDiffs } from "../views/diff-view";

export interface HandlerContext {
  /** The chat on screen (read anew on each use: a switch replaces it). */
  readonly session: ChatSession;
  /** Files attached for the next prompt (the controller's own list). */
  attachments: PendingAttachment[];
  send(body: HostMessageBody): void;
  status(): ViewStatus;
  /** Logs a request naming a chat or command this window does not know. */
  ignore(message: WebviewMessage): void;
  isKnownChat(chatId: string): boolean;
  writeCurrentChat(chatId: string | undefined): Promise<void>;

  /** `verbatim`: a template the composer expanded, sent as it reads (never run as a command). */
  prompt(text: string, images: readonly PromptImage[], mentions: readonly MentionRef[], verbatim: boolean): Promise<void>;
  queueInput(kind: "followUp" | "steer", text: string, images: readonly PromptImage[], mentions: readonly MentionRef[], verbatim: boolean): Promise<void>;
  stop(): void;
  continueChat(): Promise<void>;
  newChat(): Promise<void>;
  switchChat(chatId: string): Promise<void>;
  deleteChat(chatId: string): Promise<void>;
  sendCommandList(): Promise<void>;
  /** The draft `/template args` expanded, or undefined when it names no template. */
  expandDraft(text: string): Promise<{ name: string; text: string } | undefined>;
  branch(operation: () => Promise<BranchChange>): Promise<void>;
  /** Edit or Retry, asking first "also restore files?" when Pi changed files since that message. */
  branchWithFiles(
    action: "edit" | "retry",
    messageIndex: number,
    edit: { text: string; removeImages?: number[] } | undefined,
    operation: (session: ChatSession, note: FilesRestoredMessage | undefined) => Promise<BranchChange>,
  ): Promise<void>;
  /** The answer to the "also restore files?" question; false for an offer that is not open. */
  answerFilesOffer(id: number, choice: "restore" | "keep" | "cancel"): boolean;
  openFilesOfferDiff(id: number, path: string): Promise<boolean>;
  restoreFiles(messageIndex: number): Promise<void>;
  /** *Redo changes* on the restore's note at path index `noteIndex`. */
  redoRestore(noteIndex: number): Promise<void>;
  openFile(requested: string, line: number | undefined): Promise<void>;
  /** Settles an edit approval of the chat on screen. */
  decide(toolCallId: string, decision: "allow" | "deny" | "allowForChat", reason: string | undefined): void;
  /** The edit waiting for approval under this tool call id, if any. */
  pendingApproval(toolCallId: string): EditApprovalRequest | undefined;

  /** Made (loading out/composer.js) at the first use. */
  readonly mentions: WorkspaceMentions;
  readonly historyView: HistoryViewRequests;
  readonly deletion: ChatDeletion;
  readonly commands: HostShellCommands;
  readonly mcp: HostMcp | undefined;
  readonly diffs: ProposalDiffs;
  readonly codeApplier: CodeApplier;
  readonly codeInserter: CodeInserter;
  readonly terminals: TerminalLauncher;
}

export type MessageType = WebviewMessage["type"];
export type MessageOf<T extends MessageType> = Extract<WebviewMessage, { type: T }>;
export type MessageHandler<T extends MessageType> = (message: MessageOf<T>, ctx: HandlerContext) => void | Promise<void>;

/** Some of the handlers: a name that is no message type fails the build (use with `satisfies`). */
export type HandlerGroup = { [T in MessageType]?: MessageHandler<T> };
/** Every message type with its handler: one left out fails the build. */
export type AllHandlers = { [T in MessageType]: MessageHandler<T> };
