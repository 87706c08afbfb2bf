// What the chat's path says beside its messages, kept for the session: the task list, the mode
// and the plan the user may approve. The user's changes from the view become app messages (saved when idle, steered into a
// run otherwise: the model reads them with its next request), and the view follows the path
// (`tasks/list`, `chat/mode`, `chat/planOffer`) whenever an event may have changed either — a todo result, an edit,
// a switch, a summary, another branch — and only then, so a long chat's streamed tokens never
// read the transcript.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ChatMode, ModeChangedMessage, PlanApprovedMessage, PlanCommentsMessage, TaskListEditedMessage, TaskState } from "../messages";
import { approvablePlan } from "../../shared/plans";
import { MAX_PLAN_CHARS } from "../plans/propose-plan-tool";
import { currentMode } from "../../shared/chat-mode";
import type { ChatEvent } from "../../shared/protocol";
import { checkedEdit, currentTaskList, describeEdit, TODO_TOOL, type TaskItem } from "../../shared/task-list";

export interface PathStateKeeperDeps {
  messages(): readonly AgentMessage[];
  running(): boolean;
  /** Into the running reply, after its current tool calls: the model reads it with its next request. */
  steer(message: AgentMessage): void;
  append(message: AgentMessage): Promise<void>;
  emit(event: ChatEvent): void;
}

export class PathStateKeeper {
  /** The user's changes steered into a run, until the run delivers them. */
  private pendingTasks: TaskListEditedMessage | undefined;
  private pendingMode: ModeChangedMessage | undefined;
  private shownTasks: readonly TaskItem[];
  private shownMode: ChatMode;
  private shownPlanOffer: string | undefined;

  constructor(private readonly deps: PathStateKeeperDeps) {
    this.shownTasks = currentTaskList(deps.messages());
    this.shownMode = currentMode(deps.messages());
    this.shownPlanOffer = approvablePlan(deps.messages())?.toolCallId;
  }

  /**
   * The message that approves the plan of `toolCallId`, if it is the one the chat may approve now:
   * `text` is the plan as the user left it in its editor (absent: as proposed).
   */
  planApproval(toolCallId: string, text: string | undefined): PlanApprovedMessage | undefined {
    const offer = approvablePlan(this.deps.messages());
    if (!offer || offer.toolCallId !== toolCallId) return undefined;
    const plan = text !== undefined && text.trim() !== "" ? text.slice(0, MAX_PLAN_CHARS) : offer.plan;
    return { role: "planApproved", toolCallId, plan, edited: plan !== offer.plan, timestamp: Date.now() };
  }

  /**
   * The user's comments on the lines of the plan the chat may approve now, as the message the model
   * reads: each with its line's text from the plan itself (the view names only the line). Comments
   * on lines the plan does not have, or empty ones, are dropped; none left (or another plan): undefined.
   */
  planComments(toolCallId: string, comments: readonly { line: number; comment: string }[]): PlanCommentsMessage | undefined {
    const offer = approvablePlan(this.deps.messages());
    if (!offer || offer.toolCallId !== toolCallId) return undefined;
    const lines = offer.plan.split("\n");
    const kept = comments.flatMap((c) => {
      const lineText = Number.isInteger(c.line) ? lines[c.line - 1] : undefined;
      const comment = c.comment.trim();
      return lineText === undefined || comment === "" ? [] : [{ line: c.line, lineText, comment }];
    });
    if (kept.length === 0) return undefined;
    return { role: "planComments", toolCallId, comments: kept.sort((a, b) => a.line - b.line), timestamp: Date.now() };
  }

  /** The chat's mode now, a switch not yet delivered to the running reply included: the gates follow it at once. */
  mode(): ChatMode {
    return this.pendingMode?.mode ?? currentMode(this.deps.messages());
  }

  async setMode(mode: ChatMode): Promise<void> {
    if (mode === this.mode()) return;
    const message: ModeChangedMessage = { role: "modeChanged", mode, timestamp: Date.now() };
    if (!this.deps.running()) return this.deps.append(message);
    this.pendingMode = message;
    this.deps.steer(message);
    this.showMode(mode);
  }

  /** Only ids of the current list, each once (the view cannot add or rewrite items); false for anything else. */
  async editTasks(edit: readonly { id: string; state: TaskState }[]): Promise<boolean> {
    const current = this.pendingTasks?.items ?? currentTaskList(this.deps.messages());
    const items = checkedEdit(current, edit);
    if (!items) return false;
    const changes = describeEdit(current, items);
    if (changes.length === 0) return true;
    const message: TaskListEditedMessage = { role: "taskListEdited", items, changes, timestamp: Date.now() };
    if (!this.deps.running()) {
      await this.deps.append(message);
      return true;
    }
    this.pendingTasks = message;
    this.deps.steer(message);
    this.showTasks(items);
    return true;
  }

  /** Called with every event the session emits. */
  afterEvent(event: ChatEvent): void {
    // Any message ends a plan's offer (the user answered it); the look is at the path's end only.
    if (event.type === "message/end" || event.type === "branch/rewind" || event.type === "chat/runState") this.showPlanOffer();
    if (!changesPathState(event)) return;
    const messages = this.deps.messages();
    if (this.pendingTasks && messages.includes(this.pendingTasks)) this.pendingTasks = undefined;
    if (this.pendingMode && messages.includes(this.pendingMode)) this.pendingMode = undefined;
    this.showTasks(this.pendingTasks?.items ?? currentTaskList(messages));
    this.showMode(this.mode());
  }

  private showPlanOffer(): void {
    const offer = this.deps.running() ? undefined : approvablePlan(this.deps.messages())?.toolCallId;
    if (offer === this.shownPlanOffer) return;
    this.shownPlanOffer = offer;
    this.deps.emit({ type: "chat/planOffer", ...(offer !== undefined ? { toolCallId: offer } : {}) });
  }

  private showTasks(items: readonly TaskItem[]): void {
    if (sameTasks(items, this.shownTasks)) return;
    this.shownTasks = items;
    this.deps.emit({ type: "tasks/list", items: items.slice() });
  }

  private showMode(mode: ChatMode): void {
    if (mode === this.shownMode) return;
    this.shownMode = mode;
    this.deps.emit({ type: "chat/mode", mode });
  }
}

function changesPathState(event: ChatEvent): boolean {
  if (event.type === "branch/rewind" || (event.type === "chat/runState" && !event.running)) return true;
  if (event.type !== "message/end") return false;
  const m = event.message;
  return m.role === "taskListEdited" || m.role === "modeChanged" || m.role === "compactionSummary" || (m.role === "toolResult" && m.toolName === TODO_TOOL);
}

function sameTasks(a: readonly TaskItem[], b: readonly TaskItem[]): boolean {
  return a.length === b.length && a.every((item, i) => item.id === b[i]!.id && item.state === b[i]!.state && item.text === b[i]!.text);
}
