// The chat's marks (what the model receives of each item) cannot lie: for every app-message kind
// and every standard role, the mark messageModelMark gives is held to what convertToLlm, then
// pi-ai's own message transform (which every provider adapter runs), make of the message; the
// item the reducer builds carries the same mark; a compaction marks what it summarized; plan mode
// leaves the history the model gets as it was (it changes the tools a request declares, no item).
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { AssistantMessage, Message, Model } from "@earendil-works/pi-ai";
import { transformMessages } from "@earendil-works/pi-ai/api/transform-messages";
import { appMessageFact } from "../../../src/core/context/app-message-facts";
import { convertToLlm, transformContext } from "../../../src/core/context-policy";
import { APP_MESSAGE_KINDS, type AppMessage, type AppMessageRole } from "../../../src/core/messages";
import type { ChatItem } from "../../../src/shared/chat-items";
import { itemModelMark, messageModelMark, modelMarkLabel, type ModelVisibility } from "../../../src/shared/model-visibility";
import { chatItems, stateFromTranscript } from "../../../src/shared/reducer";
import { BASE, SAMPLES } from "./app-message-samples";

const MODEL: Model<"openai-completions"> = {
  id: "m",
  name: "m",
  api: "openai-completions",
  provider: "test",
  baseUrl: "http://127.0.0.1:1",
  reasoning: false,
  input: ["text", "image"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 100_000,
  maxTokens: 1_000,
};

/** What a provider receives of `messages`: convertToLlm, then pi-ai's transform (failed answers out). */
function sent(messages: readonly AgentMessage[]): Message[] {
  return transformMessages(convertToLlm(messages), MODEL);
}

/** The provider's part agrees with the last message's mark: nothing for never, the message itself for as shown, its fact for another form. */
function assertAgrees(messages: readonly AgentMessage[], label: string): ModelVisibility {
  const message = messages[messages.length - 1]!;
  const all = sent(messages);
  const before = sent(messages.slice(0, -1));
  const isIt = (m: Message) => JSON.stringify(m) === JSON.stringify(message);
  const mark = messageModelMark(message);
  switch (mark.visibility) {
    case "never":
      assert.equal(all.length, before.length, `${label}: marked never, but the model got something of it`);
      assert.ok(!all.some(isIt), `${label}: marked never, but the model got it`);
      break;
    case "asShown":
      assert.ok(all.some(isIt), `${label}: marked as shown, but the model did not get it as it is`);
      break;
    case "otherForm": {
      const got = all.slice(before.length);
      assert.equal(got.length, 1, `${label}: marked as another form, but the model got ${got.length} messages`);
      assert.equal(got[0]!.role, "user", label);
      assert.equal(got[0]!.content, appMessageFact(message as AppMessage), `${label}: the model got something else than its fact`);
      assert.ok(!all.some(isIt), `${label}: marked as another form, but the model got it as it is`);
      break;
    }
    case "summarized":
      assert.fail(`${label}: a message alone is never summarized; a compaction marks items`);
  }
  return mark.visibility;
}

/** Variants a message narrows its kind's mark with. */
const VARIANTS: readonly { label: string; message: AppMessage }[] = [
  { label: "!!cmd (kept from Pi)", message: { ...SAMPLES.bashExecution, excludeFromContext: true } },
  { label: "!cmd of an old transcript (no flag: kept from Pi)", message: { ...SAMPLES.bashExecution, excludeFromContext: undefined as unknown as boolean } },
  { label: "@problems mention", message: { ...SAMPLES.fileAttachment, path: "@problems", mention: "problems", text: "a.ts:1 error" } },
  { label: "allowed approval", message: { ...SAMPLES.approvalNotice, decision: "allowed" } },
  { label: "plan approved unedited", message: { ...SAMPLES.planApproved, edited: false } },
  { label: "act mode", message: { ...SAMPLES.modeChanged, mode: "act" } },
];

const callAssistant = BASE[1] as AssistantMessage;
const STANDARD: readonly { label: string; messages: AgentMessage[]; expected: ModelVisibility }[] = [
  { label: "user prompt", messages: [{ role: "user", content: "Read it", timestamp: 1 }], expected: "asShown" },
  { label: "answer with a tool call", messages: [BASE[0]!, callAssistant], expected: "asShown" },
  { label: "tool result", messages: BASE.slice(), expected: "asShown" },
  {
    label: "answer cut by an error",
    messages: [BASE[0]!, { ...callAssistant, content: [{ type: "text", text: "Par" }], stopReason: "error" }],
    expected: "never",
  },
  {
    label: "answer the user stopped",
    messages: [BASE[0]!, { ...callAssistant, content: [{ type: "text", text: "Par" }], stopReason: "aborted" }],
    expected: "never",
  },
  {
    label: "answer cut at the token limit",
    messages: [BASE[0]!, { ...callAssistant, content: [{ type: "text", text: "Par" }], stopReason: "length" }],
    expected: "asShown",
  },
];

function lastItem(messages: readonly AgentMessage[]): ChatItem | undefined {
  const items = chatItems(stateFromTranscript(messages));
  return items[items.length - 1];
}

describe("model visibility: every item's mark agrees with what the model receives", () => {
  for (const role of Object.keys(APP_MESSAGE_KINDS) as AppMessageRole[]) {
    it(`${role}: the mark is what convertToLlm and the adapter make of it`, () => {
      const sample = SAMPLES[role] as AppMessage;
      const visibility = assertAgrees([...BASE, sample], role);
      assert.equal(visibility !== "never", APP_MESSAGE_KINDS[role].includeInModelContext, `${role}: APP_MESSAGE_KINDS disagrees`);
    });
  }

  for (const { label, message } of VARIANTS) {
    it(`${label}: the mark is what the model gets`, () => {
      assertAgrees([...BASE, message], label);
    });
  }

  it("!!cmd is never sent, !cmd is sent as the command and its output", () => {
    assert.equal(messageModelMark({ ...SAMPLES.bashExecution, excludeFromContext: true }).visibility, "never");
    assert.equal(messageModelMark(SAMPLES.bashExecution).visibility, "otherForm");
  });

  for (const { label, messages, expected } of STANDARD) {
    it(`${label}: marked ${expected}, and the model gets exactly that`, () => {
      assert.equal(assertAgrees(messages, label), expected);
    });
  }

  it("the item of each kind carries its message's mark, read in its accessible name", () => {
    const kinds: AgentMessage[] = [...(Object.values(SAMPLES) as AppMessage[]), ...VARIANTS.map((v) => v.message)];
    for (const message of kinds) {
      if (message.role === "approvalNotice") continue; // on its tool's card, not an item of its own
      const item = lastItem([...BASE, message]);
      assert.ok(item, message.role);
      assert.deepEqual(itemModelMark(item), messageModelMark(message), `${message.role}: the item's mark`);
    }
    for (const { label, messages } of STANDARD) {
      const items = chatItems(stateFromTranscript(messages));
      const answer = items.find((i) => i.kind === "assistant");
      if (label.startsWith("answer")) assert.deepEqual(itemModelMark(answer!), messageModelMark(messages[1]!), label);
    }
    assert.equal(modelMarkLabel(itemModelMark(lastItem([...BASE, SAMPLES.localNotice])!)), "Not sent to Pi: a notice is shown only to you");
    assert.equal(modelMarkLabel(itemModelMark(lastItem([...BASE, SAMPLES.planApproved])!)), "Pi gets this as the approved plan's text");
    assert.equal(modelMarkLabel(itemModelMark(lastItem(BASE)!)), "Pi gets this as shown");
  });

  it("a compaction marks what it summarized, and the model gets none of it but the summary", () => {
    const summary = { ...SAMPLES.compactionSummary, keptMessageCount: 0 };
    const after: AgentMessage = { role: "user", content: "And now 9090", timestamp: 5 };
    const path = [...BASE, summary, after];
    const items = chatItems(stateFromTranscript(path));
    const request = convertToLlm(transformContext(path, { maxContextTokens: 100_000 }));
    for (const item of items) {
      const mark = itemModelMark(item);
      if (item.kind === "summary") assert.equal(mark.visibility, "otherForm");
      else if (item.kind === "user" && item.text === "And now 9090") assert.equal(mark.visibility, "asShown");
      else assert.equal(mark.visibility, "summarized", `${item.kind} ${item.id}`);
    }
    for (const m of BASE) assert.ok(!request.includes(m as Message), `a summarized ${m.role} was sent`);
    assert.ok(request.includes(after as Message));
  });

  it("plan mode excludes no item: the history before the switch is sent as it was, each item keeps its mark", () => {
    const inPlan = [...BASE, SAMPLES.modeChanged, { role: "user", content: "Plan the port change", timestamp: 5 } as AgentMessage];
    const request = sent(transformContext(inPlan, { maxContextTokens: 100_000 }));
    for (const m of BASE)
      assert.ok(
        request.some((r) => JSON.stringify(r) === JSON.stringify(m)),
        `${m.role} left out in plan mode`,
      );
    const marks = chatItems(stateFromTranscript(inPlan)).map(itemModelMark);
    const before = chatItems(stateFromTranscript(BASE)).map(itemModelMark);
    assert.deepEqual(marks.slice(0, before.length), before);
  });
});
