// Show Model Context names, on each part of the request, the chat item it came from: the id the
// reducer gives that item, so the tab's link opens the very card (a prompt, an answer, a tool's
// card for its result and for an approval's sentence, the note of an app message). The system
// prompt has no item; a part the context policy copied is still found.
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { RequestCapture } from "../../../src/core/context/chat-context";
import { convertToLlm, transformContext } from "../../../src/core/context-policy";
import { renderModelContext } from "../../../src/core/context/model-context-report";
import { requestPartItems } from "../../../src/core/context/request-part-items";
import { parseWebviewMessage } from "../../../src/shared/validate";
import { chatItems, stateFromTranscript } from "../../../src/shared/reducer";
import { BASE, SAMPLES } from "./app-message-samples";
import { system } from "./messages";

describe("Show Model Context: each part of the request links back to its chat item", () => {
  const path: AgentMessage[] = [
    system,
    ...BASE,
    { ...SAMPLES.approvalNotice, decision: "allowed" },
    SAMPLES.modeChanged,
    SAMPLES.localNotice,
    { role: "user", content: "And now 9090", timestamp: 5 },
  ];
  const request = convertToLlm(transformContext(path, { maxContextTokens: 100_000 }));
  const capture: RequestCapture = {
    chatId: "c",
    sentAt: 0,
    model: { provider: "p", id: "m", api: "openai-completions", contextWindow: 8_192 },
    messages: request,
    view: { transcriptMessages: path.length, summarized: 0, trimmed: 0 },
  };

  it("names for each part the id of the item the chat draws for it", () => {
    const ids = requestPartItems(request, path);
    const itemIds = new Set(chatItems(stateFromTranscript(path)).map((i) => i.id));
    // system, prompt, tool call's answer, tool result, approval sentence, mode sentence, prompt (the notice is not sent)
    assert.deepEqual(ids, [undefined, "m1", "m2", "call_1", "call_1", "m5", "m7"]);
    for (const id of ids) if (id !== undefined) assert.ok(itemIds.has(id), `${id} is no item of the chat`);
  });

  it("finds a part the context policy copied by its content", () => {
    const copied = request.map((m) => (m.role === "user" ? { ...m } : m));
    assert.deepEqual(requestPartItems(copied, path)[6], "m7");
  });

  it("each part's heading ends with the item it came from; the system prompt's does not", () => {
    const doc = renderModelContext(capture, path, "T");
    const headings = doc.split("\n").filter((l) => l.startsWith("## ") && /^## (\d+\.|System)/.test(l));
    assert.match(headings[0]!, /^## System prompt/);
    assert.doesNotMatch(headings[0]!, /in the chat/);
    assert.deepEqual(
      headings.slice(1).map((h) => /· in the chat `([^`]+)`$/.exec(h)?.[1]),
      ["m1", "m2", "call_1", "call_1", "m5", "m7"],
    );
  });

  it("a tool call id the provider chose cannot forge a link: an id with backticks, spaces or a newline gets none", () => {
    const hostile = "x` · in the chat `m0\n## 9. user";
    const withHostile: AgentMessage[] = [
      system,
      { role: "user", content: "Go", timestamp: 1 },
      { ...(BASE[1] as Extract<AgentMessage, { role: "assistant" }>), content: [{ type: "toolCall", id: hostile, name: "read_file", arguments: {} }] },
      { role: "toolResult", toolCallId: hostile, toolName: "read_file", content: [{ type: "text", text: "ok" }], isError: false, timestamp: 3 },
    ];
    const messages = convertToLlm(withHostile);
    const doc = renderModelContext({ ...capture, messages, view: { ...capture.view, transcriptMessages: withHostile.length } }, withHostile, "T");
    assert.ok(!doc.split("\n").some((l) => l.startsWith("## 9.")), "the id made a heading of its own");
    const linked = doc.split("\n").filter((l) => /· in the chat `[^`]+`$/.test(l));
    assert.deepEqual(
      linked.map((l) => /`([^`]+)`$/.exec(l)?.[1]),
      ["m1", "m2"],
      "the prompt and the answer only: the result's hostile id is not made a link",
    );
  });
});

describe("plan/revise from the webview: bounded, only line numbers and words", () => {
  const ok = { type: "plan/revise", v: 1, toolCallId: "call_plan", comments: [{ line: 2, comment: "Name the file." }] };
  it("a well-formed Revise passes", () => {
    assert.equal(parseWebviewMessage(ok).ok, true);
  });
  for (const [label, raw] of [
    ["a line 0", { ...ok, comments: [{ line: 0, comment: "x" }] }],
    ["a fractional line", { ...ok, comments: [{ line: 1.5, comment: "x" }] }],
    ["an empty comment", { ...ok, comments: [{ line: 1, comment: "" }] }],
    ["a comment over 4,000 characters", { ...ok, comments: [{ line: 1, comment: "x".repeat(4_001) }] }],
    ["201 comments", { ...ok, comments: Array.from({ length: 201 }, (_, i) => ({ line: i + 1, comment: "x" })) }],
    ["a line's text from the view (the host takes it from the plan)", { ...ok, comments: [{ line: 1, comment: "x", lineText: "Delete everything" }] }],
  ] as const) {
    it(`refused: ${label}`, () => {
      assert.equal(parseWebviewMessage(raw).ok, false);
    });
  }
});
