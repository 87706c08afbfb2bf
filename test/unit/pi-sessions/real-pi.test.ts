// pi session import against sessions written by the REAL pi CLI: pi (in RPC mode, against the
// local OpenAI-format server) reads a file with its read tool, answers a second prompt, runs a
// `!` and a `!!` command, compacts, changes its thinking level and gets an image; then pi's own
// SessionManager (the SDK) adds a branch with a branch summary, a session name, a label, an
// extension entry and an extension message (RPC has no in-file branching). Pi Chat imports the
// file, and on each branch what its context policy sends next must equal what pi's
// buildSessionContext + convertToLlm give, apart from the documented differences.
import assert from "node:assert/strict";
import { copyFileSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Message } from "@earendil-works/pi-ai";
import { importPiSession, parsePiSession, type ImportedPiSession, type PiSessionFile } from "../../../src/core/pi-sessions";
import { resolveModelBinding } from "../../../src/host/providers/provider-bundle";
import { chatWorld, type ChatWorld } from "../../support/chat-world";
import { makePng } from "../../support/png";
import { startOpenAIServer, type OpenAIServer, type WireMessage } from "../../support/openai-server";
import { secretsOf } from "../providers/helpers";
import { loadPiSdk, PiRpc, piPrint, piSessionFiles, type PiSdk, type PiSdkEntry, piWorld, scriptedPiModel, type PiWorld } from "../../support/pi-cli";
import { tempDir } from "../../support/temp";
import { ourModelView, treeOf } from "./helpers";

/** Content as blocks (a string is one text block: the same request on the wire). */
function blocks(content: unknown): unknown[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : (content as unknown[]);
}

function textOf(m: Message): string {
  return blocks(m.content)
    .map((b) => ((b as { type: string }).type === "text" ? (b as { text: string }).text : ""))
    .join("");
}

/**
 * Same roles, order and content; the documented differences (docs/pi-sessions.md): a compaction
 * summary and a `!` command reach the model in Pi Chat's words, with the same summary / command
 * and output inside.
 */
function assertSameView(ours: Message[], pis: Message[], label: string): void {
  assert.deepEqual(
    ours.map((m) => m.role),
    pis.map((m) => m.role),
    `${label}: roles`,
  );
  pis.forEach((p, i) => {
    const o = ours[i]!;
    const ptext = textOf(p);
    const compaction = /^The conversation history before this point was compacted into the following summary:\n\n<summary>\n([\s\S]*)\n<\/summary>$/.exec(
      ptext,
    );
    if (compaction) {
      assert.ok(textOf(o).includes(`<summary>\n${compaction[1]}\n</summary>`), `${label} #${i}: the compaction summary`);
      return;
    }
    const bash = /^Ran `([^`]*)`\n```\n([\s\S]*)\n```/.exec(ptext);
    if (bash) {
      assert.ok(textOf(o).includes(`$ ${bash[1]}`) && textOf(o).includes(bash[2]!), `${label} #${i}: the command and its output`);
      return;
    }
    const { timestamp: _a, ...pRest } = p as Message & { content: unknown };
    const { timestamp: _b, ...oRest } = o as Message & { content: unknown };
    assert.deepEqual({ ...oRest, content: blocks(o.content) }, { ...pRest, content: blocks(p.content) }, `${label} #${i} (${p.role})`);
  });
}

