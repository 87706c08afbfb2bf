// What an image is, from its bytes alone: the four formats every vision model accepts, and
// their pixel size from the header (no decoder needed). A file's name or a claimed MIME type is
// never trusted: a text file named .png is not an image, and SVG (XML, able to carry script)
// is text, never an image.

export type ImageMimeType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

export const IMAGE_MIME_TYPES: readonly ImageMimeType[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

export interface ImageInfo {
  mimeType: ImageMimeType;
  /** Pixels; 0 when the header does not say (a JPEG whose size marker is past what was read). */
  width: number;
  height: number;
}

export const IMAGE_EXTENSIONS: Record<ImageMimeType, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};

export function isImageMimeType(value: unknown): value is ImageMimeType {
  return typeof value === "string" && (IMAGE_MIME_TYPES as readonly string[]).includes(value);
}

/** The image type and size the bytes announce, or undefined when they are not one of the four formats. */
export function sniffImage(bytes: Uint8Array): ImageInfo | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    // IHDR is the first chunk: width and height, big-endian, at 16 and 20.
    if (bytes.length < 24) return undefined;
    return { mimeType: "image/png", width: u32be(bytes, 16), height: u32be(bytes, 20) };
  }
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { mimeType: "image/jpeg", ...jpegSize(bytes) };
  if (ascii(bytes, 0, 6) === "GIF87a" || ascii(bytes, 0, 6) === "GIF89a") {
    if (bytes.length < 10) return undefined;
    return { mimeType: "image/gif", width: u16le(bytes, 6), height: u16le(bytes, 8) };
  }
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WEBP") {
    const size = webpSize(bytes);
    return size ? { mimeType: "image/webp", ...size } : undefined;
  }
  return undefined;
}

function jpegSize(bytes: Uint8Array): { width: number; height: number } {
  let i = 2;
  while (i + 9 < bytes.length) {
    if (bytes[i] !== 0xff) {
      i++;
      continue;
    }
    const marker = bytes[i + 1]!;
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: u16be(bytes, i + 5), width: u16be(bytes, i + 7) };
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0xff) {
      i += marker === 0xff ? 1 : 2;
      continue;
    }
    i += 2 + u16be(bytes, i + 2);
  }
  return { width: 0, height: 0 };
}

function webpSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  const chunk = ascii(bytes, 12, 4);
  if (chunk === "VP8 " && bytes.length >= 30) return { width: u16le(bytes, 26) & 0x3fff, height: u16le(bytes, 28) & 0x3fff };
  if (chunk === "VP8L" && bytes.length >= 25) {
    const b = (n: number) => bytes[21 + n]!;
    return { width: 1 + (((b(1) & 0x3f) << 8) | b(0)), height: 1 + (((b(3) & 0x0f) << 10) | (b(2) << 2) | ((b(1) & 0xc0) >> 6)) };
  }
  if (chunk === "VP8X" && bytes.length >= 30) return { width: 1 + u24le(bytes, 24), height: 1 + u24le(bytes, 27) };
  return undefined;
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b);
}

function ascii(bytes: Uint8Array, start: number, length: number): string {
  if (bytes.length < start + length) return "";
  return String.fromCharCode(...bytes.subarray(start, start + length));
}

const u16be = (b: Uint8Array, i: number) => (b[i]! << 8) | b[i + 1]!;
const u16le = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8);
const u24le = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16);
const u32be = (b: Uint8Array, i: number) => ((b[i]! << 24) >>> 0) + ((b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!);

/**
 * Pixels an image may have to be decoded at all, here or in the view: a 50-megapixel photo (the
 * largest phones and most cameras make) is 200 MB once decoded. A 97 KB PNG can claim 9999×9999
 * (100 million pixels: 8 s and 1.2 GB in the WebAssembly decoder, whose memory no heap limit
 * bounds), so the header is checked before anything decodes it.
 */
export const MAX_DECODE_PIXELS = 50_000_000;

/**
 * Why an image cannot be given to a model as it is, from its header and framing alone (no
 * decoder), or undefined. Its bytes must say its size (a 0×0 JPEG is refused by every provider),
 * the size must be within what may be decoded, and the file must not be cut short.
 */
export function imageProblem(bytes: Uint8Array, info: ImageInfo): string | undefined {
  if (info.width <= 0 || info.height <= 0) return `its header gives no size in pixels (${info.width}×${info.height})`;
  if (info.width * info.height > MAX_DECODE_PIXELS) {
    return `it is ${info.width.toLocaleString("en-US")}×${info.height.toLocaleString("en-US")} px, over the ${MAX_DECODE_PIXELS / 1_000_000} million pixels an image may have`;
  }
  if (isCutShort(bytes, info.mimeType)) return "the file is cut short (its end is missing)";
  return undefined;
}

/** PNG ends with its IEND chunk, JPEG with the end-of-image marker, GIF with its trailer, WebP where RIFF says. */
function isCutShort(bytes: Uint8Array, mimeType: ImageMimeType): boolean {
  switch (mimeType) {
    case "image/png":
      // Anywhere after the header: some writers add bytes after the end.
      return indexOfBytes(bytes, [0x49, 0x45, 0x4e, 0x44], 33) === -1;
    case "image/jpeg": {
      // After the first scan: an EXIF thumbnail has its own end marker before it, and phones append
      // a motion photo's video after the real one.
      const scan = indexOfBytes(bytes, [0xff, 0xda], 2);
      return scan === -1 || indexOfBytes(bytes, [0xff, 0xd9], scan) === -1;
    }
    case "image/gif": {
      let last = bytes.length - 1;
      while (last > 0 && bytes[last] === 0) last--;
      return bytes[last] !== 0x3b;
    }
    case "image/webp":
      return bytes.length < 8 + (bytes[4]! | (bytes[5]! << 8) | (bytes[6]! << 16) | ((bytes[7]! << 24) >>> 0));
  }
}

function indexOfBytes(bytes: Uint8Array, pattern: readonly number[], from: number): number {
  const first = pattern[0]!;
  for (let i = bytes.indexOf(first, from); i !== -1 && i + pattern.length <= bytes.length; i = bytes.indexOf(first, i + 1)) {
    if (pattern.every((b, k) => bytes[i + k] === b)) return i;
  }
  return -1;
}
