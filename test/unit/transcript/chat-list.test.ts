import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ChatSummary } from "../../../src/core/transcript";
import { assistantAnswer, openStore, scenarioMessages, systemMessage, tempDir, userMessage } from "./fixtures";

describe("TranscriptStore: chat index", () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());

  const indexPath = (): string => join(dir, "index.json");

  async function seed(): Promise<ChatSummary[]> {
    const store = openStore(dir);
    await store.createChat({ id: "a", createdAt: 100, messages: [systemMessage(100), userMessage("First chat about ports", 110)] });
    await store.createChat({ id: "b", createdAt: 200, title: "Named chat", messages: [systemMessage(200)] });
    await store.appendMany("b", [userMessage("hello", 210), assistantAnswer("Hi! How can I help?", 220)]);
    await store.createChat({ id: "c", createdAt: 300, messages: scenarioMessages() });
    const list = await store.listChats();
    await store.close();
    return list;
  }

  const size = (id: string): number => statSync(join(dir, "chats", `${id}.jsonl`)).size;
  const expected = (): ChatSummary[] => [
    {
      id: "c",
      title: "Read src/config.ts and tell me the default port.",
      createdAt: 300,
      updatedAt: 1_750_000_000_008,
      messageCount: 9,
      sizeBytes: size("c"),
      firstPrompt: "Read src/config.ts and tell me the default port.",
      model: "openai/gpt-5",
      lastPreview: "好的 — you denied the edit ✓ 🎉; the port stays 3000.",
    },
    {
      id: "b",
      title: "Named chat",
      createdAt: 200,
      updatedAt: 220,
      messageCount: 3,
      sizeBytes: size("b"),
      firstPrompt: "hello",
      model: "openai/gpt-5",
      lastPreview: "Hi! How can I help?",
    },
    {
      id: "a",
      title: "First chat about ports",
      createdAt: 100,
      updatedAt: 110,
      messageCount: 2,
      sizeBytes: size("a"),
      firstPrompt: "First chat about ports",
      lastPreview: "First chat about ports",
    },
  ];

  it("lists chats newest first, and index.json is written atomically after a debounce", async () => {
    assert.deepStrictEqual(await seed(), expected());
    const index = JSON.parse(readFileSync(indexPath(), "utf8"));
    assert.equal(index.version, 2);
    assert.equal(index.chats.length, 3);
    // No temp files left behind.
    assert.deepStrictEqual(readdirSync(dir).sort(), ["chats", "index.json"]);
  });

  it("the incremental index equals a rebuild from the files", async () => {
    await seed();
    const incremental = JSON.parse(readFileSync(indexPath(), "utf8"));
    const rebuilt = await openStore(dir).rebuildIndex();
    assert.deepStrictEqual(rebuilt, expected());
    const fromFiles = JSON.parse(readFileSync(indexPath(), "utf8"));
    const byId = (x: { chats: { id: string }[] }) => [...x.chats].sort((p, q) => p.id.localeCompare(q.id));
    assert.deepStrictEqual(byId(incremental), byId(fromFiles));
  });

  it("is correct when index.json is missing", async () => {
    await seed();
    rmSync(indexPath());
    assert.deepStrictEqual(await openStore(dir).listChats(), expected());
  });

  it("is correct when index.json is corrupt or foreign", async () => {
    await seed();
    for (const junk of ['{"version":1,"chats":[{"id":', "null", "[1,2]", '{"version":9,"chats":[]}', '{"version":1,"chats":[{"id":"a"},7]}']) {
      writeFileSync(indexPath(), junk);
      assert.deepStrictEqual(await openStore(dir).listChats(), expected(), junk);
    }
    writeFileSync(indexPath(), Buffer.from([0xff, 0x00, 0xfe]));
    assert.deepStrictEqual(await openStore(dir).listChats(), expected());
  });

  it("is correct when index.json is stale: a file added by hand, one deleted by hand, one appended elsewhere", async () => {
    await seed();
    const header = JSON.stringify({ type: "header", version: 1, chatId: "hand-made", createdAt: 400 });
    const msg = JSON.stringify({ type: "message", message: userMessage("Hand made chat", 410) });
    writeFileSync(join(dir, "chats", "hand-made.jsonl"), `${header}\n${msg}\n`);
    rmSync(join(dir, "chats", "a.jsonl"));
    // Another store (say, another window) appends; this one's index knows nothing of it.
    const other = openStore(dir);
    await other.append("b", userMessage("one more", 230));

    const store = openStore(dir);
    const list = await store.listChats();
    assert.deepStrictEqual(
      list.map((c) => [c.id, c.messageCount, c.updatedAt]),
      [
        ["c", 9, 1_750_000_000_008],
        ["hand-made", 1, 410],
        ["b", 4, 230],
      ],
    );
    assert.equal(list.find((c) => c.id === "hand-made")?.title, "Hand made chat");
    await store.close();
    const index = JSON.parse(readFileSync(indexPath(), "utf8"));
    assert.deepStrictEqual(index.chats.map((c: { id: string }) => c.id).sort(), ["b", "c", "hand-made"]);
  });

  it("appends and renames keep the list current without a rescan", async () => {
    await seed();
    const store = openStore(dir);
    await store.listChats();
    await store.append("a", assistantAnswer("Ports are numbers.", 500));
    await store.renameChat("a", "Ports");
    const list = await store.listChats();
    const a = list.find((c) => c.id === "a");
    assert.deepStrictEqual(a, {
      id: "a",
      title: "Ports",
      createdAt: 100,
      updatedAt: 500,
      messageCount: 3,
      sizeBytes: size("a"),
      firstPrompt: "First chat about ports",
      model: "openai/gpt-5",
      lastPreview: "Ports are numbers.",
    });
    assert.deepStrictEqual(
      list.map((c) => c.id),
      ["c", "a", "b"],
    );
    await store.close();
    assert.deepStrictEqual(await openStore(dir).rebuildIndex(), list);
  });

  it("ignores files that are not chats and marks damaged ones", async () => {
    await seed();
    writeFileSync(join(dir, "chats", "notes.txt"), "hello");
    writeFileSync(join(dir, "chats", "UPPER.jsonl"), "x");
    const cFile = join(dir, "chats", "c.jsonl");
    writeFileSync(cFile, readFileSync(cFile).subarray(0, -10));
    const list = await openStore(dir).listChats();
    assert.deepStrictEqual(
      list.map((c) => c.id),
      ["c", "b", "a"],
    );
    assert.equal(list[0]?.damaged, true);
    assert.equal(list[0]?.messageCount, 8);
  });

  it("a tampered index.json cannot make the store read or list a file outside chats/", async () => {
    await seed();
    // A well-formed chat file outside the chats folder, and an index whose ids climb to it.
    const header = JSON.stringify({ type: "header", version: 1, chatId: "outside", createdAt: 900 });
    const secret = JSON.stringify({ type: "message", message: userMessage("SECRET outside the store", 910) });
    const outsideFile = join(dir, "outside.jsonl");
    writeFileSync(outsideFile, `${header}\n${secret}\n`);
    const size = readFileSync(outsideFile).length;
    const hostile = ["../outside", "..\\outside", "/etc/passwd", "a/../../outside", "UPPER", "", "x".repeat(200)];
    const entries = hostile.map((id) => ({ id, createdAt: 900, updatedAt: 910, messageCount: 1, fileSize: size, derivedTitle: "SECRET outside the store" }));
    const index = JSON.parse(readFileSync(indexPath(), "utf8"));
    writeFileSync(indexPath(), JSON.stringify({ version: 1, chats: [...index.chats, ...entries] }));

    const store = openStore(dir);
    assert.deepStrictEqual(await store.listChats(), expected());
    // Loading by such an id is refused before any file is touched.
    for (const id of hostile) assert.equal((await store.load(id)).ok, false, id);
    await store.close();
  });

  it("rebuildIndex works with no chats folder at all", async () => {
    const store = openStore(dir);
    assert.deepStrictEqual(await store.rebuildIndex(), []);
    assert.equal(existsSync(indexPath()), true);
  });
});
