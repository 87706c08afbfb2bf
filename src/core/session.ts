// One chat: a pi Agent with the workspace tools, the context policy and the permission gate,
// and the view state its events reduce to. No VS Code here: the host passes in the file
// system, the approver (the user, through the webview) and the model.
import { Agent, type AgentEvent, type AgentMessage, type AgentTool, type BeforeToolCallResult, type StreamFn } from "@earendil-works/pi-agent-core";
import type { Api, Model, ToolResultMessage } from "@earendil-works/pi-ai";
import { reduce, stateFromTranscript, type ChatState } from "../shared/reducer";
import { AgentEventEncoder } from "../shared/event-encoder";
import type { ChatEvent } from "../shared/protocol";
import { canContinue, convertToLlm, createTransformContext, interruptedToolResult } from "./context-policy";
import { filesChangedBy, forkMarks, promptBefore, suffixBetween, turnStart } from "./branching";
import { InputQueue, promptMessages, type QueueKind } from "./input-queue";
import type { FileAttachmentMessage, LocalNoticeMessage } from "./messages";
import { EditGate, type EditApprover, type EditPermissionSettings } from "./permissions";
import { ChatTree } from "./transcript/tree";
import { createEditFileTool, createReadFileTool, type EditProposal } from "./tools";
import { withProblemsAfterEdit, type ProblemsWatcher } from "./tools/problems-after-edit";
import type { WorkspaceFileSystem } from "./tools/workspace-fs";
import { gateCommand, type CommandApprover, type CommandRuleStore } from "./permissions/command-gate";
import type { CommandRunner } from "./commands/runner";
import { createRunCommandTool, RUN_COMMAND_TOOL } from "./tools/run-command";
import { redactSecrets } from "./commands/redact";

/** What a run needs from the provider layer, resolved when a run starts (settings may have changed). */
export interface ModelBinding {
  model: Model<Api>;
  streamFn: StreamFn;
  getApiKey: (provider: string) => Promise<string | undefined> | string | undefined;
}

export type { EditApprovalRequest, EditApprover, EditDecision } from "./permissions";

/** A problem that stops a run before the model is called (no API key, unknown model): shown with its fix. */
export class RunSetupError extends Error {
  constructor(
    message: string,
    readonly fix?: string,
  ) {
    super(message);
  }
}

/** What a branch operation left behind that the user should know: files changed on the branch left. */
export interface BranchChange {
  filesLeftChanged: string[];
}

export interface ChatSessionOptions {
  id: string;
  /** The saved transcript (the path to the current leaf), or [] for a new chat. */
  messages: readonly AgentMessage[];
  /** The saved chat as a tree (its current path must be `messages`); a new chat starts an empty one. */
  tree?: ChatTree<AgentMessage>;
  systemPrompt: string;
  fs: WorkspaceFileSystem;
  /** Absolute workspace root, so the tools accept absolute paths inside it. */
  workspaceRoot?: string;
  resolveModel: () => Promise<ModelBinding>;
  approver: EditApprover;
  /** The approval mode, protected files and workspace trust the edit gate reads at each call. */
  approvalMode: EditPermissionSettings["approvalMode"];
  protectedFiles?: EditPermissionSettings["protectedFiles"];
  workspaceTrusted?: EditPermissionSettings["workspaceTrusted"];
  /**
   * Saves one final message as a child of `parentId` and resolves to its node id. Awaited before
   * the next event, so the transcript order is the event order.
   */
  persist: (message: AgentMessage, parentId: string | null) => Promise<string>;
  /** Saves which leaf is current after a branch switch. */
  persistLeaf?: (nodeId: string) => Promise<void>;
  maxContextTokens?: number;
  /** Running shell commands (run_command); absent: the tool is not offered. */
  commands?: CommandOptions;
  /** Explains a provider error (401, 429, network) with its fix, for a notice in the chat. */
  describeError?: (errorMessage: string) => { text: string; fix?: string };
  log?: (line: string) => void;
  /**
   * Request-time additions to the context after the policy (project instructions, image bytes):
   * I/O the pure policy must not do. Returns a new array; a failure falls back to its input.
   */
  extendContext?: RequestContextStep;
  /** The language server's errors, reported after each applied edit. */
  problems?: ProblemsWatcher;
}

