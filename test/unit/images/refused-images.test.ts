// A provider that refuses an image must not poison the chat (issue 23 part 4): through the real
// openai-completions adapter to a local server that answers 400 to a request holding an image the
// test marks as refused. The user is told once; later requests carry a short text in place of each
// image sent before the refusal; an image attached afterwards is sent; the transcript keeps every
// image (by hash beside the chat), and a reopened chat still leaves the refused ones out.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { ChatService } from "../../../src/core/chat-service";
import { IMAGE_REFUSAL_NOTICE, REFUSED_IMAGE_TEXT } from "../../../src/core/context/refused-images";
import { createNodeWorkspaceFs } from "../../../src/core/tools";
import { createNodeTranscriptStorage, TranscriptStore } from "../../../src/core/transcript";
import { ImageBlobStore } from "../../../src/core/transcript/image-blobs";
import { resolveModelBinding } from "../../../src/host/providers/provider-bundle";
import type { StoredImageContent } from "../../../src/shared/images";
import { openAIErrorBody, startOpenAIServer, type ChatCompletionRequest, type OpenAIServer } from "../../support/openai-server";
import { makePng } from "../../support/png";
import { tempDir } from "../../support/temp";
import { guardNetwork, secretsOf, wireText } from "../providers/helpers";

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

/** The base64 of every image part a request body holds, in order. */
function sentImages(body: ChatCompletionRequest): string[] {
  return body.messages
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((p) => p.type === "image_url")
    .map((p) => (p.image_url?.url ?? "").replace(/^data:[^,]*,/, ""));
}

/** How many times the request says an image was left out. */
const placeholders = (body: ChatCompletionRequest) => body.messages.map((m) => wireText(m).split(REFUSED_IMAGE_TEXT).length - 1).reduce((a, b) => a + b, 0);

