// One chat: a pi Agent with the workspace tools, the context policy and the permission gate,
// and the view state its events reduce to. No VS Code here: the host passes in the file
// system, the approver (the user, through the webview) and the model.
import { Agent, type AgentEvent, type AgentMessage, type AgentTool, type BeforeToolCallResult } from "@earendil-works/pi-agent-core";
import { clampThinkingLevel, createInitialSystemMessage, toToolDeclaration } from "@earendil-works/pi-ai";
import { chatItems, earlierItems, reduce, restoredState, type ChatState } from "../shared/reducer";
import type { ChatItem } from "../shared/chat-items";
import { SavedDiffs, withStructuredDiff } from "../shared/diff-hunks";
import { AgentEventEncoder } from "../shared/event-encoder";
import type { ChatEvent } from "../shared/protocol";
import { canContinue, convertToLlm, createTransformContext, repairsBeforeContinue } from "./context-policy";
import { ChatContext, type PreviewModel } from "./context/chat-context";
import type { CompactionSettings } from "./context/compaction";
import { ChatPath } from "./chat-path";
import type { CompactionOutcome } from "./context/compactor";
import type { RunExtras } from "./context/meter";
import { estimateToolDeclarationTokens, tokensOfText } from "./context/tokens";
import { ChatBranches, filesChangedBy, promptBefore, turnStart, type BranchChange } from "./branching";
import { InputQueue, promptMessages, type QueueKind } from "./input-queue";
import type { ApprovalNoticeMessage, CompactionSummaryMessage, FileAttachmentMessage, LocalNoticeMessage } from "./messages";
import { StreamRedaction } from "./redaction";
import { EditGate } from "./permissions";
import type { ChatModelChoice } from "./transcript/types";
import type { EditProposal } from "./tools";
import type { StoredImageContent } from "../shared/images";
import { withProblemsAfterEdit } from "./tools/problems-after-edit";
import { createWorkspaceTools } from "./tools/toolset";
import type { FilesRestoredMessage } from "./messages";
import { messageText } from "./transcript/title";
import { gateCommand } from "./permissions/command-gate";
import { createRunCommandTool, RUN_COMMAND_TOOL } from "./tools/run-command";
import { resolveCommandFolder, singleFolder, type CommandFolders } from "./shell/command-folders";
import { BackgroundCommands, backgroundEndedNoticeText, backgroundRunState, unendedBackgroundStarts } from "./shell/background";
import type { BackgroundStopCause } from "../shared/background-state";
import { COMMAND_OUTPUT_TOOL, createCommandOutputTool } from "./tools/command-output";
import { SecretRedactor } from "./redaction";
import { runUserCommand, type UserCommandText } from "./shell/user-command";
import { gateMcpCall, isMcpToolName, MCP_SERVERS_SECTION, type McpSignInNeeded, signInNoteText } from "./mcp/gate";
import { withSystemSection } from "./context/project-instructions";
import { IMAGE_REFUSAL_NOTICE, isImageRefusal } from "./context/refused-images";
import { endedBadly, endsWithErrorNotice, errorNotice, type FailedRequestModel, runSetupFix } from "./run-errors";
import type { ChatSessionOptions, Redactor, RequestContextStep } from "./session-options";

export type { EditApprovalRequest, EditApprover, EditDecision } from "./permissions";
export type { BranchChange } from "./branching";

export class ChatSession {
  readonly id: string;
  private agent: Agent | undefined;
  /** The whole transcript of the branch shown; the agent holds its projection. */
  private readonly path: ChatPath;
  private readonly persisted = new WeakSet<object>();
  /** The chat as a tree: which node each message of the path is, where it forks. */
  private readonly branches: ChatBranches;
  /** This chat's model; undefined: the settings' (a new chat starts from them). */
  private modelChoice: ChatModelChoice | undefined;
  private readonly listeners = new Set<(event: ChatEvent) => void>();
  private readonly encoder = new AgentEventEncoder();
  private readonly proposals = new Map<string, EditProposal>();
  private readonly tools: AgentTool[];
  private readonly gate: EditGate;
  private readonly queue: InputQueue;
  /** Holds back streamed text that could be the start of a key (only with a redactor). */
  private readonly stream: StreamRedaction | undefined;
  private state: ChatState;
  /**
   * The one redactor of command output (run_command and `!cmd`: the model, the log, the card):
   * the extension's, which knows every stored and environment key, plus the key in use.
   */
  private readonly keys: Redactor;
  /** Commands run_command started in the background; they end with the chat (stopBackground). Their cards follow their end. */
  private readonly background = new BackgroundCommands({
    onEnd: (p) => {
      this.emit({ type: "command/backgroundState", id: p.id, state: backgroundRunState(p) });
      // What it wrote after its tool call returned goes to this chat's checkpoints.
      void this.options.checkpoints
        ?.backgroundEnded(p.id)
        .catch((e: unknown) => this.options.log?.(`checkpoint of a background command not saved: ${String(e)}`));
    },
  });
  /** Where run_command and `!cmd` may run (undefined: no folder on disk). */
  private readonly commandFolders: CommandFolders | undefined;
  /** The system prompt's section on the MCP servers of this run (their names and instructions). */
  private mcpPrompt: string | undefined;
  /** What the MCP servers add to every request of this run, for the meter and the compaction budget. */
  private mcpExtras: RunExtras | undefined;
  /** MCP servers waiting for a sign-in at this run's start; each gets one note per session (signInNoted). */
  private mcpSignIn: McpSignInNeeded[] = [];
  private readonly signInNoted = new Set<string>();
  /** Stops the `!cmd` that is running, if one is. */
  private userCommandStop: AbortController | undefined;
  private active: Promise<void> | undefined;
  /** Compaction, the meter, the capture of what was sent: what this chat keeps for the model. */
  readonly context: ChatContext;

