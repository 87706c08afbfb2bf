// Images read_file returns, through whole chats: the request holds the image (the faux model's
// context, and the body the real openai-completions adapter sends to a local server); the saved
// line holds only the hash of a blob beside the chat; a restored chat sends the same bytes; a
// model without image input gets the sentence, never the image.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { ChatService } from "../../../src/core/chat-service";
import { createWorkerImageScaler } from "../../../src/core/images/image-scaler";
import { createNodeWorkspaceFs } from "../../../src/core/tools";
import { createNodeTranscriptStorage, TranscriptStore } from "../../../src/core/transcript";
import { ImageBlobStore } from "../../../src/core/transcript/image-blobs";
import type { ModelBinding } from "../../../src/core/session/types";
import { resolveModelBinding } from "../../../src/host/providers/provider-bundle";
import { sniffImage } from "../../../src/shared/image-sniff";
import { startOpenAIServer } from "../../support/openai-server";
import { makePng } from "../../support/png";
import { createScriptedModel, reply } from "../../support/scripted-model";
import { tempDir } from "../../support/temp";
import { guardNetwork, secretsOf } from "../providers/helpers";

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const scaler = createWorkerImageScaler(resolve(__dirname, "../../../image-scale.js"));

function toolResultImages(request: Message[]): { data: string; mimeType: string }[] {
  return request.flatMap((m) =>
    m.role === "toolResult" ? m.content.filter((c) => c.type === "image").map((c) => ({ data: c.data, mimeType: c.mimeType })) : [],
  );
}

describe("read_file images in a chat", function () {
  this.timeout(60_000);
  const cleanups: (() => void | Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  function world(resolveModel: () => Promise<ModelBinding>) {
    const storage = tempDir("rimg-storage");
    const ws = tempDir("rimg-ws");
    const services: ChatService[] = [];
    const open = () => {
      const service = new ChatService({
        store: new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storage.path), { indexFlushDelayMs: 0 }),
        images: new ImageBlobStore(storage.path),
        imageScaler: scaler,
        fs: createNodeWorkspaceFs(ws.path),
        workspaceRoot: ws.path,
        resolveModel,
        approver: async () => ({ decision: "allow" }),
        approvalMode: () => "ask",
      });
      services.push(service);
      return service;
    };
    cleanups.push(async () => {
      for (const s of services) await s.dispose();
      storage.cleanup();
      ws.cleanup();
    });
    return { storage: storage.path, ws: ws.path, open };
  }

  it("the image reaches the request, is saved once by hash beside the chat, and a restored chat sends the same bytes", async () => {
    const model = createScriptedModel({ model: { id: "vision", input: ["text", "image"] } });
    const w = world(async () => model.binding);
    const png = makePng(320, 200, 4);
    writeFileSync(join(w.ws, "shot.png"), png);
    const session = w.open().newChat();
    model.push(reply.tool("read_file", { path: "shot.png" }), reply.text("A gradient."));
    await session.prompt("What is in shot.png?");
    assert.deepEqual(toolResultImages(model.requests[1]!), [{ data: b64(png), mimeType: "image/png" }]);

    const sha = createHash("sha256").update(png).digest("hex");
    const blob = join(w.storage, "images", session.id, `${sha}.png`);
    assert.deepEqual(readFileSync(blob), png, "the image is stored by the hash of its bytes");
    const transcript = readFileSync(join(w.storage, "chats", `${session.id}.jsonl`), "utf8");
    const line = transcript.split("\n").find((l) => l.includes('"role":"toolResult"')) ?? "";
    assert.ok(line.includes(sha), "the tool result's line refers to the blob");
    assert.ok(line.length < 2000 && !transcript.includes(b64(png).slice(0, 200)), `no image bytes in the transcript (line of ${line.length} bytes)`);

    const reopened = await w.open().open(session.id);
    assert.ok(reopened.ok);
    model.push(reply.text("Still a gradient."));
    await reopened.session.prompt("And again?");
    assert.deepEqual(toolResultImages(model.requests[2]!), [{ data: b64(png), mimeType: "image/png" }]);
  });

  it("a model without image input gets a sentence saying it cannot see images, and no image", async () => {
    const model = createScriptedModel({ model: { id: "text-only", input: ["text"] } });
    const w = world(async () => model.binding);
    writeFileSync(join(w.ws, "shot.png"), makePng(50, 40));
    const session = w.open().newChat();
    model.push(reply.tool("read_file", { path: "shot.png" }), reply.text("I cannot see it."));
    await session.prompt("Look at shot.png");
    const request = model.requests[1]!;
    assert.deepEqual(toolResultImages(request), []);
    const result = request.find((m) => m.role === "toolResult");
    assert.match(JSON.stringify(result), /shot\.png is a PNG image \(50×40 px, .+\)\. The current model cannot see images\./);
    assert.equal(existsSync(join(w.storage, "images", session.id)), false, "nothing to store");
  });

  it("through the openai-completions adapter: the body sent to the server holds the scaled image as an image part", async () => {
    const server = await startOpenAIServer();
    const guard = guardNetwork();
    cleanups.push(async () => {
      guard.restore();
      await server.close();
    });
    const w = world(() =>
      resolveModelBinding({ provider: "openai-compatible", model: "local-vision", baseUrl: `${server.url}/v1`, imageInput: true }, secretsOf({})),
    );
    writeFileSync(join(w.ws, "wide.png"), makePng(4000, 1000, 6));
    server.push(
      () => ({ toolCalls: [{ id: "call_1", name: "read_file", arguments: { path: "wide.png" } }] }),
      () => ({ text: "A wide gradient." }),
    );
    await w.open().newChat().prompt("Describe wide.png");
    const body = server.chatRequests()[1]!;
    const tool = body.messages.find((m) => m.role === "tool");
    assert.match(String(tool?.content), /^\[Image: wide\.png, PNG, 4000×1000 px, .+; shown scaled to 2000×500 px \(PNG, .+\)\]$/);
    const parts = body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    const url = parts.find((p) => p.type === "image_url")?.image_url?.url ?? "";
    assert.match(url, /^data:image\/png;base64,/);
    assert.deepEqual(sniffImage(Buffer.from(url.slice(url.indexOf(",") + 1), "base64")), { mimeType: "image/png", width: 2000, height: 500 });
    assert.deepEqual(
      guard.urls.filter((u) => !u.startsWith(server.url)),
      [],
    );
  });
});
