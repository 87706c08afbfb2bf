// What a webview message handler may use: the owner of each concern, built once in chat-host.ts.
// A handler calls its owner directly; there is no forwarding layer. A new message takes three
// edits: its type in shared/protocol.ts, its shape in shared/validate.ts, its handler here beside
// the others of its concern (a handler group in this folder).
import type { WebviewMessage } from "../../shared/protocol";
import type { EditApprovals } from "../approvals/edit-approvals";
import type { ChatScreen } from "../chat-screen";
import type { ChatRestores } from "../checkpoints/chat-restores";
import type { CodeApplier } from "../code-blocks/apply-code";
import type { CodeInserter } from "../code-blocks/insert-code";
import type { TerminalLauncher } from "../code-blocks/run-in-terminal";
import type { Attachments } from "../composer/attachments";
import type { ComposerLists } from "../composer/composer-lists";
import type { PromptInput } from "../composer/prompt-input";
import type { HostMcp } from "../mcp/host-mcp";
import type { PendingReview } from "../pending";
import type { PlanDrafts } from "../plans/plan-drafts";
import type { HostShellCommands } from "../shell/shell-commands";
import type { FileLinks } from "../views/file-links";
import type { HistoryViewRequests } from "../views/history-view";
import type { ViewPort } from "../views/view-port";
import type { ChatStatus } from "../views/view-status";

/** The editor side of code blocks and links. */
export interface EditorActions {
  readonly links: FileLinks;
  readonly codeApplier: CodeApplier;
  readonly codeInserter: CodeInserter;
  readonly terminals: TerminalLauncher;
  /** Proposed plans opened in editors, to change before approving. */
  readonly plans: PlanDrafts;
}

export interface HandlerDeps {
  /** The chat on screen: its session (read anew on each use), switch, new, delete, `current-chat.json`. */
  readonly screen: ChatScreen;
  /** Everything the composer sends (prompt, queue), through core/composer-input.ts. */
  readonly input: PromptInput;
  /** The `@` and `/` lists, a template's expansion. */
  readonly lists: ComposerLists;
  readonly attachments: Attachments;
  readonly status: ChatStatus;
  readonly approvals: EditApprovals;
  /** Restore, redo, Edit/Retry with "also restore files?", branch switches. */
  readonly checkpoints: ChatRestores;
  readonly history: HistoryViewRequests;
  /** Keep / Undo of what Pi wrote since the last prompt (none without checkpoints). */
  readonly pending: PendingReview | undefined;
  readonly editor: EditorActions;
  readonly commands: HostShellCommands;
  readonly mcp: HostMcp | undefined;
  readonly view: ViewPort;
  /** Logs a request naming a chat or command this window does not know. */
  ignore(message: WebviewMessage): void;
}

export type MessageType = WebviewMessage["type"];
export type MessageOf<T extends MessageType> = Extract<WebviewMessage, { type: T }>;
export type MessageHandler<T extends MessageType> = (message: MessageOf<T>, deps: HandlerDeps) => void | Promise<void>;

/** Some of the handlers: a name that is no message type fails the build (use with `satisfies`). */
export type HandlerGroup = { [T in MessageType]?: MessageHandler<T> };
/** Every message type with its handler: one left out fails the build. */
export type AllHandlers = { [T in MessageType]: MessageHandler<T> };