  constructor(private readonly options: ChatSessionOptions) {
    this.id = options.id;
    this.keys = options.redactor ?? new SecretRedactor();
    this.path = new ChatPath(systemMessageFirst(options.messages));
    for (const m of this.messages) this.persisted.add(m);
    this.branches = new ChatBranches(options.tree);
    this.modelChoice = options.model ? { ...options.model } : undefined;
    // A restored chat says which background commands ended with the window that ran them (once: the notice is saved).
    // One after the other: each is saved as the child of the one before (the tree's next node).
    let saving = Promise.resolve();
    for (const stale of unendedBackgroundStarts(this.messages)) {
      const notice: LocalNoticeMessage = {
        role: "localNotice",
        level: "info",
        text: backgroundEndedNoticeText(stale.id, stale.command),
        backgroundId: stale.id,
        timestamp: Date.now(),
      };
      this.path.add(notice);
      saving = saving.then(() => this.persistOnce(notice)).catch((error) => options.log?.(`could not save a notice: ${String(error)}`));
    }
    this.context = new ChatContext({
      chatId: options.id,
      messages: () => this.messages,
      append: (message) => this.append(message),
      emit: (event) => this.emit(event),
      settings: () => ({ ...options.compaction?.() }) as CompactionSettings,
      ...(options.log ? { log: options.log } : {}),
      ...(options.onRequest ? { onRequest: options.onRequest } : {}),
      runExtras: () => this.mcpExtras,
    });
    this.state = { ...restoredState(this.messages), meter: this.context.meter(), forks: this.branches.forks(this.messages, 0) };
    const root = options.workspaceRoot !== undefined ? { root: options.workspaceRoot } : {};
    const problems = options.problems;
    this.tools = createWorkspaceTools({
      // edit_file writes through the recording file system: each write is kept for a restore.
      fs: options.checkpoints ? options.checkpoints.recordingFs(options.fs) : options.fs,
      ...root,
      proposals: this.proposals,
      ...options.discovery,
      // Whether the model sees images is the model of the run that calls the tool.
      readImages: { acceptsImages: () => this.agent?.state.model.input.includes("image"), ...(options.imageScaler ? { scale: options.imageScaler } : {}) },
      ...(problems ? { wrapEditFile: (editFile) => withProblemsAfterEdit(editFile, problems, root) } : {}),
    });
    this.stream = options.redactor ? new StreamRedaction(options.redactor) : undefined;
    this.gate = new EditGate({
      chatId: options.id,
      fs: options.fs,
      ...(options.workspaceRoot !== undefined ? { workspaceRoot: options.workspaceRoot } : {}),
      approver: options.approver,
      approvalMode: options.approvalMode,
      ...(options.protectedFiles ? { protectedFiles: options.protectedFiles } : {}),
      ...(options.workspaceTrusted ? { workspaceTrusted: options.workspaceTrusted } : {}),
      proposals: this.proposals,
      emit: (event) => this.emit(event),
      // Steering lands the notice after this batch's tool results, before the next model request.
      record: (notice) => this.queue.steerOwn(notice),
    });
    const commands = options.commands;
    this.commandFolders = commands?.folders ?? (options.workspaceRoot !== undefined ? singleFolder(options.workspaceRoot) : undefined);
    if (commands && this.commandFolders) {
      const runCommand = createRunCommandTool({
        folders: this.commandFolders,
        fs: options.fs,
        runner: commands.runner,
        defaultTimeoutSeconds: commands.defaultTimeoutSeconds,
        redact: this.keys,
        ...(commands.logDir ? { logDir: commands.logDir } : {}),
        background: this.background,
      }) as AgentTool;
      this.tools.push(
        // A walk before and after each run records what the command changed.
        options.checkpoints ? options.checkpoints.recordingCommandTool(runCommand) : runCommand,
        createCommandOutputTool(this.background),
      );
    }
    this.queue = new InputQueue(
      () => this.agent,
      (items, kept) => this.emit({ type: "queue/changed", items, kept }),
    );
  }

  /** The full transcript: what is saved, and what every request is built from. */
  get messages(): readonly AgentMessage[] {
    return this.path.messages;
  }

