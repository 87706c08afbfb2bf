// What one AgentMessage looks like in the chat: its item (user, assistant, summary, notice,
// attachment, command…), the marks a restore note leaves, and where a user turn begins. Pure;
// used by the live reducer and by the one-pass transcript rebuild alike.
import { imageRefs } from "./images";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { AssistantMessage, UserMessage } from "@earendil-works/pi-ai";
import { isFixCommandId, type ChatMode } from "./app-messages"; // also: the app message kinds in AgentMessage
import type { AssistantBlock, AssistantItem, ChatItem } from "./chat-items";
import type { RestoreMarks } from "./reducer-rewind";
import { messageModelMark } from "./model-visibility";

/** The note in the chat where the user asked the model to continue an answer cut at the token limit. */
export const ANSWER_CONTINUED_TEXT = "Continued the answer that was cut at the token limit.";

/** The chat's divider where the user switched modes. */
export const MODE_TEXT: Readonly<Record<ChatMode, string>> = {
  plan: "Plan mode: Pi reads and plans, and changes nothing until you approve a plan.",
  act: "Act mode: Pi may edit files and run commands again, asking as your settings say.",
};

/** The chat's line for the user's change to the task list. */
export function taskListEditedText(changes: readonly string[]): string {
  return `You changed the task list: ${changes.length > 0 ? changes.join("; ") : "no change"}.`;
}

/** The chat's note where the user sent their comments on the plan. */
export function planCommentsText(count: number): string {
  return `You asked Pi to revise the plan: ${count} ${count === 1 ? "comment" : "comments"} on its lines.`;
}

/** The comments under that note, each after its line. */
export function planCommentsDetail(comments: readonly { line: number; lineText: string; comment: string }[]): string {
  return comments.map((c) => `Line ${c.line}: ${c.lineText}\n→ ${c.comment}`).join("\n\n");
}

/** A user turn begins with its attachments; keep those together with the user message that follows. */
export function startsUserTurn(live: readonly ChatItem[], message: AgentMessage): boolean {
  if (message.role === "bashExecution") return true;
  if (message.role !== "user" && message.role !== "fileAttachment") return false;
  const last = live[live.length - 1];
  return last === undefined || last.kind !== "attachment";
}

/** The item of one message, marked with what the model receives of it when that is not the item as shown. */
export function itemForMessage(id: string, message: AgentMessage, open: boolean): ChatItem | null {
  const item = baseItemForMessage(id, message, open);
  if (item === null) return null;
  const mark = messageModelMark(message);
  return mark.visibility === "asShown" ? item : { ...item, modelMark: mark };
}

// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one case per message role, each building its item
function baseItemForMessage(id: string, message: AgentMessage, open: boolean): ChatItem | null {
  switch (message.role) {
    case "user": {
      const item: ChatItem = { kind: "user", id, text: userText(message), timestamp: message.timestamp };
      const images = imageRefs(message);
      if (images.length > 0) item.images = images;
      return item;
    }
    case "assistant":
      return {
        kind: "assistant",
        id,
        blocks: assistantBlocks(message),
        isStreaming: true,
        model: message.model,
        timestamp: message.timestamp,
      };
    case "fileAttachment":
      return {
        kind: "attachment",
        id,
        path: message.path,
        ...(message.range ? { range: { ...message.range } } : {}),
        ...(message.mention ? { mention: message.mention } : {}),
        ...(message.note ? { note: message.note } : {}),
      };
    case "bashExecution":
      return {
        kind: "userCommand",
        id,
        command: message.command,
        // Live, message_start carries the message before it ran; message_end the final one.
        running: open,
        output: message.output,
        exitCode: message.exitCode,
        cancelled: message.cancelled,
        truncated: message.truncated,
        excludeFromContext: message.excludeFromContext !== false,
        ...(message.durationMs !== undefined ? { durationMs: message.durationMs } : {}),
        ...(message.logFile !== undefined ? { logFile: message.logFile } : {}),
        ...(message.via !== undefined ? { via: message.via } : {}),
        ...(message.cwd !== undefined ? { cwd: message.cwd } : {}),
      };
    case "filesRestored":
      // Shown as an info notice: what the restore put back, deleted and left.
      return {
        kind: "notice",
        id,
        level: "info",
        text: filesRestoredText(message),
        ...(!message.redo && typeof message.redoMarkId === "string" ? { redo: { markId: message.redoMarkId, state: "offered" as const } } : {}),
      };
    case "answerContinued":
      // The cut answer's card said why it stopped; this note says the next answer goes on with it.
      return { kind: "notice", id, level: "info", text: ANSWER_CONTINUED_TEXT };
    case "planApproved":
      // The user's answer to the plan's card: the card above keeps the plan, this line says it was taken.
      return message.edited
        ? { kind: "notice", id, level: "info", text: "You approved the plan with your edits: Pi carries out the plan as you left it.", detail: message.plan }
        : { kind: "notice", id, level: "info", text: "You approved the plan: Pi carries it out." };
    case "planComments":
      // The user's answer to the plan's card: the card above keeps the plan, this note the comments.
      return { kind: "notice", id, level: "info", text: planCommentsText(message.comments.length), detail: planCommentsDetail(message.comments) };
    case "modeChanged":
      // A divider: from here on the chat plans, or acts.
      return { kind: "notice", id, level: "info", text: MODE_TEXT[message.mode] ?? MODE_TEXT.act };
    case "taskListEdited":
      // A quiet line where the user changed the list; the panel above the composer shows the list.
      return { kind: "notice", id, level: "info", text: taskListEditedText(message.changes) };
    case "localNotice":
      return {
        kind: "notice",
        id,
        level: message.level,
        text: message.text,
        ...(message.fix !== undefined ? { fix: message.fix } : {}),
        ...(isFixCommandId(message.fixCommand) ? { fixCommand: message.fixCommand } : {}),
        ...(Array.isArray(message.moreFixCommands) && message.moreFixCommands.some(isFixCommandId)
          ? { moreFixCommands: message.moreFixCommands.filter(isFixCommandId) }
          : {}),
        ...(typeof message.detail === "string" && message.detail !== "" ? { detail: message.detail } : {}),
      };
    case "compactionSummary":
      return {
        kind: "summary",
        id,
        state: "done",
        trigger: message.trigger,
        summary: message.summary,
        tokensBefore: message.tokensBefore,
        tokensAfter: message.tokensAfter,
        summarizedMessageCount: message.summarizedMessageCount,
        readFiles: Array.isArray(message.readFiles) ? message.readFiles : [],
        modifiedFiles: Array.isArray(message.modifiedFiles) ? message.modifiedFiles : [],
        ...(message.instructions ? { instructions: message.instructions } : {}),
        ...(message.usage && message.usage.cost > 0 ? { cost: message.usage.cost } : {}),
      };
    // The system prompt, tool results and approval notices are not items of their own.
    case "system":
    case "toolResult":
    case "approvalNotice":
      return null;
  }
}

