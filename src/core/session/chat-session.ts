// One chat: a pi Agent with the workspace tools, the context policy and the permission gates,
// and the view state its events reduce to. The public API (prompt, send, queue, branches,
// compact, abort, model) and the state live here; the folder's other files hold the parts:
// session-parts.ts (the wiring), session-tools.ts and tool-gates.ts, agent-binding.ts,
// run-loop.ts, user-command-run.ts, persistence.ts, view-events.ts, branch-moves.ts. No VS Code
// here: the host passes in the file system, the approvers and the model.
import type { Agent, AgentMessage } from "@earendil-works/pi-agent-core";
import { createInitialSystemMessage, toToolDeclaration } from "@earendil-works/pi-ai";
import { chatItems, earlierItems, reduce, restoredState, type ChatState } from "../../shared/reducer";
import type { ChatItem } from "../../shared/chat-items";
import { withStructuredDiff } from "../../shared/diff-hunks";
import type { ChatEvent } from "../../shared/protocol";
import type { BackgroundStopCause } from "../../shared/background-state";
import { canContinue, cutAtTokenLimit, repairsBeforeContinue } from "../context-policy";
import type { ChatContext, PreviewModel } from "../context/chat-context";
import type { CompactionOutcome } from "../context/compactor";
import type { ChatMode, CompactionSummaryMessage, FilesRestoredMessage, TaskState } from "../messages";
import type { UserCommandText } from "../shell/user-command";
import type { ChatModelChoice } from "../transcript/types";
import { bindAgent } from "./agent-binding";
import { cutPath, switchPath } from "./branch-moves";
import { editedTurn, promptBefore, promptCheckpoint, promptCheckpoints, type BranchChange, type PromptCheckpoint } from "./branching";
import { type InputQueue, promptMessages, type PromptAttachments, type PromptImages, type QueueKind } from "./input-queue";
import { endsWithErrorNotice } from "./run-errors";
import { runChat, type RunOptions } from "./run-loop";
import { type SessionParts, wireSession } from "./session-parts";
import type { ChatSessionOptions } from "./types";
import { runUserCommandIn } from "./user-command-run";

export class ChatSession {
  readonly id: string;
  private agent: Agent | undefined;
  /** This chat's model; undefined: the settings' (a new chat starts from them). */
  private modelChoice: ChatModelChoice | undefined;
  private readonly listeners = new Set<(event: ChatEvent) => void>();
  private state: ChatState;
  /** The collaborators (session-parts.ts): path, tree, store, context, toolbox, queue, run slot. */
  private readonly parts: SessionParts;
  /** Stops the `!cmd` that is running, if one is. */
  private userCommandStop: AbortController | undefined;
  /** Compaction, the meter, the capture of what was sent: what this chat keeps for the model. */
  readonly context: ChatContext;

  constructor(private readonly options: ChatSessionOptions) {
    this.id = options.id;
    this.modelChoice = options.model ? { ...options.model } : undefined;
    this.parts = wireSession(options, {
      emit: (event) => this.emit(event),
      systemMessage: () => this.initialSystemMessage(),
      agent: () => this.agent,
      modelChoice: () => this.modelChoice,
      queueKept: () => this.state.queueKept === true,
      ensureAgent: () => this.ensureAgent(),
      sendQueued: () => this.sendQueued(),
      setStop: (controller) => {
        this.userCommandStop = controller;
      },
    });
    this.context = this.parts.context;
    this.state = { ...restoredState(this.messages), meter: this.context.meter(), forks: this.parts.branches.forks(this.messages, 0) };
  }

  private get queue(): InputQueue {
    return this.parts.queue;
  }

  /** The full transcript: what is saved, and what every request is built from. */
  get messages(): readonly AgentMessage[] {
    return this.parts.path.messages;
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
    return this.parts.slot.running;
  }

  /** It started background commands in this window: how they ended is on their cards, not in the file. */
  get ranBackgroundCommands(): boolean {
    return this.parts.background.any;
  }

  /** The hunks of a waiting edit rejected so far, on its card or in its editor: the card shows the host's one record. */
  showRejectedHunks(toolCallId: string, rejectedHunks: readonly number[], editedHunks: readonly { hunk: number; text: string }[] = []): void {
    this.emit({ type: "approval/hunks", toolCallId, rejectedHunks: [...rejectedHunks], editedHunks: editedHunks.map((e) => ({ ...e })) });
  }

