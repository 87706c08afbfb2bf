// `branch/rewind` (edit, retry, branch switch) must leave exactly what a fresh replay of the kept
// messages would show, whatever chunk or card the cut falls next to.
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { SETTLED_CHUNK_SIZE } from "../../../src/shared/item-chunks";
import { chatItems, reduce, stateFromTranscript } from "../../../src/shared/reducer";
import { realisticMessages } from "../transcript/fixtures";

describe("reducer: rewind", () => {
  // Long enough to span several settled chunks, with tool cards between the messages.
  const messages = realisticMessages(SETTLED_CHUNK_SIZE * 3 + 7) as AgentMessage[];
  const full = stateFromTranscript(messages);

  it("equals a replay of the first `keep` messages at every turn start and after every prompt", () => {
    let checked = 0;
    messages.forEach((m, index) => {
      if (m.role !== "user") return;
      for (const keep of [index, index + 1]) {
        const rewound = reduce(full, { type: "branch/rewind", keep });
        const replayed = stateFromTranscript(messages.slice(0, keep));
        assert.deepStrictEqual(chatItems(rewound), chatItems(replayed), `keep ${keep}`);
        assert.equal(rewound.messageCount, keep);
        // Replaying the rest afterwards gives the whole chat back.
        let again = rewound;
        for (const message of messages.slice(keep)) again = reduce(again, { type: "message/end", message });
        assert.deepStrictEqual(chatItems(again), chatItems(full), `replay after ${keep}`);
        checked++;
      }
    });
    assert.ok(checked > 50);
  });

  it("keeps the settled chunks before the cut as they are (no copy of the chat)", () => {
    const keep = messages.length - 4;
    const rewound = reduce(full, { type: "branch/rewind", keep });
    assert.equal(rewound.settled[0], full.settled[0]);
  });

  it("drops the forks at and after the cut; a forks event replaces them from its index on", () => {
    let state = reduce(full, {
      type: "branch/forks",
      from: 0,
      forks: [
        { messageIndex: 5, showAt: 5, index: 0, count: 2 },
        { messageIndex: 40, showAt: 40, index: 1, count: 3 },
      ],
    });
    state = reduce(state, { type: "branch/rewind", keep: 21 });
    assert.deepStrictEqual(state.forks, [{ messageIndex: 5, showAt: 5, index: 0, count: 2 }]);
    state = reduce(state, { type: "branch/forks", from: 5, forks: [{ messageIndex: 5, showAt: 5, index: 1, count: 2 }] });
    assert.deepStrictEqual(state.forks, [{ messageIndex: 5, showAt: 5, index: 1, count: 2 }]);
  });
});
