// The gate for an image the user attached: only bytes that really are a PNG, JPEG, GIF or WebP
// image, within the size cap, are sent. Every refusal says why; nothing is dropped silently.
import { MAX_PROMPT_IMAGE_BYTES } from "../../shared/protocol";
import { formatBytes } from "../../shared/format";
import { sniffImage, type ImageInfo } from "../../shared/image-sniff";

export type AcceptedImage = { ok: true; bytes: Uint8Array; info: ImageInfo } | { ok: false; reason: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function acceptAttachedImage(base64: string, label: string): AcceptedImage {
  if (base64.length % 4 !== 0 || !BASE64.test(base64)) return { ok: false, reason: `${label} could not be read (its data is not valid base64).` };
  const bytes = new Uint8Array(Buffer.from(base64, "base64"));
  if (bytes.length > MAX_PROMPT_IMAGE_BYTES) {
    return { ok: false, reason: `${label} is ${formatBytes(bytes.length)}, over the ${formatBytes(MAX_PROMPT_IMAGE_BYTES)} an attached image may have.` };
  }
  const info = sniffImage(bytes);
  if (!info) {
    const text = looksLikeSvg(bytes) ? " It is an SVG drawing, which is text: attach the file with Ask About This File instead." : "";
    return { ok: false, reason: `${label} is not a PNG, JPEG, GIF or WebP image (judged by its bytes, not its name).${text}` };
  }
  return { ok: true, bytes, info };
}

function looksLikeSvg(bytes: Uint8Array): boolean {
  const head = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, 1024)).toLowerCase();
  return head.includes("<svg");
}
