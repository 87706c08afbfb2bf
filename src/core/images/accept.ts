// The gate for an image the user attached: only bytes that really are a whole PNG, JPEG, GIF or
// WebP image, within the size caps, are sent. The view checks the same and scales down before
// sending; this gate is for what the view (untrusted) posts. Every refusal says why.
import { MAX_IMAGE_SIDE_PX, MAX_PROMPT_IMAGE_BYTES } from "../../shared/protocol";
import { formatBytes } from "../../shared/format";
import { imageProblem, sniffImage, type ImageInfo } from "../../shared/image-sniff";

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
  const problem = imageProblem(bytes, info);
  if (problem) return { ok: false, reason: `${label} cannot be sent: ${problem}.` };
  // The view scales every attached image down to this; a larger one did not come from it.
  if (Math.max(info.width, info.height) > MAX_IMAGE_SIDE_PX) {
    return {
      ok: false,
      reason: `${label} is ${info.width}×${info.height} px, over the ${MAX_IMAGE_SIDE_PX.toLocaleString("en-US")} px an attached image may have on its long side.`,
    };
  }
  return { ok: true, bytes, info };
}

function looksLikeSvg(bytes: Uint8Array): boolean {
  const head = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, 1024)).toLowerCase();
  return head.includes("<svg");
}
