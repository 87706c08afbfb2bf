// The 8080 scenario and provider errors through the real stack: ChatService/ChatSession →
// pi Agent → pi-ai's openai-completions adapter (openai SDK, real HTTP) → the scripted local
// server. What the model "received" is asserted on the request bodies the server got.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import {
  describeProviderError,
  KEYLESS_API_KEY,
  resolveModelBinding,
  type ProviderSettings,
  type SecretSource,
} from "../../../src/host/providers/provider-bundle";
import { openAIErrorBody, startOpenAIServer, type ChatCompletionRequest, type OpenAIServer } from "../../support/openai-server";
import { CONFIG, guardNetwork, lastAssistant, secretsOf, wireText, withEnv, world, type NetworkGuard, type World } from "./helpers";

const STORED_KEY = "sk-local-stored-secret-7f3a9c";

function settingsFor(server: OpenAIServer, model = "local-model"): ProviderSettings {
  return { provider: "openai-compatible", model, baseUrl: `${server.url}/v1` };
}

function compatibleWorld(server: OpenAIServer, secrets: SecretSource, model?: string): World {
  return world(() => resolveModelBinding(settingsFor(server, model), secrets));
}

function toolNames(body: ChatCompletionRequest): string[] {
  return (body.tools ?? []).map((t) => t.function.name).sort();
}

