// The host's conductor: one ChatService for the workspace, the chat on screen, the files
// attached for the next prompt, and the approvals waiting for the user. It turns webview
// messages and commands into session calls, and session events into view updates.
import type { CodeApplier } from "./code-blocks/apply-code";
import type { CodeInserter } from "./code-blocks/insert-code";
import type { TerminalLauncher } from "./code-blocks/run-in-terminal";
import { readFile, rename, writeFile } from "node:fs/promises";
import * as path from "node:path";
import * as vscode from "vscode";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { ChatService, type ChatServiceOptions, type ImportedChat } from "../core/chat-service";
import type { RequestCapture } from "../core/context/chat-context";
import type { BranchChange, ChatSession, EditApprovalRequest, EditDecision } from "../core/session";
import type { ModelBinding } from "../core/session/types";
import { resolveToolPath, type WorkspaceFileSystem } from "../core/tools";
import type { ChatModelChoice } from "../core/transcript";
import { modelLabel, settingsForChat } from "./models/chat-model";
import { ENV_VARS, isProviderId, PROVIDER_IDS, type ProviderId } from "./providers/catalog";
import { createNodeTranscriptStorage, TranscriptStore } from "../core/transcript";
import { ImageBlobStore } from "../core/transcript/image-blobs";
import { createWorkerImageScaler } from "../core/images/image-scaler";
import type { ChatSummary, HostMessageBody, PendingAttachment, PromptImage, ViewStatus, WebviewMessage } from "../shared/protocol";
import type { ChatViewProvider } from "./views/chat-view";
import { OtherWindows } from "./other-windows";
import type { ProposalDiffs } from "./views/diff-view";
import type { WorkspacePaths } from "./adapters/workspace-paths";
import { createDiagnosticsWatcher } from "./adapters/diagnostics";
import { projectInstructionsStep } from "./adapters/project-instructions";
import { attachImages, imageInputStatus } from "./adapters/images";
import { loadProviders, loadProvidersWhenIdle, providersIfLoaded, readProviderSettings, type SecretKeys } from "./models/providers-loader";
import type { BaseUrlConsent } from "./models/base-url-consent";
import { keyRedactor } from "./models/key-redaction";
import { approvalModeSetting, protectedFilesSetting, readCompactionSettings, workspaceTrusted } from "./settings";
import type { HostShellCommands } from "./shell/shell-commands";
import type { HostMcp } from "./mcp";
import { dispatch, type HandlerContext } from "./handlers";
import type { UserCommandText } from "../core/shell/user-command";
import { type ChatActionName, type ComposerInput, parseComposerInput } from "../core/composer-input";
import { ChatDeletion } from "./chat-deletion";
import { HistoryViewRequests } from "./views/history-view";
import { modelTitles } from "./models/model-titles";
import { chooseUserCommandFolder } from "./shell/command-folder";
import type { HostCheckpoints } from "./adapters/checkpoints";
import type { RestoreOutcome } from "../core/checkpoints";
import type { FilesRestoredMessage } from "../core/messages";
import type { LibraryPlace, MentionAttachment, WorkspaceMentions } from "./adapters/composer-library";
import { loadComposer } from "./adapters/composer-loader";
import { TerminalCommands } from "./adapters/terminal-commands";
import type { MentionRef } from "../shared/mentions";
import type { RequestContextStep } from "../core/session/types";

/** A model's catalog name, when the provider bundle is loaded (the view's status never loads it). */
function catalogName(provider: ProviderId, id: string): string | undefined {
  return providersIfLoaded()
    ?.listModels(provider)
    .find((m) => m.id === id)?.name;
}

/** How long the view's first paint has before the provider catalog is loaded for the header's model name. */
const CATALOG_DELAY_MS = 1500;

/**
 * What the chat (and the model) is told after files were restored to the checkpoint of message `at`
 * (`messageIndex`: its path index, when the restored turns are on the path); it keeps the mark *Redo* on the note puts back.
 */
function filesRestoredNote(at: { number: number; text: string; messageIndex?: number }, outcome: RestoreOutcome, redo: boolean): FilesRestoredMessage {
  return {
    role: "filesRestored",
    messageNumber: at.number,
    messageText: at.text,
    redo,
    redoMarkId: outcome.redoMarkId,
    ...(at.messageIndex !== undefined && !redo ? { messageIndex: at.messageIndex } : {}),
    restored: outcome.restored.map((f) => f.path),
    deleted: outcome.deleted.map((f) => f.path),
    skipped: outcome.skipped.map((f) => ({ path: f.path, reason: f.reason })),
    timestamp: Date.now(),
  };
}

/** Two request steps, one after the other. */
function chainSteps(first: RequestContextStep, second: RequestContextStep): RequestContextStep {
  return async (messages, signal) => second(await first(messages, signal), signal);
}

/** Which chat is on screen, in the storage folder beside the chats: written at once, so a crash keeps it. */
const CURRENT_CHAT_FILE = "current-chat.json";

interface PendingApproval {
  request: EditApprovalRequest;
  resolve: (decision: EditDecision) => void;
}

