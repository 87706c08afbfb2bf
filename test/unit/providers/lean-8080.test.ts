// The 8080 scenario in a 4,096-token window, through pi-ai's real openai-completions adapter to
// the scripted server: lean mode comes on by itself (the window is under its threshold), the
// request declares the essential tools only, and every request — its messages and tools as sent,
// plus the answer limit it asks for (never the 1 token pi-ai's own clamp left) — stays inside the window. Counted from the bodies the server
// received (characters ÷ 4 of the JSON, which overcounts: the wire's punctuation is in it).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MIN_ANSWER_TOKENS } from "../../../src/core/context/request-fit";
import { forgetServerWindows, resolveModelBinding } from "../../../src/host/providers/provider-bundle";
import { chatWorld, CONFIG, type ChatWorld } from "../../support/chat-world";
import { startOpenAIServer, type ChatCompletionRequest, type OpenAIServer } from "../../support/openai-server";
import { lastAssistant, secretsOf } from "./helpers";

const WINDOW = 4096;

function requestTokens(body: ChatCompletionRequest): number {
  return Math.ceil(JSON.stringify({ messages: body.messages, tools: body.tools ?? [] }).length / 4);
}

describe("the 8080 scenario in a 4,096-token window (lean mode, real adapter, real HTTP)", () => {
  let server: OpenAIServer;
  let w: ChatWorld | undefined;

  beforeEach(async () => {
    forgetServerWindows();
    server = await startOpenAIServer();
  });

  afterEach(async () => {
    await w?.cleanup();
    w = undefined;
    await server.close();
  });

  it("reads, edits after the approval, and answers; every request and its answer limit fit the window", async () => {
    w = chatWorld({
      resolveModel: () =>
        resolveModelBinding({ provider: "openai-compatible", model: "local-model", baseUrl: `${server.url}/v1`, contextWindow: WINDOW }, secretsOf({})),
      leanMode: () => "auto",
    });
    const session = w.service.newChat();
    server.push(
      () => ({ toolCalls: [{ id: "call_read", name: "read_file", arguments: { path: "src/config.ts" } }] }),
      () => ({ text: "The default port is 3000." }),
    );
    await session.prompt("Read src/config.ts and tell me the default port.");
    server.push(
      () => ({ toolCalls: [{ id: "call_edit", name: "edit_file", arguments: { path: "src/config.ts", oldText: "port: 3000,", newText: "port: 8080," } }] }),
      () => ({ text: "Changed the port to 8080." }),
    );
    await session.prompt("Change it to 8080.");
    assert.equal(lastAssistant(session.messages).stopReason, "stop");
    assert.equal(readFileSync(join(w.workspace, "src/config.ts"), "utf8"), CONFIG.replace("3000", "8080"));
    assert.equal(w.approvals.length, 1, "the edit was asked about");

    const bodies = server.chatRequests();
    assert.equal(bodies.length, 4);
    const sizes = bodies.map((body) => ({ tokens: requestTokens(body), limit: body.max_tokens ?? 0 }));
    console.log(`      4,096-token window, lean: ${sizes.map((s) => `${s.tokens} + ${s.limit}`).join(", ")} (request + answer limit, tokens)`);
    for (const [i, s] of sizes.entries()) {
      // pi-ai's own clamp once made this 1 in a 4,096-token window (its fixed 4,096-token margin).
      assert.ok(s.limit >= MIN_ANSWER_TOKENS, `request ${i + 1} leaves the answer ${s.limit} tokens`);
      assert.ok(s.tokens + s.limit <= WINDOW, `request ${i + 1}: ${s.tokens} + ${s.limit} within ${WINDOW}`);
    }
    for (const body of bodies) {
      const names = (body.tools ?? []).map((t) => t.function.name).sort();
      assert.deepEqual(names, ["edit_file", "read_file", "search"], "lean mode: the essential tools (no commands in this world)");
    }
  });

  it("Compact Chat in the same window: the summary request and its answer limit fit, and the answer may be a summary's length", async () => {
    w = chatWorld({
      resolveModel: () =>
        resolveModelBinding({ provider: "openai-compatible", model: "local-model", baseUrl: `${server.url}/v1`, contextWindow: WINDOW }, secretsOf({})),
      leanMode: () => "auto",
    });
    const session = w.service.newChat();
    // Enough conversation that a compaction has something to summarize.
    for (let i = 0; i < 4; i++) {
      server.push(() => ({ text: `Answer ${i}: ${"the port is read from src/config.ts and used by the server. ".repeat(12)}` }));
      await session.prompt(`Question ${i}: ${"what does the configuration say about ports? ".repeat(6)}`);
    }
    server.push(() => ({ text: "## Goal\nKeep the port questions." }));
    const outcome = await session.compact();
    assert.equal(outcome.status, "done");
    const summaryRequest = server.chatRequests().at(-1)!;
    const tokens = requestTokens(summaryRequest);
    const limit = summaryRequest.max_tokens ?? 0;
    console.log(`      4,096-token window, summary request: ${tokens} + ${limit} (request + answer limit, tokens)`);
    // pi-ai's clamp (a fixed 4,096-token margin) left the summary one token in a 4,096-token window.
    assert.ok(limit >= MIN_ANSWER_TOKENS, `the summary may be ${limit} tokens long`);
    assert.ok(tokens + limit <= WINDOW, `summary request: ${tokens} + ${limit} within ${WINDOW}`);
  });

  it("the chat's title in the same window: the title request may answer with a title, not one token", async () => {
    const titles: string[] = [];
    w = chatWorld({
      resolveModel: () =>
        resolveModelBinding({ provider: "openai-compatible", model: "local-model", baseUrl: `${server.url}/v1`, contextWindow: WINDOW }, secretsOf({})),
      leanMode: () => "auto",
      titles: { wanted: () => true, saved: (_chatId, title) => titles.push(title) },
    });
    const session = w.service.newChat();
    server.push(
      () => ({ text: "The default port is 3000." }),
      () => ({ text: "Default port question" }),
    );
    await session.prompt("What is the default port?");
    await w.service.titlesSettled();
    const titleRequest = server.chatRequests().at(-1)!;
    // pi-ai's clamp (a fixed 4,096-token margin) left the title one token in a 4,096-token window.
    assert.ok((titleRequest.max_tokens ?? 0) >= 16, `the title may be ${titleRequest.max_tokens} tokens long`);
    assert.deepEqual(titles, ["Default port question"]);
  });

  it("a server restarted with a larger window is asked again: the message it refused goes out after the restart", async () => {
    // As vLLM says its window (GET /v1/models max_model_len): too small for the tools at first.
    server.maxModelLen = 1024;
    w = chatWorld({
      resolveModel: () => resolveModelBinding({ provider: "openai-compatible", model: "local-model", baseUrl: `${server.url}/v1` }, secretsOf({})),
      leanMode: () => "off",
    });
    const session = w.service.newChat();
    await session.prompt("What is the default port?");
    assert.match(lastAssistant(session.messages).errorMessage ?? "", /did not send this message/);
    assert.equal(server.chatRequests().length, 0, "nothing was sent past the window");
    // The user restarts the server with a larger window, as the card says, and sends again.
    server.maxModelLen = 16_384;
    server.push(() => ({ text: "The default port is 3000." }));
    await session.prompt("What is the default port?");
    assert.equal(lastAssistant(session.messages).stopReason, "stop", lastAssistant(session.messages).errorMessage);
    assert.equal(server.chatRequests().length, 1);
  });

  it("a request the server fails for its size has its window asked again on the next run; a wrong key or a success does not", async () => {
    server.maxModelLen = 16_384;
    w = chatWorld({
      resolveModel: () => resolveModelBinding({ provider: "openai-compatible", model: "local-model", baseUrl: `${server.url}/v1` }, secretsOf({})),
      leanMode: () => "off",
    });
    const asked = () => server.requests.filter((r) => r.method === "GET" && r.path === "/v1/models").length;
    const session = w.service.newChat();
    // A wrong key says nothing of the window: not asked again.
    server.failNext(401, { error: { message: "Incorrect API key provided" } });
    await session.prompt("What is the default port?");
    assert.equal(lastAssistant(session.messages).stopReason, "error");
    const afterWrongKey = asked();
    server.push(() => ({ text: "The default port is 3000." }));
    await session.prompt("What is the default port?");
    assert.equal(asked(), afterWrongKey, "not asked again after a wrong key");
    // As llama-server says it when a request passes its window.
    server.failNext(400, {
      error: { code: 400, message: "the request exceeds the available context size, try increasing it", type: "exceed_context_size_error" },
    });
    await session.prompt("What is the default port?");
    assert.equal(lastAssistant(session.messages).stopReason, "error");
    const afterFailure = asked();
    server.push(() => ({ text: "The default port is 3000." }));
    await session.prompt("What is the default port?");
    assert.equal(asked(), afterFailure + 1, "asked again after the failure");
    server.push(() => ({ text: "Still 3000." }));
    await session.prompt("And now?");
    assert.equal(asked(), afterFailure + 1, "not asked again after a success");
  });
});
