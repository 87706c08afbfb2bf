// The history list comes from the index in memory after two stats (the chats folder and
// index.json; src/core/transcript/list-freshness.ts). These tests hold what that check must still
// see of another window's work, what it reads when nothing changed, and what it does not see (a
// chat appended by a writer that never updates index.json) and when that becomes visible.
import assert from "node:assert/strict";
import { existsSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createNodeTranscriptStorage, TranscriptStore } from "../../../src/core/transcript";
import type { TranscriptStorage } from "../../../src/core/transcript/types";
import { assistantAnswer, openStore, systemMessage, tempDir, userMessage, type TestMessage } from "./fixtures";

/** The real Node storage, recording each call as "method path". */
function recordingStorage(dir: string): { storage: TranscriptStorage; calls: string[] } {
  const inner = createNodeTranscriptStorage(dir);
  const calls: string[] = [];
  const storage: TranscriptStorage = {
    ...inner,
    read: (path) => {
      calls.push(`read ${path}`);
      return inner.read(path);
    },
    readRange: (path, position, length) => {
      calls.push(`readRange ${path}`);
      return inner.readRange(path, position, length);
    },
    stat: (path) => {
      calls.push(`stat ${path}`);
      return inner.stat(path);
    },
    list: (path) => {
      calls.push(`list ${path}`);
      return inner.list(path);
    },
  };
  return { storage, calls };
}

