// Images in the core: type from the bytes, the attach gate, blobs beside the chat, and a real
// chat over the scripted model: the transcript line holds a hash, every request (also after a
// restart) holds exactly the attached bytes, deleting the chat deletes its images.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Message } from "@earendil-works/pi-ai";
import { acceptAttachedImage } from "../../../src/core/images/accept";
import { ChatService } from "../../../src/core/chat-service";
import { ImageBlobStore } from "../../../src/core/transcript/image-blobs";
import { createNodeTranscriptStorage, TranscriptStore } from "../../../src/core/transcript";
import { createNodeWorkspaceFs } from "../../../src/core/tools";
import { sniffImage } from "../../../src/shared/image-sniff";
import { stateFromTranscript, chatItems } from "../../../src/shared/reducer";
import { hostileImages, makeNoisePng, makePng, SVG_TEXT } from "../../support/png";
import { createScriptedModel, reply } from "../../support/scripted-model";
import { tempDir } from "../../support/temp";

const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64");

function imagesOf(request: Message[]): { mimeType: string; data: string }[] {
  return request.flatMap((m) =>
    m.role === "user" && Array.isArray(m.content) ? m.content.filter((c) => c.type === "image").map((c) => ({ mimeType: c.mimeType, data: c.data })) : [],
  );
}

describe("images: type from bytes", () => {
  it("knows PNG, JPEG, GIF and WebP and their pixel size; SVG, text and truncated files are not images", () => {
    assert.deepEqual(sniffImage(makePng(640, 480)), { mimeType: "image/png", width: 640, height: 480 });
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x4a, 0x46, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x2c, 0x02, 0x58, 0x03, 0x01, 0x22, 0x00]);
    assert.deepEqual(sniffImage(jpeg), { mimeType: "image/jpeg", width: 600, height: 300 });
    const gif = Buffer.concat([Buffer.from("GIF89a"), Buffer.from([0x20, 0x03, 0x58, 0x02, 0, 0, 0])]);
    assert.deepEqual(sniffImage(gif), { mimeType: "image/gif", width: 800, height: 600 });
    const webp = Buffer.alloc(30);
    webp.write("RIFF", 0);
    webp.write("WEBPVP8X", 8);
    webp.writeUIntLE(1919, 24, 3);
    webp.writeUIntLE(1079, 27, 3);
    assert.deepEqual(sniffImage(webp), { mimeType: "image/webp", width: 1920, height: 1080 });
    assert.equal(sniffImage(Buffer.from(SVG_TEXT)), undefined);
    assert.equal(sniffImage(Buffer.from("just text named .png\n")), undefined);
    assert.equal(sniffImage(makePng(10, 10).subarray(0, 12)), undefined);
  });

  it("the attach gate takes the type from the bytes and refuses SVG and text with the reason", () => {
    const ok = acceptAttachedImage(b64(makePng(3, 3)), "The attached image");
    assert.ok(ok.ok && ok.info.mimeType === "image/png");
    const svg = acceptAttachedImage(b64(SVG_TEXT), "The attached image");
    assert.ok(!svg.ok && /not a PNG, JPEG, GIF or WebP image .*SVG drawing, which is text/.test(svg.reason));
    const text = acceptAttachedImage(b64("hello, I am a .png"), "Attached image 2");
    assert.ok(!text.ok && /^Attached image 2 is not a PNG/.test(text.reason));
    const garbage = acceptAttachedImage("not base64!!", "The attached image");
    assert.ok(!garbage.ok && /not valid base64/.test(garbage.reason));
  });

  it("the gate refuses, with the reason, every kind of image a model cannot take: no size, too many pixels, cut short, over 2,000 px", () => {
    const kinds = [...hostileImages(), { kind: "PNG of 2001×10 (the view scales to 2,000)", bytes: makePng(2001, 10) }];
    const accepted = kinds.filter(({ bytes }) => acceptAttachedImage(b64(bytes), "The attached image").ok).map((k) => k.kind);
    assert.deepEqual(accepted, [], `${accepted.length} of ${kinds.length} kinds accepted`);
    const reasons = Object.fromEntries(
      kinds.map(({ kind, bytes }) => [kind, (acceptAttachedImage(b64(bytes), "The attached image") as { reason: string }).reason]),
    );
    assert.match(
      reasons["PNG header of 100000×100000 with no data"]!,
      /^The attached image cannot be sent: it is 100,000×100,000 px, over the 50 million pixels/,
    );
    assert.match(reasons["PNG cut short"]!, /cannot be sent: the file is cut short/);
    assert.match(reasons["JPEG of 0×0"]!, /cannot be sent: its header gives no size in pixels \(0×0\)/);
    assert.match(reasons["PNG of 2001×10 (the view scales to 2,000)"]!, /is 2001×10 px, over the 2,000 px/);
    // Whole images of every size up to the caps still pass.
    for (const bytes of [makePng(1, 1), makePng(2000, 3), makeNoisePng(300, 200, 2)]) assert.ok(acceptAttachedImage(b64(bytes), "x").ok);
  });
});