  get allowsEditsForChat(): boolean {
    return this.parts.edits.allowsEditsForChat;
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

  /** The last turn was cut off, failed or hit the token limit: `continue()` picks it up (an error card's Retry, a cut answer's Continue). */
  get canContinue(): boolean {
    return !this.running && canContinue(this.messages);
  }

  /**
   * The last turn was cut off without a word (a crash, a reload mid-turn): the view offers
   * Continue. Not after an error the chat already shows, nor after an answer cut at the token
   * limit: the error card and the answer's card offer the way on themselves.
   */
  get interrupted(): boolean {
    return this.canContinue && !endsWithErrorNotice(this.messages) && !cutAtTokenLimit(this.messages);
  }

  onEvent(listener: (event: ChatEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sends a prompt, with the files the user attached. Resolves when the run is over. */
  prompt(text: string, attachments: PromptAttachments = [], images: PromptImages = []): Promise<void> {
    const messages = promptMessages(text, attachments, images, Date.now());
    return this.run(async (agent) => agent.prompt(messages), messages);
  }

  /**
   * While a reply runs, queues a follow-up (delivered when the run would stop) or steering
   * (delivered after the current tool calls); resolves at once. When idle, sends it as a prompt.
   */
  async send(kind: QueueKind, text: string, attachments: PromptAttachments = [], images: PromptImages = []): Promise<void> {
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
      for (const m of repairsBeforeContinue(this.messages, Date.now())) await this.parts.store.append(m);
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
    const turn = editedTurn(this.messages, messageIndex, removeImages);
    this.refuseWhileRunning();
    const edited = promptMessages(text, turn.attachments, turn.images, Date.now());
    // Cut once this window may write the chat: a refused run leaves the path as it was.
    return this.runOnBranch((agent) => agent.prompt(edited), edited, turn.start, filesRestored);
  }

  /** Retry: the answer at `messageIndex` is written again, from the prompt before it, as a new branch. */
  async retry(messageIndex: number, filesRestored?: FilesRestoredMessage): Promise<BranchChange> {
    const prompt = promptBefore(this.messages, messageIndex);
    if (prompt === undefined || messageIndex <= prompt) throw new Error("There is no prompt before that answer to retry from.");
    this.refuseWhileRunning();
    // After the prompt, before the new answer: what the model reads first on this branch.
    return this.runOnBranch((agent) => agent.continue(), [], prompt + 1, filesRestored);
  }

  /** The checkpoint a Retry of the answer at path index `messageIndex` starts from: the prompt it answers. */
  retryCheckpointOf(messageIndex: number): PromptCheckpoint | undefined {
    const prompt = promptBefore(this.messages, messageIndex);
    return prompt === undefined ? undefined : this.checkpointOf(prompt);
  }

  /**
   * Shows another branch: the sibling `to` of the message at path index `messageIndex`, followed
   * down to its newest leaf. The view drops and replays only the part below the fork.
   */
  async switchBranch(messageIndex: number, to: number): Promise<BranchChange> {
    this.refuseWhileRunning();
    return switchPath(this.parts, messageIndex, to);
  }

  /** The checkpoint of the prompt at path index `messageIndex`: its transcript node (the mark), its number on the path, its first words. */
  checkpointOf(messageIndex: number): PromptCheckpoint | undefined {
    return promptCheckpoint(this.messages, messageIndex, this.parts.branches);
  }

  /** The checkpoints of the prompts on the path, newest first (what "Review changes since" offers). */
  promptCheckpoints(): PromptCheckpoint[] {
    return promptCheckpoints(this.messages, this.parts.branches);
  }

  /** A restore changed the files: saved in the chat, shown, and stated to the model with the next request. */
  async noteFilesRestored(message: FilesRestoredMessage): Promise<void> {
    this.refuseWhileRunning();
    await this.parts.store.append(message);
  }

  /**
   * `!cmd` / `!!cmd`: runs in the workspace folder without asking (the user typed it) and saves a
   * bashExecution message. No model is needed. Refused in restricted mode, with the reason shown.
   */
  runUserCommand(text: UserCommandText, cwd?: string): Promise<void> {
    return runUserCommandIn(this.parts, text, cwd);
  }

  /**
   * The user ticked, reordered or deleted task-list items (the panel above the composer): saved as
   * a taskListEdited message the model reads with its next request (steered in while a run goes
   * on). Only ids of the current list, each once; false for anything else (a stale view).
   */
  editTaskList(edit: readonly { id: string; state: TaskState }[]): Promise<boolean> {
    return this.parts.pathState.editTasks(edit);
  }

  /**
   * *Approve and act* on the plan of `toolCallId` (the one the chat may approve now): act mode,
   * then a run whose first message is the approved plan, `text` if the user edited it. False for
   * any other plan (a stale card).
   */
  async approvePlan(toolCallId: string, text?: string): Promise<boolean> {
    this.refuseWhileRunning();
    const approved = this.parts.pathState.planApproval(toolCallId, text);
    if (!approved) return false;
    await this.setMode("act");
    await this.run(async (agent) => agent.prompt([approved]), [approved]);
    return true;
  }

  /**
   * *Revise* on the plan of `toolCallId` (the one the chat may approve now): a run whose first
   * message is the user's comments, each with the plan line it is on; the chat stays in plan mode.
   * False for any other plan, or no comment on a line the plan has.
   */
  async revisePlan(toolCallId: string, comments: readonly { line: number; comment: string }[]): Promise<boolean> {
    this.refuseWhileRunning();
    const revision = this.parts.pathState.planComments(toolCallId, comments);
    if (!revision) return false;
    await this.run(async (agent) => agent.prompt([revision]), [revision]);
    return true;
  }

  /** The text of the plan `toolCallId` proposed, while the chat may still approve it. */
  proposedPlan(toolCallId: string): string | undefined {
    return this.parts.pathState.planApproval(toolCallId, undefined)?.plan;
  }

  /** The chat's mode now (plan: reading and discovery tools only). */
  get mode(): ChatMode {
    return this.parts.pathState.mode();
  }

  /**
   * Plan or act: saved as a modeChanged message the model reads with its next request (steered
   * in while a run goes on); the gates follow at once, a run's tool list from its next run.
   */
  setMode(mode: ChatMode): Promise<void> {
    return this.parts.pathState.setMode(mode);
  }

  /** Ends every background command of this chat (the chat is left or deleted, VS Code closes). */
  stopBackground(by: BackgroundStopCause): Promise<void> {
    return this.parts.background.stopAll(by);
  }

  /** The Stop button of a background command's card; false for an id this chat never started. */
  async stopBackgroundCommand(id: string): Promise<boolean> {
    if (!this.parts.background.has(id)) return false;
    await this.parts.background.stop(id, "user");
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
    const compacted = async (): Promise<void> => {
      outcome = await this.context.compact("manual", instructions?.trim() ? { instructions: instructions.trim() } : {});
    };
    return this.run(compacted, [], { afterRun: false }).then(() => outcome);
  }

  /** Starts this (new, empty) chat from another chat's summary: the model gets the summary and nothing else of it. */
  startFromSummary(summary: CompactionSummaryMessage): Promise<void> {
    const started = (): Promise<void> => this.parts.store.append({ ...summary, keptMessageCount: 0, trigger: "manual", timestamp: Date.now() });
    return this.run(started, [], { afterRun: false });
  }

  async waitForIdle(): Promise<void> {
    await this.parts.slot.idle;
  }

  /** The system message a new chat of this session would start with (prompt and tool declarations). */
  initialSystemMessage(): AgentMessage | undefined {
    const tools = this.parts.gates.offered(this.parts.tools);
    return createInitialSystemMessage(this.options.systemPrompt, tools.map(toToolDeclaration)) ?? undefined;
  }

  private emit(raw: ChatEvent): void {
    // A provider's words may quote the key it was sent: nothing reaches the view unredacted.
    const redacted = this.options.redactor ? this.options.redactor.deep(raw) : raw;
    // An edit's diff goes to the view as hunks (built here once, as a restore builds them).
    const event = withStructuredDiff(redacted);
    this.state = reduce(this.state, event);
    // The meter follows every final message (a request's usage, a summary, a new prompt).
    if (event.type === "message/end" && event.message.role !== "system") this.emit({ type: "context/meter", meter: this.context.meter() });
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.options.log?.(`chat event listener failed: ${String(error)}`);
      }
    }
    this.parts.pathState.afterEvent(event);
  }

  private refuseWhileRunning(): void {
    if (this.running) throw new Error("A reply is still being written. Stop it first, then edit, retry or switch branches.");
  }

  /** An edit or a retry: once this window may write the chat, the path is cut at `keep` and the run starts the new branch there. */
  private async runOnBranch(
    start: (agent: Agent) => Promise<void>,
    pending: readonly AgentMessage[],
    keep: number,
    filesRestored?: FilesRestoredMessage,
  ): Promise<BranchChange> {
    let change: BranchChange = { filesLeftChanged: [] };
    await this.run(start, pending, {
      prepare: async () => {
        change = cutPath(this.parts, keep);
        // The files were put back to this prompt's checkpoint: the new branch says so first.
        if (filesRestored) await this.parts.store.append(filesRestored);
      },
    });
    return change;
  }

  private run(start: (agent: Agent) => Promise<void>, pendingMessages: readonly AgentMessage[], options?: RunOptions): Promise<void> {
    return runChat(this.parts, start, pendingMessages, options);
  }

  /** The agent for this run, bound to the model it resolves; a new one holds the path and saves what was waiting for it. */
  private async ensureAgent(): Promise<Agent> {
    const { agent, built } = await bindAgent(this.agent, await this.options.resolveModel(this.modelChoice), this.parts);
    if (!built) return agent;
    this.agent = agent;
    // A new chat's leading system message (prompt + tool declarations) has no agent event: save it
    // now, and pass it through the reducer so live item ids match those of a replayed transcript.
    this.parts.path.hold(agent);
    await this.parts.store.persistUnsaved();
    return agent;
  }
}
