// One sample of each app-message kind, and the short chat they come after: shared by the tests
// that hold every kind to its steps (app-message-kinds) and to its model mark (model-visibility).
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { AppMessage, AppMessageRole } from "../../../src/core/messages";

/** One sample of each kind; the type makes a new kind without a sample fail to compile. */
export const SAMPLES: { [K in AppMessageRole]: Extract<AppMessage, { role: K }> } = {
  // A denial: an allowed call reads as its tool's line in Markdown (only a denial is written there).
  approvalNotice: {
    role: "approvalNotice",
    toolCallId: "call_1",
    toolName: "edit_file",
    decision: "denied",
    reason: "Not now",
    path: "src/a.ts",
    timestamp: 4,
  },
  fileAttachment: { role: "fileAttachment", path: "src/a.ts", range: { startLine: 1, endLine: 2 }, timestamp: 4 },
  localNotice: { role: "localNotice", level: "info", text: "Only for the user.", timestamp: 4 },
  compactionSummary: {
    role: "compactionSummary",
    summary: "## Goal\nThe port.",
    keptMessageCount: 0,
    summarizedMessageCount: 3,
    tokensBefore: 900,
    tokensAfter: 100,
    readFiles: [],
    modifiedFiles: ["src/a.ts"],
    trigger: "manual",
    timestamp: 4,
  },
  bashExecution: {
    role: "bashExecution",
    command: "echo hi",
    output: "hi",
    exitCode: 0,
    cancelled: false,
    truncated: false,
    excludeFromContext: false,
    timestamp: 4,
  },
  filesRestored: {
    role: "filesRestored",
    messageNumber: 1,
    messageText: "Change it",
    redo: false,
    restored: ["src/a.ts"],
    deleted: [],
    skipped: [],
    timestamp: 4,
  },
  answerContinued: { role: "answerContinued", reason: "length", timestamp: 4 },
  modeChanged: { role: "modeChanged", mode: "plan", timestamp: 4 },
  planComments: {
    role: "planComments",
    toolCallId: "call_plan",
    comments: [{ line: 2, lineText: "Fix it.", comment: "Say which file." }],
    timestamp: 4,
  },
  planApproved: { role: "planApproved", toolCallId: "call_plan", plan: "## Goal\nFix it.", edited: true, timestamp: 4 },
  taskListEdited: {
    role: "taskListEdited",
    items: [{ id: "t1", text: "Write the test", state: "done" }],
    changes: ['marked "Write the test" done'],
    timestamp: 4,
  },
};

/** A short chat the sample comes after: a prompt, an edit_file call and its result. */
export const BASE: AgentMessage[] = [
  { role: "user", content: "Change it", timestamp: 1 },
  {
    role: "assistant",
    content: [{ type: "toolCall", id: "call_1", name: "edit_file", arguments: { path: "src/a.ts", oldText: "1", newText: "2" } }],
    api: "openai-completions",
    provider: "test",
    model: "test",
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "toolUse",
    timestamp: 2,
  },
  { role: "toolResult", toolCallId: "call_1", toolName: "edit_file", content: [{ type: "text", text: "Edited." }], isError: false, timestamp: 3 },
];