export interface ControllerOptions {
  context: vscode.ExtensionContext;
  storageDir: string;
  storageKind: ViewStatus["storage"];
  /** The one folder's root, so the tools accept absolute paths inside it (undefined with several folders). */
  workspaceRoot: vscode.Uri | undefined;
  /** Tool paths ↔ URIs for the open folders. */
  paths: WorkspacePaths;
  /** The system prompt, when the workspace adds to the default one (the folders of a multi-root workspace). */
  systemPrompt?: string;
  fs: WorkspaceFileSystem;
  /** The search engine and VS Code's excludes for the discovery tools. */
  discovery?: ChatServiceOptions["discovery"];
  secrets: SecretKeys;
  consent: BaseUrlConsent;
  diffs: ProposalDiffs;
  /** "Apply to file" on a code block: diff, decision, one undoable edit. */
  codeApplier: CodeApplier;
  /** "Insert at cursor" on a code block: asks when the block's language does not fit the file. */
  codeInserter: CodeInserter;
  /** "Run in terminal" on a shell block: the command shown, the user's yes, a terminal they see. */
  terminals: TerminalLauncher;
  commands: HostShellCommands;
  /** The window's MCP servers (src/host/mcp.ts); absent: no MCP tools. */
  mcp?: HostMcp;
  /** What Pi writes, kept per user message, and the restore (src/host/adapters/checkpoints.ts); absent: no folder on disk. */
  checkpoints?: HostCheckpoints;
  log: (line: string) => void;
  /** Every chat request as it is sent ("what the model sees"). */
  onRequest?: (capture: RequestCapture) => void;
}

export class ChatController implements vscode.Disposable {
  readonly service: ChatService;
  private view: ChatViewProvider | undefined;
  private session: ChatSession;
  private unsubscribe: (() => void) | undefined;
  private attachments: PendingAttachment[] = [];
  private readonly approvals = new Map<string, PendingApproval>();
  /** Chats shared with other VS Code windows on this folder: one writer, the rest read-only. */
  private readonly otherWindows: OtherWindows;
  private chats: ChatSummary[] = [];
  private branchNote: string | undefined;
  /** "This chat now uses …": shown after the model changed, until the next prompt or chat. */
  private modelNote: string | undefined;
  /** Providers with a stored key (read from the secret storage, which answers asynchronously); undefined until read. */
  private storedKeys: ReadonlySet<ProviderId> | undefined;
  /** Delete (to the trash) and Undo. */
  readonly deletion: ChatDeletion;
  /** The view's history dialog: search, rename, export. */
  private readonly historyView: HistoryViewRequests;
  /** The composer's `@` list and what mentions carry: made (and its bundle loaded) at the first need. */
  private mentionsMade: WorkspaceMentions | undefined;
  /** Each terminal's last command, recorded from the start for `@terminal`. */
  private readonly terminalCommands: TerminalCommands;
  /** Chats whose files are being restored (their preview may still be open). */
  private readonly restoring = new Set<string>();
  /** What the webview message handlers (handlers/) may use of this controller. */
  private readonly handlerContext: HandlerContext;

