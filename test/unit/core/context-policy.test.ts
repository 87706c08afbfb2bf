import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { AssistantMessage } from "@earendil-works/pi-ai";
import { canContinue, convertToLlm, repairsBeforeContinue, transformContext } from "../../../src/core/context-policy";
import { APP_MESSAGE_KINDS } from "../../../src/core/messages";
import { deepFreeze } from "../../support/freeze";

const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const system: AgentMessage = { role: "system", content: "You are a test.", timestamp: 0 };
const user = (text: string, t = 1): AgentMessage => ({ role: "user", content: [{ type: "text", text }], timestamp: t });
const assistantCall = (id: string): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "toolCall", id, name: "read_file", arguments: { path: "a.ts" } }],
  api: "faux",
  provider: "faux",
  model: "m",
  usage,
  stopReason: "toolUse",
  timestamp: 2,
});
const assistantText = (text: string): AssistantMessage => ({ ...assistantCall("x"), content: [{ type: "text", text }], stopReason: "stop" });
const result = (id: string, text = "contents"): AgentMessage => ({
  role: "toolResult",
  toolCallId: id,
  toolName: "read_file",
  content: [{ type: "text", text }],
  isError: false,
  timestamp: 3,
});

function conversation(turns: number, filler = 0): AgentMessage[] {
  const out: AgentMessage[] = [system];
  for (let i = 0; i < turns; i++) {
    out.push(user(`question ${i}`), assistantCall(`c${i}`), result(`c${i}`, "x".repeat(filler)), assistantText(`answer ${i}`));
  }
  return out;
}

describe("context policy: transformContext", () => {
  it("returns a new array and never mutates the transcript (deep-frozen input)", () => {
    const input = deepFreeze(conversation(5, 400));
    const out = transformContext(input, { maxContextTokens: 100_000 });
    assert.notEqual(out, input);
    assert.deepEqual(out, input);
    const trimmed = transformContext(input, { maxContextTokens: 300 });
    assert.ok(trimmed.length < input.length);
  });

  it("trims whole old turns to the budget, keeps the system message and the newest turn, and says so", () => {
    const input = deepFreeze(conversation(20, 2000));
    const out = transformContext(input, { maxContextTokens: 3000 });
    assert.equal(out[0], input[0], "the system message stays first");
    assert.equal(out[1]?.role, "user");
    assert.match(JSON.stringify(out[1]), /earlier messages of this conversation are not shown/);
    assert.deepEqual(out.slice(-4), input.slice(-4), "the newest turn is whole");
    // Every tool call in the view still has its result right after it.
    for (let i = 0; i < out.length; i++) {
      const m = out[i]!;
      if (m.role === "assistant" && m.content.some((c) => c.type === "toolCall")) assert.equal(out[i + 1]?.role, "toolResult");
      if (m.role === "toolResult") assert.equal(out[i - 1]?.role, "assistant");
    }
  });

  it("closes tool calls that never got a result (a cut-off run) in the request only", () => {
    const input = deepFreeze([system, user("q"), assistantCall("lost"), user("next")]);
    const out = transformContext(input, { maxContextTokens: 100_000 });
    assert.deepEqual(
      out.map((m) => m.role),
      ["system", "user", "assistant", "toolResult", "user"],
    );
    const synthetic = out[3]!;
    assert.ok(synthetic.role === "toolResult" && synthetic.toolCallId === "lost" && synthetic.isError);
    assert.equal(input.length, 4);
  });

  it("does not close the calls of the last message (they may be running now)", () => {
    const input = deepFreeze([system, user("q"), assistantCall("now")]);
    assert.deepEqual(
      transformContext(input, { maxContextTokens: 100_000 }).map((m) => m.role),
      ["system", "user", "assistant"],
    );
  });

  it("never throws: on failure it falls back to its input and reports why", () => {
    const circular: Record<string, unknown> = { role: "user", content: "loop", timestamp: 1 };
    circular.self = circular;
    const input = [system, circular as unknown as AgentMessage];
    // A circular (damaged) message is estimated without JSON and passed through.
    assert.deepEqual(transformContext(input, { maxContextTokens: 100_000 }), input);
    // Anything that throws inside the policy (here: the budget itself) ends in the fallback.
    const reasons: string[] = [];
    const options = {
      onFallback: (r: string) => void reasons.push(r),
      get maxContextTokens(): number {
        throw new Error("budget unavailable");
      },
    };
    const out = transformContext(input, options);
    assert.deepEqual(out, input);
    assert.notEqual(out, input);
    assert.deepEqual(reasons, ["budget unavailable"]);
    // A throwing logger is survived too.
    assert.doesNotThrow(() =>
      transformContext(input, {
        get maxContextTokens(): number {
          throw new Error("x");
        },
        onFallback: () => {
          throw new Error("logger down");
        },
      }),
    );
  });
});