  get viewState(): ChatState {
    return this.state;
  }

  /** Every item of the chat, those of the earlier messages a restore left unbuilt included (an export wants them all). */
  allItems(): ChatItem[] {
    const earlier = this.state.earlier;
    return earlier === undefined ? chatItems(this.state) : [...earlierItems(this.messages, earlier), ...chatItems(this.state)];
  }

  /**
   * The view came near the top of a restored long chat: it gets the items of the earlier messages.
   * A view that let go of earlier items it was sent (to bound its memory) asks for them again by
   * their count; this state already has them, so reducing the event here changes nothing.
   */
  loadEarlier(released?: number): void {
    const count = this.state.earlier ?? released;
    if (count === undefined || count > this.messages.length) return;
    this.emit({ type: "items/earlier", count, items: earlierItems(this.messages, count) });
  }

  get running(): boolean {
    return this.active !== undefined;
  }

  /** It started background commands in this window: how they ended is on their cards, not in the file. */
  get ranBackgroundCommands(): boolean {
    return this.background.any;
  }

  get allowsEditsForChat(): boolean {
    return this.gate.allowsEditsForChat;
  }

  /** The model chosen for this chat, if one was (else each run uses the settings'). */
  get model(): ChatModelChoice | undefined {
    return this.modelChoice ? { ...this.modelChoice } : undefined;
  }

  /** Sets this chat's model (and thinking level) and saves it in the chat; the next request uses it. */
  async setModel(choice: ChatModelChoice): Promise<void> {
    this.modelChoice = { ...choice };
    await this.options.persistModel?.(this.modelChoice);
  }

  /** The last turn was cut off or failed: `continue()` picks it up (an error notice's Retry). */
  get canContinue(): boolean {
    return !this.running && canContinue(this.messages);
  }

  /**
   * The last turn was cut off without a word (a crash, a reload mid-turn): the view offers
   * Continue. Not after an error the chat already shows: its notice offers the way on itself.
   */
  get interrupted(): boolean {
    return this.canContinue && !endsWithErrorNotice(this.messages);
  }

