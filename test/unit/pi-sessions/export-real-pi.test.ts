// "Continue in pi CLI" against the REAL pi CLI: a Pi Chat chat made through the real stack (the
// real ChatService and store, pi-ai's OpenAI-compatible adapter over HTTP to the local server,
// real processes for the commands) with an approved edit, an approved run_command, a `!` and a
// `!!` run, an edited prompt (a branch), a compaction and an image, is written as a pi session;
// pi (print mode, a custom provider in a temporary agent folder, the same local server)
// continues it with one more prompt, and Pi Chat continues the chat with the same prompt. The
// two requests carry the same conversation, the whole active branch in order (apart from the
// documented words around a `!` run and a summary), and neither carries the `!!` output.
// Then: opening the written file in Pi Chat again gives back the same model view.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { ChatService } from "../../../src/core/chat-service";
import { NodeCommandRunner } from "../../../src/core/shell/node-runner";
import { parseUserCommand } from "../../../src/core/shell/user-command";
import { importPiSession, nodePiSessionWriter, parsePiSession, savePiSession } from "../../../src/core/pi-sessions";
import { createNodeWorkspaceFs } from "../../../src/core/tools";
import { createNodeTranscriptStorage, TranscriptStore } from "../../../src/core/transcript";
import { resolveModelBinding } from "../../../src/host/providers/provider-bundle";
import { makePng } from "../../support/png";
import { startOpenAIServer, type OpenAIServer, type ServerReply, type WireMessage } from "../../support/openai-server";
import { piPrint, piWorld, type PiWorld } from "../../support/pi-cli";
import { tempDir } from "../../support/temp";
import { secretsOf, wireText } from "../providers/helpers";
import { ourModelView, treeOf, treeOfNodes } from "./helpers";

const NEXT = "One more prompt, from wherever you are.";

