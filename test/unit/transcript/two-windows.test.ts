// Two VS Code windows on one folder share its chats. Appends from two processes at once must not
// tear each other's lines (a line over 512 KiB used to be written in two pieces); a chat is run
// by one window at a time (a lock with a heartbeat, taken over when its window died); the other
// window cannot run it meanwhile, must reload it before running it, and every request built
// afterwards is valid (no tool result without its call); index.json keeps both windows' chats.
//
// This file is also the child process of the first test: run with PI_CHAT_APPEND_CHILD set, it
// appends messages to a chat and exits.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { ChatBusyError, ChatService } from "../../../src/core/chat-service";
import { createNodeWorkspaceFs } from "../../../src/core/tools";
import { ChatLocks, createNodeTranscriptStorage, TranscriptStore } from "../../../src/core/transcript";
import { createScriptedModel, reply } from "../../support/scripted-model";
import { tempDir as supportTempDir } from "../../support/temp";
import { openStore, tempDir, userMessage } from "./fixtures";

const CHILD = process.env.PI_CHAT_APPEND_CHILD;

/**
 * Child: append until `until` (epoch ms), a short pause between appends (a window writes as a chat
 * streams, not in a tight loop); every 40th message is large (600 KB, over the old 512 KiB split
 * into two writes). Prints how many it appended.
 */
async function appendAsChild(spec: string): Promise<void> {
  const { dir, chatId, name, until } = JSON.parse(spec) as { dir: string; chatId: string; name: string; until: number };
  const store = new TranscriptStore(createNodeTranscriptStorage(dir), { indexFlushDelayMs: 5 });
  let i = 0;
  for (; Date.now() < until; i++) {
    const size = i % 40 === 0 ? 600 * 1024 : 200 + (i % 7) * 50;
    await store.append(chatId, userMessage(`${name}:${i}:${"x".repeat(size)}`, 1_000 + i));
    await new Promise((r) => setTimeout(r, 3));
  }
  await store.close();
  process.stdout.write(`APPENDED ${i}\n`);
}