  onEvent(listener: (event: ChatEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sends a prompt, with the files the user attached. Resolves when the run is over. */
  prompt(
    text: string,
    attachments: readonly Omit<FileAttachmentMessage, "role" | "timestamp">[] = [],
    images: readonly StoredImageContent[] = [],
  ): Promise<void> {
    const messages = promptMessages(text, attachments, images, Date.now());
    return this.run(async (agent) => agent.prompt(messages), messages);
  }

  /**
   * While a reply runs, queues a follow-up (delivered when the run would stop) or steering
   * (delivered after the current tool calls); resolves at once. When idle, sends it as a prompt.
   */
  async send(
    kind: QueueKind,
    text: string,
    attachments: readonly Omit<FileAttachmentMessage, "role" | "timestamp">[] = [],
    images: readonly StoredImageContent[] = [],
  ): Promise<void> {
    if (this.running) {
      this.queue.add(kind, text, attachments, images);
      return;
    }
    await this.prompt(text, attachments, images);
  }

  /** Removes a queued message before it is delivered; nothing of it is saved. */
  unqueue(id: string): void {
    this.queue.remove(id);
  }

  /** Sends what a Stop left queued, in order, as the next prompt. */
  sendQueued(): Promise<void> {
    if (this.running || this.queue.size === 0) return Promise.resolve();
    const messages = this.queue.takeAll();
    return this.run(async (agent) => agent.prompt(messages), messages);
  }

  clearQueue(): void {
    this.queue.clear();
  }

  /** Continues a turn that a reload, a crash or a provider error cut off; with nothing to continue (a stale button), does nothing. */
  continue(): Promise<void> {
    if (!this.canContinue) return Promise.resolve();
    return this.run(async (agent) => {
      // Saved as real messages, so the transcript itself has no tool call without a result.
      for (const m of repairsBeforeContinue(this.messages, Date.now())) await this.append(m);
      await agent.continue();
    }, []);
  }

  /**
   * Edit: the prompt at path index `messageIndex` is sent again with new text, as a new branch
   * from the point before its turn (its attached files and images go along, but those whose
   * indices are in `removeImages`: how the user takes an image out of a sent message). The old
   * branch stays in the tree.
   */
  async editPrompt(messageIndex: number, text: string, removeImages: readonly number[] = [], filesRestored?: FilesRestoredMessage): Promise<BranchChange> {
    const messages = this.messages;
    const prompt = messages[messageIndex];
    if (prompt?.role !== "user") throw new Error("That message is not a prompt of this chat.");
    this.refuseWhileRunning();
    const start = turnStart(messages, messageIndex);
    const attachments = messages
      .slice(start, messageIndex)
      // An edited prompt keeps what its mentions carried: nothing is read again.
      .flatMap((m) => (m.role === "fileAttachment" ? [{ ...m, ...(m.range ? { range: { ...m.range } } : {}) }] : []));
    const images = (typeof prompt.content === "string" ? [] : prompt.content.filter((c): c is StoredImageContent => c.type === "image")).filter(
      (_, i) => !removeImages.includes(i),
    );
    const edited = promptMessages(text, attachments, images, Date.now());
    let change: BranchChange = { filesLeftChanged: [] };
    // Cut once this window may write the chat: a refused run leaves the path as it was.
    await this.run(async (agent) => agent.prompt(edited), edited, {
      prepare: async () => {
        change = this.cutPathAt(start);
        // The files were put back to this prompt's checkpoint: the new branch says so first.
        if (filesRestored) await this.append(filesRestored);
      },
    });
    return change;
  }

  /** Retry: the answer at `messageIndex` is written again, from the prompt before it, as a new branch. */
  async retry(messageIndex: number, filesRestored?: FilesRestoredMessage): Promise<BranchChange> {
    const prompt = promptBefore(this.messages, messageIndex);
    if (prompt === undefined || messageIndex <= prompt) throw new Error("There is no prompt before that answer to retry from.");
    this.refuseWhileRunning();
    let change: BranchChange = { filesLeftChanged: [] };
    await this.run(async (agent) => agent.continue(), [], {
      prepare: async () => {
        change = this.cutPathAt(prompt + 1);
        // After the prompt, before the new answer: what the model reads first on this branch.
        if (filesRestored) await this.append(filesRestored);
      },
    });
    return change;
  }

  /** The checkpoint a Retry of the answer at path index `messageIndex` starts from: the prompt it answers. */
  retryCheckpointOf(messageIndex: number): { markId: string; number: number; text: string } | undefined {
    const prompt = promptBefore(this.messages, messageIndex);
    return prompt === undefined ? undefined : this.checkpointOf(prompt);
  }

  /**
   * Shows another branch: the sibling `to` of the message at path index `messageIndex`, followed
   * down to its newest leaf. The view drops and replays only the part below the fork.
   */
  async switchBranch(messageIndex: number, to: number): Promise<BranchChange> {
    this.refuseWhileRunning();
    const switched = this.branches.switched(this.messages, messageIndex, to);
    if (!switched) return { filesLeftChanged: [] };
    const left = this.messages.slice(messageIndex);
    this.path.set(messageIndex, switched.suffix);
    this.branches.setLeaf(switched.leafId);
    this.emit({ type: "branch/rewind", keep: messageIndex });
    // As a restore does: an applied edit's notice takes its result's saved hunks, nothing parsed twice.
    const diffs = new SavedDiffs(switched.suffix);
    for (const message of switched.suffix) this.emit(diffs.event(message));
    this.emitForks(messageIndex);
    this.emit({ type: "context/meter", meter: this.context.meter() });
    await this.options.persistLeaf?.(switched.leafId, this.branches.pathSummary(switched.leafId, this.redactMessage));
    return { filesLeftChanged: filesChangedBy(left) };
  }

  /** The checkpoint of the prompt at path index `messageIndex`: its transcript node (the mark), its number on the path, its first words. */
  checkpointOf(messageIndex: number): { markId: string; number: number; text: string } | undefined {
    const messages = this.messages;
    const prompt = messages[messageIndex];
    if (prompt?.role !== "user") return undefined;
    const markId = this.branches.nodeIdOf(prompt);
    if (markId === undefined) return undefined;
    const number = messages.slice(0, messageIndex + 1).filter((m) => m.role === "user").length;
    const words = messageText(prompt).replace(/\s+/g, " ").trim();
    return { markId, number, text: words.length > 60 ? `${words.slice(0, 59)}…` : words };
  }

  /** A restore changed the files: saved in the chat, shown, and stated to the model with the next request. */
  async noteFilesRestored(message: FilesRestoredMessage): Promise<void> {
    this.refuseWhileRunning();
    await this.append(message);
  }

  /**
   * `!cmd` / `!!cmd`: runs in the workspace folder without asking (the user typed it) and saves a
   * bashExecution message. No model is needed. Refused in restricted mode, with the reason shown.
   */
  runUserCommand(text: UserCommandText, cwd?: string): Promise<void> {
    if (this.active) return Promise.reject(new Error("A reply is still being written. Stop it or wait for it to finish."));
    const commands = this.options.commands;
    const folders = this.commandFolders;
    if (!commands?.enabled() || !folders) {
      const why =
        "Commands cannot run here: this folder is open in Restricted Mode (not trusted), or no folder is open. Trust the folder (Manage Workspace Trust) to run commands.";
      return this.append(errorNotice(why, undefined));
    }
    if (folders.multiRoot && cwd === undefined) {
      // The host gives the folder (the active editor's, or the user's pick); without one nothing is guessed.
      const why = `Not run: this workspace has several folders (${folders.names.join(", ")}) and no folder was chosen. Open a file of the folder to run it in, or pick one when asked.`;
      return this.append(errorNotice(why, undefined));
    }
    const controller = new AbortController();
    const run = (async () => {
      this.userCommandStop = controller;
      this.emit({ type: "chat/runState", running: true });
      try {
        let folder: { relative: string; absolute: string };
        try {
          folder = await resolveCommandFolder(this.options.fs, folders, cwd);
        } catch (error) {
          await this.append(errorNotice(`Not run: ${error instanceof Error ? error.message : String(error)}`, undefined));
          return;
        }
        const where = folders.multiRoot ? { cwd: folder.relative } : {};
        const started: AgentMessage = {
          role: "bashExecution",
          command: text.command,
          output: "",
          exitCode: null,
          cancelled: false,
          truncated: false,
          excludeFromContext: text.excludeFromContext,
          ...where,
          timestamp: Date.now(),
        };
        await this.ensureSystemMessage();
        this.emit({ type: "message/start", message: started });
        const ran = await runUserCommand(text, {
          runner: commands.runner(),
          cwd: folder.absolute,
          timeoutMs: commands.defaultTimeoutSeconds() * 1000,
          signal: controller.signal,
          redact: this.keys,
          ...(commands.logDir ? { logFile: `${commands.logDir}/user-${Date.now().toString(36)}.log` } : {}),
          onProgress: (p) => this.emit({ type: "command/progress", tail: p.tail, elapsedMs: p.elapsedMs }),
        });
        const message: AgentMessage = { ...ran, ...where };
        this.path.add(message);
        // Saved on the current branch like any message (the tree's next node).
        await this.persistOnce(message);
        this.emit({ type: "message/end", message });
      } finally {
        this.userCommandStop = undefined;
        this.active = undefined;
        this.emit({ type: "chat/runState", running: false });
      }
    })();
    this.active = run;
    return run;
  }

  /** Ends every background command of this chat (the chat is left or deleted, VS Code closes). */
  stopBackground(by: BackgroundStopCause): Promise<void> {
    return this.background.stopAll(by);
  }

  /** The Stop button of a background command's card; false for an id this chat never started. */
  async stopBackgroundCommand(id: string): Promise<boolean> {
    if (!this.background.has(id)) return false;
    await this.background.stop(id, "user");
    return true;
  }

  abort(): void {
    // Stop keeps what the user queued, for them to send or clear: pi must not deliver it.
    if (this.running) this.queue.hold();
    this.userCommandStop?.abort();
    this.context.abort();
    this.agent?.abort();
  }

  /**
   * The model the settings name, before this session's first request (a restored chat): the meter
   * shows "used / window" from the transcript alone instead of waiting for a request.
   */
  previewModel(model: PreviewModel | undefined): void {
    this.context.previewModel(model);
    this.emit({ type: "context/meter", meter: this.context.meter() });
  }

  /** Summarizes the earlier conversation now ("Pi Chat: Compact Chat"), with the user's words on what to keep. */
  compact(instructions?: string): Promise<CompactionOutcome> {
    let outcome: CompactionOutcome = { status: "nothing", reason: "There is nothing to compact yet." };
    return this.run(
      async () => {
        outcome = await this.context.compact("manual", instructions?.trim() ? { instructions: instructions.trim() } : {});
      },
      [],
      { afterRun: false },
    ).then(() => outcome);
  }

  /** Starts this (new, empty) chat from another chat's summary: the model gets the summary and nothing else of it. */
  startFromSummary(summary: CompactionSummaryMessage): Promise<void> {
    return this.run(
      async () => {
        await this.append({ ...summary, keptMessageCount: 0, trigger: "manual", timestamp: Date.now() });
      },
      [],
      { afterRun: false },
    );
  }

  async waitForIdle(): Promise<void> {
    await this.active;
  }

  private emit(raw: ChatEvent): void {
    // A provider's words may quote the key it was sent: nothing reaches the view unredacted.
    const redacted = this.options.redactor ? this.options.redactor.deep(raw) : raw;
    // An edit's diff goes to the view as hunks (built here once, as a restore builds them).
    const event = withStructuredDiff(redacted);
    this.state = reduce(this.state, event);
    if (event.type === "message/end") this.emitMeterAfter(event);
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.options.log?.(`chat event listener failed: ${String(error)}`);
      }
    }
  }

