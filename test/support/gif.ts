// Real GIF files for tests, made here (no fixture binaries): a 4-colour image in stripes, its LZW
// data written with a clear code before every pixel, so every code is 3 bits (valid, if large).
export function makeGif(width: number, height: number): Buffer {
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(width, 0);
  screen.writeUInt16LE(height, 2);
  screen[4] = 0x81; // a global colour table of 4 entries
  const palette = Buffer.from([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]);
  const descriptor = Buffer.alloc(10);
  descriptor[0] = 0x2c;
  descriptor.writeUInt16LE(width, 5);
  descriptor.writeUInt16LE(height, 7);
  const CLEAR = 4;
  const END = 5;
  const bytes: number[] = [];
  let acc = 0;
  let bits = 0;
  const put = (code: number) => {
    acc |= code << bits;
    bits += 3;
    while (bits >= 8) {
      bytes.push(acc & 0xff);
      acc >>= 8;
      bits -= 8;
    }
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      put(CLEAR);
      put(((x >> 4) + y) % 4);
    }
  }
  put(END);
  if (bits > 0) bytes.push(acc & 0xff);
  const blocks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 255) {
    const part = bytes.slice(i, i + 255);
    blocks.push(Buffer.from([part.length, ...part]));
  }
  return Buffer.concat([Buffer.from("GIF89a"), screen, palette, descriptor, Buffer.from([2]), ...blocks, Buffer.from([0, 0x3b])]);
}
