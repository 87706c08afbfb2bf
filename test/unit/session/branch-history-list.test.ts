// The history list after an edit, a retry or a branch switch: the chat's message count and
// preview are those of the path on screen, not of the branch left, in this window and, through
// index.json, in another window on the same folder; and the chat is in every list taken
// meanwhile (an earlier fix dropped the entry on such a write, and a list taken at that moment
// missed the chat). A real ChatService over the real store, a scripted model.
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Redactor } from "../../../src/core/session/types";
import { createNodeTranscriptStorage, TranscriptStore, type ChatSummary, type TranscriptStorage } from "../../../src/core/transcript";
import { fourTurns, promptIndex, scriptedWorld, type ScriptedWorld } from "../../support/scripted-chat";
import { reply } from "../../support/scripted-model";

/** The chats' storage, whose next read of index.json can be made to wait (to hold a list in flight). */
function pausableIndexRead(): {
  wrap: (inner: TranscriptStorage) => TranscriptStorage;
  pauseNextRead: () => { reached: Promise<void>; release: () => void };
} {
  let pause: { reached: () => void; released: Promise<void> } | undefined;
  return {
    wrap: (inner) => ({
      ...inner,
      read: async (path) => {
        const current = pause;
        if (path === "index.json" && current) {
          pause = undefined;
          current.reached();
          await current.released;
        }
        return inner.read(path);
      },
    }),
    pauseNextRead: () => {
      let reached!: () => void;
      let release!: () => void;
      const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
      pause = { reached, released: new Promise<void>((resolve) => (release = resolve)) };
      return { reached: reachedPromise, release };
    },
  };
}

/** The chat's count and preview in a list (undefined when the list misses the chat). */
function row(list: readonly ChatSummary[], chatId: string): { count: number; preview: string | undefined } | undefined {
  const chat = list.find((c) => c.id === chatId);
  return chat && { count: chat.messageCount, preview: chat.lastPreview };
}

/** What the files say, read again from scratch (no index): what every list must agree with. */
async function fromFiles(storageDir: string, chatId: string): Promise<ReturnType<typeof row>> {
  const store = new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storageDir), { indexFlushDelayMs: 60_000 });
  return row(await store.rebuildIndex(), chatId);
}