  private refuseWhileRunning(): void {
    if (this.active) throw new Error("A reply is still being written. Stop it first, then edit, retry or switch branches.");
  }

  /** The path keeps its first `keep` messages; the next message saved starts a branch there. */
  private cutPathAt(keep: number): BranchChange {
    const left = this.messages.slice(keep);
    this.branches.cutAt(this.messages, keep);
    this.path.set(keep, []);
    this.emit({ type: "branch/rewind", keep });
    this.emit({ type: "context/meter", meter: this.context.meter() });
    return { filesLeftChanged: filesChangedBy(left) };
  }

  private emitForks(from: number): void {
    this.emit({ type: "branch/forks", from, forks: this.branches.forks(this.messages, from) });
  }

  /**
   * A chat's first saved message is its system message (prompt and tool declarations), as pi's
   * Agent would make it: then a `!cmd` or a setup error saved before the first model call still
   * comes after it, and the tree's path is the agent's message order.
   */
  /** The system message a new chat of this session would start with (prompt and tool declarations). */
  initialSystemMessage(): AgentMessage | undefined {
    return createInitialSystemMessage(this.options.systemPrompt, this.availableTools().map(toToolDeclaration)) ?? undefined;
  }

  private async ensureSystemMessage(): Promise<void> {
    if (!this.branches.isEmpty || this.messages.some((m) => m.role === "system")) return;
    const system = createInitialSystemMessage(this.options.systemPrompt, this.availableTools().map(toToolDeclaration));
    if (!system) return;
    this.path.putFirst(system);
    await this.persistAndShow(system);
  }

