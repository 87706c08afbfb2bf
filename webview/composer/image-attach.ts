// Images pasted, dropped or picked in the composer: checked by their bytes (a text file named
// .png or an SVG is refused with the reason), by their header (no size, too many pixels to
// decode, cut short: refused with the reason before anything decodes them), decoded once in the
// browser (an image it cannot decode is refused), scaled down in a canvas when the long side is
// over 2,000 px or the file is large, and kept as base64 until the message is sent.
import { imageProblem, sniffImage, type ImageMimeType } from "../../src/shared/image-sniff";
import { MAX_IMAGE_SIDE_PX, MAX_PROMPT_IMAGE_BYTES, MAX_PROMPT_IMAGES } from "../../src/shared/protocol";

export interface ComposerImage {
  /** Local key for the thumbnail list. */
  id: number;
  name: string;
  mimeType: ImageMimeType;
  /** Base64 of exactly the bytes that will be sent. */
  data: string;
  width: number;
  height: number;
  bytes: number;
  /** Scaled down from this size. */
  scaledFrom?: { width: number; height: number };
}

export type AttachOutcome = { ok: true; image: ComposerImage } | { ok: false; reason: string };

/** Above this many bytes an image is re-encoded even when its size in pixels is fine. */
const REENCODE_OVER_BYTES = 3.5 * 1024 * 1024;

let nextId = 1;

/** Image files of a paste or drop (files with any type: the bytes decide, not the type). */
export function filesOf(data: DataTransfer | null): File[] {
  if (!data) return [];
  const files: File[] = [];
  for (const item of Array.from(data.items ?? [])) {
    if (item.kind !== "file") continue;
    const file = item.getAsFile();
    if (file) files.push(file);
  }
  if (files.length === 0) for (const file of Array.from(data.files ?? [])) files.push(file);
  return files;
}

export async function prepareImage(file: Blob & { name?: string }): Promise<AttachOutcome> {
  const name = file.name || "pasted image";
  const bytes = new Uint8Array(await file.arrayBuffer());
  const info = sniffImage(bytes);
  if (!info) {
    const svg = new TextDecoder().decode(bytes.subarray(0, 1024)).toLowerCase().includes("<svg");
    return {
      ok: false,
      reason: `${name} is not a PNG, JPEG, GIF or WebP image${svg ? " (SVG is text: attach it as a file instead)" : ""}, so it was not attached.`,
    };
  }
  const problem = imageProblem(bytes, info);
  if (problem) return { ok: false, reason: `${name} was not attached: ${problem}.` };
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: info.mimeType }));
  } catch {
    return { ok: false, reason: `${name} was not attached: it could not be decoded as a ${info.mimeType.slice(6).toUpperCase()} image (it may be damaged).` };
  }
  let { width, height } = info;
  let out: Uint8Array = bytes;
  let mimeType: ImageMimeType = info.mimeType;
  let scaledFrom: ComposerImage["scaledFrom"];
  const tooWide = Math.max(width, height) > MAX_IMAGE_SIDE_PX;
  // A photo's orientation tag turns it a quarter: then the sides are swapped.
  const sameSize = (bitmap.width === width && bitmap.height === height) || (bitmap.width === height && bitmap.height === width);
  if (!sameSize) {
    bitmap.close();
    return { ok: false, reason: `${name} was not attached: its header says ${width}×${height} px, but it decodes to ${bitmap.width}×${bitmap.height}.` };
  }
  if (tooWide || bytes.length > REENCODE_OVER_BYTES) {
    const scaled = await scaleInCanvas(bitmap, info.mimeType);
    if (!scaled) return { ok: false, reason: `${name} was not attached: it could not be scaled down to ${MAX_IMAGE_SIDE_PX.toLocaleString("en-US")} px.` };
    if (tooWide) scaledFrom = { width, height };
    ({ width, height } = scaled);
    out = scaled.bytes;
    mimeType = scaled.mimeType;
  } else {
    bitmap.close();
  }
  if (out.length > MAX_PROMPT_IMAGE_BYTES) return { ok: false, reason: `${name} is too large to send, even scaled down.` };
  const image: ComposerImage = { id: nextId++, name, mimeType, data: toBase64(out), width, height, bytes: out.length };
  if (scaledFrom) image.scaledFrom = scaledFrom;
  return { ok: true, image };
}

/** Long side at most MAX_IMAGE_SIDE_PX. GIF frames come out as PNG (a canvas cannot write GIF). Closes the bitmap. */
async function scaleInCanvas(
  bitmap: ImageBitmap,
  mimeType: ImageMimeType,
): Promise<{ bytes: Uint8Array; mimeType: ImageMimeType; width: number; height: number } | undefined> {
  const scale = Math.min(1, MAX_IMAGE_SIDE_PX / Math.max(bitmap.width, bitmap.height));
  const width = Math.max(1, Math.round(bitmap.width * scale));
  const height = Math.max(1, Math.round(bitmap.height * scale));
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext("2d");
  if (!context) {
    bitmap.close();
    return undefined;
  }
  context.drawImage(bitmap, 0, 0, width, height);
  bitmap.close();
  const target: ImageMimeType = mimeType === "image/gif" ? "image/png" : mimeType;
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, target, 0.85));
  if (!blob) return undefined;
  const out = new Uint8Array(await blob.arrayBuffer());
  const info = sniffImage(out);
  return info ? { bytes: out, mimeType: info.mimeType, width, height } : undefined;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  return btoa(binary);
}

export { MAX_PROMPT_IMAGES };
