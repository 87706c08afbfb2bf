// "Continue in pi CLI", the file: every kind of Pi Chat message mapped to the pi entry it becomes,
// read back by pi's own SessionManager and buildSessionContext (the SDK of the real pi package);
// the folder pi looks in (its env overrides); hostile titles and ids; a file never written over;
// pi found on the PATH without a shell.
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import type {
  ApprovalNoticeMessage,
  BashExecutionMessage,
  CompactionSummaryMessage,
  FileAttachmentMessage,
  FilesRestoredMessage,
  LocalNoticeMessage,
} from "../../../src/core/messages";
import {
  exportPiSession,
  findOnPath,
  importPiSession,
  listPiSessions,
  nodePiSessionsIO,
  nodePiSessionWriter,
  parsePiSession,
  PI_CHAT_CUSTOM_TYPE,
  piSessionFolderName,
  savePiSession,
  type ExportNode,
  type PiSessionWriter,
} from "../../../src/core/pi-sessions";
import { PI_BRANCH_SUMMARY_PREFIX, PI_BRANCH_SUMMARY_SUFFIX } from "../../../src/core/pi-sessions/import";
import { loadPiSdk, type PiSdk } from "../../support/pi-cli";
import { makePng } from "../../support/png";
import { tempDir } from "../../support/temp";
import { ourModelView, treeOf, treeOfNodes } from "./helpers";

const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const answer = (text: string, t: number): AgentMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "openai-completions",
  provider: "openai-compatible",
  model: "local-model",
  usage,
  stopReason: "stop",
  timestamp: t,
});
const user = (text: string, t: number): AgentMessage => ({ role: "user", content: text, timestamp: t });
const png = makePng(2, 2, 3).toString("base64");

/**
 * A chat with every kind: system, a notice, an attachment, an edit with its approval, a `!` and a
 * `!!` run (one ended by a signal), a restore, an image, a pi branch summary brought in by an
 * import, a branch (two answers to one prompt), a compaction that keeps two messages.
 */
