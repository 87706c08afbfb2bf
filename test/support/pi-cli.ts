// The real pi coding agent CLI (@earendil-works/pi-coding-agent, a dev dependency) driven against
// test/support/openai-server.ts through a custom provider in a temporary agent folder: the
// session files it writes are the fixtures of the pi session import (test/unit/pi-sessions).
// Nothing reaches a real provider: models.json points the only provider at 127.0.0.1, and
// PI_OFFLINE stops pi's own network activity.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ChatCompletionRequest, OpenAIServer, ServerReply } from "./openai-server";

export const PI_CLI = resolve("node_modules/@earendil-works/pi-coding-agent/dist/cli.js");
/** Lets pi (which asks for Node >= 22.19) run on this machine's Node 20: see the file. */
export const PI_NODE20_HOOKS = resolve("test/support/node20-pi-hooks.mjs");
/** node's arguments to run pi's CLI. */
const PI_NODE_ARGS = ["--import", PI_NODE20_HOOKS, PI_CLI];

/** A pi session entry, as far as the tests read it. */
export interface PiSdkEntry {
  type: string;
  id: string;
  parentId: string | null;
  message?: { role: string; content?: unknown };
}

/**
 * The part of pi's SDK the tests use. Declared here, not imported: pi's own type declarations
 * merge its message kinds into pi-agent-core's `CustomAgentMessages`, which would change Pi
 * Chat's `AgentMessage` for the whole type check.
 */
export interface PiSdk {
  SessionManager: {
    open(path: string): PiSdkSessionManager;
  };
  buildSessionContext(
    entries: PiSdkEntry[],
    leafId: string | null,
  ): { messages: unknown[]; thinkingLevel: string; model: { provider: string; modelId: string } | null };
  convertToLlm(messages: unknown[]): import("@earendil-works/pi-ai").Message[];
}

export interface PiSdkSessionManager {
  getLeafId(): string | null;
  getEntries(): PiSdkEntry[];
  branchWithSummary(branchFromId: string | null, summary: string): string;
  appendSessionInfo(name: string): string;
  appendLabelChange(targetId: string, label: string | undefined): string;
  appendCustomEntry(customType: string, data?: unknown): string;
  appendMessage(message: Record<string, unknown>): string;
}

/** pi's SDK (ESM, loaded at run time, outside the test bundle), after the Node 20 hooks. */
export async function loadPiSdk(): Promise<PiSdk> {
  await import(PI_NODE20_HOOKS);
  const name = "@earendil-works/pi-coding-agent";
  return (await import(name)) as PiSdk;
}
export const PI_PROVIDER = "local";
export const PI_MODEL = "local-model";

export interface PiWorld {
  root: string;
  agentDir: string;
  /** The project pi runs in (its working directory). */
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** A temp agent folder whose only provider is the test server, and a project with src/config.ts. */
export function piWorld(root: string, server: OpenAIServer): PiWorld {
  const agentDir = join(root, "agent");
  const cwd = join(root, "project");
  mkdirSync(join(cwd, "src"), { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(cwd, "src/config.ts"), "export const config = { port: 3000 };\n");
  writeFileSync(
    join(agentDir, "models.json"),
    JSON.stringify({
      providers: {
        [PI_PROVIDER]: {
          baseUrl: `${server.url}/v1`,
          api: "openai-completions",
          apiKey: "test-key",
          models: [
            {
              id: PI_MODEL,
              name: PI_MODEL,
              reasoning: true,
              input: ["text", "image"],
              contextWindow: 128000,
              maxTokens: 4096,
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
            },
          ],
        },
      },
    }),
  );
  // A small kept tail, so a manual compaction of a short session summarizes something.
  writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env["PATH"],
    HOME: root,
    USERPROFILE: root,
    PI_CODING_AGENT_DIR: agentDir,
    PI_OFFLINE: "1",
    PI_TELEMETRY: "0",
    NO_COLOR: "1",
  };
  return { root, agentDir, cwd, env };
}

/** The session files pi wrote for the project, oldest first. */
export function piSessionFiles(world: PiWorld): string[] {
  const dir = join(world.agentDir, "sessions", `--${world.cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`);
  return readdirSync(dir)
    .filter((n) => n.endsWith(".jsonl"))
    .sort()
    .map((n) => join(dir, n));
}

/**
 * Answers like a model for the scripted session: a read tool call for the first prompt, an
 * answer after a tool result, a summary when pi asks for one, a short answer otherwise.
 */
export function scriptedPiModel(request: ChatCompletionRequest): ServerReply {
  const messages = request.messages;
  const last = messages[messages.length - 1];
  const text = (m: (typeof messages)[number] | undefined) =>
    typeof m?.content === "string" ? m.content : Array.isArray(m?.content) ? m.content.map((p) => p.text ?? "").join("") : "";
  const all = messages.map(text).join("\n");
  if (last?.role === "tool") return { text: "The default port is 3000." };
  if (/summar/i.test(text(messages[0])) || /summar/i.test(text(last)) || /<conversation>/i.test(all))
    return { text: "## Goal\nFind and change the default port.\n\n## Progress\nRead src/config.ts: port 3000." };
  if (/Read src\/config\.ts/.test(text(last)) && !messages.some((m) => m.role === "assistant"))
    return { toolCalls: [{ id: "call_read_1", name: "read", arguments: { path: "src/config.ts" } }] };
  return { text: `Answer to: ${text(last).slice(0, 60)}` };
}

/** pi in RPC mode: one command at a time, each awaited (prompts until pi has settled). */
export class PiRpc {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = "";
  private readonly waiters: { match: (record: Record<string, unknown>) => boolean; resolve: (r: Record<string, unknown>) => void }[] = [];
  readonly stderr: string[] = [];
  private nextId = 1;