describe("TranscriptStore: the history list from the index, and what it sees of other windows", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());

  /** Two chats, index.json written; the folder and index.json dated an hour ago (past the racy window). */
  async function seed(): Promise<void> {
    const store = openStore(dir);
    await store.createChat({ id: "a", createdAt: 100, messages: [systemMessage(100), userMessage("About ports", 110)] });
    await store.createChat({ id: "b", createdAt: 200, messages: [systemMessage(200), userMessage("About paths", 210)] });
    await store.close();
    ageStorage();
  }

  /** What a user's folder looks like when nothing was written for a while. */
  function ageStorage(): void {
    const anHourAgo = new Date(Date.now() - 3_600_000);
    for (const path of [join(dir, "chats"), join(dir, "index.json")]) if (existsSync(path)) utimesSync(path, anHourAgo, anHourAgo);
  }

  /** This window's store: it has listed once, as the view does when it opens. */
  async function thisWindow(): Promise<{ store: TranscriptStore<TestMessage>; calls: string[] }> {
    const { storage, calls } = recordingStorage(dir);
    const store = new TranscriptStore<TestMessage>(storage, { indexFlushDelayMs: 60_000 });
    await store.listChats();
    calls.length = 0;
    return { store, calls };
  }

  /** Another window: its index.json writes wait for flush() (or never come, if it crashes). */
  const otherWindow = (): TranscriptStore<TestMessage> => openStore(dir, { indexFlushDelayMs: 60_000 });

  const ids = (list: { id: string }[]): string[] => list.map((c) => c.id).sort();

  it("when nothing changed, a list stats the folder and index.json and reads nothing else", async () => {
    await seed();
    const { store, calls } = await thisWindow();
    const list = await store.listChats();
    assert.deepEqual(ids(list), ["a", "b"]);
    assert.deepEqual(calls.sort(), ["stat chats", "stat index.json"]);
    // The title search is answered from the same index.
    calls.length = 0;
    assert.deepEqual(ids(await store.searchTitles("PORTS")), ["a"]);
    assert.deepEqual(calls.sort(), ["stat chats", "stat index.json"]);
    await store.close();
  });

  it("sees a chat another window created, even before that window writes index.json; reads only that chat", async () => {
    await seed();
    const { store, calls } = await thisWindow();
    await otherWindow().createChat({ id: "c", createdAt: 300, messages: [systemMessage(300), userMessage("New elsewhere", 310)] });
    const list = await store.listChats();
    assert.deepEqual(ids(list), ["a", "b", "c"]);
    assert.equal(list.find((c) => c.id === "c")?.title, "New elsewhere");
    assert.deepEqual(
      calls.filter((c) => c.startsWith("read ")),
      ["read chats/c.jsonl"],
    );
    await store.close();
  });

  it("sees a chat another window deleted, or moved out of the folder, without index.json", async () => {
    await seed();
    const { store } = await thisWindow();
    assert.equal(await otherWindow().deleteChat("a"), true);
    assert.deepEqual(ids(await store.listChats()), ["b"]);
    ageStorage();
    await store.listChats();
    renameSync(join(dir, "chats", "b.jsonl"), join(dir, "b.jsonl.moved"));
    assert.deepEqual(ids(await store.listChats()), []);
    await store.close();
  });

  it("sees another window's append and rename once that window wrote index.json (it does within indexFlushDelayMs)", async () => {
    await seed();
    const { store } = await thisWindow();
    const other = otherWindow();
    await other.append("b", assistantAnswer("Paths are strings.", 220));
    await other.renameChat("a", "Ports, renamed elsewhere");
    await other.flush();
    const list = await store.listChats();
    const b = list.find((c) => c.id === "b");
    assert.equal(b?.messageCount, 3);
    assert.equal(b?.updatedAt, 220);
    assert.equal(b?.lastPreview, "Paths are strings.");
    assert.equal(list.find((c) => c.id === "a")?.title, "Ports, renamed elsewhere");
    assert.deepEqual(ids(await store.searchTitles("renamed elsewhere")), ["a"]);
    await store.close();
  });

  it("a chat appended by a writer that never updates index.json: seen when this window opens it, and by the next window's first list", async () => {
    await seed();
    const { store } = await thisWindow();
    // A writer that appends and never writes index.json (a window that crashed within a second
    // of its append, an older build, a tool): the folder and index.json do not change.
    const header = readFileSync(join(dir, "chats", "b.jsonl"), "utf8");
    writeFileSync(
      join(dir, "chats", "b.jsonl"),
      `${header}${JSON.stringify({ type: "message", message: assistantAnswer("Appended by a crashed window", 230) })}\n`,
    );
    ageStorage();

    // Documented limit: this window's list still shows what the index says...
    assert.equal((await store.listChats()).find((c) => c.id === "b")?.messageCount, 2);
    // ...until it opens the chat, which reads the file and corrects the entry,
    const loaded = await store.load("b");
    assert.ok(loaded.ok);
    assert.equal(loaded.messages.length, 3);
    const b = (await store.listChats()).find((c) => c.id === "b");
    assert.equal(b?.messageCount, 3);
    assert.equal(b?.lastPreview, "Appended by a crashed window");
    await store.close();
    // ...and a new window's first list checks every file's size.
    writeFileSync(
      join(dir, "chats", "a.jsonl"),
      `${readFileSync(join(dir, "chats", "a.jsonl"), "utf8")}${JSON.stringify({ type: "message", message: assistantAnswer("Also unnoticed", 240) })}\n`,
    );
    const next = openStore(dir);
    assert.equal((await next.listChats()).find((c) => c.id === "a")?.messageCount, 3);
  });

  it("a change in the same clock tick as the last look is still seen: a too-recent timestamp is not trusted", async () => {
    await seed();
    // The folder was written just now (within the racy window) when this window lists.
    const recent = new Date(Date.now() - 500);
    utimesSync(join(dir, "chats"), recent, recent);
    const { store, calls } = await thisWindow();
    await otherWindow().createChat({ id: "c", createdAt: 300, messages: [userMessage("Same tick", 310)] });
    // The file system gives the folder the same timestamp as before (a coarse clock).
    utimesSync(join(dir, "chats"), recent, recent);
    assert.deepEqual(ids(await store.listChats()), ["a", "b", "c"]);
    assert.ok(calls.includes("list chats"), "the folder was read again");
    await store.close();
  });

  it("when index.json disappears or is corrupted between lists, every file is checked and index.json is written again", async () => {
    await seed();
    const { store } = await thisWindow();
    rmSync(join(dir, "index.json"));
    // Unnoticed by the folder: a chat appended by hand.
    writeFileSync(
      join(dir, "chats", "a.jsonl"),
      `${readFileSync(join(dir, "chats", "a.jsonl"), "utf8")}${JSON.stringify({ type: "message", message: assistantAnswer("Hand", 120) })}\n`,
    );
    ageStorage();
    assert.equal((await store.listChats()).find((c) => c.id === "a")?.messageCount, 3);
    await store.flush();
    assert.deepEqual(ids(JSON.parse(readFileSync(join(dir, "index.json"), "utf8")).chats), ["a", "b"]);

    writeFileSync(join(dir, "index.json"), "{ not json");
    assert.deepEqual(ids(await store.listChats()), ["a", "b"]);
    await store.flush();
    assert.equal(JSON.parse(readFileSync(join(dir, "index.json"), "utf8")).chats.length, 2);
    await store.close();
  });
});