function everyKind(): { nodes: ExportNode[]; leafId: string } {
  const attach: FileAttachmentMessage = { role: "fileAttachment", path: "src/config.ts", range: { startLine: 1, endLine: 2 }, timestamp: 3 };
  const approval: ApprovalNoticeMessage = {
    role: "approvalNotice",
    toolCallId: "call_1",
    toolName: "edit_file",
    decision: "allowed",
    path: "src/config.ts",
    timestamp: 6,
  };
  const notice: LocalNoticeMessage = { role: "localNotice", level: "info", text: "Only for the user.", timestamp: 2 };
  const bash: BashExecutionMessage = {
    role: "bashExecution",
    command: "echo shown",
    output: "shown",
    exitCode: 0,
    cancelled: false,
    truncated: false,
    excludeFromContext: false,
    cwd: ".",
    timestamp: 9,
  };
  const hidden: BashExecutionMessage = { ...bash, command: "echo secret-77", output: "secret-77", exitCode: null, excludeFromContext: true, timestamp: 10 };
  const restored: FilesRestoredMessage = {
    role: "filesRestored",
    messageNumber: 1,
    messageText: "Change it",
    redo: false,
    restored: ["src/config.ts"],
    deleted: [],
    skipped: [],
    timestamp: 11,
  };
  const compaction: CompactionSummaryMessage = {
    role: "compactionSummary",
    summary: "## Goal\nThe port.",
    keptMessageCount: 2,
    summarizedMessageCount: 8,
    tokensBefore: 900,
    tokensAfter: 100,
    readFiles: ["src/config.ts"],
    modifiedFiles: ["src/config.ts"],
    trigger: "manual",
    userMessages: ["Change it"],
    timestamp: 15,
  };
  const nodes: ExportNode[] = [
    { id: "n-sys", parentId: null, message: { role: "system", content: "Pi Chat's prompt", timestamp: 1 } as AgentMessage },
    { id: "n-note", parentId: "n-sys", message: notice },
    { id: "n-att", parentId: "n-note", message: attach },
    { id: "n-u1", parentId: "n-att", message: user("Change it", 4) },
    {
      id: "n-a1",
      parentId: "n-u1",
      message: {
        ...(answer("", 5) as Extract<AgentMessage, { role: "assistant" }>),
        content: [{ type: "toolCall", id: "call_1", name: "edit_file", arguments: { path: "src/config.ts", oldText: "3000", newText: "8080" } }],
        stopReason: "toolUse",
      },
    },
    { id: "n-appr", parentId: "n-a1", message: approval },
    {
      id: "n-tr",
      parentId: "n-appr",
      message: { role: "toolResult", toolCallId: "call_1", toolName: "edit_file", content: [{ type: "text", text: "Edited." }], isError: false, timestamp: 7 },
    },
    { id: "n-a2", parentId: "n-tr", message: answer("Done.", 8) },
    { id: "n-bash", parentId: "n-a2", message: bash },
    { id: "n-hidden", parentId: "n-bash", message: hidden },
    { id: "n-rest", parentId: "n-hidden", message: restored },
    {
      id: "n-img",
      parentId: "n-rest",
      message: {
        role: "user",
        content: [
          { type: "text", text: "This?" },
          { type: "image", data: png, mimeType: "image/png", blob: "ab".repeat(32) },
        ],
        timestamp: 12,
      } as AgentMessage,
    },
    { id: "n-a3-old", parentId: "n-img", message: answer("First answer.", 13) },
    { id: "n-a3", parentId: "n-img", message: answer("A picture.", 13) },
    // As the import keeps pi's branch summary.
    {
      id: "n-bs",
      parentId: "n-a3",
      message: { role: "user", content: [{ type: "text", text: `${PI_BRANCH_SUMMARY_PREFIX}Tried 9090.${PI_BRANCH_SUMMARY_SUFFIX}` }], timestamp: 14 },
    },
    { id: "n-comp", parentId: "n-bs", message: compaction },
    { id: "n-u4", parentId: "n-comp", message: user("And now?", 16) },
    { id: "n-a4", parentId: "n-u4", message: answer("Now this.", 17) },
  ];
  return { nodes, leafId: "n-a4" };
}

interface Line {
  type: string;
  id: string;
  parentId: string | null;
  [k: string]: unknown;
}

function linesOf(text: string): Line[] {
  return text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Line);
}

