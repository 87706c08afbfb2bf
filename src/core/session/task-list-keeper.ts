// The chat's task list for the session: the user's edits from the panel become a taskListEdited
// message (saved when idle, steered into a run otherwise), and the panel follows the transcript
// (`tasks/list`) whenever an event may have changed the list — a todo result, an edit, a summary,
// another branch — and only then, so a long chat's streamed tokens never read the transcript.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { TaskListEditedMessage, TaskState } from "../messages";
import type { ChatEvent } from "../../shared/protocol";
import { checkedEdit, currentTaskList, describeEdit, TODO_TOOL, type TaskItem } from "../../shared/task-list";

export interface TaskListKeeperDeps {
  messages(): readonly AgentMessage[];
  running(): boolean;
  /** Into the running reply, after its current tool calls: the model reads it with its next request. */
  steer(message: AgentMessage): void;
  append(message: AgentMessage): Promise<void>;
  emit(event: ChatEvent): void;
}

export class TaskListKeeper {
  /** The user's edit steered into a run, until the run delivers it. */
  private pending: TaskListEditedMessage | undefined;
  private shown: readonly TaskItem[];

  constructor(private readonly deps: TaskListKeeperDeps) {
    this.shown = currentTaskList(deps.messages());
  }

  /** Only ids of the current list, each once (the view cannot add or rewrite items); false for anything else. */
  async edit(edit: readonly { id: string; state: TaskState }[]): Promise<boolean> {
    const current = this.pending?.items ?? currentTaskList(this.deps.messages());
    const items = checkedEdit(current, edit);
    if (!items) return false;
    const changes = describeEdit(current, items);
    if (changes.length === 0) return true;
    const message: TaskListEditedMessage = { role: "taskListEdited", items, changes, timestamp: Date.now() };
    if (!this.deps.running()) {
      await this.deps.append(message);
      return true;
    }
    this.pending = message;
    this.deps.steer(message);
    this.show(items);
    return true;
  }

  /** Called with every event the session emits. */
  afterEvent(event: ChatEvent): void {
    if (!changesTaskList(event)) return;
    if (this.pending && this.deps.messages().includes(this.pending)) this.pending = undefined;
    this.show(this.pending?.items ?? currentTaskList(this.deps.messages()));
  }

  private show(items: readonly TaskItem[]): void {
    if (sameTasks(items, this.shown)) return;
    this.shown = items;
    this.deps.emit({ type: "tasks/list", items: items.slice() });
  }
}

function changesTaskList(event: ChatEvent): boolean {
  if (event.type === "branch/rewind" || (event.type === "chat/runState" && !event.running)) return true;
  if (event.type !== "message/end") return false;
  const m = event.message;
  return m.role === "taskListEdited" || m.role === "compactionSummary" || (m.role === "toolResult" && m.toolName === TODO_TOOL);
}

function sameTasks(a: readonly TaskItem[], b: readonly TaskItem[]): boolean {
  return a.length === b.length && a.every((item, i) => item.id === b[i]!.id && item.state === b[i]!.state && item.text === b[i]!.text);
}
