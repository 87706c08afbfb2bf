// Against a real llama.cpp llama-server (built by scripts/setup-llama.sh, the toy stories260K model),
// through pi-ai's real openai-completions adapter and the chat session: an answer the server cuts at
// the request's token limit ends as a turn to continue (not a finished answer), Continue tells the
// model why and is answered, and a new prompt still works. The server and its children are stopped.
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { ChatService } from "../../../src/core/chat-service";
import { ANSWER_CONTINUED_FACT } from "../../../src/core/context/app-message-facts";
import { createNodeWorkspaceFs } from "../../../src/core/tools";
import { createNodeTranscriptStorage, TranscriptStore } from "../../../src/core/transcript";
import { ImageBlobStore } from "../../../src/core/transcript/image-blobs";
import { resolveModelBinding } from "../../../src/host/providers/provider-bundle";
import { type LlamaServer, startLlamaServer } from "../../support/llama-server";
import { tempDir } from "../../support/temp";
import { guardNetwork, secretsOf } from "./helpers";

/** The server's window: Pi Chat's first request is ~4,000 of the toy model's tokens (its tools). */
const WINDOW = 8192;

/** Small enough that a story is always cut: the server ends the answer with finish_reason "length". */
const MAX_TOKENS = 12;

function stopReasonOf(message: AgentMessage | undefined): string | undefined {
  return message?.role === "assistant" ? message.stopReason : undefined;
}

describe("a real llama-server (llama.cpp) through the openai-completions adapter", function () {
  this.timeout(120_000);
  let llama: LlamaServer;
  let guard: ReturnType<typeof guardNetwork>;
  let storage: ReturnType<typeof tempDir>;
  let ws: ReturnType<typeof tempDir>;
  let service: ChatService | undefined;
  const requests: { messages: readonly { role: string }[] }[] = [];

  before(async () => {
    llama = await startLlamaServer({ contextSize: WINDOW });
  });
  after(async () => {
    await llama?.stop();
  });
  beforeEach(() => {
    guard = guardNetwork();
    storage = tempDir("llama-storage");
    ws = tempDir("llama-ws");
    requests.length = 0;
  });
  afterEach(async () => {
    await service?.dispose();
    guard.restore();
    storage.cleanup();
    ws.cleanup();
  });

  const open = () => {
    service = new ChatService({
      store: new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storage.path), { indexFlushDelayMs: 0 }),
      images: new ImageBlobStore(storage.path),
      fs: createNodeWorkspaceFs(ws.path),
      workspaceRoot: ws.path,
      // A short system prompt: the toy model's tokenizer (512 pieces) spends many tokens on a long one.
      systemPrompt: "You are a storyteller.",
      resolveModel: () =>
        resolveModelBinding(
          { provider: "openai-compatible", model: "stories260K", baseUrl: `${llama.url}/v1`, contextWindow: WINDOW, maxTokens: MAX_TOKENS },
          secretsOf({}),
        ),
      approver: async () => ({ decision: "allow" }),
      approvalMode: () => "ask",
      onRequest: (capture) => void requests.push({ messages: capture.messages }),
    });
    return service;
  };

  it('finish_reason "length" from the server: the turn can be continued, Continue tells the model and is answered, the chat goes on', async () => {
    const session = open().newChat();
    await session.prompt("Tell me a story about a cat.");
    const cut = session.messages.at(-1);
    assert.equal(stopReasonOf(cut), "length", `the server cut the answer at ${MAX_TOKENS} tokens (log tail: ${llama.log().slice(-600)})`);
    assert.equal(session.canContinue, true, "a cut answer can be continued");
    assert.equal(session.interrupted, false, "its card offers Continue, not the interrupted-turn bar");

    await session.continue();
    const continued = session.messages.findIndex((m) => m.role === "answerContinued");
    assert.ok(continued > 0, "the request to continue is in the transcript");
    assert.equal(session.messages[continued - 1], cut, "right after the cut answer");
    const sent = requests.at(-1)?.messages ?? [];
    const last = sent.at(-1) as { role: string; content?: unknown } | undefined;
    assert.equal(last?.role, "user");
    assert.match(JSON.stringify(last?.content), new RegExp(ANSWER_CONTINUED_FACT.slice(1, 40)), "the model is told its answer was cut");
    assert.equal(session.messages.at(-1)?.role, "assistant", "the server answered the continue");
    assert.notEqual(stopReasonOf(session.messages.at(-1)), "error");

    await session.prompt("And then?");
    assert.equal(session.messages.at(-1)?.role, "assistant");
    assert.notEqual(stopReasonOf(session.messages.at(-1)), "error", "a new prompt is answered");
  });
});