describe("images: stored beside the chat", () => {
  const cleanups: (() => void | Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  function world() {
    const storage = tempDir("img-storage");
    const ws = tempDir("img-ws");
    const model = createScriptedModel();
    const services: ChatService[] = [];
    const open = () => {
      const service = new ChatService({
        store: new TranscriptStore(createNodeTranscriptStorage(storage.path), { indexFlushDelayMs: 0 }),
        images: new ImageBlobStore(storage.path),
        fs: createNodeWorkspaceFs(ws.path),
        workspaceRoot: ws.path,
        resolveModel: async () => model.binding,
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
    return { storage: storage.path, model, open };
  }

  it("writes each image once by hash, keeps the transcript small, and sends exactly the attached bytes, also after a restart", async () => {
    const w = world();
    const service = w.open();
    const session = service.newChat();
    const png = makePng(800, 600, 1);
    const blob = await service.storeImage(session.id, png, "image/png");
    assert.equal(await service.storeImage(session.id, png, "image/png"), blob, "same bytes, same blob");
    const file = join(w.storage, "images", session.id, `${blob}.png`);
    const written = statSync(file).mtimeMs;
    w.model.push(reply.text("A gradient."));
    await session.prompt("What is this?", [], [{ type: "image", data: b64(png), mimeType: "image/png", blob }]);
    assert.deepEqual(imagesOf(w.model.requests[0]!), [{ mimeType: "image/png", data: b64(png) }]);
    assert.deepEqual(readFileSync(file), png);
    assert.equal(statSync(file).mtimeMs, written, "not written again when saved");
    assert.deepEqual(readdirSync(join(w.storage, "images", session.id)), [`${blob}.png`]);

    // The transcript line refers to the image; its bytes are not in it.
    const transcript = readFileSync(join(w.storage, "chats", `${session.id}.jsonl`), "utf8");
    assert.ok(!transcript.includes(b64(png).slice(0, 200)), "no image bytes in the transcript");
    assert.ok(transcript.includes(blob));
    const userLine = transcript.split("\n").find((l) => l.includes('"role":"user"')) ?? "";
    assert.ok(userLine.length > 0 && userLine.length < 1000, `the prompt's line is ${userLine.length} bytes (the image is ${b64(png).length} in base64)`);

    // "VS Code restarted": a new service over the same folder restores the thumbnail reference and re-sends the same bytes.
    const again = w.open();
    const opened = await again.open(session.id);
    assert.ok(opened.ok);
    const user = chatItems(opened.session.viewState).find((i) => i.kind === "user");
    assert.deepEqual(user && user.kind === "user" ? user.images : undefined, [{ blob, mimeType: "image/png" }]);
    w.model.push(reply.text("Still a gradient."));
    await opened.session.prompt("And now?");
    assert.deepEqual(imagesOf(w.model.requests[1]!), [{ mimeType: "image/png", data: b64(png) }]);
    // The restored messages still hold only the reference (nothing was loaded into the transcript).
    assert.ok(!JSON.stringify(opened.session.messages).includes(b64(png).slice(0, 200)));

    await again.deleteChat(session.id);
    assert.equal(existsSync(join(w.storage, "images", session.id)), true, "kept while the chat is in the trash (Undo brings it back whole)");
    await again.emptyTrash(0, Date.now() + 1);
    assert.equal(existsSync(join(w.storage, "images", session.id)), false, "emptying the trash deletes its images");
  });

  it("an image whose file is gone is named in the request, never sent empty", async () => {
    const w = world();
    const service = w.open();
    const session = service.newChat();
    const png = makePng(4, 4, 2);
    const blob = await service.storeImage(session.id, png, "image/png");
    w.model.push(reply.text("ok"));
    await session.prompt("see", [], [{ type: "image", data: b64(png), mimeType: "image/png", blob }]);
    await new ImageBlobStore(w.storage).deleteChat(session.id);
    const reopened = await w.open().open(session.id);
    assert.ok(reopened.ok);
    w.model.push(reply.text("ok"));
    await reopened.session.prompt("again");
    const request = w.model.requests[1]!;
    assert.deepEqual(imagesOf(request), []);
    assert.match(JSON.stringify(request), /An image was attached here, but its file is missing/);
  });

  it("the view state of a restored chat carries references only", () => {
    const state = stateFromTranscript([
      {
        role: "user",
        content: [{ type: "text", text: "hi" }, { type: "image", data: "", mimeType: "image/png", blob: "c".repeat(64) } as never],
        timestamp: 1,
      },
    ]);
    const [item] = chatItems(state);
    assert.deepEqual(item && item.kind === "user" ? { text: item.text, images: item.images } : undefined, {
      text: "hi",
      images: [{ blob: "c".repeat(64), mimeType: "image/png" }],
    });
  });
});
