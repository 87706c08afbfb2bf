// The chat's task list, as pure data: what the model's `todo` tool writes and the user ticks,
// reorders or deletes. The current list is never stored apart from the transcript: it is the
// newest of the `todo` calls that succeeded and the user's edits (`taskListEdited`) on the path,
// or, when both were summarized away, the list a compaction kept verbatim beside its summary.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { TaskItem, TaskState } from "./app-messages";

export type { TaskItem, TaskState };

export const TASK_STATES: readonly TaskState[] = ["pending", "in_progress", "done", "blocked"];
/** A list longer than this is a plan, not a task list: the tool refuses it and says so. */
export const MAX_TASKS = 30;
/** An item is a short line; longer text is cut with an ellipsis (the model is told). */
export const MAX_TASK_TEXT = 200;
export const TODO_TOOL = "todo";

export function isTaskState(value: unknown): value is TaskState {
  return typeof value === "string" && (TASK_STATES as readonly string[]).includes(value);
}

/** Checks a list read from a tool call, a saved chat or the view; undefined when it is not one. */
export function parseTaskList(value: unknown): TaskItem[] | undefined {
  if (!Array.isArray(value) || value.length > MAX_TASKS) return undefined;
  const items: TaskItem[] = [];
  for (const raw of value) {
    if (typeof raw !== "object" || raw === null) return undefined;
    const { id, text, state } = raw as Record<string, unknown>;
    if (typeof id !== "string" || typeof text !== "string" || !isTaskState(state)) return undefined;
    items.push({ id, text, state });
  }
  return items;
}

/**
 * The list the model wrote: its items in its order, each a one-line text (control characters
 * become spaces, long text is cut). Ids are given here, by position in the list and the text,
 * so an item keeps its id while the model only changes its state.
 */
export function listFromTool(items: readonly { text: string; state: TaskState }[], previous: readonly TaskItem[] = []): TaskItem[] {
  const used = new Set<string>();
  return items.map((item) => {
    const text = oneLine(item.text);
    const same = previous.find((p) => p.text === text && !used.has(p.id));
    const id = same?.id ?? freshId(previous, used);
    used.add(id);
    return { id, text, state: item.state };
  });
}

/** The next number after every id in use, so an id never comes back for another item while the list lasts. */
function freshId(previous: readonly TaskItem[], used: ReadonlySet<string>): string {
  let highest = 0;
  for (const id of [...previous.map((p) => p.id), ...used]) highest = Math.max(highest, Number(/^t(\d+)$/.exec(id)?.[1] ?? 0));
  return `t${highest + 1}`;
}

export function oneLine(text: string): string {
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return flat.length > MAX_TASK_TEXT ? `${flat.slice(0, MAX_TASK_TEXT - 1)}…` : flat;
}

/** The current task list on a chat's path: the newest todo call that succeeded or user edit, else a summary's kept list. */
export function currentTaskList(messages: readonly AgentMessage[]): TaskItem[] {
  const failed = new Set<string>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "toolResult" && m.toolName === TODO_TOOL && m.isError) failed.add(m.toolCallId);
    if (m.role === "taskListEdited") return m.items.slice();
    if (m.role === "compactionSummary" && Array.isArray(m.taskList)) return m.taskList.slice();
    if (m.role === "toolResult" && m.toolName === TODO_TOOL && !m.isError) {
      const list = parseTaskList((m.details as { items?: unknown } | undefined)?.items);
      if (list) return list;
    }
  }
  return [];
}

const MARK: Record<TaskState, string> = { pending: "[ ]", in_progress: "[~]", done: "[x]", blocked: "[!]" };
const STATE_WORDS: Record<TaskState, string> = { pending: "pending", in_progress: "in progress", done: "done", blocked: "blocked" };

export function stateWords(state: TaskState): string {
  return STATE_WORDS[state];
}

/** The list as the model reads it: one line an item, its state as a mark and a word. */
export function taskListText(items: readonly TaskItem[]): string {
  if (items.length === 0) return "(the task list is empty)";
  return items.map((item, i) => `${i + 1}. ${MARK[item.state]} ${item.text} (${STATE_WORDS[item.state]})`).join("\n");
}

/** "2 of 5 done" */
export function progressWords(items: readonly TaskItem[]): string {
  return `${items.filter((i) => i.state === "done").length} of ${items.length} done`;
}

/**
 * What the user changed, in sentences the model reads: states changed, items deleted, the order.
 * Only changes of the user's own making are possible from the view (no new text), so `after`
 * holds a subset of `before`'s ids.
 */
export function describeEdit(before: readonly TaskItem[], after: readonly TaskItem[]): string[] {
  const changes: string[] = [];
  const byId = new Map(before.map((item) => [item.id, item]));
  for (const item of after) {
    const old = byId.get(item.id);
    if (old && old.state !== item.state) changes.push(`marked "${item.text}" ${STATE_WORDS[item.state]}`);
  }
  const kept = new Set(after.map((i) => i.id));
  for (const item of before) if (!kept.has(item.id)) changes.push(`deleted "${item.text}"`);
  const oldOrder = before.filter((i) => kept.has(i.id)).map((i) => i.id);
  if (oldOrder.join("\n") !== after.map((i) => i.id).join("\n")) changes.push("reordered the list");
  return changes;
}

/**
 * The user's edit from the view, checked against the current list: only ids of the current list,
 * each once, texts as they are (the view cannot rewrite what the model wrote); undefined otherwise.
 */
export function checkedEdit(current: readonly TaskItem[], edit: readonly { id: string; state: TaskState }[]): TaskItem[] | undefined {
  const byId = new Map(current.map((item) => [item.id, item]));
  const seen = new Set<string>();
  const out: TaskItem[] = [];
  for (const e of edit) {
    const item = byId.get(e.id);
    if (!item || seen.has(e.id) || !isTaskState(e.state)) return undefined;
    seen.add(e.id);
    out.push({ ...item, state: e.state });
  }
  return out;
}
