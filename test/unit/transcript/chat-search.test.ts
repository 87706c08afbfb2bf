// History search and rename over real chat files: the words of any message of any branch find
// their chat (newest first); a chat without them is not parsed; a rename survives a reload.
import assert from "node:assert/strict";
import { assistantAnswer, openStore, tempDir, userMessage } from "./fixtures";

describe("TranscriptStore: searching and renaming chats", () => {
  let t: ReturnType<typeof tempDir>;
  beforeEach(() => {
    t = tempDir();
  });
  afterEach(() => t.cleanup());

  it("finds the chats whose prompts or answers hold the words, any branch, any case, newest first", async () => {
    const store = openStore(t.dir);
    for (let i = 0; i < 30; i++) {
      await store.createChat({
        id: `c${i}`,
        createdAt: 1000 + i,
        messages: [userMessage(`question ${i} about ports`, 1000 + i), assistantAnswer(`answer ${i}`, 1001 + i)],
      });
    }
    await store.append("c7", assistantAnswer("The Flux Capacitor needs 1.21 gigawatts.", 5000));
    // An edited prompt on another branch of c3: still found.
    const created = await store.createChat({ id: "b", createdAt: 6000, messages: [userMessage("first version", 6000), assistantAnswer("one", 6001)] });
    await store.appendMany("b", [userMessage("second version mentions the flux capacitor", 6002), assistantAnswer("two", 6003)], { parentId: null });
    void created;
    await store.append("c12", userMessage('he said "flux capacitor" twice', 7000));

    const hits = await store.searchChats("FLUX capacitor");
    assert.deepEqual(
      hits.map((h) => h.chatId),
      ["c12", "b", "c7"],
    );
    assert.match(hits.find((h) => h.chatId === "c7")!.snippet, /Flux Capacitor needs 1\.21 gigawatts/);
    assert.deepEqual(
      (await store.searchChats('"flux capacitor"')).map((h) => h.chatId),
      ["c12"],
      "quotes are searched as typed",
    );
    assert.deepEqual(await store.searchChats("nowhere to be found"), []);
    assert.equal((await store.searchChats("ports", 5)).length, 5, "the limit holds");
  });

  it("a rename survives a reload; clearing it goes back to the first prompt", async () => {
    const store = openStore(t.dir);
    await store.createChat({ id: "r", messages: [userMessage("Read src/config.ts and tell me the default port.", 100)] });
    await store.renameChat("r", "Port question");
    await store.close();
    const reopened = openStore(t.dir);
    assert.equal((await reopened.listChats()).find((c) => c.id === "r")?.title, "Port question");
    await reopened.renameChat("r", null);
    assert.equal((await openStore(t.dir).listChats()).find((c) => c.id === "r")?.title, "Read src/config.ts and tell me the default port.");
  });
});