/** One request-time step over the request view of the transcript; never mutates its input. */
export type RequestContextStep = (messages: AgentMessage[], signal?: AbortSignal) => Promise<AgentMessage[]>;

export interface CommandOptions {
  /** The terminal when shell integration is there, else a child process: chosen per run. */
  runner: () => CommandRunner;
  /** False in restricted mode (untrusted workspace): the tool is not offered and the gate refuses. */
  enabled: () => boolean;
  rules: CommandRuleStore;
  approver: CommandApprover;
  defaultTimeoutSeconds: () => number;
  /** Folder for the full-output logs of this chat's commands. */
  logDir?: string;
}

export const DEFAULT_SYSTEM_PROMPT = [
  "You are Pi Chat, a coding assistant inside the user's editor.",
  "You can read files of the open workspace with read_file and change them with edit_file.",
  "Paths are relative to the workspace root. Read a file before you edit it; edit_file replaces text copied from the file (oldText, exactly once in the file) with newText, and takes several such replacements of one file at once as edits: [{oldText, newText}, …].",
  "Every edit is shown to the user as a diff and applied only if they allow it.",
  "When the run_command tool is available, use it to run the project's tests, builds, linters and git commands rather than guessing their results; every run needs the user's yes.",
  "Answer concisely, in Markdown.",
].join("\n");

export class ChatSession {
  readonly id: string;
  private agent: Agent | undefined;
  private readonly initialMessages: AgentMessage[];
  private readonly persisted = new WeakSet<object>();
  private readonly tree: ChatTree<AgentMessage>;
  /** Node ids of the current path, index for index with `messages`. */
  private pathIds: string[];
  private readonly listeners = new Set<(event: ChatEvent) => void>();
  private readonly encoder = new AgentEventEncoder();
  private readonly proposals = new Map<string, EditProposal>();
  private readonly tools: AgentTool[];
  private readonly gate: EditGate;
  private readonly queue: InputQueue;
  private state: ChatState;
  /** The API key of the current model: removed from command output. */
  private secretsInUse: string[] = [];
  private active: Promise<void> | undefined;

  constructor(private readonly options: ChatSessionOptions) {
    this.id = options.id;
    this.initialMessages = options.messages.slice();
    for (const m of this.initialMessages) this.persisted.add(m);
    this.tree = options.tree ?? new ChatTree<AgentMessage>();
    const path = this.tree.path();
    this.pathIds = path.map((n) => n.id);
    this.state = reduce(stateFromTranscript(this.initialMessages), { type: "forks", from: 0, forks: forkMarks(this.tree, path, 0) });
    const root = options.workspaceRoot !== undefined ? { root: options.workspaceRoot } : {};
    // requireProposal: an edit is written only with the proposal the gate stored for its call.
    const editFile = createEditFileTool(options.fs, { ...root, proposals: this.proposals, requireProposal: true });
    this.tools = [createReadFileTool(options.fs, root), options.problems ? withProblemsAfterEdit(editFile, options.problems, root) : editFile];
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
    if (commands && options.workspaceRoot !== undefined) {
      this.tools.push(
        createRunCommandTool({
          root: options.workspaceRoot,
          fs: options.fs,
          runner: commands.runner,
          defaultTimeoutSeconds: commands.defaultTimeoutSeconds,
          redact: (text) => redactSecrets(text, this.secretsInUse),
          ...(commands.logDir ? { logDir: commands.logDir } : {}),
        }),
      );
    }
    this.queue = new InputQueue(
      () => this.agent,
      (items, kept) => this.emit({ type: "queue", items, kept }),
    );
  }

  /** The full transcript: what is saved, and what every request is built from. */
  get messages(): readonly AgentMessage[] {
    return this.agent ? this.agent.state.messages : this.initialMessages;
  }

  get viewState(): ChatState {
    return this.state;
  }