/** What a restore's note marks on the items before it (reducer-rewind.ts). */
export function restoreMarks(message: Extract<AgentMessage, { role: "filesRestored" }>): RestoreMarks {
  return {
    redo: message.redo,
    ...(typeof message.redoMarkId === "string" ? { redoMarkId: message.redoMarkId } : {}),
    ...(typeof message.messageIndex === "number" ? { messageIndex: message.messageIndex } : {}),
    paths: [...message.restored, ...message.deleted],
  };
}

/** The line a restore leaves in the chat. */
export function filesRestoredText(message: Extract<AgentMessage, { role: "filesRestored" }>): string {
  const what = message.redo
    ? `Redid the changes undone by the restore to message ${message.messageNumber}`
    : `Files restored to before message ${message.messageNumber}`;
  const n = (count: number, one: string) => `${count} ${one}${count === 1 ? "" : "s"}`;
  const parts = [`${n(message.restored.length, "file")} put back`, `${n(message.deleted.length, "file")} deleted`];
  if (message.skipped.length > 0)
    parts.push(`${n(message.skipped.length, "file")} skipped (${message.skipped.map((s) => `${s.path}: ${s.reason}`).join("; ")})`);
  return `${what}: ${parts.join(", ")}.`;
}

function userText(message: UserMessage): string {
  const content = message.content;
  if (typeof content === "string") return content;
  // One text block (nearly every prompt) needs no map and join.
  if (content.length === 1 && content[0]!.type === "text") return content[0]!.text;
  // Images with a blob are shown as thumbnails; one without (an old transcript) is named.
  return content.flatMap((c) => (c.type === "text" ? [c.text] : imageRefs({ ...message, content: [c] }).length > 0 ? [] : ["[image]"])).join("\n");
}

function assistantBlocks(message: AssistantMessage, streamed?: readonly AssistantBlock[], elided?: readonly number[]): AssistantBlock[] {
  const blocks: AssistantBlock[] = [];
  const content = message.content;
  for (let index = 0; index < content.length; index++) {
    const block = content[index]!;
    if (block.type === "toolCall") continue;
    const fromStream = elided?.includes(index) ? streamed?.find((b) => b.index === index)?.text : undefined;
    if (block.type === "text") blocks.push({ index, type: "text", text: fromStream ?? block.text });
    else {
      const thinking: AssistantBlock = { index, type: "thinking", text: fromStream ?? block.thinking };
      if (block.redacted) thinking.redacted = true;
      blocks.push(thinking);
    }
  }
  return blocks;
}

/** The answer's card once it is whole; `streamed` gives the text of blocks the live stream elided. */
export function finalAssistant(
  id: string,
  streamed: readonly AssistantBlock[],
  message: AssistantMessage,
  elided: readonly number[] | undefined,
): AssistantItem {
  const final: AssistantItem = {
    kind: "assistant",
    id,
    blocks: assistantBlocks(message, streamed, elided),
    isStreaming: false,
    stopReason: message.stopReason,
    model: message.model,
    timestamp: message.timestamp,
  };
  if (message.errorMessage !== undefined) final.errorMessage = message.errorMessage;
  const mark = messageModelMark(message);
  if (mark.visibility !== "asShown") final.modelMark = mark;
  return final;
}
