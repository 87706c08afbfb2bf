// Real PNG files for tests, made here (no fixture binaries): a solid colour at any size.
import { deflateSync } from "node:zlib";

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** An RGB PNG of `width`×`height` in one colour; `seed` changes the colour (and so the bytes). */
export function makePng(width: number, height: number, seed = 0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) {
    row[1 + x * 3] = (seed * 37) & 0xff;
    row[2 + x * 3] = (seed * 91 + 80) & 0xff;
    row[3 + x * 3] = (x * 255) / Math.max(1, width - 1);
  }
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", new Uint8Array()),
  ]);
}

/**
 * A real RGB PNG of `side`×`side` black pixels (every row a zero filter byte and zeros): a
 * decompression bomb, about 150 KB for 7000×7000 (49 million pixels, 147 MB once inflated).
 */
export function makeZeroPng(side: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.alloc(side * (1 + side * 3)), { level: 9 })),
    chunk("IEND", new Uint8Array()),
  ]);
}

export const SVG_TEXT = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>\n';

/** An RGB PNG of noise (compresses badly: about 3 bytes a pixel), the same for the same seed. */
export function makeNoisePng(width: number, height: number, seed = 1): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const raw = Buffer.alloc(height * (1 + width * 3));
  let state = seed >>> 0 || 1;
  for (let y = 0; y < height; y++) {
    const row = y * (1 + width * 3);
    for (let i = 1; i <= width * 3; i++) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      raw[row + i] = state >>> 24;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", new Uint8Array()),
  ]);
}

/** A PNG whose header claims `width`×`height` but whose pixels are those of a 2×2 image. */
export function pngClaiming(width: number, height: number): Buffer {
  const png = Buffer.from(makePng(2, 2));
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  return png;
}

/**
 * Files that carry an image format's magic bytes but that no model can take: no size, a size no
 * one should decode, or an end that is missing. Each kind once; all are small.
 */
export function hostileImages(): { kind: string; bytes: Buffer }[] {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const ihdr = (width: number, height: number) => {
    const data = Buffer.alloc(13);
    data.writeUInt32BE(width, 0);
    data.writeUInt32BE(height, 4);
    data[8] = 8;
    data[9] = 2;
    return chunk("IHDR", data);
  };
  const noise = makeNoisePng(200, 200, 3);
  // JPEG: start of image, a baseline frame header of `height`×`width` with one component, end.
  const sof = (width: number, height: number) =>
    Buffer.from([0xff, 0xc0, 0x00, 0x0b, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x01, 0x01, 0x11, 0x00]);
  const soi = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00]);
  const eoi = Buffer.from([0xff, 0xd9]);
  const gif = (width: number, height: number, trailer: boolean) => {
    const head = Buffer.alloc(13);
    head.write("GIF89a", 0, "ascii");
    head.writeUInt16LE(width, 6);
    head.writeUInt16LE(height, 8);
    return Buffer.concat([head, Buffer.from(trailer ? [0x3b] : [0x2c, 0, 0])]);
  };
  const webp = (width: number, height: number, claimedLength: number) => {
    const bytes = Buffer.alloc(30);
    bytes.write("RIFF", 0, "ascii");
    bytes.writeUInt32LE(claimedLength - 8, 4);
    bytes.write("WEBPVP8X", 8, "ascii");
    bytes.writeUInt32LE(10, 16);
    bytes.writeUIntLE(width - 1, 24, 3);
    bytes.writeUIntLE(height - 1, 27, 3);
    return bytes;
  };
  return [
    { kind: "PNG header of 100000×100000 with no data", bytes: Buffer.concat([signature, ihdr(100_000, 100_000)]) },
    { kind: "PNG cut short", bytes: noise.subarray(0, Math.floor(noise.length / 2)) },
    { kind: "PNG of 9999×9999 (a small file, 100 million pixels decoded)", bytes: pngClaiming(9999, 9999) },
    { kind: "PNG of 0×0", bytes: pngClaiming(0, 0) },
    { kind: "JPEG of 0×0", bytes: Buffer.concat([soi, sof(0, 0), eoi]) },
    { kind: "JPEG with no frame header", bytes: Buffer.concat([soi, eoi]) },
    { kind: "JPEG of 65535×65535", bytes: Buffer.concat([soi, sof(65_535, 65_535), eoi]) },
    { kind: "JPEG cut short", bytes: Buffer.concat([soi, sof(10, 10), Buffer.alloc(20, 0x11)]) },
    { kind: "GIF of 65535×65535", bytes: gif(65_535, 65_535, true) },
    { kind: "GIF of 0×0", bytes: gif(0, 0, true) },
    { kind: "GIF cut short", bytes: gif(10, 10, false) },
    { kind: "WebP of 16384×16384", bytes: webp(16_384, 16_384, 30) },
    { kind: "WebP cut short", bytes: webp(10, 10, 4096) },
  ];
}
