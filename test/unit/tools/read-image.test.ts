// read_file on images, with real PNG files in a temp workspace and the real scaler (photon in a
// worker thread, the built out/image-scale.js): the image itself plus one line of text; large
// images scaled to 2,000 px; over the byte cap refused with the reason; a model without image
// input told in text; SVG and a text file named .png read as text.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { createNodeWorkspaceFs, createReadFileTool, type ReadFileToolOptions } from "../../../src/core/tools";
import { createWorkerImageScaler } from "../../../src/core/images/image-scaler";
import { imageProblem, sniffImage } from "../../../src/shared/image-sniff";
import { hostileImages, makeNoisePng, makePng, pngClaiming, SVG_TEXT } from "../../support/png";
import { makeGif } from "../../support/gif";
import { makeSandbox, rejection, textOf, type Sandbox } from "./helpers";

// This file is bundled to out/test/unit/tools/; the scaler's worker is the one the extension ships.
export const SCALER_FILE = resolve(__dirname, "../../../image-scale.js");

function imagesOf(content: readonly { type: string }[]): { data: string; mimeType: string }[] {
  return content.filter((c): c is { type: "image"; data: string; mimeType: string } => c.type === "image");
}

describe("read_file on images", function () {
  this.timeout(60_000);
  let s: Sandbox;
  beforeEach(() => {
    s = makeSandbox();
  });
  afterEach(() => s.cleanup());

  const tool = (images?: ReadFileToolOptions["images"]) => createReadFileTool(createNodeWorkspaceFs(s.ws), { root: s.ws, ...(images ? { images } : {}) });
  const scale = createWorkerImageScaler(SCALER_FILE);

  it("returns a PNG as image content with its exact bytes and a line giving type and pixel size", async () => {
    const png = makePng(640, 480, 3);
    s.write("docs/shot.png", png);
    const result = await tool({ acceptsImages: () => true }).execute("c1", { path: "docs/shot.png" });
    assert.deepEqual(imagesOf(result.content), [{ type: "image", data: png.toString("base64"), mimeType: "image/png" }]);
    assert.match(textOf(result), /^\[Image: docs\/shot\.png, PNG, 640×480 px, [\d.]+ (B|KB)\]$/);
    assert.equal(result.details.image?.sent?.scaled, false);
    assert.deepEqual({ w: result.details.image?.width, h: result.details.image?.height, path: result.details.path }, { w: 640, h: 480, path: "docs/shot.png" });
  });

  it("takes the type from the bytes: a PNG named .jpg is a PNG; a text file named .png and an SVG are read as text", async () => {
    s.write("photo.jpg", makePng(10, 20));
    const renamed = await tool().execute("c1", { path: "photo.jpg" });
    assert.equal(imagesOf(renamed.content)[0]?.mimeType, "image/png");
    s.write("fake.png", "I am text in a file named fake.png\n");
    const fake = await tool().execute("c2", { path: "fake.png" });
    assert.deepEqual(imagesOf(fake.content), []);
    assert.equal(textOf(fake), "I am text in a file named fake.png");
    s.write("logo.svg", SVG_TEXT);
    const svg = await tool().execute("c3", { path: "logo.svg" });
    assert.deepEqual(imagesOf(svg.content), []);
    assert.match(textOf(svg), /<svg xmlns/);
    assert.equal(svg.details.image, undefined);
  });

  it("a model without image input gets a sentence saying so, never a silent drop and no image", async () => {
    s.write("shot.png", makePng(300, 200));
    const result = await tool({ acceptsImages: () => false, scale }).execute("c1", { path: "shot.png" });
    assert.deepEqual(imagesOf(result.content), []);
    assert.match(textOf(result), /^shot\.png is a PNG image \(300×200 px, .+\)\. The current model cannot see images\. The image was not sent/);
    assert.equal(result.details.image?.notSent, "The current model cannot see images.");
  });

  it("scales an image whose long side is over 2,000 px down to 2,000 px, keeping the aspect ratio", async () => {
    s.write("wide.png", makePng(3000, 1000, 5));
    const result = await tool({ acceptsImages: () => true, scale }).execute("c1", { path: "wide.png" });
    const [image] = imagesOf(result.content);
    assert.ok(image, "an image was returned");
    const info = sniffImage(Buffer.from(image.data, "base64"));
    assert.deepEqual(info, { mimeType: "image/png", width: 2000, height: 667 }, "the bytes sent are a real 2000×667 PNG");
    assert.match(textOf(result), /^\[Image: wide\.png, PNG, 3000×1000 px, .+; shown scaled to 2000×667 px \(PNG, .+\)\]$/);
    assert.deepEqual(
      result.details.image?.sent && { w: result.details.image.sent.width, h: result.details.image.sent.height, scaled: result.details.image.sent.scaled },
      { w: 2000, h: 667, scaled: true },
    );
  });

  it("a scaled WebP is sent as WebP, a scaled GIF as PNG: the type sent is the type of the bytes", async () => {
    // A real WebP, written by photon itself (the scaler's decoder), loaded from node_modules at run time.
    const photon = createRequire(resolve(__dirname, "../../../../package.json"))("@silvia-odwyer/photon-node") as {
      PhotonImage: new (pixels: Uint8Array, width: number, height: number) => { get_bytes_webp(): Uint8Array; free(): void };
    };
    const rgba = new Uint8Array(3000 * 10 * 4).map((_, i) => (i % 4 === 3 ? 255 : (i >> 6) % 256));
    const source = new photon.PhotonImage(rgba, 3000, 10);
    s.write("wide.webp", Buffer.from(source.get_bytes_webp()));
    source.free();
    s.write("wide.gif", makeGif(3000, 10));
    const read = tool({ acceptsImages: () => true, scale });
    for (const [file, type, name] of [
      ["wide.webp", "image/webp", "WebP"],
      ["wide.gif", "image/png", "PNG"],
    ] as const) {
      const result = await read.execute("c1", { path: file });
      const [image] = imagesOf(result.content);
      assert.ok(image, `${file}: an image was returned (${textOf(result)})`);
      assert.equal(image.mimeType, type, file);
      assert.deepEqual(sniffImage(Buffer.from(image.data, "base64")), { mimeType: type, width: 2000, height: 7 }, `${file}: the bytes are what the type says`);
      assert.match(textOf(result), new RegExp(`3000×10 px, .+; shown scaled to 2000×7 px \\(${name}, `), file);
      assert.equal(result.details.image?.sent?.mimeType, type);
    }
  });

  it("re-encodes an image over the byte cap, and refuses with the reason when even that is over it", async () => {
    const noise = makeNoisePng(400, 400, 7);
    s.write("noise.png", noise);
    assert.ok(noise.length > 400_000, `noise is ${noise.length} bytes`);
    const fits = await tool({ scale, maxBytes: 300_000 }).execute("c1", { path: "noise.png" });
    const [jpeg] = imagesOf(fits.content);
    assert.equal(jpeg?.mimeType, "image/jpeg");
    assert.ok(Buffer.from(jpeg!.data, "base64").length <= 300_000);
    assert.deepEqual(sniffImage(Buffer.from(jpeg!.data, "base64")), { mimeType: "image/jpeg", width: 400, height: 400 });

    const tooBig = await rejection(() => tool({ scale, maxBytes: 2048 }).execute("c2", { path: "noise.png" }));
    assert.equal(tooBig.code, "image_refused");
    assert.match(
      tooBig.message,
      /^noise\.png is a PNG image \(400×400 px, .+\), and it is over 2 KB\. It was not read: even scaled to 400×400 px it is [\d.]+ KB, over the 2 KB an image may have\.$/,
    );
  });

  it("without a scaler, an image over the caps is refused with the reason", async () => {
    s.write("wide.png", makePng(2500, 100));
    const error = await rejection(() => tool({ acceptsImages: () => true }).execute("c1", { path: "wide.png" }));
    assert.equal(error.code, "image_refused");
    assert.match(
      error.message,
      /^wide\.png is a PNG image \(2500×100 px, .+\), and its long side is over 2,000 px; images that large cannot be scaled down here, so it was not read\.$/,
    );
  });

  it("refuses a pixel bomb without decoding it, and a damaged image with the decoder's reason", async () => {
    s.write("bomb.png", pngClaiming(60_000, 60_000));
    const bomb = await rejection(() => tool({ scale }).execute("c1", { path: "bomb.png" }));
    assert.match(
      bomb.message,
      /^bomb\.png is a PNG image \(60000×60000 px, .+\), and it is 60,000×60,000 px, over the 50 million pixels an image may have, so it was not read\.$/,
    );
    s.write("broken.png", pngClaiming(3000, 3000));
    const broken = await rejection(() => tool({ scale }).execute("c2", { path: "broken.png" }));
    assert.equal(broken.code, "image_refused");
    assert.match(
      broken.message,
      /^broken\.png is a PNG image \(3000×3000 px, .+\), and its long side is over 2,000 px\. It was not read: it could not be decoded/,
    );
  });

  it("refuses every kind of image a model cannot take from its header, before any decoder sees it", async () => {
    // The scaler is the real one; counting its calls shows the decoder was never started.
    let decoded = 0;
    const counting: typeof scale = (request, signal) => {
      decoded++;
      return scale(request, signal);
    };
    const kinds = hostileImages();
    const sent: string[] = [];
    for (const [index, { kind, bytes }] of kinds.entries()) {
      s.write(`hostile-${index}.img`, bytes);
      const outcome = await tool({ scale: counting, acceptsImages: () => true })
        .execute(`c${index}`, { path: `hostile-${index}.img` })
        .then(
          (result) => (imagesOf(result.content).length > 0 ? "sent" : "text"),
          (error: { code?: string; message: string }) =>
            error.code === "image_refused" && /so it was not read\.$/.test(error.message) ? "refused" : error.message,
        );
      if (outcome !== "refused") sent.push(`${kind}: ${outcome}`);
    }
    assert.deepEqual(sent, [], `${sent.length} of ${kinds.length} kinds not refused`);
    assert.equal(decoded, 0, "no hostile image reached the decoder");
  });

  it("a whole JPEG passes the header check with bytes appended after its end (a motion photo), and not cut short", async () => {
    const made = await scale({ bytes: makeNoisePng(64, 48, 4), mimeType: "image/jpeg", maxSide: 32, maxBytes: 1_000_000 });
    assert.ok(made.ok && made.mimeType === "image/jpeg");
    const jpeg = Buffer.from(made.bytes);
    const info = sniffImage(jpeg)!;
    assert.equal(imageProblem(jpeg, info), undefined);
    assert.equal(imageProblem(Buffer.concat([jpeg, Buffer.alloc(50_000, 0x42)]), info), undefined);
    assert.match(imageProblem(jpeg.subarray(0, jpeg.length - 40), info) ?? "", /cut short/);
  });

  it("Stop ends the scaling at once", async () => {
    s.write("wide.png", makeNoisePng(2400, 1200, 2));
    const controller = new AbortController();
    const running = tool({ scale }).execute("c1", { path: "wide.png" }, controller.signal);
    setTimeout(() => controller.abort(), 50);
    const error = await rejection(() => running);
    assert.match(error.message, /abort|stopped/i);
  });
});
