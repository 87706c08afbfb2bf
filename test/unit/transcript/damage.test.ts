import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TranscriptError, type LoadResult } from "../../../src/core/transcript";
import { openStore, scenarioMessages, tempDir, userMessage, type TestMessage } from "./fixtures";

function expectOk(result: LoadResult<TestMessage>): Extract<LoadResult<TestMessage>, { ok: true }> {
  assert.ok(result.ok, result.ok ? "" : `${result.code}: ${result.reason}`);
  return result;
}

describe("TranscriptStore: damaged files", () => {
  let dir: string;
  let cleanup: () => void;
  let file: string;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    file = join(dir, "chats", "c.jsonl");
  });
  afterEach(() => cleanup());

  async function writeScenario(): Promise<{ bytes: Buffer; lastLineStart: number; lines: number }> {
    const store = openStore(dir);
    await store.createChat({ id: "c", messages: scenarioMessages() });
    await store.close();
    const bytes = readFileSync(file);
    const lastLineStart = bytes.lastIndexOf(0x0a, bytes.length - 2) + 1;
    return { bytes, lastLineStart, lines: scenarioMessages().length + 1 };
  }

  it("a cut at every byte of the last line loses only that line, and reports it", async () => {
    const { bytes, lastLineStart, lines } = await writeScenario();
    const all = scenarioMessages();
    const store = openStore(dir);
    let damagedCuts = 0;
    for (let cut = lastLineStart; cut <= bytes.length; cut++) {
      writeFileSync(file, bytes.subarray(0, cut));
      const loaded = expectOk(await store.load("c"));
      if (cut === lastLineStart) {
        // Cut right after the previous line's newline: a clean file.
        assert.deepStrictEqual(loaded.messages, all.slice(0, -1));
        assert.equal(loaded.damaged, undefined, `cut ${cut}`);
      } else if (cut >= bytes.length - 1) {
        // The whole record is there (only its "\n" may be missing): nothing is lost.
        assert.deepStrictEqual(loaded.messages, all, `cut ${cut}`);
        assert.equal(loaded.damaged, undefined, `cut ${cut}`);
      } else {
        damagedCuts++;
        assert.deepStrictEqual(loaded.messages, all.slice(0, -1), `cut ${cut}`);
        assert.deepStrictEqual(
          loaded.damaged?.map((d) => ({ ...d, reason: "" })),
          [{ line: lines, byteOffset: lastLineStart, byteLength: cut - lastLineStart, reason: "", tail: true }],
        );
        assert.match(loaded.damaged?.[0]?.reason ?? "", /^incomplete last line/);
      }
    }
    assert.equal(damagedCuts, bytes.length - 1 - lastLineStart - 1);
  });

  it("an append after a cut at any byte never glues onto the broken line", async () => {
    const { bytes, lastLineStart } = await writeScenario();
    const all = scenarioMessages();
    const extra = userMessage("and now 9090", 42);
    for (let cut = lastLineStart; cut <= bytes.length; cut++) {
      writeFileSync(file, bytes.subarray(0, cut));
      // A fresh store each time: the append path must find the damage by itself.
      const store = openStore(dir);
      await store.append("c", extra);
      const loaded = expectOk(await openStore(dir).load("c"));
      const complete = cut >= bytes.length - 1;
      const kept = complete ? all : all.slice(0, -1);
      assert.deepStrictEqual(loaded.messages, [...kept, extra], `cut ${cut}`);
      const middleDamage = cut > lastLineStart && !complete;
      assert.equal(loaded.damaged?.length ?? 0, middleDamage ? 1 : 0, `cut ${cut}`);
      if (middleDamage) assert.equal(loaded.damaged?.[0]?.tail, false);
      await store.close();
    }
  });

  it("an append after load() of a damaged file also starts on a new line", async () => {
    const { bytes } = await writeScenario();
    writeFileSync(file, bytes.subarray(0, bytes.length - 20));
    const store = openStore(dir);
    const before = expectOk(await store.load("c"));
    assert.equal(before.damaged?.length, 1);
    await store.append("c", userMessage("next", 50));
    await store.append("c", userMessage("next2", 51));
    const after = expectOk(await store.load("c"));
    assert.deepStrictEqual(after.messages, [...scenarioMessages().slice(0, -1), userMessage("next", 50), userMessage("next2", 51)]);
  });

  it("garbage and binary junk in the middle are skipped and reported; the rest is kept", async () => {
    const { bytes } = await writeScenario();
    const text = bytes.toString("utf8").split("\n");
    const junk = Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0xc3, 0x28, 0x0d]);
    const parts = [
      Buffer.from(text.slice(0, 3).join("\n") + "\n"),
      Buffer.from("{not json at all\n"),
      junk,
      Buffer.from("\n"),
      Buffer.from('["an","array"]\n{"type":"message","message":{"content":"no role"}}\n{"type":"future-thing"}\n'),
      Buffer.from(text.slice(3).join("\n")),
    ];
    writeFileSync(file, Buffer.concat(parts));
    const loaded = expectOk(await openStore(dir).load("c"));
    assert.deepStrictEqual(loaded.messages, scenarioMessages());
    assert.deepStrictEqual(
      loaded.damaged?.map((d) => d.line),
      [4, 5, 6, 7, 8],
    );
    const reasons = loaded.damaged?.map((d) => d.reason) ?? [];
    assert.match(reasons[0] ?? "", /malformed JSON/);
    assert.match(reasons[1] ?? "", /invalid UTF-8/);
    assert.match(reasons[2] ?? "", /not a JSON object/);
    assert.match(reasons[3] ?? "", /string role/);
    assert.match(reasons[4] ?? "", /unknown record type/);
    assert.ok(loaded.damaged?.every((d) => !d.tail));
    const offset = loaded.damaged?.[0]?.byteOffset ?? -1;
    assert.equal(
      Buffer.concat(parts)
        .subarray(offset, offset + 16)
        .toString(),
      "{not json at all",
    );
  });

  it("binary junk as the last line is a damaged tail", async () => {
    const { bytes } = await writeScenario();
    writeFileSync(file, Buffer.concat([bytes, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff])]));
    const loaded = expectOk(await openStore(dir).load("c"));
    assert.deepStrictEqual(loaded.messages, scenarioMessages());
    assert.equal(loaded.damaged?.[0]?.tail, true);
  });

  it("an empty file and a file of pure binary junk are refused clearly", async () => {
    const store = openStore(dir);
    await store.createChat({ id: "empty" });
    writeFileSync(join(dir, "chats", "empty.jsonl"), "");
    const empty = await store.load("empty");
    assert.equal(!empty.ok && empty.code, "empty");

    await store.createChat({ id: "junk" });
    writeFileSync(join(dir, "chats", "junk.jsonl"), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37) % 256)));
    const junk = await store.load("junk");
    assert.equal(junk.ok, false);
    assert.equal(!junk.ok && junk.code, "noHeader");
    assert.match(!junk.ok ? junk.reason : "", /no header and no readable records/);
  });

  it("a missing header: the messages are kept and the problem reported", async () => {
    const { bytes } = await writeScenario();
    const text = bytes.toString("utf8");
    writeFileSync(file, text.slice(text.indexOf("\n") + 1));
    const loaded = expectOk(await openStore(dir).load("c"));
    assert.deepStrictEqual(loaded.messages, scenarioMessages());
    assert.equal(loaded.header.chatId, "c");
    assert.equal(loaded.header.createdAt, 1_750_000_000_000);
    assert.match(loaded.damaged?.[0]?.reason ?? "", /missing header/);
  });

  it("a header from a future version is refused, for load and for append", async () => {
    const { bytes } = await writeScenario();
    const text = bytes.toString("utf8");
    const v3 = JSON.stringify({ type: "header", version: 3, chatId: "c", createdAt: 1, compression: "zstd" });
    writeFileSync(file, v3 + text.slice(text.indexOf("\n")));
    const store = openStore(dir);
    const loaded = await store.load("c");
    assert.equal(loaded.ok, false);
    assert.equal(!loaded.ok && loaded.code, "unsupportedVersion");
    assert.match(!loaded.ok ? loaded.reason : "", /format version 3 is newer than this build of Pi Chat reads \(up to 2\)/);
    const size = readFileSync(file).length;
    await assert.rejects(store.append("c", userMessage("x", 1)), (e: unknown) => e instanceof TranscriptError && e.code === "unsupportedVersion");
    // Also when the append is the first thing a store does with the file.
    await assert.rejects(openStore(dir).append("c", userMessage("x", 1)), (e: unknown) => e instanceof TranscriptError && e.code === "unsupportedVersion");
    assert.equal(readFileSync(file).length, size);
    const list = await store.listChats();
    assert.equal(list[0]?.unreadable?.code, "unsupportedVersion");
  });

  it("a header with a non-numeric version is refused", async () => {
    const { bytes } = await writeScenario();
    const text = bytes.toString("utf8");
    writeFileSync(file, JSON.stringify({ type: "header", version: "1", chatId: "c", createdAt: 1 }) + text.slice(text.indexOf("\n")));
    const loaded = await openStore(dir).load("c");
    assert.equal(!loaded.ok && loaded.code, "unsupportedVersion");
    assert.match(!loaded.ok ? loaded.reason : "", /no valid format version/);
  });
});