  /**
   * `prepare` runs once this window may write the chat, before anything is shown or saved (an
   * edit or a retry cuts the path there, so a refused run leaves the chat as it was).
   */
  private run(
    start: (agent: Agent) => Promise<void>,
    pendingMessages: readonly AgentMessage[],
    options: { afterRun?: boolean; prepare?: () => void | Promise<void> } = {},
  ): Promise<void> {
    if (this.active) return Promise.reject(new Error("A reply is still being written. Stop it or wait for it to finish."));
    const run = (async () => {
      let release: (() => Promise<void>) | undefined;
      try {
        release = await this.options.claimWriter?.();
      } catch (error) {
        this.active = undefined;
        throw error;
      }
      try {
        await options.prepare?.();
      } catch (error) {
        this.active = undefined;
        await release?.().catch(() => undefined);
        throw error;
      }
      this.emit({ type: "chat/runState", running: true });
      let failed = true;
      try {
        await this.ensureSystemMessage();
        const agent = await this.ensureAgent();
        this.context.startRun();
        await start(agent);
        // An overflow is compacted and retried once; a full context is compacted for the next prompt.
        const handled = options.afterRun === false ? false : await this.context.afterRun(agent);
        if (!handled) await this.explainProviderError(agent);
        await this.noteMcpSignIn();
        failed = endedBadly(this.messages);
      } catch (error) {
        await this.reportRunFailure(error, pendingMessages);
      } finally {
        // A run that failed or was stopped keeps the queue for the user; one that ended well
        // sends what came too late for it (below).
        if (failed && this.queue.size > 0) this.queue.hold();
        this.active = undefined;
        this.emit({ type: "chat/runState", running: false });
        await release?.().catch((error: unknown) => this.options.log?.(`could not release the chat lock: ${String(error)}`));
      }
    })();
    this.active = run;
    return run.then(() => (this.queue.size > 0 && !this.state.queueKept ? this.sendQueued() : undefined));
  }

  /** Setup failed before the agent ran: keep the user's words and say what to fix. */
  private async reportRunFailure(error: unknown, pendingMessages: readonly AgentMessage[]): Promise<void> {
    const agentHasThem = pendingMessages.length > 0 && this.messages.includes(pendingMessages[0]!);
    if (!agentHasThem) for (const m of pendingMessages) await this.append(m);
    await this.append(errorNotice(error instanceof Error ? error.message : String(error), runSetupFix(error)));
  }

  /** A failed request ends as an assistant message with stopReason "error": say what to do about it. */
  private async explainProviderError(agent: Agent): Promise<void> {
    const last = this.messages[this.messages.length - 1];
    if (last?.role !== "assistant" || last.stopReason !== "error") return;
    const raw = last.errorMessage ?? "The model provider returned an error.";
    this.options.log?.(`provider error: ${raw}`);
    const sent = agent.state.model;
    const failed: FailedRequestModel | undefined = last.provider && last.model ? { provider: last.provider, id: last.model, baseUrl: sent.baseUrl } : undefined;
    const described = this.options.describeError?.(raw, failed) ?? { text: raw };
    // Which model failed: a chat can have its own, other than the settings'.
    const model = failed ? ` (model ${failed.provider}/${failed.id})` : "";
    // The provider's words go with the notice (one card), unless the notice already is them.
    await this.append(errorNotice(`${described.text}${model}`, { ...described, ...(described.text !== raw ? { detail: raw } : {}) }));
    // The first time a provider refuses an image in this chat, say what changes (refused-images.ts).
    if (isImageRefusal(last) && !this.messages.slice(0, -2).some(isImageRefusal)) {
      await this.append({ role: "localNotice", level: "info", text: IMAGE_REFUSAL_NOTICE, timestamp: Date.now() });
    }
  }

  /** After the reply (never between a prompt and its branch): which MCP servers wait for a sign-in, with the button. */
  private async noteMcpSignIn(): Promise<void> {
    for (const needed of this.mcpSignIn) {
      if (this.signInNoted.has(needed.server)) continue;
      this.signInNoted.add(needed.server);
      await this.append({ role: "localNotice", level: "info", text: signInNoteText(needed), fixCommand: "mcpSignIn", timestamp: Date.now() });
    }
  }

