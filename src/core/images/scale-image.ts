// Scaling an image down so a model can take it: the long side to at most `maxSide` pixels, the
// bytes under `maxBytes`. The decoder is photon (Rust's `image` crate compiled to WebAssembly:
// no native binary), and it is never part of the activation bundle: it runs in a worker thread
// started from out/image-scale.js only when an image needs it (src/core/images/image-scaler.ts).
import { type ImageMimeType, sniffImage } from "../../shared/image-sniff";

/**
 * Pixels an image may have for the scaler to decode it, checked from the header before a worker
 * starts: a 16-megapixel image (a 5K screen's screenshot, 5120×2880, is 14.7) takes a few seconds
 * and about 400 MB in photon's WebAssembly, whose memory no heap limit bounds; a 49-megapixel PNG
 * of zeros (a 1 MB file) took 12 s and 970 MB. The gate before it (MAX_DECODE_PIXELS) allows 50.
 */
export const MAX_SCALE_PIXELS = 16_000_000;

/** Why the scaler does not decode `bytes`, from the header alone, or undefined. */
export function scaleRefusal(bytes: Uint8Array): string | undefined {
  const info = sniffImage(bytes);
  if (!info) return "its header could not be read";
  if (info.width * info.height <= MAX_SCALE_PIXELS) return undefined;
  const millions = (info.width * info.height) / 1_000_000;
  return `it is ${info.width.toLocaleString("en-US")}×${info.height.toLocaleString("en-US")} px (${millions.toFixed(1)} million pixels), over the ${MAX_SCALE_PIXELS / 1_000_000} million Pi Chat scales down (decoding it would take seconds and hundreds of MB); scale it down first`;
}

export interface ScaleRequest {
  bytes: Uint8Array;
  mimeType: ImageMimeType;
  maxSide: number;
  maxBytes: number;
}

/** What a scaled image is sent as: photon encodes PNG, JPEG and (lossless) WebP, not GIF. */
export type ScaledMimeType = "image/png" | "image/jpeg" | "image/webp";

export type ScaleResult =
  | { ok: true; bytes: Uint8Array; mimeType: ScaledMimeType; width: number; height: number; originalWidth: number; originalHeight: number }
  /** Even the smallest encoding tried was over `maxBytes`. */
  | { ok: false; tooLarge: { bytes: number; width: number; height: number } }
  | { ok: false; reason: string };

/** The part of photon this uses (its own .d.ts is large; this keeps the dependency visible). */
export interface PhotonLike {
  PhotonImage: { new_from_byteslice(bytes: Uint8Array): PhotonImageLike };
  resize(image: PhotonImageLike, width: number, height: number, filter: number): PhotonImageLike;
  SamplingFilter: { Lanczos3: number };
}

interface PhotonImageLike {
  get_width(): number;
  get_height(): number;
  get_bytes(): Uint8Array;
  get_bytes_jpeg(quality: number): Uint8Array;
  get_bytes_webp(): Uint8Array;
  free(): void;
}

/** The size that keeps the aspect ratio with the long side at most `maxSide` (never enlarged, never 0). */
export function fitWithin(width: number, height: number, maxSide: number): { width: number; height: number } {
  const long = Math.max(width, height);
  if (long <= maxSide) return { width, height };
  const scale = maxSide / long;
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/**
 * Decodes, scales and re-encodes in the same format where photon can write it: PNG as PNG, JPEG
 * as JPEG, WebP as WebP (lossless, keeps transparency); GIF as PNG (photon writes no GIF; an
 * animated GIF is its first frame, as decoded). When that is still over `maxBytes`, JPEG at lower
 * qualities. Never throws.
 */
export function scaleImage(photon: PhotonLike, request: ScaleRequest): ScaleResult {
  const refused = scaleRefusal(request.bytes);
  if (refused) return { ok: false, reason: refused };
  let source: PhotonImageLike | undefined;
  let scaled: PhotonImageLike | undefined;
  try {
    source = photon.PhotonImage.new_from_byteslice(request.bytes);
    const originalWidth = source.get_width();
    const originalHeight = source.get_height();
    const size = fitWithin(originalWidth, originalHeight, request.maxSide);
    scaled =
      size.width === originalWidth && size.height === originalHeight ? source : photon.resize(source, size.width, size.height, photon.SamplingFilter.Lanczos3);
    const attempts: (() => { bytes: Uint8Array; mimeType: ScaledMimeType })[] = [
      request.mimeType === "image/jpeg"
        ? () => ({ bytes: scaled!.get_bytes_jpeg(85), mimeType: "image/jpeg" })
        : request.mimeType === "image/webp"
          ? () => ({ bytes: scaled!.get_bytes_webp(), mimeType: "image/webp" })
          : () => ({ bytes: scaled!.get_bytes(), mimeType: "image/png" }),
      () => ({ bytes: scaled!.get_bytes_jpeg(80), mimeType: "image/jpeg" }),
      () => ({ bytes: scaled!.get_bytes_jpeg(60), mimeType: "image/jpeg" }),
      () => ({ bytes: scaled!.get_bytes_jpeg(40), mimeType: "image/jpeg" }),
    ];
    let smallest = Number.POSITIVE_INFINITY;
    for (const attempt of attempts) {
      const out = attempt();
      if (out.bytes.length <= request.maxBytes) {
        return { ok: true, ...out, width: size.width, height: size.height, originalWidth, originalHeight };
      }
      smallest = Math.min(smallest, out.bytes.length);
    }
    return { ok: false, tooLarge: { bytes: smallest, width: size.width, height: size.height } };
  } catch (error) {
    return { ok: false, reason: `it could not be decoded (${error instanceof Error ? error.message : String(error)})` };
  } finally {
    if (scaled && scaled !== source) scaled.free();
    source?.free();
  }
}
