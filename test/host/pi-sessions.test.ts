// "Pi Chat: Open pi Session…" in the real extension host: a pi session file in pi's folder for the
// workspace (agent folder from PI_CODING_AGENT_DIR, as pi reads it), chosen in VS Code's real quick
// pick, opens as a new chat: the note first, pi's conversation after it, the origin in the chat's
// header; pi's other branch is one switch away; the next prompt carries pi's conversation to the
// model; the pi file is unchanged. "Pi Chat: Continue in pi CLI" writes the chat into pi's folder
// and starts a stand-in `pi` found on the PATH in a real terminal, the file one argument.
import * as assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import * as vscode from "vscode";
import { importedChatTitle, piSessionFolderName } from "../../src/core/pi-sessions";
import type { ContinueInPiResult } from "../../src/host/palette/pi-sessions-bundle";
import { chatItems } from "../../src/shared/reducer";
import { useChatView, waitFor } from "./helpers";

const SESSION_ID = "0b1c2d3e-aaaa-bbbb-cccc-123456789abc";

function sessionText(cwd: string): string {
  const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  const answer = (text: string) => ({
    role: "assistant",
    content: [{ type: "text", text }],
    api: "openai-completions",
    provider: "local",
    model: "local-model",
    usage,
    stopReason: "stop",
    timestamp: 2,
  });
  const lines = [
    { type: "session", version: 3, id: SESSION_ID, timestamp: "2026-01-02T03:04:05.000Z", cwd },
    { type: "message", id: "s0", parentId: null, timestamp: "", message: { role: "system", content: "pi's own prompt", timestamp: 0 } },
    { type: "message", id: "u1", parentId: "s0", timestamp: "", message: { role: "user", content: "Where is the PELICAN config?", timestamp: 1 } },
    { type: "message", id: "a1", parentId: "u1", timestamp: "", message: answer("In src/pelican.ts (first try).") },
    { type: "message", id: "a2", parentId: "u1", timestamp: "", message: answer("In src/pelican.ts.") },
    { type: "session_info", id: "n1", parentId: "a2", timestamp: "", name: "Pelican hunt" },
  ];
  return `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
}

/** Runs "Open pi Session…", accepting the first item of its quick pick (the newest session) until the command returns. */
async function openPiSessionAcceptingFirst(): Promise<void> {
  let done = false;
  const run = Promise.resolve(vscode.commands.executeCommand("piChat.openPiSession")).finally(() => {
    done = true;
  });
  while (!done) {
    await new Promise((r) => setTimeout(r, 300));
    if (!done) await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
  }
  await run;
}

describe("pi CLI sessions in the extension host", function () {
  this.timeout(120_000);
  const chatView = useChatView();
  let agentDir: string;
  let previous: string | undefined;

  before(() => {
    agentDir = mkdtempSync(join(tmpdir(), "pi-chat-pi-agent-"));
    previous = process.env["PI_CODING_AGENT_DIR"];
    process.env["PI_CODING_AGENT_DIR"] = agentDir;
  });
  after(() => {
    if (previous === undefined) delete process.env["PI_CODING_AGENT_DIR"];
    else process.env["PI_CODING_AGENT_DIR"] = previous;
    rmSync(agentDir, { recursive: true, force: true });
  });

  it("Open pi Session… lists the folder's pi session and opens the one accepted as a new chat", async () => {
    const { api, server } = chatView();
    const cwd = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const dir = join(agentDir, "sessions", piSessionFolderName(cwd));
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `2026-01-02T03-04-05-000Z_${SESSION_ID}.jsonl`);
    writeFileSync(file, sessionText(cwd));
    const before = readFileSync(file);
    const previousChat = api.screen.currentSession.id;

    await openPiSessionAcceptingFirst();

    const session = await waitFor("the imported chat", () => (api.screen.currentSession.id !== previousChat ? api.screen.currentSession : undefined));
    const roles = session.messages.map((m) => m.role);
    assert.deepEqual(roles, ["system", "localNotice", "user", "assistant"], "Pi Chat's system message, the note, pi's active branch");
    const system = session.messages[0]!;
    assert.ok(system.role === "system" && !JSON.stringify(system).includes("pi's own prompt"), "Pi Chat's own system prompt, not pi's");
    const items = chatItems(session.viewState);
    assert.ok(
      items.some((i) => JSON.stringify(i).includes("Opened from the pi session")),
      "the note is shown",
    );
    assert.ok(items.some((i) => i.kind === "assistant" && JSON.stringify(i).includes("In src/pelican.ts.")));

    // pi's other branch (the first try) is reachable with the branch switcher: ‹ 2 / 2 › on the answer.
    assert.deepEqual(
      session.viewState.forks.map((f) => [f.messageIndex, f.index, f.count]),
      [[3, 1, 2]],
    );
    await api.view.receive({ type: "branch/switch", v: 1, messageIndex: 3, to: 0 });
    await waitFor("the first try shown", () => JSON.stringify(chatItems(session.viewState)).includes("(first try)"));
    await api.view.receive({ type: "branch/switch", v: 1, messageIndex: 3, to: 1 });
    await waitFor("back on pi's branch", () => !JSON.stringify(chatItems(session.viewState)).includes("(first try)"));

    // The chat's file records where it came from.
    const chats = await api.screen.service.listChats();
    const listed = chats.find((c) => c.id === session.id);
    assert.equal(listed?.title, importedChatTitle("Pelican hunt", "2026-01-02T03:04:05.000Z"), "named by its source and date");
    assert.match(listed.title, /^Pelican hunt \(pi session, 2026-01-0[12] \d\d:\d4\)$/);

    // The next prompt carries pi's conversation.
    server.push(() => ({ text: "Yes." }));
    await api.view.receive({ type: "chat/send", v: 1, text: "Is it still there?" });
    await session.waitForIdle();
    const last = server.chatRequests().at(-1)!;
    const wire = JSON.stringify(last.messages);
    assert.match(wire, /Where is the PELICAN config\?/);
    assert.match(wire, /In src\/pelican\.ts\./);
    assert.doesNotMatch(wire, /first try/, "the other branch is not sent");
    assert.doesNotMatch(wire, /pi's own prompt/);
    assert.doesNotMatch(wire, /Opened from the pi session/, "the note is the user's, not the model's");
    assert.deepEqual(readFileSync(file), before, "the pi file is unchanged");
  });
  it("a pi session that answered through an OpenAI-compatible server says which model it used and which Pi Chat uses now", async () => {
    const { api } = chatView();
    const cwd = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const dir = join(agentDir, "sessions", piSessionFolderName(cwd));
    mkdirSync(dir, { recursive: true });
    const id = "0b1c2d3e-aaaa-bbbb-cccc-0a1c0e000000";
    const file = join(dir, `2026-01-04T03-04-05-000Z_${id}.jsonl`);
    // What a round trip through pi leaves: the answers carry Pi Chat's own provider id.
    const roundTrip = sessionText(cwd)
      .replaceAll(SESSION_ID, id)
      .replaceAll('"provider":"local"', '"provider":"openai-compatible"')
      .replaceAll("local-model", "fake-model");
    writeFileSync(file, roundTrip);
    const later = new Date(Date.now() + 120_000);
    utimesSync(file, later, later);
    const previousChat = api.screen.currentSession.id;
    try {
      await openPiSessionAcceptingFirst();
      const session = await waitFor("the imported chat", () => (api.screen.currentSession.id !== previousChat ? api.screen.currentSession : undefined));
      const note = session.messages.find((m) => m.role === "localNotice");
      assert.ok(note?.role === "localNotice");
      assert.doesNotMatch(note.text, /has no provider/, "Pi Chat has an openai-compatible provider: the note must not deny it");
      assert.match(note.text, /openai-compatible\/fake-model/, "which model the pi session used");
      // What Pi Chat uses now: the settings' model (the header says the same), and where it runs.
      const baseUrl = vscode.workspace.getConfiguration("piChat").get<string>("baseUrl");
      const now = `this chat uses your default model, local-model (Local server (OpenAI-compatible) at ${baseUrl})`;
      assert.ok(note.text.includes(now), note.text);
      assert.equal(session.model, undefined, "the chat keeps the default: the pi file does not say which server answered");
    } finally {
      rmSync(file, { force: true });
    }
  });

  it("Open pi Session… refuses a session with a 40 MB first message, with the reason, and opens no chat", async () => {
    const { api } = chatView();
    const cwd = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const dir = join(agentDir, "sessions", piSessionFolderName(cwd));
    mkdirSync(dir, { recursive: true });
    const id = "0b1c2d3e-aaaa-bbbb-cccc-40mb00000000".slice(0, 36);
    const file = join(dir, `2026-01-03T03-04-05-000Z_${id}.jsonl`);
    const header = { type: "session", version: 3, id, timestamp: "2026-01-03T03:04:05.000Z", cwd };
    const huge = { type: "message", id: "u1", parentId: null, timestamp: "", message: { role: "user", content: "x".repeat(40 * 1024 * 1024), timestamp: 1 } };
    writeFileSync(file, `${JSON.stringify(header)}\n${JSON.stringify(huge)}\n`);
    // The newest file: first in the quick pick.
    const later = new Date(Date.now() + 60_000);
    utimesSync(file, later, later);
    const previousChat = api.screen.currentSession.id;
    try {
      await openPiSessionAcceptingFirst();
      assert.ok(
        api.logLines.some((l) => l.includes("line 2 of the pi session is 40 MB, larger than the 10 MB one entry may be")),
        `the reason is logged and shown: ${api.logLines.slice(-3).join(" | ")}`,
      );
      assert.equal(api.screen.currentSession.id, previousChat, "no chat was opened");
    } finally {
      rmSync(file, { force: true });
    }
  });

  it("Continue in pi CLI writes the chat where pi looks and runs `pi --session <file>` in a terminal; without pi, it says where the file is", async () => {
    const { api, server } = chatView();
    const cwd = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    await api.view.receive({ type: "chat/new", v: 1 });
    const session = api.screen.currentSession;
    server.push(() => ({ text: "Noted, the OTTER." }));
    await api.view.receive({ type: "chat/send", v: 1, text: "Remember the OTTER." });
    await session.waitForIdle();
    await api.view.receive({ type: "chat/send", v: 1, text: "!!echo private-4242" });
    await session.waitForIdle();

    // A stand-in `pi` first on the PATH: it records how it was started.
    const bin = join(agentDir, "bin");
    mkdirSync(bin, { recursive: true });
    const record = join(agentDir, "pi-started.txt");
    writeFileSync(join(bin, "pi"), `#!/bin/sh\nprintf '%s\\n' "$PWD" "$@" > '${record}'\n`);
    chmodSync(join(bin, "pi"), 0o755);
    const path = process.env["PATH"];
    process.env["PATH"] = `${bin}:${path ?? ""}`;
    let result: ContinueInPiResult | undefined;
    try {
      result = await vscode.commands.executeCommand<ContinueInPiResult>("piChat.continueInPi");
    } finally {
      process.env["PATH"] = path;
    }
    assert.ok(result?.ok, JSON.stringify(result));
    assert.equal(result.pi, join(bin, "pi"));
    assert.equal(dirname(result.path), join(agentDir, "sessions", piSessionFolderName(cwd)), "pi's folder for the workspace folder");
    const written = readFileSync(result.path, "utf8");
    assert.match(written, /Remember the OTTER\./);
    assert.match(written, /"excludeFromContext":true/);
    assert.equal(JSON.parse(written.trimEnd().split("\n").at(-1)!).type, "session_info", "pi continues from the chat's leaf");
    const started = await waitFor("pi started in a terminal", () => (existsSync(record) ? readFileSync(record, "utf8") : undefined));
    assert.deepEqual(started.trimEnd().split("\n"), [cwd, "--session", result.path], "in the workspace folder, the file one argument");

    // No pi on the PATH: the file is still written (a new one), and the command says so.
    process.env["PATH"] = "/nonexistent-pi-chat-bin";
    let second: ContinueInPiResult | undefined;
    try {
      second = await vscode.commands.executeCommand<ContinueInPiResult>("piChat.continueInPi", session.id);
    } finally {
      process.env["PATH"] = path;
    }
    assert.ok(second?.ok);
    assert.equal(second.pi, undefined);
    assert.notEqual(second.path, result.path, "a new file: the first is never written over");
    assert.equal(readFileSync(result.path, "utf8"), written);
    assert.match(readFileSync(second.path, "utf8"), /Remember the OTTER\./);
  });
});