  /** Adds a message of the session's own (a notice, a repair) to the transcript: saved and shown. */
  private async append(message: AgentMessage): Promise<void> {
    if (message.role !== "system") await this.ensureSystemMessage();
    this.path.add(message);
    await this.persistAndShow(message);
  }

  private async persistAndShow(message: AgentMessage): Promise<void> {
    this.emit({ type: "message/start", message });
    await this.persistOnce(message);
    this.emit({ type: "message/end", message });
  }

  /** A message as it is saved: without the keys in use. */
  private readonly redactMessage = (message: AgentMessage): AgentMessage => (this.options.redactor ? this.options.redactor.deep(message) : message);

  private async persistOnce(message: AgentMessage): Promise<void> {
    if (this.persisted.has(message)) return;
    this.persisted.add(message);
    const parentId = this.branches.leafId;
    const saved = this.redactMessage(message);
    const id = await this.options.persist(saved, parentId, this.branches.newPathSummary(parentId, this.redactMessage, saved));
    const forked = this.branches.added(id, parentId, message);
    // Each prompt (and each queued follow-up or steer, when it is taken) is a checkpoint.
    if (message.role === "user") await this.options.checkpoints?.mark(id).catch((e: unknown) => this.options.log?.(`checkpoint not saved: ${String(e)}`));
    // A new sibling (the first message of an edit or a retry) gets a switcher. A turn that starts
    // with attachments shows it on its prompt, so that waits for the prompt.
    if (message.role === "fileAttachment") return;
    const messages = this.messages;
    const index = messages.lastIndexOf(message);
    if (index === -1) return;
    const start = turnStart(messages, index);
    if (forked || (start < index && this.branches.forks(messages.slice(0, start + 1), start).length > 0)) this.emitForks(start);
  }

  /** The tools of this run: run_command only where commands may run (not in restricted mode). */
  private availableTools(): AgentTool[] {
    const commandsOn = this.options.commands?.enabled() === true;
    return this.tools.filter((t) => (t.name !== RUN_COMMAND_TOOL && t.name !== COMMAND_OUTPUT_TOOL) || commandsOn);
  }

  /** The meter follows every final message (a request's usage, a summary, a new prompt). */
  private emitMeterAfter(event: Extract<ChatEvent, { type: "message/end" }>): void {
    if (event.message.role === "system") return;
    this.emit({ type: "context/meter", meter: this.context.meter() });
  }

  private async ensureAgent(): Promise<Agent> {
    const binding = await this.options.resolveModel(this.modelChoice);
    try {
      this.keys.add(await binding.getApiKey(binding.model.provider));
    } catch {
      // no key: nothing more to redact
    }
    this.context.bind(binding);
    // The window is known now: the meter can show "used / window".
    this.emit({ type: "context/meter", meter: this.context.meter() });
    // The chat's thinking level, as far as its model supports it ("off" by default).
    const thinkingLevel = clampThinkingLevel(binding.model, (this.modelChoice?.thinkingLevel ?? "off") as Parameters<typeof clampThinkingLevel>[1]);
    const mcp = await this.options.mcp?.forRun({ acceptsImages: binding.model.input.includes("image"), chatId: this.id });
    this.mcpPrompt = mcp?.prompt || undefined;
    this.mcpSignIn = mcp?.signIn ?? [];
    this.mcpExtras = mcp
      ? {
          mcpTools: mcp.tools.map((tool) => ({ name: tool.name, tokens: estimateToolDeclarationTokens([tool]) })),
          mcpPromptTokens: mcp.prompt ? tokensOfText(mcp.prompt) : 0,
        }
      : undefined;
    const tools = [...this.availableTools(), ...(mcp?.tools ?? [])];
    if (this.agent) {
      this.agent.state.tools = tools;
      this.agent.state.model = binding.model;
      this.agent.state.thinkingLevel = thinkingLevel;
      this.agent.streamFunction = this.context.wrapStreamFn(binding.streamFn);
      this.agent.getApiKey = binding.getApiKey;
      return this.agent;
    }
    const options = this.options;
    const context = this.context;
    const agent = new Agent({
      initialState: {
        systemPrompt: this.options.systemPrompt,
        model: binding.model,
        thinkingLevel,
        tools,
        messages: this.path.projection(),
      },
      streamFn: this.context.wrapStreamFn(binding.streamFn),
      getApiKey: binding.getApiKey,
      convertToLlm,
      transformContext: this.withRequestSteps(
        createTransformContext({
          // Trimming is the fallback when no summary could be made: at the same threshold.
          get maxContextTokens() {
            return options.maxContextTokens ?? context.budget()?.threshold ?? Math.floor(binding.model.contextWindow * 0.75);
          },
          onFallback: (reason) => this.options.log?.(`context policy fell back to the full transcript: ${reason}`),
          // The agent holds the projection: what the summary stands for is counted on the path.
          onView: (view) => this.context.noteView({ ...view, summarized: this.path.summarizedIn(view.messages) }),
        }),
      ),
      prepareRequest: (request, signal) => this.context.beforeRequest(request, signal),
      beforeToolCall: (context, signal) =>
        context.toolCall.name === RUN_COMMAND_TOOL
          ? this.gateCommand(context.toolCall.id, context.args, signal)
          : isMcpToolName(context.toolCall.name)
            ? this.gateMcp(context.toolCall.id, context.toolCall.name, context.args, signal)
            : this.gate.beforeToolCall(context, signal),
      afterToolCall: (context) => this.gate.afterToolCall(context),
      sessionId: this.id,
    });
    // A follow-up or steer is its attachments and its prompt: pi must deliver them together.
    agent.followUpMode = "all";
    agent.steeringMode = "all";
    agent.subscribe((event) => this.onAgentEvent(event));
    this.agent = agent;
    // A new chat's leading system message (prompt + tool declarations) has no agent event: save it
    // now, and pass it through the reducer so live item ids match those of a replayed transcript.
    this.path.hold(agent);
    for (const m of this.messages) if (!this.persisted.has(m)) await this.persistAndShow(m);
    return agent;
  }

