import assert from "node:assert/strict";
import { HostChannel } from "../../../src/shared/host-channel";
import { asDeltaFrame, type ChatEvent, type HostPost } from "../../../src/shared/protocol";
import { chatItems, emptyChatState, reduce, type ChatState } from "../../../src/shared/reducer";

/** A manual clock: timers fire only when the test advances it. */
function manualTimers() {
  let now = 0;
  let timers: { at: number; fn: () => void }[] = [];
  return {
    schedule: (fn: () => void, ms: number) => {
      const timer = { at: now + ms, fn };
      timers.push(timer);
      return () => (timers = timers.filter((t) => t !== timer));
    },
    advance(ms: number) {
      now += ms;
      const due = timers.filter((t) => t.at <= now);
      timers = timers.filter((t) => t.at > now);
      for (const t of due) t.fn();
    },
  };
}

const delta = (text: string, index = 0): ChatEvent => ({ type: "delta", index, text });

describe("HostChannel", () => {
  it("holds small deltas until enough text or the delay, then posts one compact frame", () => {
    const posted: HostPost[] = [];
    const timers = manualTimers();
    const channel = new HostChannel((m) => posted.push(m), { schedule: timers.schedule, minBatchChars: 10, maxDelayMs: 200 });
    channel.sendEvent(delta("ab"));
    channel.sendEvent(delta("cd"));
    assert.equal(posted.length, 0);
    timers.advance(199);
    assert.equal(posted.length, 0);
    timers.advance(1);
    assert.deepEqual(posted, [[1, 0, "abcd"]]);
    channel.sendEvent(delta("0123456789"));
    assert.deepEqual(posted[1], [2, 0, "0123456789"], "enough text is posted at once");
  });

  it("keeps the order of events and numbers every post without gaps", () => {
    const posted: HostPost[] = [];
    const timers = manualTimers();
    const channel = new HostChannel((m) => posted.push(m), { schedule: timers.schedule });
    channel.sendEvent({ type: "block_start", index: 0, block: "text" });
    channel.sendEvent(delta("Hello "));
    channel.sendEvent(delta("world"));
    channel.sendEvent({ type: "block_start", index: 1, block: "thinking" });
    channel.sendEvent(delta("hmm", 1));
    channel.flush();
    const seqs = posted.map((m) => (Array.isArray(m) ? m[0] : m.seq));
    assert.deepEqual(seqs, [1, 2, 3, 4]);
    assert.deepEqual(posted[1], [2, 0, "Hello world"], "the delta was flushed before the next event");
    assert.equal(asDeltaFrame(posted[3])?.event.text, "hmm");
    // What a receiver rebuilds from the posts is what the events say.
    let state: ChatState = reduce(emptyChatState, { type: "message_start", message: { role: "assistant", content: [], api: "x", provider: "x", model: "m", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: 1 } });
    for (const m of posted) state = reduce(state, asDeltaFrame(m)?.event ?? (m as { event: ChatEvent }).event);
    const item = chatItems(state)[0];
    assert.ok(item?.kind === "assistant");
    assert.deepEqual(item.blocks.map((b) => b.text), ["Hello world", "hmm"]);
  });

  it("drops held deltas when a snapshot is sent (the snapshot already has them)", () => {
    const posted: HostPost[] = [];
    const timers = manualTimers();
    const channel = new HostChannel((m) => posted.push(m), { schedule: timers.schedule });
    channel.sendEvent(delta("held"));
    channel.send({ type: "focus" });
    assert.deepEqual(posted[0], [1, 0, "held"], "a non-snapshot message flushes first");
    channel.sendEvent(delta("more"));
    channel.send({ type: "chats", chats: [] });
    channel.sendEvent(delta("dropped"));
    channel.send({ type: "snapshot", chatId: "c", title: "t", state: emptyChatState, status: { modelLabel: "", storage: "workspace", canContinue: false, editsAllowedForChat: false }, chats: [], attachments: [] });
    timers.advance(1000);
    assert.ok(!posted.some((m) => Array.isArray(m) && m[2] === "dropped"));
    assert.equal((posted[posted.length - 1] as { type: string }).type, "snapshot");
  });

  it("rejects what is not a delta frame", () => {
    for (const bad of [[1, 0], [1.5, 0, "x"], ["1", 0, "x"], [1, 0, 5], { seq: 1 }, null, "x"]) assert.equal(asDeltaFrame(bad), null);
  });
});
