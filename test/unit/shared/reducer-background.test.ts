// A background command's card: running after its start, then how it ended — from the live
// event, or in a restored chat from the transcript (a command_output result that saw the end,
// the notice a reopened chat adds). The one-pass restore and the reducer's fold agree.
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ToolItem } from "../../../src/shared/chat-items";
import { chatItems, reduce, stateFromTranscript, type ChatState } from "../../../src/shared/reducer";
import { deepFreeze } from "../../support/freeze";
import { assistant, call, system, user } from "../context/messages";
import { replayWithReducer } from "../../support/replay";

function started(id: string, ready = "pattern"): AgentMessage[] {
  return [
    call(id, "run_command", { command: `serve ${id}`, background: "true" }),
    {
      role: "toolResult",
      toolCallId: id,
      toolName: "run_command",
      content: [{ type: "text", text: `Started in the background with id ${id}` }],
      details: { command: `serve ${id}`, cwd: ".", via: "process", end: "exited", exitCode: null, durationMs: 900, background: { id, ready } },
      isError: false,
      timestamp: 3,
    },
  ];
}

function outputResult(callId: string, details: { [key: string]: string | number }): AgentMessage {
  return {
    role: "toolResult",
    toolCallId: callId,
    toolName: "command_output",
    content: [{ type: "text", text: "..." }],
    details,
    isError: false,
    timestamp: 4,
  };
}

function card(state: ChatState, id: string): ToolItem | undefined {
  return chatItems(state).find((i): i is ToolItem => i.kind === "tool" && i.id === id);
}

describe("reducer: background command cards", () => {
  it("a start that left it running shows it running; one that ended during the wait does not", () => {
    const state = replayWithReducer([system, user("go"), ...started("a"), ...started("b", "waited"), ...started("c", "ended")]);
    assert.deepEqual(card(state, "a")?.background, { state: "running" });
    assert.deepEqual(card(state, "b")?.background, { state: "running" });
    assert.equal(card(state, "c")?.background, undefined);
  });

  it("the live event changes that one card, even after later turns settled it, without touching the rest", () => {
    let state = replayWithReducer([system, user("go"), ...started("a"), ...started("b"), assistant("up"), user("next"), assistant("ok")]);
    const otherBefore = card(state, "b");
    deepFreeze(state);
    state = reduce(state, { type: "command/backgroundState", id: "a", state: { state: "exited", exitCode: 1, durationMs: 65_000 } });
    assert.deepEqual(card(state, "a")?.background, { state: "exited", exitCode: 1, durationMs: 65_000 });
    assert.equal(card(state, "b"), otherBefore, "the other card is the same object");
    // A later, poorer account of the same end (the command_output result) does not replace it.
    state = reduce(state, { type: "message/end", message: outputResult("r1", { id: "a", state: "exited", exitCode: 1 }) });
    assert.deepEqual(card(state, "a")?.background, { state: "exited", exitCode: 1, durationMs: 65_000 });
    // An unknown id changes nothing.
    assert.equal(reduce(state, { type: "command/backgroundState", id: "zz", state: { state: "gone" } }), state);
  });

  it("the user's Stop is a stop by the user with its duration", () => {
    let state = replayWithReducer([system, user("go"), ...started("a")]);
    state = reduce(state, { type: "command/backgroundState", id: "a", state: { state: "stopped", by: "user", durationMs: 3000 } });
    assert.deepEqual(card(state, "a")?.background, { state: "stopped", by: "user", durationMs: 3000 });
  });

  it("a restored chat: a command_output that saw the end, else the reopened chat's notice; the one-pass restore equals the fold", () => {
    const transcript: AgentMessage[] = [
      system,
      user("start both"),
      ...started("a"),
      ...started("b"),
      ...started("c"),
      assistant("both up"),
      user("how are they?"),
      call("r1", "command_output", { id: "a" }),
      outputResult("r1", { id: "a", state: "exited", exitCode: 0, durationMs: 4200 }),
      call("r2", "command_output", { id: "c", stop: "true" }),
      outputResult("r2", { id: "c", state: "stopped", stoppedBy: "pi", durationMs: 8000 }),
      assistant("a is done"),
      { role: "localNotice", level: "info", text: "Background command b (serve b) is not running any more", backgroundId: "b", timestamp: 9 },
    ];
    const fast = stateFromTranscript(transcript);
    assert.deepEqual(fast, replayWithReducer(transcript));
    assert.deepEqual(card(fast, "a")?.background, { state: "exited", exitCode: 0, durationMs: 4200 });
    assert.deepEqual(card(fast, "b")?.background, { state: "gone" });
    assert.deepEqual(card(fast, "c")?.background, { state: "stopped", by: "pi", durationMs: 8000 });
  });
});