  constructor(private readonly options: ControllerOptions) {
    this.otherWindows = new OtherWindows(options.storageDir);
    this.terminalCommands = new TerminalCommands(options.log);
    const root = options.workspaceRoot;
    this.service = new ChatService({
      images: new ImageBlobStore(options.storageDir),
      store: new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(options.storageDir)),
      fs: options.fs,
      ...(options.discovery ? { discovery: options.discovery } : {}),
      ...(root?.scheme === "file" ? { workspaceRoot: root.fsPath } : {}),
      ...(options.systemPrompt !== undefined ? { systemPrompt: options.systemPrompt } : {}),
      resolveModel: (choice) => this.resolveModel(choice),
      approver: (request, signal) => this.askForApproval(request, signal),
      describeError: (message, model) =>
        loadProviders().describeProviderError(message, isProviderId(model?.provider) ? model.provider : undefined, {
          ...(model?.baseUrl ? { baseUrl: model.baseUrl } : {}),
          ...(model?.id ? { id: model.id } : {}),
        }),
      approvalMode: approvalModeSetting,
      protectedFiles: protectedFilesSetting,
      workspaceTrusted,
      extendContext: chainSteps(
        projectInstructionsStep(options.log),
        // The skills' list: its code loads with the first request (out/composer.js).
        (messages, signal) => loadComposer().skillsStep(options.fs, () => this.folderPrefixes(), options.log)(messages, signal),
      ),
      problems: createDiagnosticsWatcher((p) => options.paths.uriOf(p)),
      // Large images read_file returns are scaled in a worker (photon), loaded only then.
      imageScaler: createWorkerImageScaler(path.join(__dirname, "image-scale.js")),
      compaction: () => readCompactionSettings(),
      onRequest: (capture) => options.onRequest?.(capture),
      log: options.log,
      commands: {
        runner: () => options.commands.runner(),
        enabled: () => options.commands.enabled(),
        rules: options.commands.rules,
        approver: (request, signal) => options.commands.approver(request, signal),
        defaultTimeoutSeconds: () => options.commands.defaultTimeoutSeconds(),
        logRoot: options.commands.logRoot,
        ...(options.commands.folders ? { folders: options.commands.folders } : {}),
      },
      ...(options.mcp ? { mcp: options.mcp } : {}),
      ...(options.checkpoints ? { checkpoints: options.checkpoints.checkpoints } : {}),
      locks: this.otherWindows.locks,
      redactor: keyRedactor,
      titles: modelTitles(() => void this.refreshChats()),
    });
    this.session = this.service.newChat();
    this.watch(this.session);
    this.deletion = new ChatDeletion({
      service: this.service,
      currentChatId: () => this.session.id,
      chatTitle: (chatId) => this.chatTitle(chatId),
      showNewChat: () => {
        this.switchTo(this.service.newChat());
        return this.session.id;
      },
      openChat: (chatId) => this.switchChat(chatId),
      refreshChats: () => this.refreshChats(),
      chatDeleted: (chatId, title) => this.view?.send({ type: "history/deleted", chatId, title }),
      log: options.log,
    });
    this.otherWindows.start({
      service: this.service,
      current: () => this.session,
      reloaded: (session) => this.switchTo(session),
      statusChanged: () => this.view?.send({ type: "view/status", status: this.status() }),
      log: options.log,
    });
    this.historyView = new HistoryViewRequests({
      service: this.service,
      send: (body) => this.view?.send(body),
      refreshChats: () => this.refreshChats(),
      log: options.log,
    });
    this.handlerContext = this.createHandlerContext();
  }

  private createHandlerContext(): HandlerContext {
    // Getters, not copies: the session and the attachments change under the handlers.
    const controller = this;
    const options = this.options;
    return {
      get session() {
        return controller.session;
      },
      get attachments() {
        return controller.attachments;
      },
      set attachments(list) {
        controller.attachments = list;
      },
      send: (body) => this.view?.send(body),
      status: () => this.status(),
      ignore: (message) => this.ignore(message),
      isKnownChat: (chatId) => this.isKnownChat(chatId),
      writeCurrentChat: (chatId) => this.writeCurrentChat(chatId),
      prompt: (text, images, mentions, verbatim) => this.prompt(text, images, mentions, verbatim),
      queueInput: (kind, text, images, mentions, verbatim) => this.queueInput(kind, text, images, mentions, verbatim),
      stop: () => this.stop(),
      continueChat: () => this.continueChat(),
      newChat: () => this.newChat(),
      switchChat: (chatId) => this.switchChat(chatId),
      deleteChat: (chatId) => this.deleteChat(chatId),
      sendCommandList: () => this.sendCommandList(),
      expandDraft: (text) => loadComposer().expandDraft(this.libraryPlace(), text),
      branch: (operation) => this.branch(operation),
      branchWithFiles: (action, messageIndex, edit, operation) => this.branchWithFiles(action, messageIndex, edit, operation),
      answerFilesOffer: (id, choice) => this.options.checkpoints?.answerOffer(id, choice) ?? false,
      openFilesOfferDiff: async (id, path) => (await this.options.checkpoints?.openOfferDiff(id, path)) ?? false,
      restoreFiles: (messageIndex) => this.restoreFiles(messageIndex),
      redoRestore: (noteIndex) => this.redoRestore(noteIndex),
      openFile: (requested, line) => this.openFile(requested, line),
      decide: (toolCallId, decision, reason) => this.decide(toolCallId, decision, reason),
      pendingApproval: (toolCallId) => this.approvals.get(toolCallId)?.request,
      // A getter: the mentions (and out/composer.js) are made at the first `@`, not with the controller.
      get mentions() {
        return controller.mentions;
      },
      historyView: this.historyView,
      deletion: this.deletion,
      commands: options.commands,
      mcp: options.mcp,
      diffs: options.diffs,
      codeApplier: options.codeApplier,
      codeInserter: options.codeInserter,
      terminals: options.terminals,
    };
  }

  attachView(view: ChatViewProvider): void {
    this.view = view;
  }

  get currentSession(): ChatSession {
    return this.session;
  }

  chatTitle(chatId: string): string {
    return this.chats.find((c) => c.id === chatId)?.title ?? "New chat";
  }

  /** Reopens the chat that was on screen last time (the window was reloaded or VS Code restarted). */
  async restore(): Promise<void> {
    this.chats = await this.service.listChats();
    const lastId = await this.readCurrentChat();
    if (!lastId) return;
    if (this.chats.some((c) => c.id === lastId)) await this.switchChat(lastId, { quiet: true });
    else this.options.log(`the last open chat ${lastId} is no longer saved; starting a new one`);
  }

  // ---- snapshot for the view ----

  snapshot(): HostMessageBody {
    const summary = this.chats.find((c) => c.id === this.session.id);
    return {
      type: "view/snapshot",
      chatId: this.session.id,
      title: summary?.title ?? "New chat",
      state: this.session.viewState,
      status: this.status(),
      chats: this.chatList(),
      attachments: this.attachments,
    };
  }

  private status(): ViewStatus {
    const choice = this.session.model;
    const settings = settingsForChat(readProviderSettings(), choice);
    const label = modelLabel(settings, choice?.thinkingLevel, catalogName);
    // Without the catalog the header could only show the id: fetch it after this paint, then redraw.
    if (!providersIfLoaded()) void loadProvidersWhenIdle(CATALOG_DELAY_MS).then((loaded) => loaded && this.refreshStatus());
    const setup = this.setupNeeded(settings);
    return {
      modelLabel: label.label,
      modelDetail: label.detail,
      ...(setup ? { setup } : {}),
      ...(this.modelNote ? { modelNote: this.modelNote } : {}),
      storage: this.options.storageKind,
      canContinue: this.session.interrupted,
      editsAllowedForChat: this.session.allowsEditsForChat,
      ...imageInputStatus(this.imageInput(false)),
      writtenElsewhere: this.otherWindows.writtenElsewhere,
      ...(this.branchNote ? { branchNote: this.branchNote } : {}),
    };
  }

  // ---- webview messages ----

  async onMessage(message: WebviewMessage): Promise<void> {
    return dispatch(message, this.handlerContext);
  }

  /** The chat on screen (Apply to file records its writes under it). */
  get currentChatId(): string {
    return this.session.id;
  }

  /**
   * *Restore files to here* on the prompt at path index `messageIndex`: preview, restore, and a
   * note in the chat that the model reads with the next request. Refused while a reply runs.
   */
  async restoreFiles(messageIndex: number): Promise<void> {
    const checkpoints = this.options.checkpoints;
    const session = this.session;
    if (!checkpoints) {
      void vscode.window.showInformationMessage("Pi Chat: files can be restored only in a workspace with its folders on disk.");
      return;
    }
    if (session.running) {
      void vscode.window.showWarningMessage("Pi Chat: wait for the reply to finish (or stop it) before restoring files.");
      return;
    }
    const at = session.checkpointOf(messageIndex);
    if (!at) {
      void vscode.window.showInformationMessage("Pi Chat: that message has no checkpoint.");
      return;
    }
    await this.writeCurrentChat(session.id);
    const request = { chatId: session.id, markId: at.markId, number: at.number, text: at.text };
    const note = async (outcome: RestoreOutcome, redo: boolean) => {
      await session.noteFilesRestored(filesRestoredNote({ ...at, messageIndex }, outcome, redo));
    };
    // A chat with a restore under way is not let go (release): its note must go to the session that shows it.
    this.restoring.add(session.id);
    try {
      await checkpoints.restore(request, note);
    } finally {
      this.restoring.delete(session.id);
    }
  }

  /** *Redo changes* on the restore's note at path index `noteIndex` (the same Redo as the notification's). */
  async redoRestore(noteIndex: number): Promise<void> {
    const session = this.session;
    const restore = session.messages[noteIndex];
    const checkpoints = this.options.checkpoints;
    if (!checkpoints || restore?.role !== "filesRestored" || restore.redo || restore.redoMarkId === undefined) return;
    const markId = restore.redoMarkId;
    // Already redone (the note's button is "done" then; a stale click).
    if (session.messages.some((m) => m.role === "filesRestored" && m.redo && m.redoMarkId === markId)) return;
    if (session.running) {
      void vscode.window.showWarningMessage("Pi Chat: wait for the reply to finish (or stop it) before redoing the changes.");
      return;
    }
    this.restoring.add(session.id);
    try {
      await checkpoints.redo({ chatId: session.id }, { redoMarkId: markId }, async (redone) => {
        await session.noteFilesRestored(filesRestoredNote({ number: restore.messageNumber, text: restore.messageText }, redone, true));
      });
    } finally {
      this.restoring.delete(session.id);
    }
  }

  /**
   * Edit or Retry: when the message's checkpoint has files Pi changed since, the view asks "also
   * restore files?" first (src/host/adapters/checkpoints.ts). Restore: the files are put back, and the new
   * branch starts with the note that says so (what the model reads); keep: as before; cancel: nothing.
   */
  private async branchWithFiles(
    action: "edit" | "retry",
    messageIndex: number,
    edit: { text: string; removeImages?: number[] } | undefined,
    operation: (session: ChatSession, note: FilesRestoredMessage | undefined) => Promise<BranchChange>,
  ): Promise<void> {
    const session = this.session;
    const checkpoints = this.options.checkpoints;
    const at = checkpoints && !session.running ? (action === "edit" ? session.checkpointOf(messageIndex) : session.retryCheckpointOf(messageIndex)) : undefined;
    if (!checkpoints || !at) return this.branch(() => operation(session, undefined));
    const request = { chatId: session.id, markId: at.markId, number: at.number, text: at.text };
    // Held like a restore: the answer and the note belong to this chat's session.
    this.restoring.add(session.id);
    let note: FilesRestoredMessage | undefined;
    try {
      const { choice, plan } = await checkpoints.askAlsoRestore({ ...request, action, messageIndex, ...(edit ? { edit } : {}) }, (offer) =>
        this.view?.send({ type: "checkpoint/offer", offer }),
      );
      if (choice === "cancel" || session !== this.session || session.running) return;
      if (choice === "restore" && plan) {
        await this.writeCurrentChat(session.id);
        const notice = (outcome: RestoreOutcome, redo: boolean) => filesRestoredNote(at, outcome, redo);
        // A Redo from the notice waits for the new answer to end, then says so in the chat.
        const outcome = await checkpoints.restoreForBranch(request, plan, async (redone, redo) => {
          await session.waitForIdle();
          await session.noteFilesRestored(notice(redone, redo));
        });
        if (outcome) note = notice(outcome, false);
      }
    } finally {
      this.restoring.delete(session.id);
    }
    try {
      const putBack = new Set(note ? [...note.restored, ...note.deleted] : []);
      await this.branch(() => operation(session, note), putBack);
    } finally {
      // The branch did not start (the chat is written in another window): the note goes on the path as it is.
      if (note && !session.messages.includes(note)) await session.noteFilesRestored(note).catch(() => undefined);
    }
  }

  /** Edit, retry or switch: files changed on the branch left stay changed, and the view says so. */
  private async branch(operation: () => Promise<BranchChange>, restored: ReadonlySet<string> = new Set()): Promise<void> {
    const session = this.session;
    this.branchNote = undefined;
    await this.writeCurrentChat(session.id);
    const change = await operation();
    // Files the restore just put back are not "left changed".
    const left = change.filesLeftChanged.filter((p) => !restored.has(p));
    if (left.length > 0 && session === this.session) {
      this.branchNote = `Files changed on the branch you left keep their changes (${left.join(", ")}): switching branches does not undo edits.`;
    }
    if (session === this.session) this.view?.send({ type: "view/status", status: this.status() });
  }

  /** `verbatim`: the text is a template the composer already expanded: sent as it reads, never taken as a command. */
  async prompt(text: string, images: readonly PromptImage[] = [], mentions: readonly MentionRef[] = [], verbatim = false): Promise<void> {
    // Checked before the attachments are taken, so a refused prompt keeps them.
    if (this.session.running) throw new Error("A reply is still being written. Stop it or wait for it to finish.");
    this.branchNote = undefined;
    this.modelNote = undefined;
    const input = await this.resolveInput(parseComposerInput(text, verbatim));
    if (input.kind === "done") return;
    // `!cmd` / `!!cmd`: the user runs it; attachments wait for the next prompt.
    if (input.kind === "userCommand") {
      const userCommand = input.command;
      if (images.length > 0) throw new Error("A !command runs on its own: send the images with a prompt, or remove them to run the command.");
      // With several folders: the active editor's folder, or the user's pick (none picked: nothing runs).
      const folder = await chooseUserCommandFolder(this.options.paths, userCommand.command);
      if (!folder) {
        // Dismissed by a stray Escape as often as on purpose: the typed command is not lost.
        this.view?.send({ type: "composer/restore", text });
        return;
      }
      await this.writeCurrentChat(this.session.id);
      return this.session.runUserCommand(userCommand, folder.cwd);
    }
    text = input.text;
    if (text.trim() === "" && images.length === 0) return;
    const stored = await attachImages(this.service, this.session.id, images, () => this.imageInput(true));
    const attachments = await this.takeAttachments(mentions);
    // Remember it now: if VS Code dies during this first run, the reload still finds the chat.
    await this.writeCurrentChat(this.session.id);
    await this.session.prompt(text, attachments, stored);
  }

  /**
   * A follow-up or steer typed while the reply runs; the attached files and images go with it
   * (sent as a prompt if the run ended meanwhile).
   */
  async queueInput(
    kind: "followUp" | "steer",
    text: string,
    images: readonly PromptImage[],
    mentions: readonly MentionRef[] = [],
    verbatim = false,
  ): Promise<void> {
    const parsed = parseComposerInput(text, verbatim);
    if (parsed.kind === "userCommand") throw new Error("A !command runs when Pi is not writing: send it after this reply (or Stop it first).");
    if (parsed.kind === "action") throw new Error(`/${parsed.name} runs when Pi is not writing: send it after this reply (or Stop it first).`);
    const input = await this.resolveInput(parsed);
    if (input.kind !== "prompt") return;
    text = input.text;
    if (text.trim() === "" && images.length === 0) return;
    const stored = await attachImages(this.service, this.session.id, images, () => this.imageInput(true));
    const attachments = await this.takeAttachments(mentions);
    await this.session.send(kind, text, attachments, stored);
  }

  stop(): void {
    this.session.abort();
  }

  async continueChat(): Promise<void> {
    await this.session.continue();
  }

  async newChat(): Promise<void> {
    this.switchTo(this.service.newChat());
    await this.writeCurrentChat(undefined);
  }

  async switchChat(chatId: string, options: { quiet?: boolean } = {}): Promise<void> {
    const opened = await this.service.open(chatId);
    if (!opened.ok) {
      this.options.log(`cannot open chat ${chatId}: ${opened.reason}`);
      if (!options.quiet) void vscode.window.showErrorMessage(`Pi Chat could not open that chat: ${opened.reason}`);
      return;
    }
    if (opened.damaged) {
      void vscode.window.showWarningMessage(
        `Pi Chat: ${opened.damaged.length} damaged line(s) of this chat were skipped; the rest is restored. See the Pi Chat output for details.`,
      );
    }
    this.switchTo(opened.session);
    await this.writeCurrentChat(chatId);
  }

  /** Opens a conversation from the pi CLI as a new chat (pi-session-command.ts); false when it could not be written. */
  async openImportedChat(imported: ImportedChat): Promise<{ ok: true; chatId: string } | { ok: false; reason: string }> {
    const opened = await this.service.importChat(imported);
    if (!opened.ok) return opened;
    await this.refreshChats();
    this.switchTo(opened.session);
    await this.writeCurrentChat(opened.session.id);
    return { ok: true, chatId: opened.session.id };
  }

  /** Moves the chat to the trash, with Undo (chat-deletion.ts). */
  deleteChat(chatId: string): Promise<void> {
    return this.deletion.delete(chatId);
  }

  /** "Ask about this file": attach the file (and selection) to the next prompt and focus the composer. */
  async askAboutFile(uri: vscode.Uri | undefined, selection: vscode.Selection | undefined): Promise<void> {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!target) {
      void vscode.window.showInformationMessage("Pi Chat: open a file first, then ask about it.");
      return;
    }
    const relative = this.relativePath(target);
    if (relative === undefined) {
      void vscode.window.showWarningMessage("Pi Chat can only read files inside the open workspace folders.");
      return;
    }
    const attachment: PendingAttachment = { path: relative };
    if (selection && !selection.isEmpty) {
      const endLine = selection.end.character === 0 && selection.end.line > selection.start.line ? selection.end.line : selection.end.line + 1;
      attachment.range = { startLine: selection.start.line + 1, endLine };
    }
    this.attachments = [...this.attachments.filter((a) => a.path !== attachment.path), attachment];
    // Queued in the controller: if the view is still loading, its first snapshot carries it.
    await this.view?.reveal();
    this.view?.send({ type: "composer/attachments", attachments: this.attachments });
    this.view?.send({ type: "view/focus" });
  }

  /** The files attached with "Ask about this file", then what the message's `@` mentions carry, read now. */
  private async takeAttachments(mentions: readonly MentionRef[]): Promise<MentionAttachment[]> {
    const attached = this.attachments;
    this.attachments = [];
    this.view?.send({ type: "composer/attachments", attachments: [] });
    const mentioned = await this.mentions.resolve(mentions);
    return [...attached.filter((a) => !mentioned.some((m) => m.mention === undefined && m.path === a.path)), ...mentioned];
  }

  /** The tools' path prefix of each workspace folder ("" with one folder). */
  private folderPrefixes(): string[] {
    return this.options.paths.multiRoot ? this.options.paths.folders.map((f) => f.name) : [""];
  }

  /** The `@` list and mentions, made at the first need (loading out/composer.js). */
  get mentions(): WorkspaceMentions {
    this.mentionsMade ??= new (loadComposer().WorkspaceMentions)(
      this.options.fs,
      this.options.discovery?.rules ?? (() => ({})),
      this.options.paths,
      this.options.log,
      this.terminalCommands,
    );
    return this.mentionsMade;
  }

  /** The `/` list: the chat's actions, the templates and the skills, read now. */
  private async sendCommandList(): Promise<void> {
    this.view?.send({ type: "composer/commands", ...(await loadComposer().commandList(this.libraryPlace())) });
  }

  /** Where the prompt templates and skills are read (workspace ones only when trusted). */
  private libraryPlace(): LibraryPlace {
    return { fs: this.options.fs, folders: this.folderPrefixes(), trusted: workspaceTrusted(), log: this.options.log };
  }

  /**
   * The one path of everything the composer sends (composer-input.ts parses it once): the chat's
   * own actions run here (`done`); a template the user has not read yet goes back into the box,
   * expanded (`done`: nothing a repository's template says is sent or run unseen); a skill gives
   * the request that is sent; a `!command` is the user's to run; anything else is a prompt.
   */
  private async resolveInput(
    input: ComposerInput,
  ): Promise<{ kind: "done" } | { kind: "userCommand"; command: UserCommandText } | { kind: "prompt"; text: string }> {
    switch (input.kind) {
      case "action":
        await this.runAction(input.name, input.rest);
        return { kind: "done" };
      case "userCommand":
        return input;
      case "prompt":
        return input;
      case "slash": {
        // A template or skill is a request to Pi: the bundle is needed now anyway.
        const resolved = await loadComposer().resolveSlash(this.libraryPlace(), input.name, input.rest);
        if (resolved?.kind === "template") {
          this.view?.send({ type: "composer/restore", text: resolved.text, expanded: resolved.name });
          return { kind: "done" };
        }
        return { kind: "prompt", text: resolved?.text ?? input.text };
      }
    }
  }

  /** `/new`, `/compact`…: the chat's own actions. */
  private async runAction(name: ChatActionName, rest: string): Promise<void> {
    switch (name) {
      case "new":
        await this.newChat();
        return;
      case "compact":
        await vscode.commands.executeCommand("piChat.compact", { instructions: rest });
        return;
      case "model":
        await vscode.commands.executeCommand("piChat.selectChatModel");
        return;
      case "export":
        await vscode.commands.executeCommand("piChat.exportChat", this.session.id);
        return;
      case "history":
        await vscode.commands.executeCommand("piChat.showHistory");
        return;
      case "help":
        // The view lists the `/` commands it is sent now (templates and skills included), the mentions and the keys.
        await this.sendCommandList();
        this.view?.send({ type: "view/help" });
        return;
    }
  }

  get pendingAttachments(): readonly PendingAttachment[] {
    return this.attachments;
  }

  dispose(): void {
    // A run is not stopped when VS Code closes or reloads: a stop would be saved as the user's
    // choice. Left as it is, the transcript ends mid-turn and the reopened chat offers Continue.
    this.unsubscribe?.();
    this.otherWindows.dispose();
    this.mentionsMade?.dispose();
    this.terminalCommands.dispose();
    void this.service.flush();
  }

  // ---- internals ----

  private isKnownChat(chatId: string): boolean {
    // A chat saved in this window counts before the history list that shows it comes back (it is refreshed after each run).
    return chatId === this.session.id || this.service.isSaved(chatId) || this.chats.some((c) => c.id === chatId);
  }

  private ignore(message: WebviewMessage): void {
    this.options.log(`ignored ${message.type} for an unknown chat or command`);
  }

  private switchTo(session: ChatSession): void {
    this.branchNote = undefined;
    this.modelNote = undefined;
    // An "also restore files?" question was about the chat left.
    if (session !== this.session) this.options.checkpoints?.dropOffer();
    // A run left behind could wait forever for an approval nobody sees: stop it first.
    // Its background commands end with it: a chat left in the view is closed (the card says so when you come back).
    if (session !== this.session) {
      const left = this.session;
      left.abort();
      void left.stopBackground("chatClosed");
      // Then let go of it, unless the user came back to it meanwhile: chats opened in turn do not add up in memory.
      void this.service
        .release(left.id, () => this.session !== left && !this.restoring.has(left.id))
        .catch((error) => this.options.log(`could not release chat ${left.id}: ${String(error)}`));
    }
    this.unsubscribe?.();
    this.session = session;
    this.watch(session);
    void vscode.commands.executeCommand("setContext", "piChat.running", session.running);
    this.view?.sendSnapshot();
    this.previewMeter(false);
    void this.otherWindows.check(); // is the chat now on screen written in another window?
  }

  private watch(session: ChatSession): void {
    this.unsubscribe = session.onEvent((event) => {
      if (session !== this.session) return;
      this.view?.sendEvent(event);
      if (event.type === "chat/runState") {
        void vscode.commands.executeCommand("setContext", "piChat.running", event.running);
        if (!event.running) void this.afterRun(session);
      }
    });
  }

  private async afterRun(session: ChatSession): Promise<void> {
    if (session === this.session && session.messages.length > 1) await this.writeCurrentChat(session.id);
    await this.refreshChats();
    if (session === this.session) this.refreshStatus();
  }

  /** Posts the facts around the chat (model, storage, Continue) after they may have changed: a settings change, a finished run. */
  refreshStatus(): void {
    this.view?.send({ type: "view/status", status: this.status() });
    this.previewMeter(false);
  }

  /**
   * Once the view shows a restored chat, the meter gets the window of the model the settings name
   * (from the provider bundle, loaded now, after activation; no key, no request).
   */
  viewReady(): void {
    if (this.session.messages.some((m) => m.role === "assistant")) setTimeout(() => this.previewMeter(true), 0);
  }

  /** The settings' model for the meter, until the next run binds the one it uses. */
  private previewMeter(load: boolean): void {
    const providers = load ? loadProviders() : providersIfLoaded();
    if (!providers) return;
    try {
      this.session.previewModel(providers.modelForMeter(settingsForChat(readProviderSettings(), this.session.model)));
    } catch (error) {
      this.options.log(`meter: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async readCurrentChat(): Promise<string | undefined> {
    try {
      const parsed: unknown = JSON.parse(await readFile(path.join(this.options.storageDir, CURRENT_CHAT_FILE), "utf8"));
      return typeof parsed === "object" && parsed !== null && "chatId" in parsed && typeof parsed.chatId === "string" ? parsed.chatId : undefined;
    } catch {
      return undefined; // none yet, or unreadable: start with a new chat
    }
  }

  private async writeCurrentChat(chatId: string | undefined): Promise<void> {
    const file = path.join(this.options.storageDir, CURRENT_CHAT_FILE);
    try {
      await writeFile(`${file}.tmp`, JSON.stringify({ chatId: chatId ?? null }));
      await rename(`${file}.tmp`, file);
    } catch (error) {
      this.options.log(`could not remember the current chat: ${String(error)}`);
    }
  }

  /** The history list as the view shows it (the store's summaries carry more). */
  private chatList(): { id: string; title: string; updatedAt: number }[] {
    return this.chats.map((c) => ({ id: c.id, title: c.title, updatedAt: c.updatedAt }));
  }

  /** The history changed elsewhere (a rename): the view's list follows. */
  async refreshChats(): Promise<void> {
    this.chats = await this.service.listChats();
    this.view?.send({ type: "history/list", chats: this.chatList() });
  }

  /** Whether the model accepts images; `load` allows loading the provider bundle to find out. */
  private imageInput(load: boolean): boolean | undefined {
    const providers = load ? loadProviders() : providersIfLoaded();
    return providers?.modelAcceptsImages(settingsForChat(readProviderSettings(), this.session.model));
  }

  /**
   * This chat's model (the header's picker): saved in the chat; the next request uses it. The view
   * confirms it (the header, and a short note saying what changed).
   */
  async setChatModel(choice: ChatModelChoice, options: { madeDefault?: boolean } = {}): Promise<void> {
    await this.session.setModel(choice);
    const label = modelLabel(settingsForChat(readProviderSettings(), choice), choice.thinkingLevel, catalogName);
    this.modelNote = `This chat now uses ${label.label}${options.madeDefault ? ", and new chats start with it" : ""}.`;
    this.refreshStatus();
  }

  /** Reads which providers have a stored key (at start and whenever the secret storage changes), then updates the view. */
  async refreshKeys(): Promise<void> {
    const found = new Set<ProviderId>();
    for (const provider of PROVIDER_IDS) {
      try {
        if ((await this.options.secrets.get(provider))?.trim()) found.add(provider);
      } catch {
        // Unreadable: counted as missing; a run says why.
      }
    }
    this.storedKeys = found;
    this.refreshStatus();
  }

  /** Why no model can answer with these settings, if none can; undefined while the keys are unknown. */
  private setupNeeded(settings: ReturnType<typeof readProviderSettings>): ViewStatus["setup"] {
    if (settings.provider === "openai-compatible") return settings.baseUrl ? undefined : "noServer";
    if (!this.storedKeys || this.storedKeys.has(settings.provider)) return undefined;
    return ENV_VARS[settings.provider].some((name) => process.env[name]?.trim()) ? undefined : "noKey";
  }

  private async resolveModel(choice: ChatModelChoice | undefined): Promise<ModelBinding> {
    const providers = loadProviders();
    const settings = settingsForChat(readProviderSettings(), choice);
    this.options.log(`run: provider ${settings.provider}, model ${settings.model || "(default)"}`);
    // providers.js is a separate bundle with its own RunSetupError class: the session recognises
    // its setup errors by their code (runSetupFix), not by class.
    return providers.resolveModelBinding(settings, this.options.secrets, {
      allowBaseUrl: (override) => this.options.consent.allow(override),
      onKeyUsed: (key) => keyRedactor.add(key),
    });
  }

  private askForApproval(request: EditApprovalRequest, signal: AbortSignal | undefined): Promise<EditDecision> {
    return new Promise<EditDecision>((resolve, reject) => {
      if (signal?.aborted) return reject(new Error("aborted"));
      this.approvals.set(request.toolCallId, { request, resolve });
      signal?.addEventListener("abort", () => {
        if (this.approvals.delete(request.toolCallId)) {
          void this.options.diffs.close(request.toolCallId);
          reject(new Error("aborted"));
        }
      });
      // A secret file's content is shown only when the user asks for it (the card's button).
      if (!request.secret) void this.options.diffs.show(request);
    });
  }

  private decide(toolCallId: string, decision: "allow" | "deny" | "allowForChat", reason: string | undefined): void {
    const pending = this.approvals.get(toolCallId);
    if (!pending) return; // already decided or cancelled: a stale click
    this.approvals.delete(toolCallId);
    void this.options.diffs.close(toolCallId);
    pending.resolve(decision === "deny" ? { decision: "deny", ...(reason ? { reason } : {}) } : { decision });
    if (decision === "allowForChat") this.view?.send({ type: "view/status", status: { ...this.status(), editsAllowedForChat: true } });
  }

  private relativePath(uri: vscode.Uri): string | undefined {
    return this.options.paths.pathOf(uri);
  }

  /** A file link the webview asked to open: through the same path guard as the tools (the link came from the model). */
  private async openFile(requested: string, line: number | undefined): Promise<void> {
    const root = this.options.workspaceRoot;
    let relative: string;
    try {
      relative = (await resolveToolPath(this.options.fs, root?.scheme === "file" ? root.fsPath : undefined, requested)).realPath;
    } catch (error) {
      // The path comes from the view (a link in model output): a refusal is logged, never a popup a message could raise.
      this.options.log(`not opening ${JSON.stringify(requested.slice(0, 200))}: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const uri = this.options.paths.uriOf(relative);
    if (!uri) return;
    const doc = await vscode.workspace.openTextDocument(uri);
    const position = new vscode.Position(Math.max(0, (line ?? 1) - 1), 0);
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(position, position), preview: true });
  }
}
