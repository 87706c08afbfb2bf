// todo: the model writes the chat's task list, whole, each time it changes (Roo's
// update_todo_list, Copilot's todo tool). The list is in the tool result's `details` for the
// view and in its text for the model; the user's ticks, reorders and deletions come back to the
// model as a `taskListEdited` message (the session's editTaskList). It only changes the list: no
// gate, and in plan mode too.
import type { AgentMessage, AgentTool, AgentToolResult } from "@earendil-works/pi-agent-core";
import { arr, obj, oneOf, str, type Static } from "@earendil-works/pi-schema";
import {
  currentTaskList,
  listFromTool,
  MAX_TASK_TEXT,
  MAX_TASKS,
  progressWords,
  TASK_STATES,
  taskListText,
  TODO_TOOL,
  type TaskItem,
} from "../../shared/task-list";

export const todoParameters = obj({
  items: arr(
    obj({
      text: str({ minLength: 1, maxLength: 1000, description: `The task, one short line (up to ${MAX_TASK_TEXT} characters are kept).` }),
      state: oneOf(TASK_STATES, { description: "pending, in_progress (one at a time), done, or blocked" }),
    }),
    { maxItems: MAX_TASKS, description: "The whole task list, in order: every item, not only the changed ones." },
  ),
});

export type TodoParams = Static<typeof todoParameters>;

export interface TodoDetails {
  items: TaskItem[];
}

export function createTodoTool(transcript: () => readonly AgentMessage[]): AgentTool<typeof todoParameters, TodoDetails> {
  return {
    name: TODO_TOOL,
    label: "Task list",
    description:
      "Keep a task list the user watches: for work of three or more steps, write the whole list (every item with its state) " +
      "at the start, and again whenever an item starts, ends or is blocked. Keep one item in_progress at a time. " +
      "The user can tick, reorder or delete items; you are told when they do.",
    parameters: todoParameters,
    async execute(_toolCallId, params): Promise<AgentToolResult<TodoDetails>> {
      const items = listFromTool(params.items, currentTaskList(transcript()));
      return {
        content: [{ type: "text", text: `Task list updated (${progressWords(items)}):\n${taskListText(items)}` }],
        details: { items },
      };
    },
  };
}