/** Turn 1 over the wire: read_file, then an answer built from the tool result the server received. */
function scriptTurnOne(server: OpenAIServer): void {
  server.push(
    (body) => {
      assert.deepEqual(
        body.messages.map((m) => m.role),
        ["system", "user"],
      );
      assert.deepEqual(toolNames(body), ["edit_file", "find_files", "list_files", "read_file", "search", "todo"]);
      return { toolCalls: [{ id: "call_read_1", name: "read_file", arguments: { path: "src/config.ts" } }] };
    },
    (body) => {
      const result = body.messages[body.messages.length - 1];
      assert.equal(result?.role, "tool");
      assert.equal(result?.tool_call_id, "call_read_1");
      const port = /port: (\d+)/.exec(wireText(result))?.[1];
      return { text: `The default port is ${port}.` };
    },
  );
}

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe("providers: OpenAI-compatible server through the core (real pi-ai adapter, real HTTP)", () => {
  let server: OpenAIServer;
  let guard: NetworkGuard;
  let w: World | undefined;
  let restoreEnv: (() => void) | undefined;

  beforeEach(async () => {
    server = await startOpenAIServer();
    guard = guardNetwork();
  });

  afterEach(async () => {
    guard.restore();
    restoreEnv?.();
    restoreEnv = undefined;
    await w?.cleanup();
    w = undefined;
    await server.close();
  });

  /** Only the local server was contacted, and no scripted step failed. */
  function assertOnlyLocalServer(): void {
    assert.ok(guard.urls.length > 0, "requests were made");
    // The API under /v1, and the server's own endpoints that say its window (server-probe.ts).
    for (const url of guard.urls) assert.ok(url.startsWith(`${server.url}/`), `only the local server is used (got ${url})`);
    assert.deepEqual(server.failures, [], "no scripted step failed");
  }

  it("runs the 8080 scenario: the request bodies carry the history, the tool call/result pair and the tools; the stored key is sent", async () => {
    w = compatibleWorld(server, secretsOf({ "openai-compatible": STORED_KEY }));
    const session = w.service.newChat();
    scriptTurnOne(server);
    await session.prompt("Read src/config.ts and tell me the default port.");
    const answer = lastAssistant(session.messages);
    assert.equal(answer.stopReason, "stop", answer.errorMessage);
    assert.match(answer.content.map((c) => (c.type === "text" ? c.text : "")).join(""), /The default port is 3000\./);
    assert.equal(answer.provider, "openai-compatible");
    assert.equal(answer.api, "openai-completions");
    assert.ok(answer.usage.input > 0, "the usage chunk was parsed");

    server.push(
      () => ({ toolCalls: [{ id: "call_edit_1", name: "edit_file", arguments: { path: "src/config.ts", oldText: "port: 3000,", newText: "port: 8080," } }] }),
      () => ({ text: "Changed the port to 8080." }),
    );
    await session.prompt("Change it to 8080.");
    assert.equal(lastAssistant(session.messages).stopReason, "stop");
    assert.equal(readFileSync(join(w.workspace, "src/config.ts"), "utf8"), CONFIG.replace("3000", "8080"));
    assert.equal(w.approvals.length, 1);
    assert.match(w.approvals[0]!.diff, /- {2}port: 3000,\n\+ {2}port: 8080,/);

    const bodies = server.chatRequests();
    assert.equal(bodies.length, 4);
    assert.equal(server.pending(), 0);

    // The request that produced the edit_file call carries all of turn one.
    const edit = bodies[2]!;
    assert.equal(edit.model, "local-model");
    assert.equal(edit.stream, true);
    assert.deepEqual(
      edit.messages.map((m) => m.role),
      ["system", "user", "assistant", "tool", "assistant", "user"],
    );
    assert.match(wireText(edit.messages[0]), /You are Pi Chat/, "the system prompt goes as a plain system message");
    assert.match(wireText(edit.messages[1]), /Read src\/config\.ts and tell me the default port\./);
    const call = edit.messages[2]!.tool_calls?.[0];
    assert.ok(call, "the earlier assistant tool call is in the request");
    assert.equal(call.id, "call_read_1");
    assert.equal(call.type, "function");
    assert.equal(call.function.name, "read_file");
    assert.deepEqual(JSON.parse(call.function.arguments), { path: "src/config.ts" });
    assert.equal(edit.messages[3]!.tool_call_id, call.id, "the tool result has the same tool_call_id as its call");
    assert.match(wireText(edit.messages[3]), /port: 3000/);
    assert.match(wireText(edit.messages[4]), /The default port is 3000\./);
    assert.match(wireText(edit.messages[5]), /Change it to 8080\./);

    // The tool definitions, as JSON Schema function tools.
    assert.deepEqual(toolNames(edit), ["edit_file", "find_files", "list_files", "read_file", "search", "todo"]);
    for (const tool of edit.tools ?? []) {
      assert.equal(tool.type, "function");
      assert.ok(tool.function.description, `${tool.function.name} has a description`);
      assert.equal(tool.function.parameters?.type, "object");
      assert.equal(tool.function.strict, undefined, "no strict flag for local servers");
    }
    const editTool = edit.tools?.find((t) => t.function.name === "edit_file");
    assert.deepEqual(Object.keys((editTool?.function.parameters?.properties ?? {}) as object).sort(), ["edits", "newText", "oldText", "path"]);

    // Local-server compat: no developer role, no reasoning_effort, no store, max_tokens.
    for (const body of bodies) {
      assert.ok(!body.messages.some((m) => m.role === "developer"));
      assert.equal(body.reasoning_effort, undefined);
      assert.equal(body.store, undefined);
      assert.equal(typeof body.max_tokens, "number");
      assert.equal(body.max_completion_tokens, undefined);
    }

    // After the allowed edit: the edit result (same id) and the approval fact reach the model.
    const after = bodies[3]!;
    const editCall = after.messages.find((m) => m.role === "assistant" && m.tool_calls?.[0]?.function.name === "edit_file")?.tool_calls?.[0];
    assert.equal(editCall?.id, "call_edit_1");
    const editResult = after.messages.find((m) => m.role === "tool" && m.tool_call_id === "call_edit_1");
    assert.ok(editResult, "the edit_file result is in the next request");
    assert.match(wireText(after.messages[after.messages.length - 1]), /allowed the edit_file call call_edit_1/);

    // The stored secret is what the server saw, on every request.
    for (const request of server.requests) assert.equal(request.authorization, `Bearer ${STORED_KEY}`);
    assertOnlyLocalServer();
  });

  it("works with a keyless server: a placeholder key is sent, never an environment key; an empty model id takes the server's first model", async () => {
    restoreEnv = withEnv({ OPENAI_API_KEY: "sk-env-openai-must-not-leak", ANTHROPIC_API_KEY: "sk-ant-env-must-not-leak" });
    server.models = ["qwen2.5-coder:7b", "llama3.1:8b"];
    w = compatibleWorld(server, secretsOf({}), "");
    const session = w.service.newChat();
    server.push((body) => {
      assert.equal(body.model, "qwen2.5-coder:7b");
      return { text: "Hello from a keyless server." };
    });
    await session.prompt("hi");
    const answer = lastAssistant(session.messages);
    assert.equal(answer.stopReason, "stop", answer.errorMessage);
    assert.equal(answer.model, "qwen2.5-coder:7b");

    // First the window probe (server-probe.ts: this server says nothing of its window), then the model list and the request.
    assert.deepEqual(server.requests.map((r) => `${r.method} ${r.path}`).slice(-2), ["GET /v1/models", "POST /v1/chat/completions"]);
    for (const request of server.requests) {
      // The probe sends no key at all when none is stored; the API gets the placeholder.
      if (request.path === "/v1/chat/completions") assert.equal(request.authorization, `Bearer ${KEYLESS_API_KEY}`);
      else assert.ok(request.authorization === undefined || request.authorization === `Bearer ${KEYLESS_API_KEY}`);
      assert.doesNotMatch(JSON.stringify(request.headers), /must-not-leak/);
    }
    assertOnlyLocalServer();
  });

  it("a 401 ends the turn with stopReason error, describeProviderError gives the set-key fix, and the chat can continue", async () => {
    w = compatibleWorld(server, secretsOf({ "openai-compatible": STORED_KEY }));
    const session = w.service.newChat();
    server.failNext(
      401,
      openAIErrorBody("Incorrect API key provided: sk-loc**********9c. You can find your API key in your account.", "invalid_request_error", "invalid_api_key"),
    );
    await session.prompt("hi");
    const failed = lastAssistant(session.messages);
    assert.equal(failed.stopReason, "error");
    assert.match(failed.errorMessage ?? "", /401/);
    assert.doesNotMatch(failed.errorMessage ?? "", new RegExp(STORED_KEY), "the stored key is not in the error");

    const described = describeProviderError(failed.errorMessage ?? "", "openai-compatible");
    assert.match(described.text, /refused the request \(401\)/);
    assert.match(described.fix ?? "", /Pi Chat: Set API Key/);
    assert.doesNotMatch(`${described.text} ${described.fix}`, /sk-loc/);
    assert.equal(server.chatRequests().length, 1, "a 401 is not retried");

    assert.equal(session.canContinue, true);
    server.push(() => ({ text: "Recovered." }));
    await session.continue();
    assert.equal(lastAssistant(session.messages).stopReason, "stop");
    assertOnlyLocalServer();
  });

  it("a 429 is reported as rate limiting, with a wait fix, without hammering the server", async () => {
    w = compatibleWorld(server, secretsOf({}));
    const session = w.service.newChat();
    server.failNext(429, openAIErrorBody("Rate limit reached for requests. Please try again in 20s.", "requests", "rate_limit_exceeded"));
    await session.prompt("hi");
    const failed = lastAssistant(session.messages);
    assert.equal(failed.stopReason, "error");
    assert.match(failed.errorMessage ?? "", /429/);
    const described = describeProviderError(failed.errorMessage ?? "");
    assert.match(described.text, /rate-limiting/);
    assert.match(described.fix ?? "", /Wait/);
    assert.equal(server.chatRequests().length, 1);
    assertOnlyLocalServer();
  });

  it("a server that is not running gives a network error with the base-URL fix", async () => {
    const port = await closedPort();
    w = world(() => resolveModelBinding({ provider: "openai-compatible", model: "local-model", baseUrl: `http://127.0.0.1:${port}/v1` }, secretsOf({})));
    const session = w.service.newChat();
    await session.prompt("hi");
    const failed = lastAssistant(session.messages);
    assert.equal(failed.stopReason, "error");
    const described = describeProviderError(failed.errorMessage ?? "");
    assert.match(described.text, /Could not reach/);
    assert.match(described.fix ?? "", /base URL/);
    assert.ok(guard.urls.every((u) => u.startsWith(`http://127.0.0.1:${port}/`)));
  });

  it("a server that is down: one notice naming the URL, why, and the buttons that fix it; no Continue banner", async () => {
    const port = await closedPort();
    const baseUrl = `http://127.0.0.1:${port}/v1`;
    w = world(() => resolveModelBinding({ provider: "openai-compatible", model: "local-model", baseUrl }, secretsOf({})), {
      describeError: (message, model) => describeProviderError(message, "openai-compatible", model),
    });
    const session = w.service.newChat();
    await session.prompt("hi");
    const notices = session.messages.filter((m) => m.role === "localNotice");
    assert.equal(notices.length, 1, "one card");
    const notice = notices[0]!;
    assert.ok(notice.role === "localNotice");
    assert.match(notice.text, new RegExp(`^Could not reach the OpenAI-compatible server at ${baseUrl.replace(/[.]/g, "\\.")}: `));
    assert.match(notice.text, /connection refused|no answer/);
    assert.equal(notice.fixCommand, "openSettings");
    assert.deepEqual(notice.moreFixCommands, ["selectChatModel", "retry"]);
    assert.ok(notice.detail, "the server's own words go with the notice");
    assert.equal(session.interrupted, false, "the failure is on screen: no Interrupted banner");
  });

  it("a 404 for the model names the model and offers to choose one the server serves", () => {
    const described = describeProviderError("404 model 'qwen9' not found", "openai-compatible", { baseUrl: "http://localhost:11434/v1", id: "qwen9" });
    assert.equal(described.text, "The OpenAI-compatible server at http://localhost:11434/v1 does not serve the model “qwen9” (404).");
    assert.equal(described.fixCommand, "selectChatModel");
    const refused = describeProviderError("401 Unauthorized", "openai-compatible", { baseUrl: "http://localhost:8080/v1" });
    assert.match(refused.text, /server at http:\/\/localhost:8080\/v1 refused the request \(401\)/);
    assert.equal(refused.fixCommand, "setApiKey");
  });
});
