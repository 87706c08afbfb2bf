// Every known key is redacted from command output, through a whole chat with real processes:
// run_command (what the model reads, the command log, the card's live tail) and `!cmd` (the
// saved message, its log, the card), with keys that have no known shape (another provider's
// key, an environment key) printed in halves across separate writes, and one split by the flush
// of a line that never ends (at 64 K characters). Also the key shapes no redactor was told of.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { ChatService } from "../../../src/core/chat-service";
import { NodeCommandRunner } from "../../../src/core/shell/node-runner";
import { parseUserCommand } from "../../../src/core/shell/user-command";
import { SecretRedactor } from "../../../src/core/redaction";
import { createNodeTranscriptStorage, TranscriptStore } from "../../../src/core/transcript";
import { createNodeWorkspaceFs } from "../../../src/core/tools";
import { createScriptedModel, reply, textOf } from "../../support/scripted-model";
import { filesUnder, tempDir } from "../../support/temp";

/** Keys of no known shape: only a redactor that was told of them can find them. */
const OTHER_PROVIDER_KEY = "3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a";
const ENVIRONMENT_KEY = "123e4567-e89b-12d3-a456-426614174000";
/** Told to nobody: only the shape nets ("bad key <k>", "token <k> rejected") catch it. */
const UNTOLD_KEY = "Zq8wX2vB7nM4kL9pR3tY6uI1oP5";

/** Prints each key in two writes 40 ms apart, then a 64 K line that is flushed in the middle of a key. */
const EMIT = `
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const out = (s) => new Promise((r) => process.stdout.write(s, r));
(async () => {
  for (const k of ${JSON.stringify([OTHER_PROVIDER_KEY, ENVIRONMENT_KEY])}) {
    await out("key: " + k.slice(0, 20));
    await sleep(40);
    await out(k.slice(20) + " end\\n");
    await sleep(40);
  }
  await out(JSON.stringify({ error: { message: "bad key ${UNTOLD_KEY}" } }) + "\\n");
  await out("token ${UNTOLD_KEY} rejected\\n");
  await out("x".repeat(65520));
  await sleep(60);
  await out(${JSON.stringify(OTHER_PROVIDER_KEY)}.slice(0, 20));
  await sleep(60);
  await out(${JSON.stringify(OTHER_PROVIDER_KEY)}.slice(20) + " tail\\n");
})();
`;

/** The key, and each half as printed: none may be anywhere. */
const LEAKS = [OTHER_PROVIDER_KEY, ENVIRONMENT_KEY, UNTOLD_KEY].flatMap((k) => [k, k.slice(0, 20), k.slice(20)]).filter((s) => s.length >= 12);

function leaksIn(where: string, text: string): string[] {
  return LEAKS.filter((leak) => text.includes(leak)).map((leak) => `${where}: ${leak}`);
}

describe("command output redaction in a chat", function () {
  this.timeout(60_000);

  it("no known key, nor half of one, reaches the model, the log or the card (run_command and !cmd)", async () => {
    const ws = tempDir("ws");
    const storage = tempDir("storage");
    writeFileSync(join(ws.path, "emit.js"), EMIT);
    // The extension's redactor: every stored and environment key, not only the one in use.
    const redactor = new SecretRedactor();
    redactor.add(OTHER_PROVIDER_KEY);
    redactor.add(ENVIRONMENT_KEY);
    const model = createScriptedModel();
    const runner = new NodeCommandRunner();
    const logRoot = join(storage.path, "command-output");
    const service = new ChatService({
      store: new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storage.path), { indexFlushDelayMs: 0 }),
      fs: createNodeWorkspaceFs(ws.path),
      workspaceRoot: ws.path,
      resolveModel: async () => model.binding,
      approver: async () => ({ decision: "allow" }),
      approvalMode: () => "auto",
      redactor,
      commands: {
        runner: () => runner,
        enabled: () => true,
        rules: { list: () => [], add: async () => undefined },
        approver: async () => ({ decision: "allow" }),
        defaultTimeoutSeconds: () => 30,
        logRoot,
      },
    });
    try {
      const session = service.newChat();
      const shown: string[] = [];
      session.onEvent((e) => {
        if (e.type === "tool/progress" || e.type === "command/progress" || e.type === "message/end") shown.push(JSON.stringify(e));
      });
      model.push(reply.tool("run_command", { command: `node emit.js` }, "call_k"), reply.text("Done."));
      await session.prompt("Run it.");
      await session.runUserCommand(parseUserCommand("!node emit.js")!);
      model.push(reply.text("Seen."));
      await session.prompt("And?");

      const toModel = model.requests.map((request) => request.map(textOf).join("\n")).join("\n");
      assert.match(toModel, /key: \[redacted\] end/, "the model got the output, redacted");
      assert.match(toModel, /tail/, "the long line arrived");
      const logs = filesUnder(logRoot);
      assert.equal(logs.length, 2, "one log per run");
      const leaks = [
        ...leaksIn("model", toModel),
        ...logs.flatMap((file) => leaksIn(file, readFileSync(file, "utf8"))),
        ...leaksIn("card", shown.join("\n")),
        ...leaksIn("transcript", JSON.stringify(session.messages)),
      ];
      assert.deepEqual(leaks, []);
    } finally {
      await service.dispose();
      await runner.dispose();
      ws.cleanup();
      storage.cleanup();
    }
  });
});