  constructor(world: PiWorld) {
    this.child = spawn(process.execPath, [...PI_NODE_ARGS, "--mode", "rpc", "--model", `${PI_PROVIDER}/${PI_MODEL}`, "--tools", "read,bash"], {
      cwd: world.cwd,
      env: world.env,
    });
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => {
      this.buffer += chunk;
      let nl = this.buffer.indexOf("\n");
      while (nl !== -1) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        nl = this.buffer.indexOf("\n");
        let record: Record<string, unknown>;
        try {
          record = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue;
        }
        for (let i = 0; i < this.waiters.length; i++) {
          const w = this.waiters[i]!;
          if (w.match(record)) {
            this.waiters.splice(i, 1);
            w.resolve(record);
            break;
          }
        }
      }
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => this.stderr.push(chunk));
  }

  private wait(match: (record: Record<string, unknown>) => boolean, what: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => reject(new Error(`pi rpc: no ${what} in ${timeoutMs} ms; stderr: ${this.stderr.join("").slice(-2000)}`)), timeoutMs);
      this.waiters.push({
        match,
        resolve: (r) => {
          clearTimeout(timer);
          resolvePromise(r);
        },
      });
    });
  }

  /** Sends a command and resolves to its response; a failed command rejects. */
  async command(command: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = `req-${this.nextId++}`;
    const response = this.wait((r) => r["type"] === "response" && r["id"] === id, `response to ${String(command["type"])}`);
    this.child.stdin.write(`${JSON.stringify({ ...command, id })}\n`);
    const r = await response;
    if (r["success"] !== true) throw new Error(`pi rpc ${String(command["type"])} failed: ${JSON.stringify(r).slice(0, 1000)}`);
    return r;
  }

  /** A prompt, awaited until pi has no automatic work left. */
  async prompt(message: string, images?: { type: "image"; data: string; mimeType: string }[]): Promise<void> {
    const settled = this.wait((r) => r["type"] === "agent_settled", "agent_settled");
    await this.command({ type: "prompt", message, ...(images ? { images } : {}) });
    await settled;
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise<void>((r) => this.child.once("exit", () => r()));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill(), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

/** `pi -p --session <file> <prompt>`: pi continues a session once, in print mode. */
export function piPrint(world: PiWorld, sessionFile: string, prompt: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    const child = spawn(
      process.execPath,
      [...PI_NODE_ARGS, "-p", "--model", `${PI_PROVIDER}/${PI_MODEL}`, "--tools", "read,bash", "--session", sessionFile, prompt],
      {
        cwd: world.cwd,
        env: world.env,
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.stdin.end();
    child.on("exit", (code) => resolvePromise({ code, stdout, stderr }));
  });
}
