// The app messages Pi Chat adds to the agent transcript: which of them the user sees and which the
// model gets, decided once, here. They live in `agent.state.messages` and on disk beside the
// standard pi-ai messages; `convertToLlm` (context-policy.ts) alone turns them into what the model
// sees. Their shapes are declared in src/shared/app-messages.ts (the view reads them too): a new
// kind gets its interface and its `CustomAgentMessages` entry there, and its two flags below.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { AppMessage, AppMessageRole } from "../shared/app-messages";
import { kindReachesModel } from "../shared/model-visibility";

export type {
  AppMessage,
  AppMessageRole,
  AnswerContinuedMessage,
  ApprovalNoticeMessage,
  BashExecutionMessage,
  CompactionSummaryMessage,
  CompactionTrigger,
  FileAttachmentMessage,
  FilesRestoredMessage,
  LocalNoticeMessage,
  ChatMode,
  ModeChangedMessage,
  PlanApprovedMessage,
  PlanCommentsMessage,
  PlanLineComment,
  TaskItem,
  TaskListEditedMessage,
  TaskState,
} from "../shared/app-messages";

/**
 * Two separate questions per kind: does the user see it, does the model get it.
 * One boolean must never answer both. Whether the model gets a kind is read from its mark
 * (src/shared/model-visibility.ts), the one place convertToLlm and the chat's marks both follow.
 */
export const APP_MESSAGE_KINDS: Readonly<Record<AppMessageRole, { visibleInUI: boolean; includeInModelContext: boolean }>> = {
  approvalNotice: { visibleInUI: true, includeInModelContext: kindReachesModel("approvalNotice") },
  fileAttachment: { visibleInUI: true, includeInModelContext: kindReachesModel("fileAttachment") },
  localNotice: { visibleInUI: true, includeInModelContext: kindReachesModel("localNotice") },
  compactionSummary: { visibleInUI: true, includeInModelContext: kindReachesModel("compactionSummary") },
  // Per message, `excludeFromContext` (`!!cmd`) leaves it out as well: see convertToLlm.
  bashExecution: { visibleInUI: true, includeInModelContext: kindReachesModel("bashExecution") },
  filesRestored: { visibleInUI: true, includeInModelContext: kindReachesModel("filesRestored") },
  answerContinued: { visibleInUI: true, includeInModelContext: kindReachesModel("answerContinued") },
  // A quiet line in the chat; the model reads what changed and the list as it now is.
  taskListEdited: { visibleInUI: true, includeInModelContext: kindReachesModel("taskListEdited") },
  // A divider in the chat; the model reads what the mode allows from here on.
  modeChanged: { visibleInUI: true, includeInModelContext: kindReachesModel("modeChanged") },
  // The user's turn: the chat shows that they approved it; the model gets the approved text.
  planApproved: { visibleInUI: true, includeInModelContext: kindReachesModel("planApproved") },
  // The user's turn: the chat shows the comments; the model gets each with the line it is on.
  planComments: { visibleInUI: true, includeInModelContext: kindReachesModel("planComments") },
};

export function isAppMessage(message: AgentMessage): message is AppMessage {
  return Object.hasOwn(APP_MESSAGE_KINDS, message.role);
}