describe("Continue in pi CLI: the pi session file", function () {
  this.timeout(60_000);
  let sdk: PiSdk;
  before(async () => {
    sdk = await loadPiSdk();
  });

  it("maps every kind: pi's own kinds, extension messages for what the model saw, custom entries for what it did not", () => {
    const { nodes, leafId } = everyKind();
    const out = exportPiSession(
      { nodes, leafId, title: "Port work", model: { provider: "anthropic", modelId: "claude-sonnet-4-5", thinkingLevel: "high" }, cwd: "/p" },
      { sessionId: "11111111-2222-3333-4444-555555555555", now: Date.UTC(2026, 0, 2) },
    );
    assert.ok(out.ok);
    const [header, ...entries] = linesOf(out.text);
    assert.deepEqual(header, { type: "session", version: 3, id: "11111111-2222-3333-4444-555555555555", timestamp: "2026-01-02T00:00:00.000Z", cwd: "/p" });
    const kindOf = (e: Line) =>
      e.type === "message"
        ? `message:${(e["message"] as { role: string }).role}`
        : e.type === "custom" || e.type === "custom_message"
          ? `${e.type}:${String(e["customType"])}`
          : e.type;
    assert.deepEqual(entries.map(kindOf), [
      `custom:${PI_CHAT_CUSTOM_TYPE}:localNotice`,
      `custom_message:${PI_CHAT_CUSTOM_TYPE}:fileAttachment`,
      "message:user",
      "message:assistant",
      `custom_message:${PI_CHAT_CUSTOM_TYPE}:approvalNotice`,
      "message:toolResult",
      "message:assistant",
      "message:bashExecution",
      "message:bashExecution",
      `custom_message:${PI_CHAT_CUSTOM_TYPE}:filesRestored`,
      "message:user",
      "message:assistant",
      "message:assistant",
      "branch_summary",
      "compaction",
      "message:user",
      "message:assistant",
      "model_change",
      "thinking_level_change",
      "session_info",
    ]);
    assert.equal(out.leftOut, 1, "Pi Chat's system message (pi sends its own)");
    const byKind = (k: string) => entries.filter((e) => kindOf(e) === k);
    // The tree: the first entry is a root (the system message handed its place on), the branch is two siblings.
    assert.equal(entries[0]!.parentId, null);
    const [old, current] = byKind("message:assistant").slice(2, 4);
    assert.equal(old!.parentId, current!.parentId, "the two answers to the image prompt are siblings");
    // `!!`: excluded, and an exit code pi reads as a signal; Pi Chat's own fields ride along.
    const [shown, secret] = byKind("message:bashExecution").map((e) => e["message"] as Record<string, unknown>);
    assert.equal(shown!["excludeFromContext"], false);
    assert.equal(secret!["excludeFromContext"], true);
    assert.ok(!("exitCode" in secret!));
    assert.equal(shown!["cwd"], ".");
    // What the model saw, word for word, as the extension message's content.
    const approval = byKind(`custom_message:${PI_CHAT_CUSTOM_TYPE}:approvalNotice`)[0]!;
    assert.equal(approval["content"], "[The user allowed the edit_file call call_1 on src/config.ts.]");
    assert.equal(approval["display"], true);
    // The image keeps its bytes, not the hash of a blob that belongs to this chat's storage.
    const image = (byKind("message:user")[1]!["message"] as { content: Record<string, unknown>[] }).content[1]!;
    assert.deepEqual(image, { type: "image", data: png, mimeType: "image/png" });
    // The compaction keeps the two messages before it: the answer and the branch summary.
    const compaction = byKind("compaction")[0]!;
    assert.equal(compaction["firstKeptEntryId"], current!.id);
    assert.equal(compaction["tokensBefore"], 900);
    assert.match(
      String(compaction["summary"]),
      /^<user-messages>[\s\S]*1\. Change it[\s\S]*## Goal\nThe port\.\n\n<read-files>\nsrc\/config\.ts\n<\/read-files>/,
    );
    assert.equal(byKind("branch_summary")[0]!["summary"], "Tried 9090.");
    // The leaf: the name, on the chat's leaf, last.
    const info = entries.at(-1)!;
    assert.equal(info["name"], "Port work");
    assert.equal(entries.at(-3)!.parentId, entries.find((e) => kindOf(e) === "message:assistant" && JSON.stringify(e["message"]).includes("Now this."))!.id);
  });

  it("pi's own reader continues from the chat's leaf, with the chat's model, and sends what Pi Chat sent", () => {
    const { nodes, leafId } = everyKind();
    const dir = tempDir("pi-export");
    try {
      const out = exportPiSession(
        { nodes, leafId, title: "Port work", model: { provider: "anthropic", modelId: "claude-sonnet-4-5", thinkingLevel: "high" }, cwd: dir.path },
        { sessionId: "11111111-2222-3333-4444-555555555555", now: Date.now() },
      );
      assert.ok(out.ok);
      const file = join(dir.path, "s.jsonl");
      writeFileSync(file, out.text);
      const sm = sdk.SessionManager.open(file);
      const entries = sm.getEntries();
      assert.equal(entries.length, linesOf(out.text).length - 1, "pi read every entry");
      const context = sdk.buildSessionContext(entries, sm.getLeafId());
      assert.deepEqual(context.model, { provider: "anthropic", modelId: "claude-sonnet-4-5" });
      assert.equal(context.thinkingLevel, "high");
      const text = (m: Message) => JSON.stringify(m.content);
      const blocks = (c: unknown) => (typeof c === "string" ? [{ type: "text", text: c }] : c);
      const compare = (pis: Message[], ours: Message[], label: string) => {
        // Same messages in the same order; the documented wordings of a summary and a `!` run aside.
        assert.deepEqual(
          pis.map((m) => m.role),
          ours.map((m) => m.role),
          label,
        );
        pis.forEach((p, i) => {
          const o = ours[i]!;
          if (/compacted into the following summary/.test(text(p))) return assert.match(text(o), /The earlier part of this conversation was compacted/);
          if (/^\[\{"type":"text","text":"Ran `/.test(text(p))) return assert.match(text(o), /The user ran this command/);
          // `blob` (the hash of Pi Chat's stored copy) is no part of a request: pi-ai sends the bytes.
          const wire = (m: Message) => JSON.parse(JSON.stringify({ ...m, content: blocks(m.content), timestamp: 0 }, (k, v) => (k === "blob" ? undefined : v)));
          assert.deepEqual(wire(p), wire(o), `${label} #${i} ${p.role}`);
        });
      };
      const pis: Message[] = sdk.convertToLlm(context.messages).filter((m) => m.role !== "system");
      const tree = treeOfNodes(nodes, leafId);
      compare(pis, ourModelView(tree, leafId), "the active branch");
      assert.doesNotMatch(JSON.stringify(pis), /Only for the user/, "never the notice");
      assert.match(JSON.stringify(pis), /Tried 9090/);
      // The other branch (before the compaction): every app message the model saw, in pi's request.
      const oldLeaf = entries.find((e) => JSON.stringify(e.message?.content ?? "").includes("First answer."));
      assert.ok(oldLeaf);
      const pisOld: Message[] = sdk.convertToLlm(sdk.buildSessionContext(entries, oldLeaf.id).messages).filter((m) => m.role !== "system");
      compare(pisOld, ourModelView(tree, "n-a3-old"), "the other branch");
      const all = JSON.stringify(pisOld);
      for (const fact of [
        /attached the file src\/config\.ts \(lines 1-2\)/,
        /allowed the edit_file call call_1/,
        /restored the workspace files/,
        /Ran `echo shown`/,
        /image/,
      ])
        assert.match(all, fact);
      assert.doesNotMatch(all, /secret-77|Only for the user/, "neither the `!!` output nor the notice");
    } finally {
      dir.cleanup();
    }
  });

  it("opening the file again in Pi Chat gives back the same messages, notices and app messages whole", () => {
    const { nodes, leafId } = everyKind();
    const out = exportPiSession({ nodes, leafId, title: "Port work", cwd: "/p" }, { sessionId: "abc", now: 1 });
    assert.ok(out.ok);
    const parsed = parsePiSession(Buffer.from(out.text));
    assert.ok(parsed.ok);
    const imported = importPiSession(parsed.session, { path: "/p/s.jsonl" }, 0);
    const back = treeOf(imported);
    const path = back.pathMessages(imported.leafId!);
    const original = treeOfNodes(nodes, leafId).pathMessages(leafId);
    // The import adds its own system message and note; the rest is the chat's path, message for message.
    const { blob: _b, ...imageWithoutBlob } = (original[11] as unknown as { content: Record<string, unknown>[] }).content[1]!;
    const expected = original.slice(1).map((m, i) => (i === 10 ? { ...m, content: [(m as { content: unknown[] }).content[0], imageWithoutBlob] } : m));
    assert.deepEqual(path.slice(2), expected);
    assert.deepEqual(ourModelView(back, imported.leafId!), ourModelView(treeOfNodes(nodes, leafId), leafId));
  });

  it("an entry that claims to be Pi Chat's but is not in its shape is read as pi reads it", () => {
    const header = { type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" };
    const forged = {
      type: "custom_message",
      id: "c1",
      parentId: null,
      timestamp: "",
      customType: `${PI_CHAT_CUSTOM_TYPE}:approvalNotice`,
      content: "What pi sends.",
      display: true,
      details: { piChat: { role: "approvalNotice", decision: "maybe" } },
    };
    const state = {
      type: "custom",
      id: "c2",
      parentId: "c1",
      timestamp: "",
      customType: `${PI_CHAT_CUSTOM_TYPE}:localNotice`,
      data: { piChat: { role: "user", content: "x" } },
    };
    const parsed = parsePiSession(Buffer.from(`${[header, forged, state].map((l) => JSON.stringify(l)).join("\n")}\n`));
    assert.ok(parsed.ok);
    const imported = importPiSession(parsed.session, { path: "/p/s.jsonl" }, 0);
    assert.deepEqual(
      imported.nodes.map((n) => n.message),
      [{ role: "user", content: [{ type: "text", text: "What pi sends." }], timestamp: 0 }],
    );
    assert.match(imported.notice.text, /1 extension state \(pi-chat:localNotice\)/);
  });

  it("a model pi cannot reach is not written; a chat with nothing to continue is refused", () => {
    const { nodes, leafId } = everyKind();
    const out = exportPiSession(
      { nodes, leafId, title: "t", model: { provider: "openai-compatible", modelId: "local-model" }, cwd: "/p" },
      { sessionId: "abc", now: 1, modelForPi: (m) => m.provider !== "openai-compatible" },
    );
    assert.ok(out.ok);
    assert.ok(!out.text.includes('"model_change"'));
    const empty = exportPiSession({ nodes: [nodes[0]!], leafId: "n-sys", title: "t", cwd: "/p" }, { sessionId: "abc", now: 1 });
    assert.deepEqual(empty, { ok: false, reason: "the chat has no messages to continue from" });
  });
});

describe("Continue in pi CLI: where the file goes, and what cannot happen to it", () => {
  let dir: { path: string; cleanup: () => void };
  beforeEach(() => {
    dir = tempDir("pi-save");
  });
  afterEach(() => dir.cleanup());

  const chat = (title: string) => ({ ...everyKind(), title, cwd: "/work/my project" });

  it("goes where pi looks for the folder's sessions (PI_CODING_AGENT_DIR), under pi's file name, and the import lists it", async () => {
    const agent = join(dir.path, "agent");
    const saved = await savePiSession(nodePiSessionWriter, chat("Port work"), {
      env: { PI_CODING_AGENT_DIR: agent },
      home: dir.path,
      now: Date.UTC(2026, 0, 2, 3, 4, 5, 6),
      newSessionId: () => "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
    });
    assert.ok(saved.ok, saved.ok ? "" : saved.reason);
    assert.equal(
      saved.path,
      join(agent, "sessions", piSessionFolderName("/work/my project"), "2026-01-02T03-04-05-006Z_aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.jsonl"),
    );
    const listed = await listPiSessions(nodePiSessionsIO, ["/work/my project"], { PI_CODING_AGENT_DIR: agent }, dir.path);
    assert.deepEqual(
      listed.map((s) => [s.path, s.name, s.named]),
      [[saved.path, "Port work", true]],
    );
  });

  it("PI_CODING_AGENT_SESSION_DIR (with ~): pi's one folder for every working folder", async () => {
    const saved = await savePiSession(nodePiSessionWriter, chat("Flat"), {
      env: { PI_CODING_AGENT_SESSION_DIR: "~/flat-sessions", PI_CODING_AGENT_DIR: join(dir.path, "ignored") },
      home: dir.path,
      now: 1,
      newSessionId: () => "flat-1",
    });
    assert.ok(saved.ok);
    assert.equal(saved.dir, join(dir.path, "flat-sessions"));
    const listed = await listPiSessions(nodePiSessionsIO, ["/work/my project"], { PI_CODING_AGENT_SESSION_DIR: "~/flat-sessions" }, dir.path);
    assert.equal(listed.length, 1, "the header's cwd names the folder");
  });

  it("a title with path characters, newlines and a forged header line stays the session's name, on one line", async () => {
    const agent = join(dir.path, "agent");
    const title = '../../../etc/evil\n{"type":"session","version":3,"id":"x","cwd":"/"}\r\u2028/..\\..';
    const saved = await savePiSession(nodePiSessionWriter, chat(title), {
      env: { PI_CODING_AGENT_DIR: agent },
      home: dir.path,
      now: 1,
      newSessionId: () => "s-1",
    });
    assert.ok(saved.ok);
    const folder = join(agent, "sessions", piSessionFolderName("/work/my project"));
    assert.deepEqual(readdirSync(folder), ["1970-01-01T00-00-00-001Z_s-1.jsonl"], "one file, named by time and id only");
    assert.deepEqual(readdirSync(dir.path).sort(), ["agent"], "nothing written anywhere else");
    const lines = linesOf(readFileSync(saved.path, "utf8"));
    assert.equal(lines.filter((l) => l.type === "session").length, 1, "one header");
    assert.equal(lines.at(-1)!["name"], '../../../etc/evil {"type":"session","version":3,"id":"x","cwd":"/"} /..\\..');
    const parsed = parsePiSession(readFileSync(saved.path));
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.session.notes, []);
  });

  it("a session id that could name a path is refused before anything is written", async () => {
    for (const id of ["../../x", "a/b", "a\\b", "", ".hidden", "x\ny"]) {
      const saved = await savePiSession(nodePiSessionWriter, chat("t"), {
        env: { PI_CODING_AGENT_DIR: join(dir.path, "agent") },
        home: dir.path,
        now: 1,
        newSessionId: () => id,
      });
      assert.equal(saved.ok, false, JSON.stringify(id));
    }
    assert.deepEqual(readdirSync(dir.path), []);
  });

  it("an existing file is never written over: another id is drawn, and when every one is taken nothing is written", async () => {
    const agent = join(dir.path, "agent");
    const folder = join(agent, "sessions", piSessionFolderName("/work/my project"));
    mkdirSync(folder, { recursive: true });
    const taken = join(folder, "1970-01-01T00-00-00-001Z_same.jsonl");
    writeFileSync(taken, "pi's own session\n");
    const ids = ["same", "other"];
    const saved = await savePiSession(nodePiSessionWriter, chat("t"), {
      env: { PI_CODING_AGENT_DIR: agent },
      home: dir.path,
      now: 1,
      newSessionId: () => ids.shift()!,
    });
    assert.ok(saved.ok);
    assert.equal(saved.path, join(folder, "1970-01-01T00-00-00-001Z_other.jsonl"));
    assert.equal(readFileSync(taken, "utf8"), "pi's own session\n");
    const always = await savePiSession(nodePiSessionWriter, chat("t"), {
      env: { PI_CODING_AGENT_DIR: agent },
      home: dir.path,
      now: 1,
      newSessionId: () => "same",
    });
    assert.deepEqual(always, { ok: false, reason: `every file name tried in ${folder} exists already; nothing was written over` });
    assert.equal(readFileSync(taken, "utf8"), "pi's own session\n");
    // Only ever an exclusive create, a bounded number of times.
    const calls: string[] = [];
    const spy: PiSessionWriter = {
      makeDir: async () => undefined,
      createExclusive: async (p) => {
        calls.push(p);
        return false;
      },
    };
    await savePiSession(spy, chat("t"), { env: { PI_CODING_AGENT_DIR: agent }, home: dir.path, now: 1, newSessionId: () => "z" });
    assert.equal(calls.length, 5);
  });

  it("pi is found on the PATH without a shell: executable files only, absolute folders only", async () => {
    const bin = join(dir.path, "bin");
    const notExec = join(dir.path, "noexec");
    mkdirSync(bin);
    mkdirSync(notExec);
    writeFileSync(join(notExec, "pi"), "#!/bin/sh\n");
    chmodSync(join(notExec, "pi"), 0o644);
    writeFileSync(join(bin, "pi"), "#!/bin/sh\n");
    chmodSync(join(bin, "pi"), 0o755);
    mkdirSync(join(dir.path, "pi-folder", "pi"), { recursive: true });
    const env = (path: string) => ({ PATH: path });
    assert.equal(await findOnPath("pi", env([join(dir.path, "pi-folder"), notExec, "relative/bin", bin].join(":")), "linux"), join(bin, "pi"));
    assert.equal(await findOnPath("pi", env([notExec, "bin"].join(":")), "linux"), undefined);
    assert.equal(await findOnPath("pi", {}, "linux"), undefined);
  });
});
