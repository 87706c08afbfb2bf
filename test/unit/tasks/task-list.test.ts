// The task list as data: what the model's todo calls and the user's edits make of it, what the
// model reads of each (convertToLlm), and that a compaction keeps the list verbatim.
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ToolResultMessage } from "@earendil-works/pi-ai";
import { convertToLlm } from "../../../src/core/context-policy";
import { compactionSummaryFact } from "../../../src/core/context/app-message-facts";
import { createTodoTool } from "../../../src/core/tasks/todo-tool";
import type { CompactionSummaryMessage, TaskListEditedMessage } from "../../../src/core/messages";
import { checkedEdit, currentTaskList, describeEdit, listFromTool, oneLine, taskListText, type TaskItem } from "../../../src/shared/task-list";

const LIST: TaskItem[] = [
  { id: "t1", text: "Read the parser", state: "done" },
  { id: "t2", text: "Write the test", state: "in_progress" },
  { id: "t3", text: "Fix the bug", state: "pending" },
];

function todoResult(id: string, items: TaskItem[], isError = false): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: id,
    toolName: "todo",
    content: [{ type: "text", text: "ok" }],
    details: { items } as unknown as ToolResultMessage["details"],
    isError,
    timestamp: 1,
  };
}

describe("the task list", () => {
  it("the model's list keeps each item's id while only its state changes, and gives new items new ids", () => {
    const next = listFromTool(
      [
        { text: "Read the parser", state: "done" },
        { text: "Write the test", state: "done" },
        { text: "Run the suite", state: "in_progress" },
        { text: "Fix the bug", state: "pending" },
      ],
      LIST,
    );
    assert.deepEqual(
      next.map((t) => t.id),
      ["t1", "t2", "t4", "t3"],
    );
    assert.equal(new Set(next.map((t) => t.id)).size, 4);
  });

  it("an item is one short line: control characters become spaces, long text is cut", () => {
    assert.equal(oneLine("a\nb\u0007c"), "a b c");
    assert.equal(oneLine("x".repeat(500)).length, 200);
  });

  it("the current list is the newest todo that succeeded or user edit, else a summary's kept list", () => {
    const edited: TaskListEditedMessage = { role: "taskListEdited", items: [LIST[0]!], changes: ['deleted "Write the test"'], timestamp: 2 };
    const summary = { role: "compactionSummary", summary: "s", taskList: [LIST[2]!] } as unknown as CompactionSummaryMessage;
    assert.deepEqual(currentTaskList([]), []);
    assert.deepEqual(currentTaskList([todoResult("a", LIST)]), LIST);
    assert.deepEqual(currentTaskList([todoResult("a", LIST), todoResult("b", [LIST[1]!], true)]), LIST, "a failed call changes nothing");
    assert.deepEqual(currentTaskList([todoResult("a", LIST), edited]), [LIST[0]]);
    assert.deepEqual(currentTaskList([summary]), [LIST[2]]);
    assert.deepEqual(currentTaskList([summary, todoResult("a", LIST)]), LIST);
    // A damaged saved list is not a list.
    assert.deepEqual(currentTaskList([todoResult("a", [{ id: 1 } as unknown as TaskItem])]), []);
  });

  it("the user's edit may only tick, move and delete items of the current list", () => {
    assert.deepEqual(
      checkedEdit(LIST, [
        { id: "t3", state: "done" },
        { id: "t1", state: "done" },
      ]),
      [{ ...LIST[2]!, state: "done" }, LIST[0]],
    );
    assert.equal(checkedEdit(LIST, [{ id: "t9", state: "done" }]), undefined, "an id the list does not have");
    assert.equal(
      checkedEdit(LIST, [
        { id: "t1", state: "done" },
        { id: "t1", state: "done" },
      ]),
      undefined,
      "an id twice",
    );
    assert.equal(checkedEdit(LIST, [{ id: "t1", state: "finished" as "done" }]), undefined, "a state that is none");
  });

  it("says what the user changed, in words", () => {
    const after = checkedEdit(LIST, [
      { id: "t2", state: "done" },
      { id: "t1", state: "done" },
    ])!;
    assert.deepEqual(describeEdit(LIST, after), ['marked "Write the test" done', 'deleted "Fix the bug"', "reordered the list"]);
    assert.deepEqual(describeEdit(LIST, LIST), []);
  });

  it("the model reads the user's edit as what changed and the whole list; nothing of it is left out", () => {
    const edited: TaskListEditedMessage = {
      role: "taskListEdited",
      items: [{ ...LIST[1]!, state: "done" }, LIST[2]!],
      changes: ['marked "Write the test" done', 'deleted "Read the parser"'],
      timestamp: 3,
    };
    const [sent] = convertToLlm([edited as AgentMessage]);
    assert.equal(sent?.role, "user");
    const text = String(sent?.content);
    assert.match(text, /The user changed the task list: marked "Write the test" done; deleted "Read the parser"\./);
    assert.match(text, /<task-list>\n1\. \[x\] Write the test \(done\)\n2\. \[ \] Fix the bug \(pending\)\n<\/task-list>/);
  });

  it("a summary keeps the task list verbatim beside it", () => {
    const summary = {
      role: "compactionSummary",
      summary: "## Goal\nFix it.",
      readFiles: [],
      modifiedFiles: [],
      taskList: LIST,
    } as unknown as CompactionSummaryMessage;
    const fact = compactionSummaryFact(summary);
    assert.ok(fact.includes(`<task-list>\nThe current task list:\n${taskListText(LIST)}\n</task-list>`));
    const none = compactionSummaryFact({ ...summary, taskList: undefined } as unknown as CompactionSummaryMessage);
    assert.doesNotMatch(none, /task-list/);
  });

  it("the todo tool returns the list to the model and to the view, ids kept from the transcript", async () => {
    const tool = createTodoTool(() => [todoResult("a", LIST)]);
    const result = await tool.execute("call_1", {
      items: [
        { text: "Read the parser", state: "done" },
        { text: "Write the test", state: "done" },
      ],
    });
    assert.deepEqual(
      result.details.items.map((t) => t.id),
      ["t1", "t2"],
    );
    const text = result.content[0]?.type === "text" ? result.content[0].text : "";
    assert.match(text, /^Task list updated \(2 of 2 done\):\n1\. \[x\] Read the parser \(done\)\n2\. \[x\] Write the test \(done\)$/);
  });
});
