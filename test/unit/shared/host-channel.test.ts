import assert from "node:assert/strict";
import { HostChannel } from "../../../src/shared/host-channel";
import { DeltaFrameReader, type ChatEvent, type HostMessage, type HostPost } from "../../../src/shared/protocol";
import { chatItems, emptyChatState, reduce, type ChatState } from "../../../src/shared/reducer";

/** A manual clock: timers fire only when the test advances it. */
function manualTimers() {
  let now = 0;
  let timers: { at: number; fn: () => void }[] = [];
  return {
    now: () => now,
    schedule: (fn: () => void, ms: number) => {
      const timer = { at: now + ms, fn };
      timers.push(timer);
      return () => (timers = timers.filter((t) => t !== timer));
    },
    advance(ms: number) {
      const end = now + ms;
      for (;;) {
        const due = timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers = timers.filter((t) => t !== due);
        now = due.at;
        due.fn();
      }
      now = end;
    },
  };
}

const delta = (text: string, index = 0): ChatEvent => ({ type: "message/delta", index, text });

/** Decodes posts the way the webview does: frames count as the next seq. */
function decode(posted: readonly HostPost[]): { seq: number; event: ChatEvent }[] {
  const reader = new DeltaFrameReader();
  let seq = 0;
  return posted.map((m) => {
    const frame = reader.read(m);
    if (frame) return { seq: ++seq, event: frame };
    const message = m as HostMessage;
    seq = message.seq;
    return { seq, event: message.type === "chat/event" ? message.event : ({ type: "chat/runState", running: false } as ChatEvent) };
  });
}

describe("HostChannel", () => {
  it("posts the first delta at once, then at most one frame per interval with what arrived meanwhile", () => {
    const posted: HostPost[] = [];
    const timers = manualTimers();
    const channel = new HostChannel((m) => posted.push(m), { schedule: timers.schedule, now: timers.now, frameIntervalMs: 33 });
    channel.sendEvent(delta("ab"));
    assert.deepEqual(posted, [[0, "ab"]], "a token after a quiet spell is not held");
    timers.advance(10);
    channel.sendEvent(delta("cd"));
    timers.advance(10);
    channel.sendEvent(delta("ef"));
    assert.equal(posted.length, 1, "held until the interval since the last frame is over");
    timers.advance(12);
    assert.equal(posted.length, 1);
    timers.advance(1);
    assert.deepEqual(posted, [[0, "ab"], "cdef"], "one frame, continuing the same block as a bare string");
    timers.advance(100);
    channel.sendEvent(delta("gh"));
    assert.deepEqual(posted.at(-1), "gh", "after a quiet spell the next token goes out at once again");
  });

  it("updates at least 20 times a second at 60 tokens/s with a few characters per post", () => {
    const posted: HostPost[] = [];
    const timers = manualTimers();
    const channel = new HostChannel((m) => posted.push(m), { schedule: timers.schedule, now: timers.now });
    for (let i = 0; i < 600; i++) {
      channel.sendEvent(delta("tok "));
      timers.advance(1000 / 60);
    }
    timers.advance(1000);
    const seconds = 10;
    assert.ok(posted.length / seconds >= 20, `${posted.length / seconds} posts/s`);
    assert.ok(posted.length / seconds <= 31, `${posted.length / seconds} posts/s: no more than one per interval`);
    assert.equal(
      decode(posted)
        .map((d) => (d.event.type === "message/delta" ? d.event.text : ""))
        .join(""),
      "tok ".repeat(600),
    );
  });

  it("keeps the order of events and numbers every post without gaps", () => {
    const posted: HostPost[] = [];
    const timers = manualTimers();
    const channel = new HostChannel((m) => posted.push(m), { schedule: timers.schedule, now: timers.now });
    channel.sendEvent({ type: "message/blockStart", index: 0, block: "text" });
    channel.sendEvent(delta("Hello "));
    channel.sendEvent(delta("world"));
    channel.sendEvent({ type: "message/blockStart", index: 1, block: "thinking" });
    channel.sendEvent(delta("hmm", 1));
    channel.sendEvent(delta(" more", 1));
    channel.flush();
    const decoded = decode(posted);
    assert.deepEqual(
      decoded.map((d) => d.seq),
      [1, 2, 3, 4, 5],
    );
    assert.equal(channel.lastSeq, 5);
    assert.deepEqual(posted.slice(1, 3), [[0, "Hello "], "world"], "a run of frames names its block once");
    assert.deepEqual(posted[4], [1, "hmm more"], "the first frame after another message names its block again; held deltas merge");
    // What a receiver rebuilds from the posts is what the events say.
    let state: ChatState = reduce(emptyChatState, {
      type: "message/start",
      message: {
        role: "assistant",
        content: [],
        api: "x",
        provider: "x",
        model: "m",
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
        stopReason: "stop",
        timestamp: 1,
      },
    });
    for (const d of decoded) state = reduce(state, d.event);
    const item = chatItems(state)[0];
    assert.ok(item?.kind === "assistant");
    assert.deepEqual(
      item.blocks.map((b) => b.text),
      ["Hello world", "hmm more"],
    );
  });

  it("drops held deltas when a snapshot is sent (the snapshot already has them)", () => {
    const posted: HostPost[] = [];
    const timers = manualTimers();
    const channel = new HostChannel((m) => posted.push(m), { schedule: timers.schedule, now: timers.now });
    channel.sendEvent(delta("first"));
    channel.sendEvent(delta("held"));
    channel.send({ type: "view/focus" });
    assert.deepEqual(posted.slice(0, 2), [[0, "first"], "held"], "a non-snapshot message flushes first");
    channel.sendEvent(delta("more"));
    channel.send({ type: "history/list", chats: [] });
    channel.sendEvent(delta("sent at once"));
    channel.sendEvent(delta("dropped"));
    channel.send({
      type: "view/snapshot",
      chatId: "c",
      title: "t",
      state: emptyChatState,
      status: { modelLabel: "", storage: "workspace", canContinue: false, editsAllowedForChat: false },
      chats: [],
      attachments: [],
    });
    timers.advance(1000);
    assert.ok(!JSON.stringify(posted).includes("dropped"));
    assert.equal((posted[posted.length - 1] as { type: string }).type, "view/snapshot");
  });

  it("reads only frames it can place", () => {
    const reader = new DeltaFrameReader();
    assert.equal(reader.read("x"), null, "a continuation with no opening frame");
    for (const bad of [[1, 0, "x"], [1.5, "x"], [-1, "x"], ["1", "x"], [1, 5], { seq: 1 }, null, 3]) assert.equal(reader.read(bad), null, JSON.stringify(bad));
    assert.deepEqual(reader.read([2, "a"]), { type: "message/delta", index: 2, text: "a" });
    assert.deepEqual(reader.read("b"), { type: "message/delta", index: 2, text: "b" });
    assert.equal(reader.read({ type: "chat/event", seq: 9, v: 1 }), null);
    assert.equal(reader.read("c"), null, "any other message ends the run");
  });
});
