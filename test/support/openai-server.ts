// A scripted OpenAI Chat Completions server on 127.0.0.1 for tests: pi-ai's real
// openai-completions adapter (and the openai SDK under it) talks to it over HTTP, so a test
// sees exactly what went over the wire. Like the faux helper, each request takes the next
// scripted step; a step is a function of the request body, so it can assert what the model got.
//
//   const server = await startOpenAIServer();
//   server.push((body) => ({ toolCalls: [{ id: "call_1", name: "read_file", arguments: { path: "a.ts" } }] }));
//   server.push(() => ({ text: "Done." }));
//   server.failNext(401);                     // the next request gets an OpenAI-style 401
//   ... baseUrl: `${server.url}/v1` ...
//   server.requests                           // every request: method, path, Authorization, body
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface WireContentPart {
  type: string;
  text?: string;
  image_url?: { url: string };
}

export interface WireToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** One message of a Chat Completions request, as pi-ai's adapter sends it. */
export interface WireMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content?: string | WireContentPart[] | null;
  tool_calls?: WireToolCall[];
  tool_call_id?: string;
  name?: string;
  [field: string]: unknown;
}

export interface WireTool {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export interface ChatCompletionRequest {
  model: string;
  messages: WireMessage[];
  tools?: WireTool[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
  [field: string]: unknown;
}

export interface ScriptedToolCall {
  id: string;
  name: string;
  /** An object is sent as JSON; a string is sent as is (to test malformed arguments). */
  arguments: Record<string, unknown> | string;
}

export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface TextReply {
  text: string;
  /** Streamed first as `delta.reasoning_content` (llama.cpp style). */
  reasoning?: string;
  finishReason?: "stop" | "length" | "content_filter";
  usage?: ScriptedUsage;
  /**
   * After the text, an error chunk (`data: {"error": …}`) and the end of the stream: no
   * finish_reason, no usage, no `[DONE]` (what llama-server sends when the model's output does not parse).
   */
  streamError?: StreamErrorBody;
}

/** The `error` of an error chunk, as llama-server writes it. */
export interface StreamErrorBody {
  code: number;
  message: string;
  type: string;
}

export interface ToolCallReply {
  toolCalls: ScriptedToolCall[];
  /** Optional text streamed before the tool calls. */
  text?: string;
  usage?: ScriptedUsage;
}

/** An HTTP error answer: `body` is sent as JSON (default: an OpenAI-style error for the status). */
export interface ErrorReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type ServerReply = TextReply | ToolCallReply | ErrorReply;
export type ServerStep = (request: ChatCompletionRequest) => ServerReply;

export interface RecordedRequest {
  method: string;
  path: string;
  /** The whole request target, query included (a key may travel as ?key=…). */
  url: string;
  /** The Authorization header as received ("Bearer …"), if any. */
  authorization: string | undefined;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body of a POST (undefined for GET or a body that is not JSON). */
  body: ChatCompletionRequest | undefined;
}

export interface OpenAIServer {
  /** http://127.0.0.1:<port>; the API is under `${url}/v1`. */
  readonly url: string;
  /** Every request received, in order (deep copies). */
  readonly requests: RecordedRequest[];
  /** Errors thrown by steps (assertions), in order; a throwing step answers 500. */
  readonly failures: unknown[];
  /** Model ids listed at GET /v1/models. */
  models: string[];
  /** The window GET /v1/models says for each model, as vLLM does (`max_model_len`); absent, none. */
  maxModelLen: number | undefined;
  /** How prompt tokens are counted in the reported usage, from the next request on. */
  usageMode: UsageMode;
  /** The bodies of the POST /v1/chat/completions requests, in order. */
  chatRequests(): ChatCompletionRequest[];
  push(...steps: ServerStep[]): void;
  /** The next chat request (before any pushed step) is answered with this HTTP error. */
  failNext(status: number, body?: unknown, headers?: Record<string, string>): void;
  /** Steps not yet used. */
  pending(): number;
  /** Drops the steps not yet used. */
  clearPending(): void;
  close(): Promise<void>;
}

/** Failures of every server of this test bundle, in order: waiting code rethrows them at once. */
const allFailures: unknown[] = [];

/** How many failures any server has recorded so far (pass it to `serverFailureSince`). */
export function serverFailureCount(): number {
  return allFailures.length;
}

/** The first failure (a scripted step's assertion, a request no step was scripted for) after `count`. */
export function serverFailureSince(count: number): unknown {
  return allFailures[count];
}

/**
 * How the server counts a request's prompt tokens in the usage it reports (when the client asks
 * for usage): `messages` — the JSON of the messages ÷ 4 (the default); `exact` — the messages and
 * the tool declarations ÷ 4 (what real servers count); `half` — an under-counting server, half of
 * exact; `none` — a server that never reports usage.
 */
export type UsageMode = "messages" | "exact" | "half" | "none";

export interface OpenAIServerOptions {
  /** Listed at GET /v1/models. Default ["local-model"]. */
  models?: string[];
  /** Characters per streamed text/argument chunk. Default 7 (several deltas per reply). */
  chunkSize?: number;
  usage?: UsageMode;
}

/** An OpenAI-style error body. */
export function openAIErrorBody(
  message: string,
  type: string,
  code: string | null = null,
): { error: { message: string; type: string; param: null; code: string | null } } {
  return { error: { message, type, param: null, code } };
}

function defaultErrorBody(status: number): unknown {
  if (status === 401) return openAIErrorBody("Incorrect API key provided.", "invalid_request_error", "invalid_api_key");
  if (status === 429) return openAIErrorBody("Rate limit reached for requests. Please try again in 20s.", "requests", "rate_limit_exceeded");
  if (status === 404) return openAIErrorBody("The model does not exist.", "invalid_request_error", "model_not_found");
  return openAIErrorBody(`Scripted error ${status}.`, "server_error", null);
}

export async function startOpenAIServer(options: OpenAIServerOptions = {}): Promise<OpenAIServer> {
  const steps: ServerStep[] = [];
  const requests: RecordedRequest[] = [];
  const failures: unknown[] = [];
  const chunkSize = Math.max(1, options.chunkSize ?? 7);
  let completionCount = 0;
  const state: { models: string[]; usage: UsageMode; maxModelLen?: number } = { models: options.models ?? ["local-model"], usage: options.usage ?? "messages" };

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      failures.push(error);
      allFailures.push(error);
      if (!res.headersSent) sendJson(res, 500, openAIErrorBody(`openai-server: ${String(error)}`, "server_error"));
      else res.end();
    });
  });

  // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the scripted server's handler: one branch per scripted behaviour
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    let body: ChatCompletionRequest | undefined;
    if (raw) {
      try {
        body = JSON.parse(raw) as ChatCompletionRequest;
      } catch {
        body = undefined;
      }
    }
    const authorization = typeof req.headers.authorization === "string" ? req.headers.authorization : undefined;
    requests.push({
      method: req.method ?? "GET",
      path,
      url: req.url ?? "/",
      authorization,
      headers: { ...req.headers },
      body: body ? structuredClone(body) : undefined,
    });

    if (req.method === "GET" && path === "/v1/models") {
      const window = state.maxModelLen !== undefined ? { max_model_len: state.maxModelLen } : {};
      sendJson(res, 200, { object: "list", data: state.models.map((id) => ({ id, object: "model", created: 0, owned_by: "openai-server", ...window })) });
      return;
    }
    if (req.method !== "POST" || path !== "/v1/chat/completions") {
      sendJson(res, 404, openAIErrorBody(`Unknown route ${req.method} ${path}`, "invalid_request_error", "unknown_url"));
      return;
    }
    if (!body || !Array.isArray(body.messages)) {
      sendJson(res, 400, openAIErrorBody("The body is not a Chat Completions request.", "invalid_request_error"));
      return;
    }
    const step = steps.shift();
    if (!step) {
      const error = new Error(`openai-server: no scripted step for request ${requests.length} (${body.messages.length} messages)`);
      failures.push(error);
      allFailures.push(error);
      sendJson(res, 500, openAIErrorBody(error.message, "server_error"));
      return;
    }
    let reply: ServerReply;
    try {
      reply = step(structuredClone(body));
    } catch (error) {
      failures.push(error);
      allFailures.push(error);
      sendJson(res, 500, openAIErrorBody(`openai-server: the step threw: ${error instanceof Error ? error.message : String(error)}`, "server_error"));
      return;
    }
    if ("status" in reply) {
      sendJson(res, reply.status, reply.body ?? defaultErrorBody(reply.status), reply.headers);
      return;
    }
    completionCount++;
    const id = `chatcmpl-scripted-${completionCount}`;
    if (body.stream) streamReply(res, id, body, reply, chunkSize, state.usage);
    else sendJson(res, 200, completionReply(id, body, reply, state.usage));
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failures,
    get models() {
      return state.models;
    },
    set models(ids: string[]) {
      state.models = ids;
    },
    get maxModelLen() {
      return state.maxModelLen;
    },
    set maxModelLen(tokens: number | undefined) {
      if (tokens === undefined) delete state.maxModelLen;
      else state.maxModelLen = tokens;
    },
    get usageMode() {
      return state.usage;
    },
    set usageMode(mode: UsageMode) {
      state.usage = mode;
    },
    chatRequests: () => requests.filter((r) => r.method === "POST" && r.path === "/v1/chat/completions" && r.body).map((r) => r.body!),
    push: (...more) => void steps.push(...more),
    failNext: (status, body, headers) => void steps.unshift(() => ({ status, ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) })),
    pending: () => steps.length,
    clearPending: () => void steps.splice(0),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function toolArguments(call: ScriptedToolCall): string {
  return typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
}

