// The window of a real llama.cpp llama-server (built by scripts/setup-llama.sh, the toy stories260K
// model) read from the server itself, through the real provider bundle and pi-ai's adapter: the
// binding gets the server's `-c`, the served model's id and the server's tokens per estimated
// token; no request's prompt plus its answer limit passes the window (the server's own count);
// and a window that cannot hold the fixed part is refused before sending, saying `-c`.
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { ChatService } from "../../../src/core/chat-service";
import type { RequestCapture } from "../../../src/core/context/chat-context";
import { createNodeWorkspaceFs } from "../../../src/core/tools";
import { createNodeTranscriptStorage, TranscriptStore } from "../../../src/core/transcript";
import { ImageBlobStore } from "../../../src/core/transcript/image-blobs";
import { forgetServerWindows, resolveModelBinding } from "../../../src/host/providers/provider-bundle";
import { type LlamaServer, startLlamaServer } from "../../support/llama-server";
import { tempDir } from "../../support/temp";
import { guardNetwork, secretsOf } from "./helpers";

function windowTest(window: number, systemPrompt: string) {
  let llama: LlamaServer;
  let guard: ReturnType<typeof guardNetwork>;
  let storage: ReturnType<typeof tempDir>;
  let ws: ReturnType<typeof tempDir>;
  let service: ChatService | undefined;
  const requests: RequestCapture[] = [];

  before(async () => {
    llama = await startLlamaServer({ contextSize: window });
  });
  after(async () => {
    await llama?.stop();
  });
  beforeEach(() => {
    forgetServerWindows();
    guard = guardNetwork();
    storage = tempDir("llama-window-storage");
    ws = tempDir("llama-window-ws");
    requests.length = 0;
  });
  afterEach(async () => {
    await service?.dispose();
    guard.restore();
    storage.cleanup();
    ws.cleanup();
  });

  // A short answer limit: the toy model writes until it is stopped, and a long story only costs time.
  const settings = () => ({ provider: "openai-compatible" as const, model: "", baseUrl: `${llama.url}/v1`, maxTokens: 24 });
  const open = () => {
    service = new ChatService({
      store: new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storage.path), { indexFlushDelayMs: 0 }),
      images: new ImageBlobStore(storage.path),
      fs: createNodeWorkspaceFs(ws.path),
      workspaceRoot: ws.path,
      systemPrompt,
      resolveModel: () => resolveModelBinding(settings(), secretsOf({})),
      approver: async () => ({ decision: "allow" }),
      approvalMode: () => "ask",
      onRequest: (capture) => {
        if (!requests.includes(capture)) requests.push(capture);
      },
    });
    return service;
  };
  return { llama: () => llama, requests, open, settings };
}

/** The one error card of a chat whose fixed part cannot fit: nothing sent, `-c`, lean mode and the README named, no compaction. */
function assertFixedCostCard(world: ReturnType<typeof windowTest>, session: ReturnType<typeof open>, window: string) {
  assert.equal(world.requests.length, 0, "no request reached the server");
  const notices = session.messages.filter((m) => m.role === "localNotice");
  assert.equal(notices.length, 1, `one card: ${JSON.stringify(notices)}`);
  const card = notices[0]!;
  assert.ok(card.role === "localNotice");
  assert.equal(card.level, "error");
  assert.match(card.text, /did not send/);
  assert.match(card.text, new RegExp(`holds only ${window} tokens`));
  assert.match(card.fix ?? "", /-c 16384/);
  assert.match(card.fix ?? "", /lean mode \(setting piChat\.leanMode\)/);
  assert.match(card.fix ?? "", /#local-models/);
  assert.deepEqual([card.fixCommand, ...(card.moreFixCommands ?? [])], ["openSettings", "retry"]);
  assert.doesNotMatch(JSON.stringify(session.messages), /could not be summarized/);
  assert.equal(
    session.messages.some((m) => m.role === "compactionSummary"),
    false,
  );
}

describe("a real llama-server's window, read from the server", function () {
  this.timeout(300_000);

  describe("started with -c 4096", () => {
    const world = windowTest(4096, "You are a storyteller.");

    it("the binding has the server's window, the served model's id and the server's token scale", async () => {
      const binding = await resolveModelBinding(world.settings(), secretsOf({}));
      assert.equal(binding.model.contextWindow, 4096, "the window is the server's -c, not a guess");
      assert.match(binding.model.id, /stories260K\.gguf$/, "the served model, not “the server's first model”");
      assert.ok(binding.model.maxTokens <= 4096, `the answer limit fits the window (${binding.model.maxTokens})`);
      assert.equal(binding.window?.known, true);
      assert.equal(binding.window?.server, "llama.cpp");
      assert.ok((binding.window?.tokenScale ?? 1) > 1, `the toy tokenizer counts more than our estimate (scale ${binding.window?.tokenScale})`);
    });

    it("Pi Chat's tools alone fill the toy model's 4,096 tokens: nothing is sent past the window, the card says so, the meter shows 4,096", async () => {
      const session = open(world);
      await session.prompt("Tell me a story about a cat.");
      assertFixedCostCard(world, session, "4,096");
      assert.equal(session.viewState.meter?.window, 4096);
      assert.notEqual(session.viewState.meter?.windowUnknown, true);
    });
  });

  describe("started with -c 8192", () => {
    const world = windowTest(8192, "You are a storyteller.");

    it("no request passes the window: the server's count of each prompt plus its answer limit stays within 8,192", async () => {
      const session = open(world);
      await session.prompt("Tell me a story about a cat.");
      await session.prompt("And then?");
      assert.ok(world.requests.length >= 2, `requests were sent (${world.requests.length}); log: ${world.llama().log().slice(-600)}`);
      // The server's own count of each prompt (usage.prompt_tokens), beside the answer limit the request asked for.
      const answers = session.messages.filter((m) => m.role === "assistant");
      assert.equal(answers.length, world.requests.length, "one answer per request");
      world.requests.forEach((request, index) => {
        const answer = answers[index]!;
        const prompt = answer.role === "assistant" ? answer.usage.input + answer.usage.cacheRead : 0;
        const limit = request.maxOutputTokens ?? 0;
        console.log(`      -c 8192: prompt ${prompt} tokens (server's count), max_tokens ${limit}`);
        assert.ok(prompt > 0 && limit > 0 && prompt + limit <= 8192, `prompt ${prompt} + max_tokens ${limit} within 8,192`);
      });
      assert.equal(session.viewState.meter?.window, 8192);
      const last = session.messages.at(-1);
      assert.equal(last?.role, "assistant");
      assert.notEqual(last?.role === "assistant" ? last.stopReason : undefined, "error");
    });
  });

  describe("started with -c 2048", () => {
    const world = windowTest(2048, "You are a storyteller.");

    it("the fixed part cannot fit: nothing is sent, one error card names -c, lean mode and the README, and no compaction dead end", async () => {
      const session = open(world);
      await session.prompt("Tell me a story about a cat.");
      assertFixedCostCard(world, session, "2,048");
    });
  });
});

function open(world: ReturnType<typeof windowTest>) {
  return world.open().newChat();
}
