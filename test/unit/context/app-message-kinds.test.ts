// Every app-message kind (APP_MESSAGE_KINDS, src/core/messages.ts) goes all the way: a sample of
// each must yield a model fact (appMessageFact; only for a kind the model gets), an item
// (stateFromTranscript), a pi-session entry ("Continue in pi CLI") and a Markdown export line
// ("Export Chat to Markdown"). A new kind fails here, naming the step it is missing, until it
// has them all — or an exception below, with its reason.
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { appMessageFact } from "../../../src/core/context/app-message-facts";
import { APP_MESSAGE_KINDS, type AppMessage, type AppMessageRole } from "../../../src/core/messages";
import { exportPiSession } from "../../../src/core/pi-sessions";
import { chatToMarkdown } from "../../../src/shared/chat-markdown";
import { chatItems, stateFromTranscript } from "../../../src/shared/reducer";

type Step = "model fact" | "item" | "pi-session entry" | "Markdown line";

/** One sample of each kind; the type makes a new kind without a sample fail to compile. */
const SAMPLES: { [K in AppMessageRole]: Extract<AppMessage, { role: K }> } = {
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
  planApproved: { role: "planApproved", toolCallId: "call_plan", plan: "## Goal\nFix it.", edited: true, timestamp: 4 },
  taskListEdited: {
    role: "taskListEdited",
    items: [{ id: "t1", text: "Write the test", state: "done" }],
    changes: ['marked "Write the test" done'],
    timestamp: 4,
  },
};

/** Steps a kind skips on purpose, with the reason (the design's, docs/conversation-layers.md). */
const EXCEPTIONS: Partial<Record<AppMessageRole, Partial<Record<Step, string>>>> = {
  localNotice: { "model fact": "a notice is for the user only: includeInModelContext is false, convertToLlm drops it" },
};

/** A short chat the sample comes after: a prompt, an edit_file call and its result. */
const BASE: AgentMessage[] = [
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

function piEntries(messages: readonly AgentMessage[]): string[] {
  const nodes = messages.map((message, i) => ({ id: `n${i}`, parentId: i === 0 ? null : `n${i - 1}`, message }));
  const result = exportPiSession({ nodes, leafId: `n${messages.length - 1}`, title: "Kinds", cwd: "/work" }, { sessionId: "kinds", now: 10 });
  assert.ok(result.ok, result.ok ? "" : result.reason);
  return result.text.split("\n").filter((line) => line !== "");
}

function markdown(messages: readonly AgentMessage[]): string {
  return chatToMarkdown("Kinds", chatItems(stateFromTranscript(messages)));
}

/** Which steps a sample of `role` goes through. */
function stepsOf(role: AppMessageRole): Record<Step, boolean> {
  const sample = SAMPLES[role] as AppMessage;
  const withIt = [...BASE, sample];
  return {
    "model fact": appMessageFact(sample) !== null,
    item: JSON.stringify(chatItems(stateFromTranscript(withIt))) !== JSON.stringify(chatItems(stateFromTranscript(BASE))),
    "pi-session entry": piEntries(withIt).length > piEntries(BASE).length,
    "Markdown line": markdown(withIt) !== markdown(BASE),
  };
}

describe("app-message kinds: each has a model fact, an item, a pi-session entry and a Markdown line", () => {
  it("every kind of APP_MESSAGE_KINDS has a sample here", () => {
    assert.deepEqual(Object.keys(SAMPLES).sort(), Object.keys(APP_MESSAGE_KINDS).sort());
  });

  for (const role of Object.keys(APP_MESSAGE_KINDS) as AppMessageRole[]) {
    it(`${role}: every step, or a recorded exception`, () => {
      const steps = stepsOf(role);
      const excepted = EXCEPTIONS[role] ?? {};
      const missing = (Object.keys(steps) as Step[]).filter((step) => !steps[step] && excepted[step] === undefined);
      assert.deepEqual(missing, [], `${role} is missing: ${missing.join(", ")}`);
      // An exception that no longer holds is taken out, so the list stays true.
      const stale = (Object.keys(excepted) as Step[]).filter((step) => steps[step]);
      assert.deepEqual(stale, [], `${role}: the exception for ${stale.join(", ")} no longer holds`);
    });
  }

  it("a kind the model gets states a fact; one it never gets states none", () => {
    for (const role of Object.keys(APP_MESSAGE_KINDS) as AppMessageRole[]) {
      assert.equal(appMessageFact(SAMPLES[role] as AppMessage) !== null, APP_MESSAGE_KINDS[role].includeInModelContext, role);
    }
  });
});
