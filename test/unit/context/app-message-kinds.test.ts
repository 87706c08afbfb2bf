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
import { BASE, SAMPLES } from "./app-message-samples";

type Step = "model fact" | "item" | "pi-session entry" | "Markdown line";

/** Steps a kind skips on purpose, with the reason (the design's, docs/conversation-layers.md). */
const EXCEPTIONS: Partial<Record<AppMessageRole, Partial<Record<Step, string>>>> = {
  localNotice: { "model fact": "a notice is for the user only: includeInModelContext is false, convertToLlm drops it" },
};

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
