import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TranscriptError } from "../../../src/core/transcript";
import { openStore, scenarioMessages, systemMessage, tempDir, userMessage, type TestMessage } from "./fixtures";

describe("TranscriptStore: round trip and chat operations", () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());

  it("round-trips realistic messages deep-equal, across a fresh store", async () => {
    const messages = scenarioMessages();
    const store = openStore(dir);
    const header = await store.createChat({ id: "chat-1", messages: messages.slice(0, 1), createdAt: 1000 });
    assert.equal(header.chatId, "chat-1");
    await store.appendMany("chat-1", messages.slice(1, 4));
    for (const m of messages.slice(4)) await store.append("chat-1", m);
    await store.close();

    const loaded = await openStore(dir).load("chat-1");
    assert.ok(loaded.ok);
    assert.deepStrictEqual(loaded.messages, messages);
    assert.equal(loaded.damaged, undefined);
    assert.deepStrictEqual(loaded.header, { type: "header", version: 2, chatId: "chat-1", createdAt: 1000 });
    assert.equal(loaded.title, "Read src/config.ts and tell me the default port.");
    assert.equal(loaded.titleIsExplicit, false);
  });

  it("writes the documented line format", async () => {
    const store = openStore(dir);
    await store.createChat({ id: "fmt", title: "Ports", createdAt: 5 });
    await store.append("fmt", userMessage("hi", 6));
    await store.renameChat("fmt", "Port change");
    const lines = readFileSync(join(dir, "chats", "fmt.jsonl"), "utf8").split("\n");
    assert.equal(lines.length, 4);
    assert.equal(lines[3], "");
    assert.deepStrictEqual(JSON.parse(lines[0] ?? ""), { type: "header", version: 2, chatId: "fmt", createdAt: 5, title: "Ports" });
    const message = JSON.parse(lines[1] ?? "");
    assert.match(message.id, /^[0-9a-f]{12}$/);
    assert.deepStrictEqual(message, { type: "message", id: message.id, message: { role: "user", content: "hi", timestamp: 6 } });
    assert.equal(JSON.parse(lines[2] ?? "").type, "meta");
  });

  it("titles: explicit, derived from the first user text (truncated), renamed, cleared", async () => {
    const store = openStore(dir);
    await store.createChat({ id: "t", messages: [systemMessage(1)] });
    let loaded = await store.load("t");
    assert.ok(loaded.ok);
    assert.equal(loaded.title, "New chat");

    const long = "Please   refactor the whole authentication module so that it uses the new token service and also update the tests";
    await store.append("t", { role: "user", content: [{ type: "image", data: "AAAA", mimeType: "image/png" }], timestamp: 2 });
    await store.append("t", { role: "user", content: [{ type: "text", text: long }], timestamp: 3 });
    loaded = await store.load("t");
    assert.ok(loaded.ok);
    assert.ok(Array.from(loaded.title).length <= 60, loaded.title);
    assert.ok(loaded.title.startsWith("Please refactor the whole authentication"));
    assert.ok(loaded.title.endsWith("…"));

    await store.renameChat("t", "  Auth refactor ");
    loaded = await store.load("t");
    assert.ok(loaded.ok);
    assert.equal(loaded.title, "Auth refactor");
    assert.equal(loaded.titleIsExplicit, true);
    assert.equal((await store.listChats())[0]?.title, "Auth refactor");

    await store.renameChat("t", null);
    loaded = await store.load("t");
    assert.ok(loaded.ok);
    assert.ok(loaded.title.startsWith("Please refactor"));
    assert.equal(loaded.titleIsExplicit, false);
  });

  it("load of a missing or invalid chat gives a clear result, never a throw", async () => {
    const store = openStore(dir);
    const missing = await store.load("nope");
    assert.deepStrictEqual(missing, { ok: false, chatId: "nope", code: "notFound", reason: "chat nope does not exist" });
    const invalid = await store.load("../etc/passwd");
    assert.equal(invalid.ok, false);
    assert.equal(!invalid.ok && invalid.code, "invalidId");
  });

  it("append to a missing chat rejects and creates no file", async () => {
    const store = openStore(dir);
    await assert.rejects(store.append("ghost", userMessage("x", 1)), (e: unknown) => e instanceof TranscriptError && e.code === "notFound");
    assert.equal(existsSync(join(dir, "chats", "ghost.jsonl")), false);
  });

  it("createChat refuses an existing id and an invalid id", async () => {
    const store = openStore(dir);
    await store.createChat({ id: "dup" });
    await assert.rejects(store.createChat({ id: "dup" }), (e: unknown) => e instanceof TranscriptError && e.code === "exists");
    await assert.rejects(store.createChat({ id: "Bad/Id" }), (e: unknown) => e instanceof TranscriptError && e.code === "invalidId");
    const generated = await store.createChat();
    assert.match(generated.chatId, /^[a-z0-9][a-z0-9_-]*$/);
  });

  it("rejects an unstorable message before writing anything", async () => {
    const store = openStore(dir);
    await store.createChat({ id: "c" });
    const before = readFileSync(join(dir, "chats", "c.jsonl"));
    const circular: Record<string, unknown> = { role: "user", timestamp: 1 };
    circular["self"] = circular;
    await assert.rejects(store.append("c", circular as unknown as TestMessage));
    await assert.rejects(store.append("c", { content: "no role" } as unknown as TestMessage), TypeError);
    assert.deepStrictEqual(readFileSync(join(dir, "chats", "c.jsonl")), before);
  });

  it("deleteChat removes the file; later appends fail; list drops it", async () => {
    const store = openStore(dir);
    await store.createChat({ id: "gone", messages: [userMessage("bye", 1)] });
    assert.equal(await store.deleteChat("gone"), true);
    assert.equal(await store.deleteChat("gone"), false);
    assert.equal(existsSync(join(dir, "chats", "gone.jsonl")), false);
    await assert.rejects(store.append("gone", userMessage("again", 2)), (e: unknown) => e instanceof TranscriptError && e.code === "notFound");
    assert.deepStrictEqual(await store.listChats(), []);
  });

  it("fsync mode writes the same data", async () => {
    const store = openStore(dir, { fsync: true });
    await store.createChat({ id: "s", messages: scenarioMessages().slice(0, 2) });
    await store.appendMany("s", scenarioMessages().slice(2));
    const loaded = await store.load("s");
    assert.ok(loaded.ok);
    assert.deepStrictEqual(loaded.messages, scenarioMessages());
  });

  it("an empty file (a create cut off by a crash) gets a header on the next append", async () => {
    const store = openStore(dir);
    await store.createChat({ id: "e" });
    writeFileSync(join(dir, "chats", "e.jsonl"), "");
    const empty = await openStore(dir).load("e");
    assert.equal(!empty.ok && empty.code, "empty");
    const fresh = openStore(dir);
    await fresh.append("e", userMessage("after crash", 9));
    const loaded = await fresh.load("e");
    assert.ok(loaded.ok);
    assert.deepStrictEqual(loaded.messages, [userMessage("after crash", 9)]);
    assert.equal(loaded.damaged, undefined);
  });
});
