// pi session import: the store writes an imported tree whole (TranscriptStore.importChat), and
// reading it back gives the same tree, the current leaf, the model, the title and the origin.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openStore, systemMessage, tempDir, userMessage } from "../transcript/fixtures";

describe("pi session import: the store writes the imported tree", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());

  it("a tree with two branches, its leaf, model, title and origin round-trip through a fresh store", async () => {
    const store = openStore(dir);
    const origin = { kind: "pi-session" as const, path: "/home/u/.pi/agent/sessions/--p--/x.jsonl", sessionId: "abc" };
    const id = await store.importChat({
      title: "Port work",
      origin,
      nodes: [
        { id: "import-system", parentId: null, message: systemMessage(0) },
        { id: "pi-u1", parentId: "import-system", message: userMessage("one", 1) },
        { id: "pi-u2", parentId: "import-system", message: userMessage("two", 2) },
        { id: "pi-u3", parentId: "pi-u1", message: userMessage("three", 3) },
      ],
      leafId: "pi-u2",
      model: { provider: "local", modelId: "m", thinkingLevel: "high" },
    });
    await store.close();
    const loaded = await openStore(dir).load(id);
    assert.ok(loaded.ok);
    assert.equal(loaded.damaged, undefined, "nothing read around");
    assert.deepEqual(
      loaded.messages.map((m) => (m.role === "user" ? m.content : m.role)),
      ["system", "two"],
      "the leaf pi was on",
    );
    assert.equal(loaded.tree.size, 4, "the other branch is kept");
    assert.deepEqual(loaded.header.origin, origin);
    assert.equal(loaded.title, "Port work");
    assert.deepEqual(loaded.model, { provider: "local", modelId: "m", thinkingLevel: "high" });
    const list = await openStore(dir).listChats();
    assert.deepEqual(
      list.map((c) => [c.id, c.title, c.model]),
      [[id, "Port work", "local/m"]],
    );
    assert.match(readFileSync(join(dir, "chats", `${id}.jsonl`), "utf8").split("\n")[0]!, /"origin":\{"kind":"pi-session"/);
  });

  it("refuses an invalid node id before anything is written", async () => {
    const store = openStore(dir);
    await assert.rejects(
      store.importChat({
        origin: { kind: "pi-session", path: "/x", sessionId: "s" },
        nodes: [{ id: "../bad", parentId: null, message: userMessage("x", 1) }],
        leafId: null,
      }),
      /invalid node id/,
    );
    assert.deepEqual(await store.listChats(), []);
  });
});
