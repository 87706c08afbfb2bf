// Deleting a chat moves its file, as it is, to trash/; restoring puts the same bytes back, so the
// chat comes back with its id, every branch and its current leaf; old trash is emptied.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TranscriptError } from "../../../src/core/transcript";
import { assistantAnswer, openStore, systemMessage, tempDir, userMessage } from "./fixtures";

describe("TranscriptStore: the trash", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());

  const chatFile = (id: string): string => join(dir, "chats", `${id}.jsonl`);

  /** A chat with two branches whose current leaf is on the first (older) one. */
  async function branchedChat(store = openStore(dir, { now: () => 5_000 })): Promise<{ leaf: string; bytes: Buffer }> {
    await store.createChat({ id: "t", createdAt: 1, title: "Kept title", messages: [systemMessage(1)] });
    const [u1, a1] = await store.appendMany("t", [userMessage("question", 2), assistantAnswer("first answer", 3)]);
    await store.append("t", assistantAnswer("second answer", 4), { parentId: u1! });
    await store.setLeaf("t", a1!);
    return { leaf: a1!, bytes: readFileSync(chatFile("t")) };
  }

  it("trash moves the file as it is; restore puts the same bytes back: same id, branches and leaf, listed again", async () => {
    const store = openStore(dir, { now: () => 5_000 });
    const { leaf, bytes } = await branchedChat(store);
    const listed = await store.listChats();

    assert.equal(await store.trashChat("t"), true);
    assert.equal(existsSync(chatFile("t")), false);
    assert.deepEqual(readdirSync(join(dir, "trash")), ["t.5000.jsonl"]);
    assert.deepStrictEqual(readFileSync(join(dir, "trash", "t.5000.jsonl")), bytes, "moved, not rewritten");
    assert.deepEqual(await store.listChats(), []);
    assert.equal((await store.load("t")).ok, false);
    await assert.rejects(store.append("t", userMessage("lost?", 9)), (e: unknown) => e instanceof TranscriptError && e.code === "notFound");
    assert.deepEqual(
      (await store.trashEntries()).map((e) => [e.chatId, e.deletedAt]),
      [["t", 5000]],
    );

    assert.equal(await store.restoreChat("t"), true);
    assert.deepStrictEqual(readFileSync(chatFile("t")), bytes, "the same bytes are back");
    assert.deepEqual(readdirSync(join(dir, "trash")), []);
    const relisted = await store.listChats();
    assert.deepEqual(
      relisted.map((c) => [c.id, c.title, c.createdAt, c.sizeBytes]),
      listed.map((c) => [c.id, c.title, c.createdAt, c.sizeBytes]),
      "listed as before",
    );
    assert.deepEqual(relisted, await openStore(dir).rebuildIndex(), "the entry is the one the file gives");
    const loaded = await openStore(dir).load("t");
    assert.ok(loaded.ok);
    assert.equal(loaded.tree.leafId, leaf, "the same current leaf");
    assert.equal(loaded.tree.size, 4, "both branches");
    assert.equal(loaded.title, "Kept title");
    // It goes on like any chat.
    await store.append("t", userMessage("after undo", 6));
    await store.close();
    assert.deepEqual(
      (await openStore(dir).listChats()).map((c) => c.messageCount),
      [4],
    );
  });

  it("restore says false when there is nothing to restore, or a chat with that id exists (nothing is overwritten)", async () => {
    const store = openStore(dir, { now: () => 5_000 });
    assert.equal(await store.restoreChat("t"), false);
    assert.equal(await store.trashChat("t"), false, "no such chat");
    await branchedChat(store);
    await store.trashChat("t");
    await store.createChat({ id: "t", messages: [userMessage("a new chat, same id", 7)] });
    const newer = readFileSync(chatFile("t"));
    assert.equal(await store.restoreChat("t"), false);
    assert.deepStrictEqual(readFileSync(chatFile("t")), newer);
    assert.equal((await store.trashEntries()).length, 1, "the deleted copy stays in the trash");
  });

  it("emptyTrash removes only entries deleted before the cutoff, and ignores files that are not trash entries", async () => {
    let now = 1_000;
    const store = openStore(dir, { now: () => now });
    await store.createChat({ id: "old", messages: [userMessage("old", 1)] });
    await store.createChat({ id: "recent", messages: [userMessage("recent", 2)] });
    await store.trashChat("old");
    now = 9_000;
    await store.trashChat("recent");
    writeFileSync(join(dir, "trash", "notes.txt"), "not a chat");
    writeFileSync(join(dir, "trash", "../evil.1.jsonl"), "outside");
    const removed = await store.emptyTrash(5_000);
    assert.deepEqual(
      removed.map((e) => e.chatId),
      ["old"],
    );
    assert.deepEqual(readdirSync(join(dir, "trash")).sort(), ["notes.txt", "recent.9000.jsonl"]);
    assert.equal(existsSync(join(dir, "evil.1.jsonl")), true);
    assert.equal(await store.restoreChat("old"), false);
    assert.equal(await store.restoreChat("recent"), true);
  });

  it("another window sees a chat go to the trash and come back at its next list", async () => {
    const mine = openStore(dir, { now: () => 5_000 });
    await branchedChat(mine);
    const other = openStore(dir, { indexFlushDelayMs: 60_000 });
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await mine.close();
    utimesSync(join(dir, "chats"), anHourAgo, anHourAgo);
    assert.deepEqual(
      (await other.listChats()).map((c) => c.id),
      ["t"],
    );
    await mine.trashChat("t");
    assert.deepEqual(await other.listChats(), []);
    await mine.restoreChat("t");
    assert.deepEqual(
      (await other.listChats()).map((c) => [c.id, c.title]),
      [["t", "Kept title"]],
    );
  });
});