  get running(): boolean {
    return this.active !== undefined;
  }

  get allowsEditsForChat(): boolean {
    return this.gate.allowsEditsForChat;
  }

  /** The last turn was cut off or failed: `continue()` picks it up. */
  get canContinue(): boolean {
    return !this.running && canContinue(this.messages);
  }

  onEvent(listener: (event: ChatEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sends a prompt, with the files the user attached. Resolves when the run is over. */
  prompt(text: string, attachments: readonly Omit<FileAttachmentMessage, "role" | "timestamp">[] = []): Promise<void> {
    const messages = promptMessages(text, attachments, Date.now());
    return this.run(async (agent) => agent.prompt(messages), messages);
  }

  /**
   * While a reply runs, queues a follow-up (delivered when the run would stop) or steering
   * (delivered after the current tool calls); resolves at once. When idle, sends it as a prompt.
   */
  async send(kind: QueueKind, text: string, attachments: readonly Omit<FileAttachmentMessage, "role" | "timestamp">[] = []): Promise<void> {
    if (this.running) {
      this.queue.add(kind, text, attachments);
      return;
    }
    await this.prompt(text, attachments);
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

  /** Continues a turn that a reload, a crash or a provider error cut off. */
  continue(): Promise<void> {
    return this.run(async (agent) => {
      // Saved as real messages, so the transcript itself has no tool call without a result.
      for (const m of this.repairsBeforeContinue(agent.state.messages)) await this.append(m);
      await agent.continue();
    }, []);
  }

  /**
   * Edit: the prompt at path index `messageIndex` is sent again with new text, as a new branch
   * from the point before its turn (its attachments go along). The old branch stays in the tree.
   */
  async editPrompt(messageIndex: number, text: string): Promise<BranchChange> {
    const messages = this.messages;
    if (messages[messageIndex]?.role !== "user") throw new Error("That message is not a prompt of this chat.");
    this.refuseWhileRunning();
    const start = turnStart(messages, messageIndex);
    const attachments = messages.slice(start, messageIndex).flatMap((m) => (m.role === "fileAttachment" ? [{ path: m.path, ...(m.range ? { range: { ...m.range } } : {}) }] : []));
    const change = this.cutPathAt(start);
    await this.prompt(text, attachments);
    return change;
  }

  /** Retry: the answer at `messageIndex` is written again, from the prompt before it, as a new branch. */
  async retry(messageIndex: number): Promise<BranchChange> {
    const prompt = promptBefore(this.messages, messageIndex);
    if (prompt === undefined || messageIndex <= prompt) throw new Error("There is no prompt before that answer to retry from.");
    this.refuseWhileRunning();
    const change = this.cutPathAt(prompt + 1);
    await this.run(async (agent) => agent.continue(), []);
    return change;
  }

  /**
   * Shows another branch: the sibling `to` of the message at path index `messageIndex`, followed
   * down to its newest leaf. The view drops and replays only the part below the fork.
   */
  async switchBranch(messageIndex: number, to: number): Promise<BranchChange> {
    this.refuseWhileRunning();
    const nodeId = this.pathIds[messageIndex];
    const node = nodeId === undefined ? undefined : this.tree.get(nodeId);
    const target = node && this.tree.childrenOf(node.parentId)[to];
    if (!node || !target || target === node) return { filesLeftChanged: [] };
    const leaf = this.tree.newestLeafUnder(target.id);
    const suffix = suffixBetween(this.tree, node.parentId, leaf);
    const left = this.messages.slice(messageIndex);
    this.setPath(
      this.messages.slice(0, messageIndex).concat(suffix.map((n) => n.message)),
      this.pathIds.slice(0, messageIndex).concat(suffix.map((n) => n.id)),
    );
    this.tree.leafId = leaf;
    this.emit({ type: "rewind", keep: messageIndex });
    for (const n of suffix) this.emit({ type: "message_end", message: n.message });
    this.emitForks(messageIndex);
    await this.options.persistLeaf?.(leaf);
    return { filesLeftChanged: filesChangedBy(left) };
  }

  abort(): void {
    // Stop keeps what the user queued, for them to send or clear: pi must not deliver it.
    if (this.running) this.queue.hold();
    this.agent?.abort();
  }

  async waitForIdle(): Promise<void> {
    await this.active;
  }

  private emit(event: ChatEvent): void {
    this.state = reduce(this.state, event);
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
    this.setPath(this.messages.slice(0, keep), this.pathIds.slice(0, keep));
    this.tree.leafId = this.pathIds[keep - 1] ?? null;
    this.emit({ type: "rewind", keep });
    return { filesLeftChanged: filesChangedBy(left) };
  }

  private setPath(messages: AgentMessage[], ids: string[]): void {
    this.pathIds = ids;
    if (this.agent) this.agent.state.messages = messages;
    else this.initialMessages.splice(0, this.initialMessages.length, ...messages);
  }

  private emitForks(from: number): void {
    const path = this.pathIds.map((id) => this.tree.get(id)!);
    this.emit({ type: "forks", from, forks: forkMarks(this.tree, path, from) });
  }

  private run(start: (agent: Agent) => Promise<void>, pendingMessages: readonly AgentMessage[]): Promise<void> {
    if (this.active) return Promise.reject(new Error("A reply is still being written. Stop it or wait for it to finish."));
    const run = (async () => {
      this.emit({ type: "run_state", running: true });
      let failed = true;
      try {
        const agent = await this.ensureAgent();
        await start(agent);
        failed = await this.explainProviderError(agent);
      } catch (error) {
        await this.reportRunFailure(error, pendingMessages);
      } finally {
        // A run that failed keeps the queue for the user; one that ended well sends what came too late for it (below).
        if (failed && this.queue.size > 0) this.queue.hold();
        this.active = undefined;
        this.emit({ type: "run_state", running: false });
      }
    })();
    this.active = run;
    return run.then(() => (this.queue.size > 0 && !this.state.queueKept ? this.sendQueued() : undefined));
  }

  /** Setup failed before the agent ran: keep the user's words and say what to fix. */
  private async reportRunFailure(error: unknown, pendingMessages: readonly AgentMessage[]): Promise<void> {
    const agentHasThem = pendingMessages.length > 0 && this.agent?.state.messages.includes(pendingMessages[0]!);
    if (!agentHasThem) for (const m of pendingMessages) await this.append(m);
    await this.append(errorNotice(error instanceof Error ? error.message : String(error), error instanceof RunSetupError ? error.fix : undefined));
  }

  /** A failed request ends as an assistant message with stopReason "error": say what to do about it. */
  /** True when the run ended in an error. */
  private async explainProviderError(agent: Agent): Promise<boolean> {
    const last = agent.state.messages[agent.state.messages.length - 1];
    if (!last || last.role !== "assistant" || last.stopReason !== "error") return last?.role === "assistant" && last.stopReason === "aborted";
    const raw = last.errorMessage ?? "The model provider returned an error.";
    this.options.log?.(`provider error: ${raw}`);
    const described = this.options.describeError?.(raw) ?? { text: raw };
    await this.append(errorNotice(described.text, described.fix));
    return true;
  }

  /** Adds a message of the session's own (a notice, a repair) to the transcript: saved and shown. */
  private async append(message: AgentMessage): Promise<void> {
    if (this.agent) this.agent.state.messages = [...this.agent.state.messages, message];
    else this.initialMessages.push(message);
    await this.persistAndShow(message);
  }

  private async persistAndShow(message: AgentMessage): Promise<void> {
    this.emit({ type: "message_start", message });
    await this.persistOnce(message);
    this.emit({ type: "message_end", message });
  }

  private async persistOnce(message: AgentMessage): Promise<void> {
    if (this.persisted.has(message)) return;
    this.persisted.add(message);
    const parentId = this.tree.leafId;
    const id = await this.options.persist(message, parentId);
    this.tree.add(id, parentId, message);
    this.pathIds.push(id);
    // A new sibling (the first message of an edit or a retry): its fork gets a switcher, shown
    // on the prompt of a turn that starts with attachments, so wait for that prompt.
    if (message.role === "fileAttachment") return;
    let forkAt = this.pathIds.length - 1;
    while (forkAt > 0 && this.tree.get(this.pathIds[forkAt - 1]!)?.message.role === "fileAttachment") forkAt--;
    if (this.tree.childrenOf(this.tree.get(this.pathIds[forkAt]!)!.parentId).length > 1) this.emitForks(forkAt);
  }

  /** The tools of this run: run_command only where commands may run (not in restricted mode). */
  private availableTools(): AgentTool[] {
    const commandsOn = this.options.commands?.enabled() === true;
    return this.tools.filter((t) => t.name !== RUN_COMMAND_TOOL || commandsOn);
  }

  private async ensureAgent(): Promise<Agent> {
    const binding = await this.options.resolveModel();
    try {
      const key = await binding.getApiKey(binding.model.provider);
      this.secretsInUse = key ? [key] : [];
    } catch {
      this.secretsInUse = [];
    }
    if (this.agent) {
      this.agent.state.tools = this.availableTools();
      this.agent.state.model = binding.model;
      this.agent.streamFunction = binding.streamFn;
      this.agent.getApiKey = binding.getApiKey;
      return this.agent;
    }
    const agent = new Agent({
      initialState: {
        systemPrompt: this.options.systemPrompt,
        model: binding.model,
        tools: this.availableTools(),
        messages: this.initialMessages,
      },
      streamFn: binding.streamFn,
      getApiKey: binding.getApiKey,
      convertToLlm,
      transformContext: this.withRequestSteps(
        createTransformContext({
          maxContextTokens: this.options.maxContextTokens ?? Math.floor(binding.model.contextWindow * 0.75),
          onFallback: (reason) => this.options.log?.(`context policy fell back to the full transcript: ${reason}`),
        }),
      ),
      beforeToolCall: (context, signal) =>
        context.toolCall.name === RUN_COMMAND_TOOL ? this.gateCommand(context.toolCall.id, context.args, signal) : this.gate.beforeToolCall(context, signal),
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
    for (const m of agent.state.messages) if (!this.persisted.has(m)) await this.persistAndShow(m);
    return agent;
  }

  /** The policy, then the host's request-time step; a failing step never breaks the request. */
  private withRequestSteps(policy: RequestContextStep): RequestContextStep {
    return async (messages, signal) => {
      const view = await policy(messages, signal);
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
    if (event.type === "message_end") await this.persistOnce(event.message);
    for (const chatEvent of this.encoder.encode(event)) {
      // The session's own run_state brackets the whole run (setup included).
      if (chatEvent.type !== "run_state") this.emit(chatEvent);
    }
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
        root: this.options.workspaceRoot,
        enabled: commands.enabled,
        rules: commands.rules,
        approver: commands.approver,
        emit: (event) => this.emit(event),
        record: (notice) => this.agent?.steer(notice),
      },
      signal,
    );
  }

  private repairsBeforeContinue(messages: readonly AgentMessage[]): AgentMessage[] {
    const last = [...messages].reverse().find((m) => m.role !== "localNotice" && m.role !== "approvalNotice");
    if (!last || last.role !== "assistant") return [];
    if (last.stopReason === "toolUse") {
      const answered = new Set(messages.filter((m): m is ToolResultMessage => m.role === "toolResult").map((m) => m.toolCallId));
      return last.content.flatMap((c) => (c.type === "toolCall" && !answered.has(c.id) ? [interruptedToolResult(c.id, c.name, Date.now())] : []));
    }
    // After a provider error the agent cannot continue from an assistant message: a notice
    // (never sent to the model) marks the retry, and the model retries from the last user turn.
    if (last.stopReason === "error") {
      const retry: LocalNoticeMessage = { role: "localNotice", level: "info", text: "Retrying after the error.", timestamp: Date.now() };
      return [retry];
    }
    return [];
  }
}

function errorNotice(text: string, fix: string | undefined): LocalNoticeMessage {
  return { role: "localNotice", level: "error", text, ...(fix ? { fix } : {}), timestamp: Date.now() };
}
