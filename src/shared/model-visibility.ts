// What the model receives of each message, and so of each chat item: decided once, here. The
// context policy's convertToLlm drops exactly the messages this calls "never" and passes through
// exactly those it calls "asShown" (test/unit/context/model-visibility.test.ts holds the two to
// each other, kind by kind, through pi-ai's own message transform); the reducer puts the same
// answer on each item, and the chat shows it quietly and in the item's accessible name.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { AppMessage, AppMessageRole } from "./app-messages";

/**
 * - asShown: the model gets the message as the chat shows it (a prompt, an answer, a tool call and result);
 * - otherForm: it gets a sentence or block standing for it (a plan as its approved text, a mode switch as a sentence);
 * - summarized: a compaction summary stands for it now (set on items by the compaction, not by the message);
 * - never: it is the user's only (`!!cmd`, notices, a failed or stopped answer).
 */
export type ModelVisibility = "asShown" | "otherForm" | "summarized" | "never";

/** One item's mark: which of the four, and how it reaches the model, in a few words. */
export interface ModelMark {
  visibility: ModelVisibility;
  /** Completes "Pi gets this …" / says why not: read in the item's accessible name. */
  how: string;
}

export const AS_SHOWN: ModelMark = { visibility: "asShown", how: "as shown" };
export const SUMMARIZED: ModelMark = { visibility: "summarized", how: "summarized: Pi gets the compaction summary instead" };

/** Each app-message kind: what the model reads of it (a message may narrow it: `!!cmd`, a mention's text). */
const APP_MESSAGE_MARKS: Readonly<Record<AppMessageRole, ModelMark>> = {
  approvalNotice: { visibility: "otherForm", how: "as a sentence stating your decision" },
  fileAttachment: { visibility: "otherForm", how: "as a reference it reads with its tools" },
  localNotice: { visibility: "never", how: "never: a notice is shown only to you" },
  compactionSummary: { visibility: "otherForm", how: "as the summary, your own words, the files and the task list" },
  bashExecution: { visibility: "otherForm", how: "as the command, how it ended and its output" },
  filesRestored: { visibility: "otherForm", how: "as a sentence saying what was put back, deleted and left" },
  answerContinued: { visibility: "otherForm", how: "as a sentence asking it to go on from where the answer stopped" },
  taskListEdited: { visibility: "otherForm", how: "as a sentence saying what you changed, with the whole list" },
  modeChanged: { visibility: "otherForm", how: "as a sentence saying what the mode allows" },
  planApproved: { visibility: "otherForm", how: "as the approved plan's text" },
  planComments: { visibility: "otherForm", how: "as each comment with the plan line it is on" },
};

const FAILED_ANSWER: ModelMark = { visibility: "never", how: "never: a failed or stopped answer is not sent back" };
const KEPT_COMMAND: ModelMark = { visibility: "never", how: "never: a !! command is kept from Pi" };
const CARRIED_MENTION: ModelMark = { visibility: "otherForm", how: "as what it carried when you sent it" };

/** Whether an app-message kind can reach the model at all (APP_MESSAGE_KINDS' includeInModelContext). */
export function kindReachesModel(role: AppMessageRole): boolean {
  return APP_MESSAGE_MARKS[role].visibility !== "never";
}

/** What the model receives of one message. The system prompt and tool results pass as they are. */
export function messageModelMark(message: AgentMessage): ModelMark {
  switch (message.role) {
    case "user":
    case "system":
    case "toolResult":
      return AS_SHOWN;
    case "assistant":
      // pi-ai's message transform leaves them out of every request, whatever the provider.
      return message.stopReason === "error" || message.stopReason === "aborted" ? FAILED_ANSWER : AS_SHOWN;
    default:
      return appMessageMark(message);
  }
}

function appMessageMark(message: AppMessage): ModelMark {
  const mark = APP_MESSAGE_MARKS[message.role] as ModelMark | undefined;
  // An unknown role (a newer or damaged transcript) is dropped by convertToLlm.
  if (mark === undefined) return { visibility: "never", how: "never: Pi Chat does not know this kind of message" };
  if (message.role === "bashExecution" && message.excludeFromContext !== false) return KEPT_COMMAND;
  if (message.role === "fileAttachment" && (message.mention === "problems" || message.mention === "changes" || message.mention === "terminal"))
    return CARRIED_MENTION;
  return mark;
}

/** An item's mark as the chat shows it: a summary standing for it wins over what its message was. */
export function itemModelMark(item: { summarized?: boolean; modelMark?: ModelMark }): ModelMark {
  if (item.summarized) return SUMMARIZED;
  return item.modelMark ?? AS_SHOWN;
}

/** The words of the mark, for the item's accessible name ("Pi gets this as shown"). */
export function modelMarkLabel(mark: ModelMark): string {
  if (mark.visibility === "never") return `Not sent to Pi${mark.how.replace(/^never/, "")}`;
  if (mark.visibility === "summarized") return "Summarized: Pi gets the compaction summary instead";
  return `Pi gets this ${mark.how}`;
}