/** Lists the chats again and again until stopped; each list must hold the chat. */
function keepListing(list: () => Promise<ChatSummary[]>, chatId: string): { stop: () => Promise<number> } {
  let running = true;
  let lists = 0;
  const loop = (async () => {
    while (running) {
      const listed = await list();
      lists++;
      assert.ok(row(listed, chatId), `list ${lists} taken during an edit or a switch misses the chat`);
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return lists;
    },
  };
}

describe("the history list follows the branch on screen (issue 11)", () => {
  let w: ScriptedWorld;
  afterEach(() => w?.cleanup());

  it("edit turn 2 of a 4-turn chat, switch back, retry: this window's list, another window's (through index.json) and a reread agree", async () => {
    w = scriptedWorld();
    const session = await fourTurns(w);
    const id = session.id;
    const prompt2 = promptIndex(session, "prompt 2");
    // Another VS Code window on the same folder: its own store, which has listed the chat before.
    const other = new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(w.storageDir), { indexFlushDelayMs: 60_000 });
    const fourTurnRow = { count: 9, preview: "answer 4" };
    assert.deepStrictEqual(row(await w.service.listChats(), id), fourTurnRow);
    assert.deepStrictEqual(row(await other.listChats(), id), fourTurnRow);

    /** This window's list, then the other window's once this one wrote index.json, then a fresh window's. */
    const everyWindowShows = async (expected: ReturnType<typeof row>, step: string): Promise<void> => {
      assert.deepStrictEqual(await fromFiles(w.storageDir, id), expected, `${step}: the files`);
      assert.deepStrictEqual(row(await w.service.listChats(), id), expected, `${step}: this window`);
      await w.service.flush();
      assert.deepStrictEqual(row(await other.listChats(), id), expected, `${step}: the other window`);
      const fresh = new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(w.storageDir), { indexFlushDelayMs: 60_000 });
      assert.deepStrictEqual(row(await fresh.listChats(), id), expected, `${step}: a window opened now`);
    };

    const here = keepListing(() => w.service.listChats(), id);
    const there = keepListing(() => other.listChats(), id);

    // Edit turn 2: the path is system, prompt 1, answer 1, the edit and its answer.
    w.model.push(reply.text("answer 2, edited"));
    await session.editPrompt(prompt2, "prompt 2, edited");
    await everyWindowShows({ count: 5, preview: "answer 2, edited" }, "after the edit");

    // Switch back to the first version: the four turns again.
    await session.switchBranch(prompt2, 0);
    await everyWindowShows(fourTurnRow, "after switching back");

    // And to the edit again.
    await session.switchBranch(prompt2, 1);
    await everyWindowShows({ count: 5, preview: "answer 2, edited" }, "after switching to the edit");

    // Retry the edit's answer: a sibling of it, so the count stays and the preview is the new answer.
    w.model.push(reply.text("answer 2, retried"));
    await session.retry(session.messages.length - 1);
    await everyWindowShows({ count: 5, preview: "answer 2, retried" }, "after a retry");

    // Continuing the retried branch: the store's own bookkeeping (no summary needed) stays right.
    w.model.push(reply.text("answer 3 on the retried branch"));
    await session.prompt("prompt 3 again");
    await everyWindowShows({ count: 7, preview: "answer 3 on the retried branch" }, "after continuing");

    assert.ok((await here.stop()) > 0);
    assert.ok((await there.stop()) > 0);
  });

  it("a list in flight while an edit or a switch is saved holds the chat, with the new path's figures", async () => {
    const gate = pausableIndexRead();
    w = scriptedWorld({ storage: gate.wrap });
    const session = await fourTurns(w);
    const id = session.id;
    const prompt2 = promptIndex(session, "prompt 2");
    await w.service.listChats();
    await w.service.flush();

    // The list stops where it reads index.json (after its checks for other windows' changes,
    // before it sorts the entries); the edit is saved meanwhile.
    let paused = gate.pauseNextRead();
    let during = w.service.listChats();
    await paused.reached;
    w.model.push(reply.text("answer 2, edited"));
    await session.editPrompt(prompt2, "prompt 2, edited");
    paused.release();
    assert.deepStrictEqual(row(await during, id), { count: 5, preview: "answer 2, edited" }, "the list in flight during the edit");

    await w.service.flush();
    paused = gate.pauseNextRead();
    during = w.service.listChats();
    await paused.reached;
    await session.switchBranch(prompt2, 0);
    paused.release();
    assert.deepStrictEqual(row(await during, id), { count: 9, preview: "answer 4" }, "the list in flight during the switch");
  });

  it("lists taken again and again while the branch is switched back and forth always hold the chat", async () => {
    w = scriptedWorld();
    const session = await fourTurns(w);
    const prompt3 = promptIndex(session, "prompt 3");
    w.model.push(reply.text("answer 3b"));
    await session.editPrompt(prompt3, "prompt 3b");
    const listing = keepListing(() => w.service.listChats(), session.id);
    for (let i = 0; i < 20; i++) {
      const during = w.service.listChats();
      await session.switchBranch(prompt3, i % 2);
      assert.ok(row(await during, session.id), `a list taken during switch ${i + 1} misses the chat`);
      assert.deepStrictEqual(
        row(await w.service.listChats(), session.id),
        i % 2 === 0 ? { count: 9, preview: "answer 4" } : { count: 7, preview: "answer 3b" },
      );
    }
    assert.ok((await listing.stop()) > 0);
  });

  it("the preview saved for a switched-to path is redacted like the chat file", async () => {
    const key = "sk-test-abcdefghijklmnopqrstuvwxyz0123456789";
    const redactor: Redactor = {
      add: () => undefined,
      cutPoint: (t: string) => t.length,
      text: (t: string) => t.split(key).join("[redacted]"),
      values: (t: string) => t.split(key).join("[redacted]"),
      keyStartAtEnd: () => 0,
      longest: key.length,
      deep: <T>(value: T): T => JSON.parse(JSON.stringify(value).split(key).join("[redacted]")) as T,
    };
    w = scriptedWorld({ redactor });
    const session = w.service.newChat();
    w.model.push(reply.text(`your key is ${key}`));
    await session.prompt("what is my key?");
    w.model.push(reply.text("a second answer"));
    await session.retry(session.messages.length - 1);
    await session.switchBranch(session.messages.length - 1, 0);
    const listed = row(await w.service.listChats(), session.id);
    assert.deepStrictEqual(listed, { count: 3, preview: "your key is [redacted]" });
    assert.deepStrictEqual(listed, await fromFiles(w.storageDir, session.id));
  });
});
