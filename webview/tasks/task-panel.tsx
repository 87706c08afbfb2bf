// The chat's task list, pinned above the composer while a run goes on or items are left undone:
// the model writes it (todo), the user ticks, moves and deletes items here. Each change is sent
// as the whole list (`tasks/edit`); the host saves it as a message the model reads with its next
// request, and the list shown is always the host's (`tasks/list`), so nothing here is kept apart.
import { useState } from "preact/hooks";
import type { TaskItem, TaskState } from "../../src/shared/app-messages";
import { progressWords, stateWords } from "../../src/shared/task-list";
import { announce } from "../live-region";
import { ArrowDownIcon, ArrowUpIcon, ChecklistIcon, ChevronDownIcon, ChevronRightIcon, TrashIcon } from "../icons";
import { post } from "../vscode-api";

/** Shown while the chat runs, or while any item is not done: a finished list steps aside. */
export function showsTaskPanel(tasks: readonly TaskItem[] | undefined, running: boolean): tasks is readonly TaskItem[] {
  return tasks !== undefined && tasks.length > 0 && (running || tasks.some((t) => t.state !== "done"));
}

function send(items: readonly TaskItem[]): void {
  post({ type: "tasks/edit", items: items.map(({ id, state }) => ({ id, state })) });
}

export function TaskPanel({ tasks, readOnly }: { tasks: readonly TaskItem[]; readOnly: boolean }) {
  const [open, setOpen] = useState(true);
  const progress = progressWords(tasks);
  const current = tasks.find((t) => t.state === "in_progress");
  const setState = (item: TaskItem, state: TaskState) => {
    send(tasks.map((t) => (t.id === item.id ? { ...t, state } : t)));
    announce(`"${item.text}" marked ${stateWords(state)}`);
  };
  const move = (index: number, by: -1 | 1) => {
    const next = tasks.slice();
    const [item] = next.splice(index, 1);
    next.splice(index + by, 0, item!);
    send(next);
    announce(`"${item!.text}" moved ${by < 0 ? "up" : "down"}, now ${index + by + 1} of ${tasks.length}`);
  };
  const remove = (item: TaskItem) => {
    send(tasks.filter((t) => t.id !== item.id));
    announce(`"${item.text}" deleted from the task list`);
  };
  return (
    <section class="task-panel" aria-label={`Task list, ${progress}`}>
      <button type="button" class="task-panel-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? <ChevronDownIcon /> : <ChevronRightIcon />}
        <ChecklistIcon />
        <span class="grow">
          Tasks · {progress}
          {!open && current ? ` · ${current.text}` : ""}
        </span>
      </button>
      {open && (
        <ol class="task-list">
          {tasks.map((item, index) => (
            <li key={item.id} class={`task task-${item.state}`} data-task={item.id}>
              <input
                type="checkbox"
                id={`task-${item.id}`}
                checked={item.state === "done"}
                disabled={readOnly}
                aria-describedby={`task-state-${item.id}`}
                onChange={() => setState(item, item.state === "done" ? "pending" : "done")}
              />
              <label for={`task-${item.id}`} class="task-text">
                {item.text}
              </label>
              <span id={`task-state-${item.id}`} class="task-state">
                {item.state === "done" ? "" : stateWords(item.state)}
              </span>
              {!readOnly && (
                <span class="task-actions">
                  <button
                    type="button"
                    class="icon-button"
                    aria-label={`Move "${item.text}" up`}
                    title="Move up"
                    disabled={index === 0}
                    onClick={() => move(index, -1)}
                  >
                    <ArrowUpIcon />
                  </button>
                  <button
                    type="button"
                    class="icon-button"
                    aria-label={`Move "${item.text}" down`}
                    title="Move down"
                    disabled={index === tasks.length - 1}
                    onClick={() => move(index, 1)}
                  >
                    <ArrowDownIcon />
                  </button>
                  <button type="button" class="icon-button" aria-label={`Delete "${item.text}"`} title="Delete" onClick={() => remove(item)}>
                    <TrashIcon />
                  </button>
                </span>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
