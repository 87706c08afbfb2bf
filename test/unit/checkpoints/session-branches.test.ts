// Checkpoints through a real ChatService and ChatSession (scripted model, real store, real
// edit_file over a temp workspace): every prompt is a mark, edits are recorded, and restoring to
// a message on one branch, then switching to the other branch and restoring to its message,
// leaves the files as they were when that message was sent and each branch's transcript saying so;
// the model's next request states the restore.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Message } from "@earendil-works/pi-ai";
import { pendingWrites, type RestoreOutcome } from "../../../src/core/checkpoints";
import type { ChatSession } from "../../../src/core/session";
import { CONFIG } from "../../support/chat-world";
import { promptIndex, scriptedWorld, type ScriptedWorld } from "../../support/scripted-chat";
import { reply, textOf } from "../../support/scripted-model";

describe("checkpoints in a chat session: branches and what the model is told", function () {
  this.timeout(20_000);
  let w: ScriptedWorld;
  afterEach(() => w?.cleanup());

  const config = () => readFileSync(join(w.workspace, "src/config.ts"), "utf8");
  const edit = (oldText: string, newText: string) => reply.tool("edit_file", { path: "src/config.ts", oldText, newText });

  async function restoreTo(session: ChatSession, text: string): Promise<RestoreOutcome> {
    const at = session.checkpointOf(promptIndex(session, text));
    assert.ok(at, `a checkpoint for ${text}`);
    const outcome = await w.checkpoints!.restore(session.id, at.markId);
    assert.ok(outcome);
    await session.noteFilesRestored({
      role: "filesRestored",
      messageNumber: at.number,
      messageText: at.text,
      redo: false,
      restored: outcome.restored.map((f) => f.path),
      deleted: outcome.deleted.map((f) => f.path),
      skipped: outcome.skipped.map((s) => ({ path: s.path, reason: s.reason })),
      timestamp: Date.now(),
    });
    return outcome;
  }

  /** A new chat with auto edits: "prompt 1" changes the port, "prompt 2" the host. */
  async function twoPromptsWithEdits(): Promise<ChatSession> {
    w = scriptedWorld({ approvalMode: "auto", checkpoints: true });
    const session = w.service.newChat();
    w.model.push(edit("port: 3000,", "port: 8080,"), reply.text("port changed"));
    await session.prompt("prompt 1");
    w.model.push(edit('host: "localhost",', 'host: "0.0.0.0",'), reply.text("host changed"));
    await session.prompt("prompt 2");
    return session;
  }

  it("restoring on one branch, switching, and restoring on the other keeps files and transcripts coherent", async () => {
    const session = await twoPromptsWithEdits();
    // Edit prompt 2: a second branch, whose answer changes the port again (the host change stays on disk).
    w.model.push(edit("port: 8080,", "port: 9090,"), reply.text("port changed again"));
    await session.editPrompt(promptIndex(session, "prompt 2"), "prompt 2b");
    assert.match(config(), /host: "0\.0\.0\.0",\n {2}port: 9090,/);

    // On branch B: back to before "prompt 2b" — only that branch's change is undone.
    const first = await restoreTo(session, "prompt 2b");
    assert.deepEqual(
      first.restored.map((f) => f.path),
      ["src/config.ts"],
    );
    assert.match(config(), /host: "0\.0\.0\.0",\n {2}port: 8080,/);
    w.model.push(reply.text("ok"));
    await session.prompt("what now?");
    const request = w.model.requests.at(-1)!;
    const told = request.map((m) => textOf(m as Message)).join("\n");
    assert.match(told, /restored the workspace files to how they were before message 2 \("prompt 2b"\)/);
    assert.match(told, /Put back: src\/config\.ts/);

    // Switch to branch A and restore to before its "prompt 2": the files as they were then.
    await session.switchBranch(promptIndex(session, "prompt 2b"), 0);
    assert.equal(promptIndex(session, "prompt 2b"), -1);
    assert.ok(!session.messages.some((m) => m.role === "filesRestored"), "branch B's note stays on branch B");
    await restoreTo(session, "prompt 2");
    assert.equal(config(), CONFIG.replace("port: 3000,", "port: 8080,"));
    assert.equal(session.messages.filter((m) => m.role === "filesRestored").length, 1);

    // And to before "prompt 1": the file as it was when the chat began.
    await restoreTo(session, "prompt 1");
    assert.equal(config(), CONFIG);
  });

  it("the checkpoints to review since are the prompts on the path, newest first; another branch's prompt is not one", async () => {
    const session = await twoPromptsWithEdits();
    const onA = session.promptCheckpoints();
    assert.deepEqual(
      onA.map((c) => [c.number, c.text]),
      [
        [2, "prompt 2"],
        [1, "prompt 1"],
      ],
    );
    w.model.push(reply.text("nothing"));
    await session.editPrompt(promptIndex(session, "prompt 2"), "prompt 2b");
    const onB = session.promptCheckpoints();
    assert.deepEqual(
      onB.map((c) => [c.number, c.text]),
      [
        [2, "prompt 2b"],
        [1, "prompt 1"],
      ],
    );
    assert.ok(!onB.some((c) => c.markId === onA[0]?.markId), "branch A's prompt 2 is not a checkpoint on branch B");
    // Since prompt 1: both edits, one change of src/config.ts from before the first.
    const { entries } = await w.checkpoints!.storage.readJournal(session.id);
    const since = pendingWrites(entries, onB[1]?.markId);
    assert.deepEqual(
      since.writes.map((x) => [x.path, x.by]),
      [["src/config.ts", ["edit"]]],
    );
    assert.equal(since.markId, onB[1]?.markId);
  });
});