describe("context policy: convertToLlm", () => {
  it("passes standard messages through unchanged, the leading system message included", () => {
    const input = deepFreeze(conversation(2));
    const out = convertToLlm(input);
    assert.equal(out.length, input.length);
    out.forEach((m, i) => assert.equal(m, input[i]));
  });

  it("states a denial as a user fact, with the reason, and an allowance too", () => {
    const input = deepFreeze<AgentMessage[]>([
      system,
      {
        role: "approvalNotice",
        toolCallId: "e1",
        toolName: "edit_file",
        decision: "denied",
        reason: "not now",
        path: "src/a.ts",
        diff: "--- secret diff body",
        timestamp: 5,
      },
      { role: "approvalNotice", toolCallId: "e2", toolName: "edit_file", decision: "allowed", path: "src/a.ts", timestamp: 6 },
    ]);
    const out = convertToLlm(input);
    assert.equal(out.length, 3);
    assert.equal(out[1]?.role, "user");
    const denial = JSON.stringify(out[1]);
    assert.match(denial, /denied the edit_file call e1 on src\/a\.ts/);
    assert.match(denial, /not now/);
    assert.doesNotMatch(denial, /secret diff body/, "the UI diff is not sent");
    assert.match(JSON.stringify(out[2]), /allowed the edit_file call e2/);
  });

  it("turns an attached file into a reference the model can read, never the editor state", () => {
    const out = convertToLlm(
      deepFreeze<AgentMessage[]>([{ role: "fileAttachment", path: "src/config.ts", range: { startLine: 2, endLine: 4 }, timestamp: 1 }]),
    );
    assert.equal(out.length, 1);
    assert.match(JSON.stringify(out[0]), /attached the file src\/config\.ts \(lines 2-4\).*read_file/);
  });

  it("drops what is for the UI only, and unknown kinds from damaged transcripts", () => {
    const input = deepFreeze([
      user("hi"),
      { role: "localNotice", level: "error", text: "401 Unauthorized at /home/me/stack.js:1", timestamp: 1 } as AgentMessage,
      { role: "somethingFromTheFuture", text: "x", timestamp: 1 } as unknown as AgentMessage,
    ]);
    const out = convertToLlm(input);
    assert.deepEqual(
      out.map((m) => m.role),
      ["user"],
    );
  });

  it("keeps the two flags separate per kind", () => {
    assert.deepEqual(APP_MESSAGE_KINDS.localNotice, { visibleInUI: true, includeInModelContext: false });
    assert.deepEqual(APP_MESSAGE_KINDS.approvalNotice, { visibleInUI: true, includeInModelContext: true });
  });
});

describe("context policy: canContinue", () => {
  it("is true after a cut-off turn or a provider error, false after a finished answer", () => {
    assert.equal(canContinue([system, user("q")]), true);
    assert.equal(canContinue([system, user("q"), assistantCall("c")]), true);
    assert.equal(canContinue([system, user("q"), assistantCall("c"), result("c")]), true);
    assert.equal(canContinue([system, user("q"), assistantText("a")]), false);
    assert.equal(canContinue([system, user("q"), { ...assistantText(""), stopReason: "error", errorMessage: "429" }]), true);
    assert.equal(canContinue([system, user("q"), { ...assistantText("partial"), stopReason: "aborted" }]), false);
    assert.equal(canContinue([system]), false);
  });
});

describe("context policy: repairsBeforeContinue", () => {
  it("closes the calls a reload left without a result, and only those, without touching the transcript", () => {
    const twoCalls: AssistantMessage = {
      ...assistantCall("c1"),
      content: [...assistantCall("c1").content, { type: "toolCall", id: "c2", name: "edit_file", arguments: { path: "b.ts" } }],
    };
    const transcript = deepFreeze([
      system,
      user("q"),
      twoCalls,
      result("c1"),
      { role: "approvalNotice", toolCallId: "c2", toolName: "edit_file", decision: "allowed", timestamp: 4 },
    ] as AgentMessage[]);
    const repairs = repairsBeforeContinue(transcript, 99);
    assert.deepEqual(
      repairs.map((m) => (m.role === "toolResult" ? [m.toolCallId, m.toolName, m.isError, m.timestamp] : m.role)),
      [["c2", "edit_file", true, 99]],
      "one result for the unanswered call; the notice after it does not hide the cut-off turn",
    );
  });

  it("marks a retry after a provider error with a notice the model never gets, and repairs nothing else", () => {
    const failed: AgentMessage[] = [system, user("q"), { ...assistantText(""), stopReason: "error", errorMessage: "429" }];
    const repairs = repairsBeforeContinue(failed, 5);
    assert.deepEqual(repairs, [{ role: "localNotice", level: "info", text: "Retrying after the error.", timestamp: 5 }]);
    assert.deepEqual(convertToLlm([...failed, ...repairs]).length, convertToLlm(failed).length, "the notice is not sent");
    assert.deepEqual(repairsBeforeContinue([system, user("q"), assistantText("done")], 5), []);
    assert.deepEqual(repairsBeforeContinue([system, user("q"), { ...assistantText("partial"), stopReason: "aborted" }], 5), []);
    assert.deepEqual(repairsBeforeContinue([system, user("q")], 5), [], "a user turn needs no repair");
  });
});
