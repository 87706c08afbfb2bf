// Builds the host's owners once, each with one concern, and wires them: the chat on screen, its
// status, the model, edit approvals, the composer's lists, attachments and input, checkpoint
// restores, links. Webview messages go straight to their owner's handler (handlers/); there is
// no controller in between. This file only composes; it holds no chat state.
import type * as vscode from "vscode";
import type { HostMessageBody, ViewStatus, WebviewMessage } from "../shared/protocol";
import { EditApprovals } from "./approvals/edit-approvals";
import { type ChatServiceSetup, createChatService } from "./chat-service-setup";
import { ChatScreen } from "./chat-screen";
import { ChatRestores } from "./checkpoints/chat-restores";
import { Attachments } from "./composer/attachments";
import { ComposerLists } from "./composer/composer-lists";
import { PromptInput } from "./composer/prompt-input";
import { dispatch, type EditorActions, type HandlerDeps } from "./handlers";
import type { BaseUrlConsent } from "./models/base-url-consent";
import type { SecretKeys } from "./models/providers-loader";
import { ChatModels } from "./models/resolve-model";
import { OtherWindows } from "./other-windows";
import { PendingReview } from "./pending";
import type { ChatViewHandler, ChatViewProvider } from "./views/chat-webview-provider";
import type { ProposalDiffs } from "./views/diff-view";
import { FileLinks } from "./views/file-links";
import { HistoryViewRequests } from "./views/history-view";
import { ViewPort } from "./views/view-port";
import { ChatStatus } from "./views/view-status";

/** What the chat service is made from (chat-service-setup.ts), less what the owners made here give it. */
type ServiceParts = Omit<ChatServiceSetup, "workspaceRoot" | "locks" | "resolveModel" | "approver" | "folderPrefixes" | "titlesChanged">;

export interface ChatHostOptions extends ServiceParts {
  storageKind: ViewStatus["storage"];
  /** The one folder's root, so the tools accept absolute paths inside it (undefined with several folders). */
  workspaceRoot: vscode.Uri | undefined;
  secrets: SecretKeys;
  /** Sign-in to providers (src/host/models/provider-sign-in.ts). */
  signIns: ChatModels["signIns"];
  consent: BaseUrlConsent;
  diffs: ProposalDiffs;
  /** "Apply to file", "Insert at cursor", "Run in terminal" on a code block. */
  editor: Omit<EditorActions, "links">;
  /** Where the Keep / Undo decisions on Pi's pending changes are kept (the workspace's state). */
  pendingState?: vscode.Memento;
}

export class ChatHost implements ChatViewHandler, vscode.Disposable {
  readonly screen: ChatScreen;
  readonly status: ChatStatus;
  readonly models: ChatModels;
  readonly attachments: Attachments;
  readonly input: PromptInput;
  /** What every webview message handler gets. */
  readonly deps: HandlerDeps;
  private readonly view = new ViewPort();
  private readonly otherWindows: OtherWindows;
  private readonly lists: ComposerLists;

  constructor(options: ChatHostOptions) {
    const { log, paths } = options;
    const view = this.view;
    this.otherWindows = new OtherWindows(options.storageDir);
    this.models = new ChatModels(options.secrets, options.consent, log, options.signIns);
    this.lists = new ComposerLists({ fs: options.fs, ...(options.discovery ? { discovery: options.discovery } : {}), paths, view, log });
    // The approvals answer a session the service makes, and say "allowed for this chat" through the status made after it.
    let status: ChatStatus | undefined;
    let screen: ChatScreen | undefined;
    const approvals = new EditApprovals(
      options.diffs,
      () => status?.send({ editsAllowedForChat: true }),
      // An edit waits only in the chat on screen (a switch cancels it).
      (toolCallId, rejected, edited) => screen?.currentSession.showRejectedHunks(toolCallId, rejected, edited),
    );
    const service = createChatService({
      ...options,
      locks: this.otherWindows.locks,
      resolveModel: (choice) => this.models.resolve(choice),
      approver: (request, signal) => approvals.ask(request, signal),
      folderPrefixes: () => this.lists.folderPrefixes(),
      titlesChanged: () => void screen?.refreshChats(),
    });
    screen = this.screen = new ChatScreen({ service, otherWindows: this.otherWindows, storageDir: options.storageDir, view, log });
    this.attachments = new Attachments(paths, this.lists, view);
    status = this.status = new ChatStatus({
      screen,
      models: this.models,
      otherWindows: this.otherWindows,
      storageKind: options.storageKind,
      view,
      attachments: () => this.attachments.pending,
      log,
    });
    this.otherWindows.start({
      service,
      current: () => this.screen.currentSession,
      reloaded: (session) => this.screen.show(session),
      statusChanged: () => this.status.send(),
      log,
    });
    this.input = new PromptInput({ screen, status, models: this.models, lists: this.lists, attachments: this.attachments, paths, view });
    const pending =
      options.checkpoints && options.pendingState
        ? new PendingReview({
            checkpoints: options.checkpoints.checkpoints,
            paths,
            state: options.pendingState,
            currentChatId: () => screen?.currentChatId ?? "",
            checkpointsOf: () => screen?.currentSession.promptCheckpoints() ?? [],
            send: (list, said) => view.send({ type: "pending/changes", ...list, ...(said !== undefined ? { said } : {}) }),
            log,
          })
        : undefined;
    if (pending) screen.onDidShow(() => pending.changes.refresh());
    this.deps = {
      screen,
      input: this.input,
      lists: this.lists,
      attachments: this.attachments,
      status,
      approvals,
      checkpoints: new ChatRestores({ screen, status, view, checkpoints: options.checkpoints }),
      pending,
      history: new HistoryViewRequests({ service, send: (body) => view.send(body), refreshChats: () => this.screen.refreshChats(), log }),
      editor: { ...options.editor, links: new FileLinks(options.fs, options.workspaceRoot, paths, log) },
      commands: options.commands,
      mcp: options.mcp,
      view,
      ignore: (message) => log(`ignored ${message.type}: it names nothing this chat has now (a stale or unknown id)`),
    };
  }

  attachView(view: ChatViewProvider): void {
    this.view.attach(view);
  }

  // ---- the view's handler (views/chat-webview-provider.ts) ----

  onMessage(message: WebviewMessage): void | Promise<void> {
    return dispatch(message, this.deps);
  }

  snapshot(): HostMessageBody {
    return this.status.snapshot();
  }

  viewReady(): void {
    this.status.viewReady();
    this.deps.pending?.changes.resend();
  }

  dispose(): void {
    this.deps.approvals.dispose();
    this.deps.pending?.dispose();
    this.otherWindows.dispose();
    this.lists.dispose();
    this.models.dispose();
    this.screen.dispose(); // last: it flushes the store's index
  }
}