/** The prompt tokens a request holds as `mode` counts them (~4 characters of its JSON a token). */
export function promptTokensOf(body: ChatCompletionRequest, mode: Exclude<UsageMode, "none"> = "exact"): number {
  const messages = JSON.stringify(body.messages).length;
  const tools = mode === "messages" ? 0 : JSON.stringify(body.tools ?? []).length;
  const exact = Math.ceil((messages + tools) / 4);
  return mode === "half" ? Math.floor(exact / 2) : exact;
}

function usageOf(reply: TextReply | ToolCallReply, body: ChatCompletionRequest, mode: Exclude<UsageMode, "none">): ScriptedUsage {
  if (reply.usage) return reply.usage;
  const prompt = promptTokensOf(body, mode);
  const completion = Math.ceil((("text" in reply && reply.text) || "").length / 4) + ("toolCalls" in reply ? reply.toolCalls.length * 10 : 0);
  return { prompt_tokens: prompt, completion_tokens: completion };
}

/** The streaming wire format: role chunk, content/tool-call deltas, finish_reason, usage, [DONE] (or an error chunk and the end). */
function streamReply(res: ServerResponse, id: string, body: ChatCompletionRequest, reply: TextReply | ToolCallReply, chunkSize: number, mode: UsageMode): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
  const created = Math.floor(Date.now() / 1000);
  const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: body.model, choices, ...extra })}\n\n`);
  const delta = (d: Record<string, unknown>, finish: string | null = null) => send([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);

  delta({ role: "assistant", content: "" });
  if ("reasoning" in reply && reply.reasoning) for (const p of pieces(reply.reasoning, chunkSize)) delta({ reasoning_content: p });
  if (reply.text) for (const p of pieces(reply.text, chunkSize)) delta({ content: p });
  if ("streamError" in reply && reply.streamError) {
    res.write(`data: ${JSON.stringify({ error: reply.streamError })}\n\n`);
    res.end();
    return;
  }
  let finish: string = ("finishReason" in reply && reply.finishReason) || "stop";
  if ("toolCalls" in reply && reply.toolCalls.length > 0) {
    reply.toolCalls.forEach((call, index) => {
      // First the id and name with empty arguments, then the arguments in pieces (as OpenAI does).
      delta({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] });
      for (const p of pieces(toolArguments(call), chunkSize)) delta({ tool_calls: [{ index, function: { arguments: p } }] });
    });
    finish = "tool_calls";
  }
  delta({}, finish);
  if (body.stream_options?.include_usage && mode !== "none") {
    const usage = usageOf(reply, body, mode);
    send([], { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } });
  }
  res.write("data: [DONE]\n\n");
  res.end();
}

/** The non-streaming format (pi-ai always streams; kept for completeness). */
function completionReply(id: string, body: ChatCompletionRequest, reply: TextReply | ToolCallReply, mode: UsageMode): unknown {
  const toolCalls = "toolCalls" in reply ? reply.toolCalls : [];
  const usage = usageOf(reply, body, mode === "none" ? "messages" : mode);
  return {
    id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.text ?? null,
          ...(toolCalls.length
            ? { tool_calls: toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: toolArguments(c) } })) }
            : {}),
        },
        finish_reason: toolCalls.length ? "tool_calls" : ("finishReason" in reply && reply.finishReason) || "stop",
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}
