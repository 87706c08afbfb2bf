// `!cmd` and `!!cmd` through the real stack (pi-ai's openai-completions adapter, real HTTP to a
// local server, real processes): the server sees the first in the next request as a user message
// with the command, exit code and output, and never sees the second — in any request, before or
// after a reload. Both cards survive the reload.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { ChatService } from "../../../src/core/chat-service";
import { NodeCommandRunner } from "../../../src/core/shell/node-runner";
import { parseUserCommand } from "../../../src/core/shell/user-command";
import { createNodeWorkspaceFs } from "../../../src/core/tools";
import { createNodeTranscriptStorage, TranscriptStore } from "../../../src/core/transcript";
import { resolveModelBinding } from "../../../src/host/providers/provider-bundle";
import type { UserCommandItem } from "../../../src/shared/chat-items";
import { chatItems } from "../../../src/shared/reducer";
import { startOpenAIServer, type OpenAIServer } from "../../support/openai-server";
import { tempDir } from "../../support/temp";
import { guardNetwork, secretsOf, wireText, type NetworkGuard } from "./helpers";

describe("!cmd and !!cmd against a local OpenAI-format server", function () {
  this.timeout(60_000);
  let server: OpenAIServer;
  let guard: NetworkGuard;
  let ws: ReturnType<typeof tempDir>;
  let storage: ReturnType<typeof tempDir>;
  const runner = new NodeCommandRunner();
  const services: ChatService[] = [];

  const open = (enabled = true) => {
    const service = new ChatService({
      store: new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storage.path), { indexFlushDelayMs: 0 }),
      fs: createNodeWorkspaceFs(ws.path),
      workspaceRoot: ws.path,
      resolveModel: () => resolveModelBinding({ provider: "openai-compatible", model: "local-model", baseUrl: `${server.url}/v1` }, secretsOf({})),
      approver: async () => ({ decision: "allow" }),
      approvalMode: () => "ask",
      commands: {
        runner: () => runner,
        enabled: () => enabled,
        rules: { list: () => [], add: async () => undefined },
        approver: async () => ({ decision: "deny" }),
        defaultTimeoutSeconds: () => 30,
        logRoot: join(storage.path, "command-output"),
      },
    });
    services.push(service);
    return service;
  };

  beforeEach(async () => {
    server = await startOpenAIServer();
    guard = guardNetwork();
    ws = tempDir("ws");
    storage = tempDir("storage");
    mkdirSync(join(ws.path, "src"));
    writeFileSync(join(ws.path, "src", "notes.txt"), "shared-fact-4711\n");
  });

  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.dispose()));
    guard.restore();
    await server.close();
    ws.cleanup();
    storage.cleanup();
  });

  it("parses ! and !! (a lone ! is a prompt)", () => {
    assert.deepEqual(parseUserCommand("!ls -la"), { command: "ls -la", excludeFromContext: false });
    assert.deepEqual(parseUserCommand("  !! git status "), { command: "git status", excludeFromContext: true });
    assert.equal(parseUserCommand("!"), undefined);
    assert.equal(parseUserCommand("!!  "), undefined);
    assert.equal(parseUserCommand("why ! here"), undefined);
  });

  it("the first is in the next request, the second never; both survive a reload", async () => {
    const service = open();
    const session = service.newChat();
    await session.runUserCommand(parseUserCommand("!cat src/notes.txt; exit 3")!);
    await session.runUserCommand(parseUserCommand("!!echo private-9931 && cat src/notes.txt")!);
    assert.equal(server.chatRequests().length, 0, "running commands needs no model");
    const items = () => chatItems(session.viewState).filter((i): i is UserCommandItem => i.kind === "userCommand");
    assert.deepEqual(
      items().map((i) => [i.command, i.exitCode, i.excludeFromContext, i.output]),
      [
        ["cat src/notes.txt; exit 3", 3, false, "shared-fact-4711"],
        ["echo private-9931 && cat src/notes.txt", 0, true, "private-9931\nshared-fact-4711"],
      ],
    );

    server.push((body) => {
      const users = body.messages.filter((m) => m.role === "user").map(wireText);
      assert.equal(users.length, 2, JSON.stringify(users));
      assert.match(users[0]!, /ran this command/);
      assert.match(users[0]!, /\$ cat src\/notes\.txt; exit 3\nExit code: 3\.\nOutput:\nshared-fact-4711/);
      assert.equal(users[1], "What did it say?");
      return { text: "It said shared-fact-4711." };
    });
    await session.prompt("What did it say?");
    assert.equal(server.pending(), 0);

    // Reload: a new service over the same storage.
    await service.dispose();
    const reopened = open();
    const loaded = await reopened.open(session.id);
    assert.ok(loaded.ok);
    const restored = chatItems(loaded.session.viewState).filter((i): i is UserCommandItem => i.kind === "userCommand");
    assert.deepEqual(
      restored.map((i) => [i.command, i.excludeFromContext, i.running]),
      [
        ["cat src/notes.txt; exit 3", false, false],
        ["echo private-9931 && cat src/notes.txt", true, false],
      ],
    );
    server.push(() => ({ text: "Still here." }));
    await loaded.session.prompt("And now?");
    assert.equal(server.pending(), 0);

    // The chat requests (the window probe asks the server's own endpoints too).
    const bodies = server.chatRequests().map((body) => JSON.stringify(body));
    assert.equal(bodies.length, 2);
    for (const body of bodies) {
      assert.doesNotMatch(body, /private-9931/, "a !! command reached a request");
      assert.doesNotMatch(body, /echo private/, "a !! command line reached a request");
      assert.match(body, /shared-fact-4711/);
    }
    // One system message, first, after the reload too.
    const roles = server.chatRequests()[1]!.messages.map((m) => m.role);
    assert.deepEqual(roles.filter((r) => r === "system").length, 1);
    assert.equal(roles[0], "system");
  });

  it("restricted mode refuses both with a clear message and runs nothing", async () => {
    const session = open(false).newChat();
    await session.runUserCommand(parseUserCommand("!touch ran-1")!);
    await session.runUserCommand(parseUserCommand("!!touch ran-2")!);
    const { existsSync } = await import("node:fs");
    assert.equal(existsSync(join(ws.path, "ran-1")), false);
    assert.equal(existsSync(join(ws.path, "ran-2")), false);
    const notices = chatItems(session.viewState).filter((i) => i.kind === "notice");
    assert.equal(notices.length, 2);
    assert.match(notices[0]!.kind === "notice" ? notices[0]!.text : "", /Restricted Mode/);
    assert.ok(!session.messages.some((m) => m.role === "bashExecution"));
  });

  it("Stop ends a !command with its children and the card says it was stopped", async () => {
    const session = open().newChat();
    let seen = false;
    session.onEvent((e) => {
      if (e.type === "command/progress" && e.tail.some((l) => l.includes("begun")) && !seen) {
        seen = true;
        session.abort();
      }
    });
    await session.runUserCommand(parseUserCommand("!echo begun; sleep 300")!);
    const item = chatItems(session.viewState).find((i): i is UserCommandItem => i.kind === "userCommand")!;
    assert.equal(item.cancelled, true);
    assert.equal(item.running, false);
    assert.equal(item.output, "begun");
  });
});