describe("an image the provider refuses does not poison the chat (openai-completions over HTTP)", function () {
  this.timeout(60_000);
  let server: OpenAIServer;
  let guard: ReturnType<typeof guardNetwork>;
  let storage: ReturnType<typeof tempDir>;
  let ws: ReturnType<typeof tempDir>;
  const services: ChatService[] = [];
  beforeEach(async () => {
    server = await startOpenAIServer();
    guard = guardNetwork();
    storage = tempDir("refused-storage");
    ws = tempDir("refused-ws");
  });
  afterEach(async () => {
    for (const s of services.splice(0)) await s.dispose();
    guard.restore();
    await server.close();
    storage.cleanup();
    ws.cleanup();
  });

  const open = () => {
    const service = new ChatService({
      store: new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storage.path), { indexFlushDelayMs: 0 }),
      images: new ImageBlobStore(storage.path),
      fs: createNodeWorkspaceFs(ws.path),
      workspaceRoot: ws.path,
      resolveModel: () =>
        resolveModelBinding({ provider: "openai-compatible", model: "local-vision", baseUrl: `${server.url}/v1`, imageInput: true }, secretsOf({})),
      approver: async () => ({ decision: "allow" }),
      approvalMode: () => "ask",
    });
    services.push(service);
    return service;
  };
  const image = (bytes: Buffer): StoredImageContent => ({ type: "image", data: b64(bytes), mimeType: "image/png" });
  /** The server refuses a request holding this image, as a provider does ("Invalid image"). */
  const refusing = (refused: string) => (body: ChatCompletionRequest) =>
    sentImages(body).includes(refused)
      ? { status: 400, body: openAIErrorBody("Invalid image: the image data could not be decoded.", "invalid_request_error", "invalid_image") }
      : { text: "Answered." };
  const notices = (messages: readonly AgentMessage[]) => messages.filter((m) => m.role === "localNotice" && m.text === IMAGE_REFUSAL_NOTICE).length;

  it("told once; the next requests carry a note in place of each refused image; a later image is sent; the transcript keeps them all", async () => {
    const first = makePng(16, 16, 1);
    const second = makePng(16, 16, 2);
    const session = open().newChat();

    // 1. The provider refuses the image: the request fails, and the user is told what changes.
    server.push(refusing(b64(first)));
    await session.prompt("What is in this picture?", [], [image(first)]);
    assert.deepEqual(sentImages(server.chatRequests()[0]!), [b64(first)]);
    assert.equal(session.messages.at(-3)?.role, "assistant");
    assert.equal(notices(session.messages), 1, "told once");

    // 2. The chat goes on: the image is a note now, and the request is answered.
    server.push(refusing(b64(first)));
    await session.prompt("Go on without it.");
    const afterRefusal = server.chatRequests()[1]!;
    assert.deepEqual(sentImages(afterRefusal), []);
    assert.equal(placeholders(afterRefusal), 1);
    assert.equal(session.messages.at(-1)?.role, "assistant");
    assert.equal((session.messages.at(-1) as { stopReason?: string }).stopReason, "stop");

    // 3. An image attached after the refusal is sent; refused too, it is left out from then on,
    //    and the user is not told again.
    server.push(refusing(b64(second)));
    await session.prompt("And this one?", [], [image(second)]);
    const third = server.chatRequests()[2]!;
    assert.deepEqual(sentImages(third), [b64(second)], "a new image is sent");
    assert.equal(placeholders(third), 1);
    assert.equal(notices(session.messages), 1, "not told again");
    server.push(refusing(b64(second)));
    await session.prompt("Go on.");
    const fourth = server.chatRequests()[3]!;
    assert.deepEqual(sentImages(fourth), []);
    assert.equal(placeholders(fourth), 2);

    // 4. The transcript keeps both images (their blobs, by hash), and a reopened chat still leaves them out.
    const transcript = readFileSync(join(storage.path, "chats", `${session.id}.jsonl`), "utf8");
    const imageLines = transcript.split("\n").filter((l) => l.includes('"role":"user"') && l.includes('"type":"image"'));
    assert.equal(imageLines.length, 2, "both images are still in the transcript");
    assert.ok(!transcript.includes(REFUSED_IMAGE_TEXT), "the note is never saved");
    const reopened = await open().open(session.id);
    assert.ok(reopened.ok);
    server.push(refusing(b64(second)));
    await reopened.session.prompt("Still there?");
    const fifth = server.chatRequests()[4]!;
    assert.deepEqual(sentImages(fifth), []);
    assert.equal(placeholders(fifth), 2);
    assert.equal(server.failures.length, 0);
    assert.deepEqual(
      guard.urls.filter((u) => !u.startsWith(server.url)),
      [],
    );
  });

  it("the user takes the refused image out of the sent message (Edit): the new branch sends neither the image nor a note", async () => {
    const kept = makePng(16, 16, 4);
    const refused = makePng(16, 16, 5);
    const session = open().newChat();
    server.push(refusing(b64(refused)));
    await session.prompt("Compare these", [], [image(kept), image(refused)]);
    assert.equal(notices(session.messages), 1);
    const promptAt = session.messages.findIndex((m) => m.role === "user");
    server.push(refusing(b64(refused)));
    await session.editPrompt(promptAt, "Compare these", [1]);
    const body = server.chatRequests()[1]!;
    // The refusal is on the old branch: the new one sends the image it kept, and no note.
    assert.deepEqual(sentImages(body), [b64(kept)]);
    assert.equal(placeholders(body), 0);
    const prompt = session.messages[promptAt]!;
    assert.equal(prompt.role === "user" && Array.isArray(prompt.content) ? prompt.content.filter((c) => c.type === "image").length : -1, 1);
    assert.equal((session.messages.at(-1) as { stopReason?: string }).stopReason, "stop");
    // The old branch, with both images, stays in the chat's file.
    const transcript = readFileSync(join(storage.path, "chats", `${session.id}.jsonl`), "utf8");
    assert.equal(transcript.split("\n").filter((l) => l.includes('"role":"user"') && l.split('"type":"image"').length === 3).length, 1);
  });

  it("a provider error that does not name an image leaves the images in the next request", async () => {
    const picture = makePng(16, 16, 3);
    const session = open().newChat();
    server.push(() => ({
      status: 400,
      body: openAIErrorBody("This model's maximum context length is 8192 tokens.", "invalid_request_error", "context_length_exceeded"),
    }));
    await session.prompt("Look", [], [image(picture)]);
    server.push(() => ({ text: "Seen." }));
    await session.prompt("Again");
    assert.deepEqual(sentImages(server.chatRequests()[1]!), [b64(picture)]);
    assert.equal(notices(session.messages), 0);
  });
});
