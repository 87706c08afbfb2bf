// The MCP server lifecycle against real servers nobody here wrote (the reference servers, over
// stdio): start, tools named mcp__<server>__<tool>, calls through toLlmContent, isError results,
// cancellation; and servers that crash at start, hang at initialize, or die later.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentTool } from "@earendil-works/pi-agent-core";
import type { McpServerDefinition } from "../../../src/core/mcp/config";
import { MCP_INSTRUCTIONS_CHARS, McpServers, type McpServersOptions, type McpServerState } from "../../../src/core/mcp/servers";
import { waitFor } from "../../support/wait-for";

const EVERYTHING = join(process.cwd(), "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const FILESYSTEM = join(process.cwd(), "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");

function stdio(name: string, args: string[]): McpServerDefinition {
  return { name, scope: "user", file: "test", enabled: true, transport: { type: "stdio", command: process.execPath, args, env: {} } };
}

function servers(overrides: Partial<McpServersOptions> = {}): { servers: McpServers; log: string[] } {
  const log: string[] = [];
  const s = new McpServers({
    clientInfo: { name: "pi-chat-test", version: "0" },
    prepare: async (def) => ({ transport: def.transport }),
    isServerDisabled: () => false,
    isToolDisabled: () => false,
    acceptsImages: () => true,
    log: (line) => log.push(line),
    onChange: () => {},
    ...overrides,
  });
  return { servers: s, log };
}

function tool(tools: AgentTool[], name: string): AgentTool {
  const found = tools.find((t) => t.name === name);
  assert.ok(found, `${name} among ${tools.map((t) => t.name).join(", ")}`);
  return found;
}

const stateOf = (s: McpServers, name: string): McpServerState => s.list().find((x) => x.name === name)!.state;

describe("MCP servers (real reference servers over stdio)", function () {
  this.timeout(60_000);
  const dispose: McpServers[] = [];
  afterEach(async () => {
    for (const s of dispose.splice(0)) await s.dispose();
  });

  it("starts server-everything and server-filesystem in parallel; tools get pi's names and run", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-fs-"));
    writeFileSync(join(dir, "hello.txt"), "hello from the file");
    const { servers: s } = servers();
    dispose.push(s);
    s.setDefinitions([stdio("everything", [EVERYTHING, "stdio"]), stdio("fs", [FILESYSTEM, dir])]);
    await s.ensureStarted(30_000);
    assert.equal(stateOf(s, "everything").kind, "ready");
    assert.equal(stateOf(s, "fs").kind, "ready");
    const { tools } = s.tools(1000);
    const echo = tool(tools, "mcp__everything__echo");
    assert.equal(echo.parameters && (echo.parameters as { type?: string }).type, "object");
    assert.deepEqual(s.describe("mcp__everything__echo")?.annotations?.readOnlyHint, true);
    const echoed = await echo.execute("t1", { message: "ping" });
    assert.match(JSON.stringify(echoed.content), /ping/);
    const sum = await tool(tools, "mcp__everything__get_sum").execute("t2", { a: 2, b: 40 });
    assert.match(JSON.stringify(sum.content), /42/);
    const image = await tool(tools, "mcp__everything__get_tiny_image").execute("t3", {});
    assert.ok(
      image.content.some((c) => c.type === "image"),
      "an image reaches a model that takes images",
    );
    const read = await tool(tools, "mcp__fs__read_text_file").execute("t4", { path: join(dir, "hello.txt") });
    assert.match(JSON.stringify(read.content), /hello from the file/);
    const outside = await tool(tools, "mcp__fs__read_text_file").execute("t5", { path: "/etc/passwd" });
    assert.equal(outside.isError, true, "the server's own refusal is an error result");
    assert.match(s.prompt(), /- everything/);
    // A server's instructions are its own words (the everything server's are Markdown, headings and
    // lists): they reach the system prompt as one plain, capped line per server, never as markup.
    const lines = s.prompt().split("\n");
    assert.deepEqual(
      lines.slice(1).map((l) => l.slice(0, 6)),
      ["- ever", "- fs"],
      s.prompt(),
    );
    for (const line of lines.slice(1)) assert.ok(line.length <= 40 + MCP_INSTRUCTIONS_CHARS + 200, `${line.length} characters`);
    // With tools on demand a server is listed by its first line (a Markdown heading, its marks out); the rest comes with tool_search.
    const everything = s.words().find((w) => w.name === "everything")!;
    assert.equal(everything.brief, "Everything Server – Server Instructions");
    assert.ok(everything.instructions.startsWith("# Everything Server"), everything.instructions.slice(0, 80));
    assert.doesNotMatch(everything.instructions, /[\n\r`]/, "what tool_search's answer carries is the same plain line");
    assert.equal(s.words().find((w) => w.name === "fs")?.brief, "", "no instructions, no description: no words");
  });

  it("a server's resources are two tools, list and read, through the same gate facts", async () => {
    const { servers: s } = servers();
    dispose.push(s);
    s.setDefinitions([stdio("everything", [EVERYTHING, "stdio"])]);
    await s.ensureStarted(30_000);
    const { tools } = s.tools(1000);
    const list = await tool(tools, "mcp__everything__list_resources").execute("r1", {});
    const listed = list.content.map((c) => (c.type === "text" ? c.text : "")).join("");
    const uri = "demo://resource/static/document/features.md";
    assert.ok(listed.includes(uri), listed.slice(0, 400));
    const read = await tool(tools, "mcp__everything__read_resource").execute("r2", { uri });
    const text = read.content.map((c) => (c.type === "text" ? c.text : "")).join("");
    // The document's own words, read off the server's file, not a made-up expectation.
    const onDisk = readFileSync(join(process.cwd(), "node_modules/@modelcontextprotocol/server-everything/dist/docs/features.md"), "utf8");
    assert.ok(
      text.includes(
        onDisk
          .split("\n")
          .find((l) => l.trim().length > 20)!
          .trim(),
      ),
      text.slice(0, 300),
    );
    // The card and the approval rule name them as resource calls of that server.
    assert.deepEqual(
      { server: s.describe("mcp__everything__read_resource")?.server, tool: s.describe("mcp__everything__read_resource")?.tool },
      { server: "everything", tool: "resources/read" },
    );
    await assert.rejects(tool(tools, "mcp__everything__read_resource").execute("r3", { uri: "demo://no/such/resource" }));
  });

  it("a model without images gets a note instead; text over 20 KB is cut and the whole saved", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-big-"));
    writeFileSync(join(dir, "big.txt"), `${"line of text\n".repeat(5000)}THE END`);
    let saved = "";
    const { servers: s } = servers({
      acceptsImages: () => false,
      saveOutput: async (data) => {
        saved = join(dir, "whole.log");
        writeFileSync(saved, data);
        return saved;
      },
    });
    dispose.push(s);
    s.setDefinitions([stdio("everything", [EVERYTHING, "stdio"]), stdio("fs", [FILESYSTEM, dir])]);
    await s.ensureStarted(30_000);
    const { tools } = s.tools(1000);
    const image = await tool(tools, "mcp__everything__get_tiny_image").execute("t1", {});
    assert.ok(!image.content.some((c) => c.type === "image"));
    assert.match(JSON.stringify(image.content), /left out: the model in use does not take images/);
    const big = await tool(tools, "mcp__fs__read_text_file").execute("t2", { path: join(dir, "big.txt") });
    const text = big.content.map((c) => (c.type === "text" ? c.text : "")).join("");
    assert.ok(text.length < 25_000, `cut to ${text.length}`);
    assert.equal((big.details as { logFile?: string }).logFile, saved);
    assert.match(readFileSync(saved, "utf8"), /THE END/);
  });

  it("caps the tools per request and leaves disabled tools out", async () => {
    const { servers: s } = servers({ isToolDisabled: (_server, t) => t === "echo" });
    dispose.push(s);
    s.setDefinitions([stdio("everything", [EVERYTHING, "stdio"])]);
    await s.ensureStarted(30_000);
    assert.ok(!s.tools(1000).tools.some((t) => t.name === "mcp__everything__echo"));
    assert.equal(s.describe("mcp__everything__echo")?.disabled, true);
    const capped = s.tools(3);
    assert.equal(capped.tools.length, 3);
    assert.ok(capped.leftOut > 0);
  });

  it("Stop during a long-running call cancels it and the server goes on", async () => {
    const { servers: s } = servers();
    dispose.push(s);
    s.setDefinitions([stdio("everything", [EVERYTHING, "stdio"])]);
    await s.ensureStarted(30_000);
    const { tools } = s.tools(1000);
    const stop = new AbortController();
    // Stop once the operation reports its first step (an event, not a clock): it had 30 to go.
    let steps = 0;
    const call = tool(tools, "mcp__everything__trigger_long_running_operation").execute("t1", { duration: 30, steps: 30 }, stop.signal, () => {
      steps++;
      stop.abort();
    });
    await assert.rejects(call);
    assert.ok(steps >= 1 && steps < 30, `${steps} of 30 steps reported: ended at the stop, not after the operation`);
    const after = await tool(tools, "mcp__everything__echo").execute("t2", { message: "still here" });
    assert.match(JSON.stringify(after.content), /still here/);
  });

  it("a server that crashes at start fails with the last lines of its stderr", async () => {
    const { servers: s } = servers();
    dispose.push(s);
    s.setDefinitions([stdio("crash", ["-e", "console.error('boom: missing config'); process.exit(3)"])]);
    await s.ensureStarted(10_000);
    const state = stateOf(s, "crash");
    assert.equal(state.kind, "failed");
    assert.ok(state.kind === "failed" && state.stderr.some((l) => /boom: missing config/.test(l)), JSON.stringify(state));
    assert.deepEqual(s.tools(100).tools, []);
  });

  it("a server that hangs at initialize fails after the start timeout, and its process ends", async () => {
    const { servers: s } = servers({ startTimeoutMs: 1500 });
    dispose.push(s);
    s.setDefinitions([stdio("hang", ["-e", "console.error('pid ' + process.pid); setInterval(() => {}, 1000)"])]);
    await s.ensureStarted(10_000);
    const state = stateOf(s, "hang");
    assert.equal(state.kind, "failed");
    assert.ok(state.kind === "failed" && /did not answer within 2 s/.test(state.reason), JSON.stringify(state));
    const pid = Number(/pid (\d+)/.exec(state.kind === "failed" ? state.stderr.join("\n") : "")?.[1]);
    await waitFor("the hung server to end", () => !alive(pid));
  });

  it("a server that dies later is started again once, then left failed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-crash-"));
    const { servers: s, log } = servers();
    dispose.push(s);
    s.setDefinitions([stdio("everything", [EVERYTHING, "stdio"]), stdio("fs", [FILESYSTEM, dir])]);
    await s.ensureStarted(30_000);
    const pids = () => s.list();
    assert.ok(pids().every((x) => x.state.kind === "ready"));
    // The filesystem server's pid: kill it from outside, as a crash would.
    const { tools } = s.tools(1000);
    const env = await tool(tools, "mcp__everything__get_env").execute("t", {});
    assert.ok(env.content.length > 0);
    await s.restart("fs");
    assert.equal(stateOf(s, "fs").kind, "ready", "a restart asked for by the user");
    killServer(s, "fs");
    await waitFor("the restart after the first crash", () => log.some((l) => /"fs" exited; starting it again/.test(l)));
    await waitFor("fs ready again", () => stateOf(s, "fs").kind === "ready");
    killServer(s, "fs");
    await waitFor("fs failed after the second crash", () => stateOf(s, "fs").kind === "failed");
    assert.equal(stateOf(s, "everything").kind, "ready", "the other server is untouched");
  });

  it("dispose ends every server process", async () => {
    const { servers: s } = servers();
    s.setDefinitions([stdio("everything", [EVERYTHING, "stdio"])]);
    await s.ensureStarted(30_000);
    const pid = serverPid(s, "everything");
    assert.ok(alive(pid));
    await s.dispose();
    await waitFor("the server process to end", () => !alive(pid));
  });
});

/** The pid of a server's process, read from the manager's transport (a test's look inside). */
function serverPid(s: McpServers, name: string): number {
  const entries = (s as unknown as { entries: Map<string, { transport?: { pid?: number } }> }).entries;
  const pid = entries.get(name)?.transport?.pid;
  assert.ok(pid, `pid of ${name}`);
  return pid;
}

function killServer(s: McpServers, name: string): void {
  process.kill(serverPid(s, name), "SIGKILL");
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
