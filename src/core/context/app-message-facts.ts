// What each app message states to the model: the one sentence (or block) convertToLlm puts in a
// user message for it. Pure text from the message; shared by the context policy, the token
// estimate and the "what the model sees" document, so all three count the same words.
import type {
  AppMessage,
  BashExecutionMessage,
  CompactionSummaryMessage,
  FileAttachmentMessage,
  FilesRestoredMessage,
  TaskListEditedMessage,
  ChatMode,
  PlanApprovedMessage,
  PlanCommentsMessage,
} from "../messages";
import { oneLine, taskListText } from "../../shared/task-list";
import { hunkNames } from "../../shared/partial-patch";

/** The business fact an app message states to the model, or null if it states none. */
export function appMessageFact(message: AppMessage): string | null {
  switch (message.role) {
    case "approvalNotice": {
      const target = message.path ? ` on ${message.path}` : message.command !== undefined ? ` (\`${message.command}\` in ${message.cwd ?? "."})` : "";
      if (message.decision === "denied") {
        const reason = message.reason?.trim() ? ` The user's reason: "${message.reason.trim()}".` : "";
        const nothing = message.command !== undefined || message.mcp !== undefined ? "Nothing ran." : "Nothing was changed.";
        return `[The user denied the ${message.toolName} call ${message.toolCallId}${target}. ${nothing}${reason} Do not retry it unless the user asks.]`;
      }
      if (Array.isArray(message.rejectedHunks) && message.rejectedHunks.length > 0) {
        // Part of an edit: its tool result shows the rejected hunks; the fact keeps them named for later turns.
        const reason = message.reason?.trim() ? ` The user's reason: "${message.reason.trim()}".` : "";
        return `[The user allowed only part of the ${message.toolName} call ${message.toolCallId}${target}: ${hunkNames(message.rejectedHunks)} of the proposed diff rejected and not written.${reason}]`;
      }
      return `[The user allowed the ${message.toolName} call ${message.toolCallId}${target}.]`;
    }
    case "fileAttachment":
      return fileAttachmentFact(message);
    case "localNotice":
      return null;
    case "filesRestored":
      return filesRestoredFact(message);
    case "bashExecution":
      return bashExecutionFact(message);
    case "compactionSummary":
      return compactionSummaryFact(message);
    case "answerContinued":
      return ANSWER_CONTINUED_FACT;
    case "taskListEdited":
      return taskListEditedFact(message);
    case "modeChanged":
      return MODE_FACTS[message.mode] ?? null;
    case "planApproved":
      return planApprovedFact(message);
    case "planComments":
      return planCommentsFact(message);
  }
}

/** The approved plan as the model reads it: the user's own text when they edited it. */
export function planApprovedFact(message: PlanApprovedMessage): string {
  const how = message.edited ? "after editing it: follow the text below, not the plan as you proposed it" : "as you proposed it";
  return `[The user approved the plan ${how}. The chat is in act mode: carry it out step by step, keeping the task list (todo) up to date.]\n<plan>\n${message.plan}\n</plan>`;
}

/** The user's comments on the plan, as the model reads them: each with the line it is on, then what to do. */
export function planCommentsFact(message: PlanCommentsMessage): string {
  const comments = message.comments.map((c) => `Line ${c.line}: ${oneLine(c.lineText)}\nComment: ${c.comment.trim()}`).join("\n\n");
  return `[The user commented on your plan line by line and asks you to revise it. Still plan mode: change nothing; address each comment, then propose the revised plan with propose_plan.]\n<plan-comments>\n${comments}\n</plan-comments>`;
}

/** What the model reads when the user switches modes (the run's tools follow: plan mode offers only reading and discovery). */
export const MODE_FACTS: Readonly<Record<ChatMode, string>> = {
  plan: "[The user switched to plan mode. Explore and read only: no edits, no commands, no MCP tools (they are not offered, and a call is refused). When you know enough, write the plan with propose_plan: the goal, the steps, the files, the risks. The user approves it before anything changes.]",
  act: "[The user switched to act mode: you may edit files and run commands again (each still asks the user as before).]",
};

/** The user's change to the task list, as the model reads it: what changed, then the whole list. */
export function taskListEditedFact(message: TaskListEditedMessage): string {
  const changes = message.changes.length > 0 ? message.changes.map(oneLine).join("; ") : "no change";
  return `[The user changed the task list: ${changes}. Follow the list as it is now; do not bring back what the user deleted.]\n<task-list>\n${taskListText(message.items)}\n</task-list>`;
}

/** What the model reads when the user asks it to go on with an answer cut at the output token limit. */
export const ANSWER_CONTINUED_FACT =
  "[Your previous answer was cut off: it reached the output token limit of the request. The user asked you to continue it: go on from exactly where it stopped, without repeating what you already wrote.]";