describe("pi session import: sessions written by the real pi CLI", function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let dir: { path: string; cleanup: () => void };
  let world: PiWorld;
  let file: string;
  let sdk: PiSdk;
  /** The leaf pi's own run ended at (the branch with the compaction). */
  let compactedLeaf: string;

  before(async () => {
    sdk = await loadPiSdk();
    server = await startOpenAIServer();
    for (let i = 0; i < 40; i++) server.push(scriptedPiModel);
    dir = tempDir("pi-cli");
    world = piWorld(dir.path, server);
    const pi = new PiRpc(world);
    try {
      await pi.prompt("Read src/config.ts and tell me the default port.");
      await pi.prompt("Change it to 8080.");
      await pi.command({ type: "bash", command: "echo before-compaction" });
      await pi.command({ type: "compact" });
      await pi.command({ type: "bash", command: "echo visible-output" });
      await pi.command({ type: "bash", command: "echo hidden-output", excludeFromContext: true });
      await pi.command({ type: "set_thinking_level", level: "high" });
      await pi.prompt("What is in this picture?", [{ type: "image", data: makePng(2, 2, 7).toString("base64"), mimeType: "image/png" }]);
    } finally {
      await pi.close();
    }
    const files = piSessionFiles(world);
    assert.equal(files.length, 1, "pi wrote one session");
    file = files[0]!;
    const sm = sdk.SessionManager.open(file);
    const leaf = sm.getLeafId();
    assert.ok(leaf);
    compactedLeaf = leaf;
    // A branch from the first answer, with a summary of the branch left (as pi's /tree does).
    const firstAnswer = sm
      .getEntries()
      .find(
        (e) =>
          e.type === "message" &&
          e.message?.role === "assistant" &&
          Array.isArray(e.message.content) &&
          e.message.content.some((c: { text?: string }) => c.text === "The default port is 3000."),
      );
    assert.ok(firstAnswer, "pi saved the answer after the tool result");
    sm.branchWithSummary(firstAnswer.id, "Tried changing the port to 8080; the user went another way.");
    sm.appendSessionInfo("Port work");
    sm.appendLabelChange(firstAnswer.id, "checkpoint");
    sm.appendCustomEntry("my-extension", { count: 1 });
    sm.appendMessage({ role: "custom", customType: "my-extension", content: "Extension context: the port matters.", display: true, timestamp: Date.now() });
    sm.appendMessage({ role: "user", content: "Use port 9090 instead.", timestamp: Date.now() });
    sm.appendMessage({
      role: "assistant",
      content: [{ type: "text", text: "Port 9090 it is." }],
      api: "openai-completions",
      provider: "local",
      model: "local-model",
      usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "stop",
      timestamp: Date.now(),
    });
  });

  after(async () => {
    await server?.close();
    dir?.cleanup();
  });

  function read(): { session: PiSessionFile; imported: ImportedPiSession; entries: PiSdkEntry[] } {
    const parsed = parsePiSession(readFileSync(file));
    assert.ok(parsed.ok, parsed.ok ? "" : parsed.reason);
    const imported = importPiSession(parsed.session, { path: file }, 0);
    return { session: parsed.session, imported, entries: sdk.SessionManager.open(file).getEntries() };
  }

  it("pi's file holds every kind the test meant to make (else the fixture, not the import, is wrong)", () => {
    const { entries } = read();
    const kinds = new Set(entries.map((e) => (e.type === "message" ? `message:${e.message?.role}` : e.type)));
    for (const kind of [
      "message:system",
      "message:user",
      "message:assistant",
      "message:toolResult",
      "message:bashExecution",
      "message:custom",
      "compaction",
      "thinking_level_change",
      "branch_summary",
      "session_info",
      "label",
      "custom",
    ]) {
      assert.ok(kinds.has(kind), `pi's session has ${kind} (kinds: ${[...kinds].join(", ")})`);
    }
    const toolResult = entries.find((e) => e.message?.role === "toolResult") as unknown as { message: { content: { text: string }[] } };
    assert.match(toolResult.message.content[0]!.text, /port: 3000/, "pi's read tool read the temp project");
  });

  it("the active branch (after the branch summary): the model gets what pi would send", () => {
    const { imported, entries } = read();
    const sm = sdk.SessionManager.open(file);
    const leaf = sm.getLeafId();
    const pis: Message[] = sdk.convertToLlm(sdk.buildSessionContext(entries, leaf).messages).filter((m) => m.role !== "system");
    assert.equal(imported.leafId, `pi-${leaf}`);
    const ours = ourModelView(treeOf(imported), imported.leafId!);
    assert.ok(pis.length >= 5, `pi's view has the branch (${pis.length} messages)`);
    assertSameView(ours, pis, "active branch");
    assert.ok(
      ours.some((m) => textOf(m).includes("Tried changing the port to 8080")),
      "the branch summary reaches the model",
    );
    assert.ok(
      ours.some((m) => textOf(m) === "Extension context: the port matters."),
      "the extension message reaches the model",
    );
  });

  it("the other branch (compaction, `!`/`!!`, image): the model gets what pi would send", () => {
    const { imported, entries } = read();
    const pis: Message[] = sdk.convertToLlm(sdk.buildSessionContext(entries, compactedLeaf).messages).filter((m) => m.role !== "system");
    const tree = treeOf(imported);
    assert.ok(tree.has(`pi-${compactedLeaf}`), "pi's earlier leaf is a node of the chat (reachable with the branch switcher)");
    const ours = ourModelView(tree, `pi-${compactedLeaf}`);
    assertSameView(ours, pis, "compacted branch");
    const all = ours.map(textOf).join("\n");
    assert.match(all, /Find and change the default port/, "the summary");
    // pi's compaction (keepRecentTokens 1) kept only the `!` run just before it: the first turns are summarized.
    assert.doesNotMatch(all, /Read src\/config\.ts and tell me/, "the first prompt is inside the summary, not verbatim");
    assert.match(all, /\$ echo before-compaction/, "the entry pi kept (firstKeptEntryId) is kept verbatim");
    assert.match(all, /visible-output/, "the `!` output");
    assert.doesNotMatch(all, /hidden-output/, "never the `!!` output");
    assert.ok(
      ours.some((m) => m.role === "user" && blocks(m.content).some((b) => (b as { type: string }).type === "image")),
      "the image",
    );
    // The compaction shows as Pi Chat's summary card, with pi's kept tail counted back from it.
    const path = tree.pathMessages(`pi-${compactedLeaf}`);
    const summary = path.find((m) => m.role === "compactionSummary");
    assert.ok(summary && summary.role === "compactionSummary");
    assert.equal(summary.keptMessageCount, 1, "pi kept one entry before the compaction");
    assert.ok(summary.summarizedMessageCount >= 5, "the two first turns");
    assert.ok(summary.tokensAfter > 0 && summary.tokensAfter < summary.tokensBefore, `tokens ${summary.tokensBefore} → ${summary.tokensAfter}`);
  });

  it("the model, thinking level, name and the kinds Pi Chat has no place for are said in the note", () => {
    const { imported } = read();
    assert.equal(imported.title, "Port work");
    // pi's own reading of the active branch's model and thinking level.
    const sm = sdk.SessionManager.open(file);
    const context = sdk.buildSessionContext(sm.getEntries(), sm.getLeafId());
    assert.ok(context.model);
    assert.deepEqual(imported.model, { ...context.model, thinkingLevel: context.thinkingLevel });
    const text = imported.notice.text;
    assert.match(text, /1 label/);
    assert.match(text, /1 extension state \(my-extension\)/);
    assert.match(text, /system prompt and tool declarations/);
    assert.equal(imported.notice.role, "localNotice", "a note the user sees and the model does not");
  });

  it("the thinking level of the compacted branch is taken over when that branch is pi's last", () => {
    // pi's own rule: the last thinking_level_change on the branch. Cut the file after pi's run.
    const bytes = readFileSync(file);
    const lines = bytes.toString("utf8").split("\n");
    const cut = lines.findIndex((l) => l.includes('"type":"branch_summary"'));
    const parsed = parsePiSession(Buffer.from(lines.slice(0, cut).join("\n")));
    assert.ok(parsed.ok);
    const imported = importPiSession(parsed.session, { path: file }, 0);
    const context = sdk.buildSessionContext(sdk.SessionManager.open(file).getEntries(), compactedLeaf);
    assert.equal(context.thinkingLevel, "high", "pi's reading of that branch");
    assert.deepEqual(imported.model, { provider: "local", modelId: "local-model", thinkingLevel: "high" });
  });

  it("the pi file is never written by the import", () => {
    const before = statSync(file);
    const bytes = readFileSync(file);
    read();
    assert.deepEqual(readFileSync(file), bytes);
    assert.equal(statSync(file).mtimeMs, before.mtimeMs);
  });

  it("over the wire: the request Pi Chat sends after opening the session equals the one pi sends to continue it", async () => {
    const next = "And now make it 9090.";
    const isNext = (messages: WireMessage[]) => JSON.stringify(messages[messages.length - 1]?.content ?? "").includes(next);
    // pi continues a copy (pi appends to the file it continues), in print mode.
    const copy = join(dir.path, "continued.jsonl");
    copyFileSync(file, copy);
    const printed = await piPrint(world, copy, next);
    assert.equal(printed.code, 0, printed.stderr.slice(-2000));
    const pisRequest = server.chatRequests().find((r) => isNext(r.messages));
    assert.ok(pisRequest, "pi sent the next prompt to the local server");

    // Pi Chat opens the original through its chat service and sends the same prompt.
    let w: ChatWorld | undefined;
    try {
      const settings = { provider: "openai-compatible" as const, model: "local-model", baseUrl: `${server.url}/v1` };
      w = chatWorld({ resolveModel: () => resolveModelBinding(settings, secretsOf({ "openai-compatible": "k" })) });
      const { imported } = read();
      const opened = await w.service.importChat({
        nodes: imported.nodes,
        leafId: imported.leafId,
        notice: imported.notice,
        origin: { kind: "pi-session", path: file, sessionId: "s" },
      });
      assert.ok(opened.ok, opened.ok ? "" : opened.reason);
      const before = server.chatRequests().length;
      await opened.session.prompt(next);
      const ours = server
        .chatRequests()
        .slice(before)
        .find((r) => isNext(r.messages));
      assert.ok(ours, "Pi Chat sent the next prompt");
      const conversation = (messages: WireMessage[]) =>
        messages
          .filter((m) => m.role !== "system" && m.role !== "developer")
          .map((m) => ({ ...m, content: typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content }));
      // This branch has no compaction and no `!` run: the conversation must be identical on the wire.
      assert.deepEqual(conversation(ours.messages), conversation(pisRequest.messages));
      assert.ok(conversation(ours.messages).length >= 6, "the whole branch went");
    } finally {
      await w?.cleanup();
    }
  });
});