/** The conversation of a request: no system prompt, content as parts, the two documented wordings made one. */
function conversation(messages: readonly WireMessage[]): unknown[] {
  return messages
    .filter((m) => m.role !== "system" && m.role !== "developer")
    .map((m) => {
      if (m.role !== "user") return { ...m, content: typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content };
      const text = wireText(m);
      // A summary: pi's "…compacted into the following summary: <summary>X</summary>"; Pi Chat's words, then X's parts.
      const pi = /^The conversation history before this point was compacted into the following summary:\n\n<summary>\n([\s\S]*)\n<\/summary>$/.exec(text);
      if (pi) return { summary: pi[1] };
      if (text.startsWith("[The earlier part of this conversation was compacted")) {
        const body = text
          .slice(text.indexOf("\n\n") + 2)
          .replace("<summary>\n", "")
          .replace(/\n<\/summary>/, "");
        return { summary: body };
      }
      // A `!` run: pi's "Ran `cmd`" and a fence; Pi Chat's "$ cmd", exit code, output.
      const piRun = /^Ran `([^`]*)`\n```\n([\s\S]*)\n```$/.exec(text);
      if (piRun) return { ran: piRun[1], output: piRun[2] };
      const ours = /^\[The user ran this command in the workspace folder themselves\.\]\n\$ (.*)\nExit code: 0\.\nOutput:\n([\s\S]*)$/.exec(text);
      if (ours) return { ran: ours[1], output: ours[2] };
      return { ...m, content: typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content };
    });
}

describe("Continue in pi CLI: a Pi Chat chat continued by the real pi CLI", function () {
  this.timeout(180_000);
  let server: OpenAIServer;
  let ws: ReturnType<typeof tempDir>;
  let storage: ReturnType<typeof tempDir>;
  let pi: { path: string; cleanup: () => void };
  let world: PiWorld;
  let service: ChatService;
  const runner = new NodeCommandRunner();

  before(async () => {
    server = await startOpenAIServer();
    ws = tempDir("ws");
    storage = tempDir("storage");
    pi = tempDir("pi-cli");
    world = piWorld(pi.path, server);
    // The chat works on the project pi runs in: one workspace for both front ends.
    service = new ChatService({
      store: new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storage.path), { indexFlushDelayMs: 0 }),
      fs: createNodeWorkspaceFs(world.cwd),
      workspaceRoot: world.cwd,
      resolveModel: () =>
        resolveModelBinding({ provider: "openai-compatible", model: "local-model", baseUrl: `${server.url}/v1`, imageInput: true }, secretsOf({})),
      approver: async () => ({ decision: "allow" }),
      approvalMode: () => "ask",
      compaction: () => ({ keepRecentTokens: 60 }),
      commands: {
        runner: () => runner,
        enabled: () => true,
        rules: { list: () => [], add: async () => undefined },
        approver: async () => ({ decision: "allow" }),
        defaultTimeoutSeconds: () => 30,
        logRoot: join(storage.path, "command-output"),
      },
    });
  });

  after(async () => {
    await service?.dispose();
    await server?.close();
    ws?.cleanup();
    storage?.cleanup();
    pi?.cleanup();
  });

  it("pi's request after the handover carries the whole active branch in order, and no `!!` output; so does Pi Chat's", async () => {
    const text = (t: string) => (): ServerReply => ({ text: t });
    const session = service.newChat();
    server.push(text("It is set in src/config.ts."));
    await session.prompt("Where is the port set?");
    await session.runUserCommand(parseUserCommand("!echo before-compaction")!);
    server.push(text("Noted: the port work is next."));
    await session.prompt("Remember: the port work is next.");
    server.push(() => ({ text: "## Goal\nMove the port to 8080 and check it.\n\n## Progress\nFound src/config.ts." }));
    const compacted = await session.compact();
    assert.equal(compacted.status, "done", JSON.stringify(compacted));
    server.push(
      () => ({ toolCalls: [{ id: "call_edit_1", name: "edit_file", arguments: { path: "src/config.ts", oldText: "port: 3000", newText: "port: 8080" } }] }),
      text("Changed the port to 8080."),
    );
    await session.prompt("Change the port in src/config.ts to 8080.");
    assert.match(readFileSync(join(world.cwd, "src/config.ts"), "utf8"), /8080/, "the edit was written");
    server.push(
      () => ({ toolCalls: [{ id: "call_run_1", name: "run_command", arguments: { command: "grep -c 8080 src/config.ts" } }] }),
      text("The check found it."),
    );
    await session.prompt("Check it with grep.");
    await session.runUserCommand(parseUserCommand("!echo visible-5150")!);
    await session.runUserCommand(parseUserCommand("!!echo hidden-9931")!);
    server.push(text("Answer to the first idea."));
    await session.prompt("First idea.");
    const first = session.messages.findIndex((m) => m.role === "user" && JSON.stringify(m.content).includes("First idea."));
    server.push(text("Answer to the second idea."));
    await session.editPrompt(first, "Second idea.");
    server.push(text("A 2x2 picture."));
    await session.prompt("What is in this picture?", [], [{ type: "image", data: makePng(2, 2, 7).toString("base64"), mimeType: "image/png" }]);
    const roles = session.messages.map((m) => m.role);
    for (const role of ["approvalNotice", "toolResult", "bashExecution", "compactionSummary"])
      assert.ok(roles.includes(role as AgentMessage["role"]), `the chat has a ${role} (${roles.join(", ")})`);
    const summary = session.messages.find((m) => m.role === "compactionSummary");
    assert.ok(summary?.role === "compactionSummary" && summary.keptMessageCount > 0, "the compaction kept messages verbatim");

    // Export: the saved chat, every branch, into pi's folder for the project.
    const exported = await service.exportTree(session.id);
    assert.ok(exported.ok, exported.ok ? "" : exported.reason);
    const saved = await savePiSession(
      nodePiSessionWriter,
      { ...exported.chat, cwd: world.cwd },
      { env: { PI_CODING_AGENT_DIR: world.agentDir }, home: world.root, now: Date.now(), newSessionId: () => "0f0e0d0c-1111-2222-3333-444455556666" },
    );
    assert.ok(saved.ok, saved.ok ? "" : saved.reason);
    assert.ok(saved.path.startsWith(join(world.agentDir, "sessions")), saved.path);
    assert.equal(saved.kinds["compaction"], 1);
    assert.ok((saved.kinds["custom_message"] ?? 0) >= 2, "the approvals went as extension messages");
    const ourView = ourModelView(treeOfNodes(exported.chat.nodes, exported.chat.leafId), exported.chat.leafId!);

    // pi continues the file in print mode.
    const before = server.chatRequests().length;
    server.push(text("pi answers."));
    const printed = await piPrint(world, saved.path, NEXT);
    assert.equal(printed.code, 0, printed.stderr.slice(-3000));
    const pisRequest = server
      .chatRequests()
      .slice(before)
      .find((r) => JSON.stringify(r.messages.at(-1)?.content ?? "").includes(NEXT));
    assert.ok(pisRequest, "pi sent the next prompt to the local server");

    // Pi Chat continues the chat with the same prompt.
    const mark = server.chatRequests().length;
    server.push(text("Pi Chat answers."));
    await session.prompt(NEXT);
    const ours = server
      .chatRequests()
      .slice(mark)
      .find((r) => JSON.stringify(r.messages.at(-1)?.content ?? "").includes(NEXT));
    assert.ok(ours, "Pi Chat sent the next prompt");

    const piConversation = conversation(pisRequest.messages);
    assert.deepEqual(piConversation, conversation(ours.messages), "the same conversation, in the same order");
    const all = JSON.stringify(pisRequest.messages);
    assert.doesNotMatch(all, /hidden-9931/, "never the `!!` output");
    for (const expected of [
      /visible-5150/,
      /before-compaction/,
      /Second idea\./,
      /Move the port to 8080/,
      /image_url/,
      /call_edit_1/,
      /call_run_1/,
      /The user allowed the edit_file call/,
      /The user allowed the run_command call/,
    ])
      assert.match(all, expected);
    assert.doesNotMatch(all, /First idea\./, "the other branch is not sent");
    // Everything before the new prompt is the chat's model view, message for message.
    assert.equal(piConversation.length - 1, ourView.length, "one wire message per message of the view (the new prompt aside)");
  });

  it("opening the written file in Pi Chat gives back the same model view, on every branch", async () => {
    const session = service.newChat();
    server.push(() => ({ text: "one" }));
    await session.prompt("Alpha.");
    await session.runUserCommand(parseUserCommand("!echo gamma-77")!);
    await session.runUserCommand(parseUserCommand("!!echo delta-88")!);
    server.push(() => ({ text: "two" }));
    await session.prompt("Beta.");
    const beta = session.messages.findIndex((m) => m.role === "user" && JSON.stringify(m.content).includes("Beta."));
    server.push(() => ({ text: "two, again" }));
    await session.editPrompt(beta, "Beta, edited.");
    server.push(() => ({ text: "## Goal\nGreek letters." }));
    assert.equal((await session.compact()).status, "done");
    const exported = await service.exportTree(session.id);
    assert.ok(exported.ok);
    const saved = await savePiSession(
      nodePiSessionWriter,
      { ...exported.chat, cwd: world.cwd },
      { env: { PI_CODING_AGENT_DIR: world.agentDir }, home: world.root, now: Date.now(), newSessionId: () => "1f0e0d0c-1111-2222-3333-444455556666" },
    );
    assert.ok(saved.ok);
    const parsed = parsePiSession(readFileSync(saved.path));
    assert.ok(parsed.ok);
    const imported = importPiSession(parsed.session, { path: saved.path }, 0);
    assert.deepEqual(imported.notShown, { "session name": 1 }, "every entry came back as a message (the name is the title)");
    assert.equal(imported.title, exported.chat.title);
    const original = treeOfNodes(exported.chat.nodes, exported.chat.leafId);
    const back = treeOf(imported);
    assert.deepEqual(ourModelView(back, imported.leafId!), ourModelView(original, exported.chat.leafId!), "the active branch");
    // The other branch: its leaf is the newest message that is no one's parent, off the active path.
    const parents = new Set(exported.chat.nodes.map((n) => n.parentId));
    const active = new Set(original.path(exported.chat.leafId).map((n) => n.id));
    const otherLeaf = exported.chat.nodes.filter((n) => !parents.has(n.id) && !active.has(n.id)).at(-1);
    assert.ok(otherLeaf, "the chat has a second branch");
    const otherView = ourModelView(original, otherLeaf.id);
    const match = imported.nodes.filter((n) => !imported.nodes.some((c) => c.parentId === n.id) && n.id !== imported.leafId).at(-1);
    assert.ok(match);
    assert.deepEqual(ourModelView(back, match.id), otherView, "the other branch");
    assert.doesNotMatch(JSON.stringify(ourModelView(back, imported.leafId!)), /delta-88/);
  });
});