/** A restore, as the model reads it: which message, what changed on disk, what was left. */
export function filesRestoredFact(message: FilesRestoredMessage): string {
  const which = `message ${message.messageNumber} ("${message.messageText}")`;
  const head = message.redo
    ? `[The user undid a restore of the workspace files: the files are back as they were before that restore (the one to ${which}).`
    : `[The user restored the workspace files to how they were before ${which}: changes made to files after that message were undone on disk; the conversation itself was not changed.`;
  const list = (label: string, paths: readonly string[]) => (paths.length > 0 ? ` ${label}: ${paths.join(", ")}.` : "");
  const skipped = message.skipped.length > 0 ? ` Left as they are: ${message.skipped.map((s) => `${s.path} (${s.reason})`).join("; ")}.` : "";
  return `${head}${list("Put back", message.restored)}${list("Deleted (created after it)", message.deleted)}${skipped} Read a file again before editing it.]`;
}

/** A file, folder or `@` mention, as the model reads it: a reference to read, or the text it carried, with what was cut. */
export function fileAttachmentFact(message: FileAttachmentMessage): string {
  // A file name may hold a newline or brackets: quoted then, so it cannot end the fact and say more.
  if (/[\u0000-\u001f\u007f[\]]/.test(message.path)) message = { ...message, path: JSON.stringify(message.path) };
  const lines = message.range ? ` (lines ${message.range.startLine}-${message.range.endLine})` : "";
  const note = message.note ? ` ${message.note}` : "";
  const body = (tag: string) => `\n<${tag}>\n${message.text ?? ""}\n</${tag}>`;
  switch (message.mention) {
    case undefined:
      return `[The user attached the file ${message.path}${lines} to this message. Read it with read_file if you need its content.]`;
    case "selection":
      return `[The user mentioned their selection: ${message.path}${lines}. Read those lines with read_file if you need them.${note}]`;
    case "folder":
      return `[The user mentioned the folder ${message.path} in this message. List or read its files with the tools if you need them.]`;
    case "problems":
      return `[The user mentioned ${message.path === "@problems" ? "the workspace's" : `${message.path}'s`} problems (errors and warnings) as VS Code reported them when the message was sent.${note}]${body("problems")}`;
    case "changes":
      return `[The user mentioned the working tree's changes: the git diff against HEAD when the message was sent.${note}]${body("changes")}`;
    case "terminal":
      return `[The user mentioned the active terminal: its last command and output when the message was sent.${note}]${body("terminal")}`;
  }
}

/** A `!cmd` the user ran, as the model reads it: the command, how it ended, the output. */
export function bashExecutionFact(message: BashExecutionMessage): string {
  const ended = message.cancelled
    ? "It was stopped before it finished."
    : message.exitCode === null
      ? "It was ended by a signal."
      : `Exit code: ${message.exitCode}.`;
  const cut = message.truncated ? " (the middle of the output was cut)" : "";
  const output = message.output === "" ? "(no output)" : message.output;
  const where = message.cwd !== undefined && message.cwd !== "." ? `in the workspace folder ${message.cwd}` : "in the workspace folder";
  return `[The user ran this command ${where} themselves.]\n$ ${message.command}\n${ended}\nOutput${cut}:\n${output}`;
}

/** The user message the chat model gets in place of the summarized conversation. */
export function compactionSummaryFact(message: CompactionSummaryMessage): string {
  const files: string[] = [];
  if (message.readFiles?.length) files.push(`<read-files>\n${message.readFiles.join("\n")}\n</read-files>`);
  if (message.modifiedFiles?.length) files.push(`<modified-files>\n${message.modifiedFiles.join("\n")}\n</modified-files>`);
  const userWords = userWordsFact(message.userMessages);
  return [
    "[The earlier part of this conversation was compacted into the summary below to fit the context window. The messages after this one are verbatim.]",
    // The user's words first, as they were said first: the summary after them is the current state.
    ...(userWords === undefined ? [] : [userWords]),
    `<summary>\n${message.summary}\n</summary>`,
    ...files,
    // Verbatim, not summarized: the list the work follows (the todo calls may be in the summarized part).
    ...(Array.isArray(message.taskList) && message.taskList.length > 0
      ? [`<task-list>\nThe current task list:\n${taskListText(message.taskList)}\n</task-list>`]
      : []),
  ].join("\n\n");
}

/** The user's own words kept by a compaction (user-words.ts), as the model reads them, before the summary. */
export function userWordsFact(words: readonly string[] | undefined): string | undefined {
  if (!Array.isArray(words) || words.length === 0) return undefined;
  const quoted = words.map((w, i) => `${i + 1}. ${String(w)}`).join("\n\n");
  return `<user-messages>\nThe user's own messages from the summarized part, verbatim (the first one, then the newest). The goal, instructions and corrections in them still hold unless the user changed them later; the summary below gives the current state:\n\n${quoted}\n</user-messages>`;
}
