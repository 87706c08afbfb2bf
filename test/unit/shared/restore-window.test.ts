// A long chat is restored from its newest messages (restoredState); the items of the earlier ones
// come when the view asks (earlierItems, `items/earlier`). Together they must be exactly the full
// view, wherever restoreStart cuts, whatever the transcript holds; a cut it refuses would not be.
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { generateTranscript } from "../../../bench/lib/data";
import type { ChatState } from "../../../src/shared/chat-items";
import { chatItems, earlierItems, RESTORE_WINDOW_MESSAGES, reduce, restoredState, restoreStart, stateFromTranscript } from "../../../src/shared/reducer";
import { Rng } from "../../support/seeded-random";
import { assistant, call, result, summaryMessage, system, user } from "../context/messages";

/** A transcript of random turns: attachments, `!cmd`s, calls with repeated ids, orphan results, late approvals, summaries. */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: a random generator with one branch per message kind
function randomTranscript(rng: Rng, length: number): AgentMessage[] {
  const out: AgentMessage[] = [system];
  const calls: string[] = [];
  let next = 0;
  while (out.length < length) {
    const roll = rng.next();
    if (roll < 0.2) {
      if (rng.chance(0.2)) out.push({ role: "fileAttachment", path: `src/f${next}.ts`, timestamp: 4 });
      out.push(user(`question ${next++}`));
    } else if (roll < 0.25) {
      out.push({
        role: "bashExecution",
        command: "ls",
        output: "a\nb",
        exitCode: 0,
        cancelled: false,
        truncated: false,
        excludeFromContext: false,
        timestamp: 4,
      });
    } else if (roll < 0.5) {
      // Providers that number calls per turn repeat ids ("call_0").
      const id = rng.chance(0.3) ? `call_${rng.int(0, 2)}` : `c${next++}`;
      calls.push(id);
      out.push(call(id, rng.pick(["read_file", "edit_file", "run_command"]), { path: "a.ts" }));
    } else if (roll < 0.7) {
      const id = calls.length > 0 && rng.chance(0.9) ? calls[calls.length - 1 - rng.int(0, Math.min(3, calls.length - 1))]! : `orphan${next++}`;
      out.push(result(id, "read_file", "text", rng.chance(0.2)));
    } else if (roll < 0.8) {
      // Mostly about a recent call, sometimes about one long before (the settled card gets it), sometimes about none.
      const id = calls.length === 0 || rng.chance(0.1) ? `nowhere${next++}` : rng.chance(0.7) ? calls[calls.length - 1]! : rng.pick(calls);
      out.push({ role: "approvalNotice", toolCallId: id, toolName: "edit_file", decision: rng.chance(0.5) ? "allowed" : "denied", path: "a.ts", timestamp: 5 });
    } else if (roll < 0.83) {
      out.push(summaryMessage({ keptMessageCount: rng.int(0, 30), summarizedMessageCount: rng.int(1, 50) }));
    } else {
      out.push(assistant(`answer ${next++}`));
    }
  }
  return out;
}

/** Restored from `cut`, then the earlier items asked for: both halves and the whole must be the full view. */
function assertWholeFrom(messages: readonly AgentMessage[], cut: number, label: string): void {
  const full = stateFromTranscript(messages);
  const restored = stateFromTranscript(messages, cut);
  const earlier = earlierItems(messages, cut);
  assert.deepEqual([...earlier, ...chatItems(restored)], chatItems(full), `${label}: earlier + restored = full`);
  assert.deepEqual(restored.live, full.live, `${label}: live part`);
  assert.equal(restored.messageCount, full.messageCount, label);
  assert.equal(restored.earlier, cut > 0 ? cut : undefined, label);
  const loaded: ChatState = reduce(restored, { type: "items/earlier", count: cut, items: earlier });
  if (cut > 0) {
    assert.equal(loaded.earlier, undefined, `${label}: nothing missing after the load`);
    assert.deepEqual(chatItems(loaded), chatItems(full), `${label}: loaded = full`);
  }
}

