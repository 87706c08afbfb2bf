// A todo call in the chat: one quiet line where the model changed the task list ("Task list:
// 2 of 5 done · now: Write the tests"), the list as it was then one click away. The live list is
// the panel above the composer (webview/tasks/task-panel.tsx): one place updated in place, not a
// card per update.
import type { ToolItem } from "../../src/shared/chat-items";
import { parseTaskList, progressWords, stateWords } from "../../src/shared/task-list";
import { ChecklistIcon } from "../icons";

export function TaskListCard({ item }: { item: ToolItem }) {
  const tasks = parseTaskList((item.details as { items?: unknown } | undefined)?.items);
  if (!tasks) {
    const failed = item.status === "error";
    return (
      <div class="item task-line" data-item={item.id}>
        <ChecklistIcon /> {failed ? `The task list was not updated: ${item.resultText ?? ""}` : "Updating the task list…"}
      </div>
    );
  }
  const current = tasks.find((t) => t.state === "in_progress");
  return (
    <details class="item task-line" data-item={item.id}>
      <summary>
        <ChecklistIcon /> Task list: {progressWords(tasks)}
        {current ? ` · now: ${current.text}` : ""}
      </summary>
      <ol class="task-list">
        {tasks.map((t) => (
          <li key={t.id} class={`task task-${t.state}`}>
            {t.text} <span class="task-state">({stateWords(t.state)})</span>
          </li>
        ))}
      </ol>
    </details>
  );
}
