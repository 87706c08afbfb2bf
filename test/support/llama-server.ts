// A real llama.cpp `llama-server` on 127.0.0.1 for tests: built once by scripts/setup-llama.sh into
// .test-llama/, serving the committed toy model (test/fixtures/models/stories260K.gguf, it only
// writes stories and never calls tools). Started in a process group of its own, so `stop()` ends it
// and every child it has, and waits until it is gone.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { waitFor } from "./wait-for";

/** The llama.cpp build setup-llama.sh makes (node-llama-cpp's pinned release). */
export const LLAMA_VERSION = "3.21.1";

export interface LlamaServer {
  /** http://127.0.0.1:<port>; the OpenAI-compatible API is under `${url}/v1`. */
  readonly url: string;
  /** What the server wrote (its log), for a failing test's message. */
  log(): string;
  stop(): Promise<void>;
}

export interface LlamaServerOptions {
  /** The server's context window (`-c`, one slot). */
  contextSize: number;
}

/** The repository root: the nearest folder above this bundle with a package.json. */
const repoRoot = ((): string => {
  let dir = __dirname;
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
})();

/** The built server binary, or undefined when setup-llama.sh has not run. */
export function llamaServerBinary(): string | undefined {
  const binary = join(repoRoot, ".test-llama", LLAMA_VERSION, "bin", "llama-server");
  return existsSync(binary) ? binary : undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export async function startLlamaServer(options: LlamaServerOptions): Promise<LlamaServer> {
  const binary = llamaServerBinary();
  if (!binary) throw new Error("llama-server is not built: run `bash scripts/setup-llama.sh` (npm run setup does)");
  const port = await freePort();
  const template = join(repoRoot, ".test-llama", LLAMA_VERSION, "templates", "Qwen-Qwen2.5-7B-Instruct.jinja");
  const model = join(repoRoot, "test", "fixtures", "models", "stories260K.gguf");
  const size = String(options.contextSize);
  // One slot with the whole window; the toy model says it was trained on 2,048 tokens and the server
  // caps a slot there, while Pi Chat's tool declarations alone are ~4,000 of its (512-piece) tokens:
  // the override lets the window be what the test asks for.
  const window = ["-c", size, "-np", "1", "--override-kv", `llama.context_length=int:${size}`];
  const args = ["-m", model, "--jinja", "--chat-template-file", template, ...window, "--host", "127.0.0.1", "--port", String(port)];
  // detached: a process group of its own, so stop() can end the server and anything it started.
  const child = spawn(binary, args, { detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-20_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  const url = `http://127.0.0.1:${port}`;
  // A test run that ends without stop() (a crash, an interrupted mocha) still ends the server.
  const onExit = () => killGroup(child, "SIGKILL");
  process.once("exit", onExit);
  const stop = async () => {
    if (!gone) killGroup(child, "SIGTERM");
    await exited;
    process.off("exit", onExit);
  };
  try {
    // /health answers 503 while the model loads, 200 once it can serve.
    await waitFor(
      "llama-server to be ready",
      async () => {
        if (gone) throw new Error(`llama-server exited while starting:\n${output}`);
        return (await fetch(`${url}/health`).catch(() => undefined))?.ok === true;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, log: () => output, stop };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}