describe("restore: the newest messages first, the earlier ones on request", () => {
  it("cuts at a user turn, at least the window from the end, and earlier + restored = full on random transcripts", () => {
    let cuts = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const rng = new Rng(seed);
      const messages = randomTranscript(rng, rng.int(20, 260));
      for (const window of [1, 3, 10, 40, 120]) {
        const cut = restoreStart(messages, window);
        if (cut > 0) {
          cuts++;
          assert.ok(messages.length - cut >= window, `seed ${seed}: at least ${window} messages restored`);
          assert.ok(["user", "fileAttachment", "bashExecution"].includes(messages[cut]!.role), `seed ${seed}: a turn starts at ${cut}`);
        }
        assertWholeFrom(messages, cut, `seed ${seed}, window ${window}, cut ${cut}`);
      }
    }
    assert.ok(cuts > 150, `most restores cut (${cuts})`);
  });

  it("does not cut between a call and a later approval notice about it (the older card takes the decision)", () => {
    const messages: AgentMessage[] = [
      system,
      user("edit it"),
      call("e1", "edit_file", { path: "a.ts", oldText: "a", newText: "b" }),
      result("e1", "edit_file", "Applied"),
      user("meanwhile"),
      assistant("ok"),
      user("and now"),
      { role: "approvalNotice", toolCallId: "e1", toolName: "edit_file", decision: "allowed", path: "a.ts", diff: "-a\n+b", timestamp: 7 },
      assistant("done"),
    ];
    // Without the rule, a cut at "and now" (a user turn after the model's message) would add a
    // second e1 card below instead of marking the first one allowed.
    assert.notDeepEqual([...earlierItems(messages, 6), ...chatItems(stateFromTranscript(messages, 6))], chatItems(stateFromTranscript(messages)));
    assert.equal(restoreStart(messages, 2), 0, "no cut after e1's call can be followed by its notice");
    // With the notice before the cut, the cut is fine.
    const later = [...messages, user("again"), assistant("fine")];
    assert.equal(restoreStart(later, 2), 9);
    assertWholeFrom(later, 9, "notice before the cut");
  });

  it("restores a 2,000-message chat from about the window's worth of its newest messages", () => {
    const messages = generateTranscript(2_000, 7);
    const state = restoredState(messages);
    const built = state.messageCount - (state.earlier ?? 0);
    assert.ok(state.earlier !== undefined && state.earlier > 0, "earlier messages are left for later");
    assert.ok(built >= RESTORE_WINDOW_MESSAGES && built < RESTORE_WINDOW_MESSAGES + 50, `built the items of ${built} messages`);
    assertWholeFrom(messages, state.earlier, "2,000 messages");
    // A short chat is built whole.
    assert.equal(restoredState(messages.slice(0, RESTORE_WINDOW_MESSAGES)).earlier, undefined);
  });

  it("ignores earlier items for another count (asked before the path changed), and a rewind below the cut leaves fewer missing", () => {
    const messages = generateTranscript(600, 3);
    const cut = restoreStart(messages, 100);
    assert.ok(cut > 10);
    const restored = stateFromTranscript(messages, cut);
    assert.equal(reduce(restored, { type: "items/earlier", count: cut - 1, items: earlierItems(messages, cut - 1) }), restored);

    const rewound = reduce(restored, { type: "branch/rewind", keep: 5 });
    assert.equal(rewound.earlier, 5);
    assert.deepEqual(chatItems(rewound), []);
    assert.equal(reduce(restored, { type: "branch/rewind", keep: 0 }).earlier, undefined, "nothing is missing of an empty path");
    // A rewind above the cut keeps what is missing as it was.
    assert.equal(reduce(restored, { type: "branch/rewind", keep: cut + 20 }).earlier, cut);
    // After the rewind, the earlier items of the five kept messages complete the view.
    const path = messages.slice(0, 5);
    const loaded = reduce(rewound, { type: "items/earlier", count: 5, items: earlierItems(path, 5) });
    assert.deepEqual(chatItems(loaded), chatItems(stateFromTranscript(path)));
  });
});