if (CHILD !== undefined) {
  appendAsChild(CHILD).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
} else {
  describe("two windows, one workspace", function () {
    this.timeout(60_000);

    // A minute-long soak: part of the stress suite (`npm run test:stress`, PI_CHAT_STRESS=1), not of
    // the unit run. PI_CHAT_TWO_WINDOWS_SECONDS shortens it while working on it.
    const seconds = Number(process.env.PI_CHAT_TWO_WINDOWS_SECONDS) || 60;
    (process.env.PI_CHAT_STRESS === "1" ? it : it.skip)(
      `[stress] two processes appending large and small messages at once for ${seconds} s lose nothing`,
      async function () {
        this.timeout(seconds * 1000 + 60_000);
        const { dir, cleanup } = tempDir();
        try {
          const store = openStore(dir);
          await store.createChat({ id: "shared", createdAt: 1 });
          const until = Date.now() + seconds * 1000;
          const run = (name: string) =>
            new Promise<number>((resolve, reject) => {
              const child = spawn(process.execPath, [__filename], {
                env: { ...process.env, PI_CHAT_APPEND_CHILD: JSON.stringify({ dir, chatId: "shared", name, until }) },
                stdio: ["ignore", "pipe", "inherit"],
              });
              let out = "";
              child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
              child.on("error", reject);
              child.on("exit", (code) => {
                const appended = /APPENDED (\d+)/.exec(out)?.[1];
                if (code === 0 && appended !== undefined) resolve(Number(appended));
                else reject(new Error(`${name} exited with ${code}`));
              });
            });
          const [a, b] = await Promise.all([run("a"), run("b")]);
          assert.ok(a > 100 && b > 100, `both wrote all the time (${a} and ${b} messages)`);

          const loaded = await openStore(dir).load("shared");
          assert.ok(loaded.ok, loaded.ok ? "" : loaded.reason);
          assert.equal(loaded.damaged, undefined, `damaged lines: ${JSON.stringify(loaded.damaged?.slice(0, 3))}`);
          for (const [name, count] of [
            ["a", a],
            ["b", b],
          ] as const) {
            // Each window's messages are all there, once each, in the order it wrote them.
            const mine: number[] = loaded.messages.flatMap((m): number[] => {
              const text = m.role === "user" && typeof m.content === "string" ? m.content : JSON.stringify(m);
              const match = new RegExp(`^${name}:(\\d+):`).exec(text);
              return match ? [Number(match[1])] : [];
            });
            assert.equal(mine.length, count, `${name}: ${mine.length} of ${count} messages found`);
            assert.ok(
              mine.every((n, i) => n === i),
              `${name}: in order, none twice`,
            );
          }
          assert.equal(loaded.messages.length, a + b);
        } finally {
          await cleanup();
        }
      },
    );

    describe("the chat lock", () => {
      let base: { path: string; cleanup: () => void };
      beforeEach(() => (base = supportTempDir("locks")));
      afterEach(() => base.cleanup());

      it("one window at a time; released, the other gets it", async () => {
        const a = new ChatLocks(base.path);
        const b = new ChatLocks(base.path);
        const held = await a.acquire("c1");
        assert.ok(held.ok);
        const refused = await b.acquire("c1");
        assert.ok(!refused.ok);
        assert.equal(refused.heldBy.owner, a.owner);
        assert.equal(refused.heldBy.pid, process.pid);
        assert.equal((await b.holder("c1"))?.owner, a.owner);
        assert.equal(await a.holder("c1"), undefined, "a window does not see its own lock as someone else's");
        assert.ok((await b.acquire("c2")).ok, "other chats are free");
        await held.lock.release();
        assert.equal(await b.holder("c1"), undefined);
        assert.ok((await b.acquire("c1")).ok);
        await b.releaseAll();
      });

      it("a lock whose window died, or stopped beating, is taken over; a beating one is not", async () => {
        const now = { value: 1_000_000 };
        // A window on this host whose process is gone (it crashed), with a fresh heartbeat:
        mkdirSync(join(base.path, "locks"), { recursive: true });
        const crashed = { owner: "crashed-window", pid: 4_000_000, host: hostname(), heartbeatAt: now.value };
        writeFileSync(join(base.path, "locks", "c1.lock"), JSON.stringify(crashed));
        const alive = new ChatLocks(base.path, { now: () => now.value, isAlive: () => true });
        assert.ok(!(await alive.acquire("c1")).ok, "while its process lives, the lock holds");
        const afterCrash = new ChatLocks(base.path, { now: () => now.value, isAlive: (pid) => pid !== crashed.pid });
        assert.ok((await afterCrash.acquire("c1")).ok, "its process is gone: taken over");
        assert.equal((JSON.parse(readFileSync(join(base.path, "locks", "c1.lock"), "utf8")) as { owner: string }).owner, afterCrash.owner);
        await afterCrash.releaseAll();

        const holder = new ChatLocks(base.path, { now: () => now.value, heartbeatMs: 10, staleAfterMs: 5_000 });
        const other = new ChatLocks(base.path, { now: () => now.value, staleAfterMs: 5_000 });
        assert.ok((await holder.acquire("c2")).ok);
        now.value += 4_000;
        // The holder beats (with the new time): wait for the beat on disk, not for a fixed while
        // (on a loaded machine a 10 ms timer and its write can take longer than any guess).
        const beatAt = now.value;
        for (let waited = 0; ; waited += 20) {
          const lock = JSON.parse(readFileSync(join(base.path, "locks", "c2.lock"), "utf8")) as { heartbeatAt: number };
          if (lock.heartbeatAt === beatAt) break;
          if (waited > 10_000) assert.fail("the holder never beat");
          await new Promise((r) => setTimeout(r, 20));
        }
        now.value += 4_000;
        assert.ok(!(await other.acquire("c2")).ok, "8 s after the lock was taken, but 4 s after a beat: still held");
        await holder.releaseAll(); // stops beating, and removes the file
        assert.ok((await holder.acquire("c2")).ok);
        // A hung window: alive, but no beat for longer than the stale time.
        const hung = new ChatLocks(base.path, { now: () => now.value, heartbeatMs: 60_000, staleAfterMs: 5_000 });
        await holder.releaseAll();
        assert.ok((await hung.acquire("c3")).ok);
        now.value += 6_000;
        assert.ok((await other.acquire("c3")).ok, "a lock without a beat for 6 s is taken over");
        await other.releaseAll();
        await hung.releaseAll();
      });

      it("refuses ids that are not chat ids (no lock file outside locks/)", async () => {
        const a = new ChatLocks(base.path);
        await assert.rejects(a.acquire("../x"), /invalid chat id/);
      });
    });

    it("the other window cannot run the chat meanwhile, reloads it after, and every request is valid", async () => {
      const ws = supportTempDir("ws");
      const storage = supportTempDir("storage");
      mkdirSync(join(ws.path, "src"));
      writeFileSync(join(ws.path, "src/config.ts"), "export const port = 3000;\n");
      const model = createScriptedModel();
      let release!: () => void;
      const approvalAsked = new Promise<void>((resolve) => (release = resolve));
      let decide!: (d: { decision: "allow" }) => void;
      const open = () =>
        new ChatService({
          store: new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storage.path), { indexFlushDelayMs: 0 }),
          fs: createNodeWorkspaceFs(ws.path),
          workspaceRoot: ws.path,
          resolveModel: async () => model.binding,
          approver: () => {
            release();
            return new Promise((resolve) => (decide = resolve));
          },
          approvalMode: () => "ask",
          locks: new ChatLocks(storage.path),
        });
      const windowA = open();
      const windowB = open();
      try {
        // Window A: a first turn, so the chat exists on disk.
        const chat = windowA.newChat();
        model.push(reply.text("Hello."));
        await chat.prompt("Hi");
        // Window B opens the same chat.
        const openedInB = await windowB.open(chat.id);
        assert.ok(openedInB.ok);
        const inB = openedInB.session;

        // A starts a run with a tool call that waits for the user's approval.
        model.push(reply.tool("edit_file", { path: "src/config.ts", oldText: "3000", newText: "8080" }, "call_edit"), reply.text("Changed it."));
        const runA = chat.prompt("Change the port to 8080.");
        await approvalAsked;
        assert.ok(await windowB.writerElsewhere(chat.id), "B sees that A writes the chat");
        const requestsBefore = model.requests.length;
        await assert.rejects(inB.prompt("Something else"), (error: unknown) => error instanceof ChatBusyError && /another VS Code window/.test(error.message));
        assert.equal(model.requests.length, requestsBefore, "B sent nothing");

        decide({ decision: "allow" });
        await runA;
        assert.equal(await windowB.writerElsewhere(chat.id), undefined, "A is done: the lock is gone");

        // B's copy is stale: running it now would build requests without A's turn.
        assert.equal(await windowB.isCurrent(chat.id), false);
        await assert.rejects(inB.prompt("Stale"), /changed in another VS Code window/);
        const reloaded = await windowB.reload(chat.id);
        assert.ok(reloaded.ok);
        model.push(reply.text("It is 8080 now."));
        await reloaded.session.prompt("What is the port now?");

        for (const request of model.requests) assert.deepEqual(orphanToolResults(request), [], "no tool result without its call");
        const last = model.requests[model.requests.length - 1]!;
        assert.ok(JSON.stringify(last).includes("Change the port to 8080."), "B's request carries A's turn");
        const loaded = await new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storage.path)).load(chat.id);
        assert.ok(loaded.ok && loaded.damaged === undefined);
        assert.deepEqual(orphanToolResults(loaded.messages), []);
        assert.deepEqual(danglingCalls(loaded.messages), []);
      } finally {
        await windowA.dispose();
        await windowB.dispose();
        ws.cleanup();
        storage.cleanup();
      }
    });

    it("index.json keeps the chats both windows created", async () => {
      const { dir, cleanup } = tempDir();
      try {
        const a = openStore(dir, { indexFlushDelayMs: 60_000 });
        const b = openStore(dir, { indexFlushDelayMs: 60_000 });
        await a.listChats();
        await b.listChats(); // both have their index in memory
        await a.createChat({ id: "from-a", createdAt: 1 });
        await b.createChat({ id: "from-b", createdAt: 2 });
        await a.flush();
        await b.flush();
        const ids = (JSON.parse(readFileSync(join(dir, "index.json"), "utf8")) as { chats: { id: string }[] }).chats.map((c) => c.id).sort();
        assert.deepEqual(ids, ["from-a", "from-b"]);
        // A chat deleted in one window does not come back from the other's index.
        await a.deleteChat("from-b");
        await a.flush();
        const after = (JSON.parse(readFileSync(join(dir, "index.json"), "utf8")) as { chats: { id: string }[] }).chats.map((c) => c.id);
        assert.deepEqual(after, ["from-a"]);
      } finally {
        await cleanup();
      }
    });
  });
}

function orphanToolResults(messages: readonly (Message | AgentMessage)[]): string[] {
  const calls = new Set<string>();
  const orphans: string[] = [];
  for (const m of messages) {
    if (m.role === "assistant") for (const c of m.content) if (c.type === "toolCall") calls.add(c.id);
    if (m.role === "toolResult" && !calls.has(m.toolCallId)) orphans.push(m.toolCallId);
  }
  return orphans;
}

function danglingCalls(messages: readonly AgentMessage[]): string[] {
  const results = new Set(messages.flatMap((m) => (m.role === "toolResult" ? [m.toolCallId] : [])));
  return messages.flatMap((m) => (m.role === "assistant" ? m.content.flatMap((c) => (c.type === "toolCall" && !results.has(c.id) ? [c.id] : [])) : []));
}