  /** The policy, then the host's request-time step; a failing step never breaks the request. */
  private withRequestSteps(policy: RequestContextStep): RequestContextStep {
    return async (messages, signal) => {
      const view = withSystemSection(await policy(messages, signal), MCP_SERVERS_SECTION, this.mcpPrompt);
      const extend = this.options.extendContext;
      if (!extend) return view;
      try {
        return await extend(view, signal);
      } catch (error) {
        this.options.log?.(`request context step failed, sent without it: ${error instanceof Error ? error.message : String(error)}`);
        return view;
      }
    };
  }

  private async onAgentEvent(event: AgentEvent): Promise<void> {
    if (event.type === "message_start") this.queue.delivered(event.message);
    // Only final messages are saved; partial ones never reach the disk.
    if (event.type === "message_end") {
      this.path.addedByAgent(event.message);
      await this.persistOnce(event.message);
    }
    for (const chatEvent of this.encoder.encode(event)) {
      // The session's own chat/runState brackets the whole run (setup included).
      if (chatEvent.type === "chat/runState") continue;
      if (this.stream) {
        if (chatEvent.type === "message/delta") {
          const safe = this.stream.delta(chatEvent.index, chatEvent.text);
          if (safe !== "") this.emit({ ...chatEvent, text: safe });
          continue;
        }
        // What a stream held back is shown before anything that follows it.
        for (const [index, text] of this.stream.flush()) this.emit({ type: "message/delta", index, text });
      }
      // A key split across two streamed deltas escapes their redaction: if the final text had
      // something to redact, send it whole instead of leaving the view the streamed text.
      if (chatEvent.type === "message/end" && chatEvent.elided && event.type === "message_end" && this.options.redactor) {
        const redacted = this.options.redactor.deep(event.message);
        if (redacted !== event.message) {
          this.emit({ type: "message/end", message: redacted });
          continue;
        }
      }
      this.emit(chatEvent);
    }
  }

  private gateMcp(toolCallId: string, toolName: string, args: unknown, signal: AbortSignal | undefined): Promise<BeforeToolCallResult | undefined> {
    const mcp = this.options.mcp;
    if (!mcp) return Promise.resolve({ block: true, reason: "MCP tools are not available in this window." });
    const deps = {
      chatId: this.id,
      describe: (name: string) => mcp.describe(name),
      allowed: mcp.allowed,
      approver: mcp.approver,
      approvalMode: () => this.options.approvalMode(),
      editsAllowedForChat: () => this.gate.allowsEditsForChat,
      emit: (event: ChatEvent) => this.emit(event),
      record: (notice: ApprovalNoticeMessage) => this.queue.steerOwn(notice),
    };
    return gateMcpCall(toolCallId, toolName, args, deps, signal);
  }

  private gateCommand(toolCallId: string, args: unknown, signal: AbortSignal | undefined): Promise<BeforeToolCallResult | undefined> {
    const commands = this.options.commands;
    if (!commands) return Promise.resolve({ block: true, reason: "Commands are not available in this window." });
    return gateCommand(
      toolCallId,
      args,
      {
        chatId: this.id,
        fs: this.options.fs,
        folders: this.commandFolders,
        enabled: commands.enabled,
        rules: commands.rules,
        approver: commands.approver,
        emit: (event) => this.emit(event),
        record: (notice) => this.queue.steerOwn(notice),
      },
      signal,
    );
  }
}

/**
 * Messages saved before the agent existed (a `!cmd`, a setup error) precede the system message
 * on disk; the agent wants it first, or it adds a second one. The request view only: the file
 * keeps its order.
 */
function systemMessageFirst(messages: readonly AgentMessage[]): AgentMessage[] {
  const index = messages.findIndex((m) => m.role === "system");
  if (index <= 0) return messages.slice();
  return [messages[index]!, ...messages.slice(0, index), ...messages.slice(index + 1)];
}
