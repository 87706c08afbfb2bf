// mapText (the text edit_file matches in, with each character's original position) got a fast
// path for ASCII runs, because building it a character at a time froze the extension host for
// seconds on a 5 MB file. This holds the fast version to the character-at-a-time one it replaced
// (kept below as the reference), on random text full of the cases that take the slow path.
import assert from "node:assert/strict";
import { fuzzyPiece, mapText, type MappedText } from "../../../src/core/tools/edit-match";

type PieceTransform = (piece: string) => string;
const COMBINING_MARK = /\p{M}/u;

// The implementation before the fast path, verbatim.
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the old implementation, kept verbatim as the test's reference
function referenceMapText(original: string, transform: PieceTransform, dropTrailingWhitespace: boolean, asciiUnchanged = true): MappedText {
  const chars: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let i = 0;
  while (i < original.length) {
    const code = original.charCodeAt(i);
    let pieceEnd: number;
    if (code === 13 && original.charCodeAt(i + 1) === 10) {
      chars.push("\n");
      starts.push(i);
      ends.push(i + 2);
      i += 2;
      continue;
    }
    const cp = original.codePointAt(i) ?? code;
    pieceEnd = i + (cp > 0xffff ? 2 : 1);
    // A base character and the combining marks after it normalize together (e + U+0301 = é).
    while (pieceEnd < original.length && original.charCodeAt(pieceEnd) >= 0x300 && COMBINING_MARK.test(original[pieceEnd] ?? "")) pieceEnd++;
    // ASCII needs no normalization: the common case stays cheap on big files.
    const out = asciiUnchanged && code < 0x80 && pieceEnd === i + 1 ? original[i]! : transform(original.slice(i, pieceEnd));
    for (let k = 0; k < out.length; k++) {
      chars.push(out[k]!);
      starts.push(i);
      ends.push(pieceEnd);
    }
    i = pieceEnd;
  }
  let keep = chars.length;
  if (dropTrailingWhitespace) {
    const kept = new Uint8Array(chars.length);
    let atLineEnd = true;
    keep = 0;
    for (let k = chars.length - 1; k >= 0; k--) {
      const c = chars[k]!;
      if (c === "\n") atLineEnd = true;
      else if (atLineEnd && /\s/.test(c)) continue;
      else atLineEnd = false;
      kept[k] = 1;
      keep++;
    }
    if (keep !== chars.length) {
      const text: string[] = [];
      const start = new Int32Array(keep);
      const end = new Int32Array(keep);
      let n = 0;
      for (let k = 0; k < chars.length; k++) {
        if (kept[k] !== 1) continue;
        text.push(chars[k]!);
        start[n] = starts[k]!;
        end[n] = ends[k]!;
        n++;
      }
      return { text: text.join(""), start, end };
    }
  }
  return { text: chars.join(""), start: Int32Array.from(starts), end: Int32Array.from(ends) };
}

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const PIECES = [
  "a",
  "b",
  "e",
  " ",
  "\t",
  "\n",
  "\r\n",
  "\r",
  "\u0301",
  "\u0308",
  "\u2019",
  "\u201C",
  "\u2014",
  "\u00A0",
  "\u3000",
  "\uFB03",
  "😀",
  "x ",
  "  \n",
  "\u2028",
  "é",
];

function same(actual: MappedText, expected: MappedText, input: string): void {
  const message = JSON.stringify(input);
  assert.equal(actual.text, expected.text, message);
  assert.deepEqual([...actual.start], [...expected.start], message);
  assert.deepEqual([...actual.end], [...expected.end], message);
}

describe("mapText (fast path for ASCII runs)", () => {
  it("gives exactly what the character-at-a-time version gave (3,000 random texts, both modes)", () => {
    const next = random(11);
    for (let round = 0; round < 3000; round++) {
      const input = Array.from({ length: Math.floor(next() * 30) }, () => PIECES[Math.floor(next() * PIECES.length)]).join("");
      same(
        mapText(input, (p) => p, false),
        referenceMapText(input, (p) => p, false),
        input,
      );
      same(mapText(input, fuzzyPiece, true), referenceMapText(input, fuzzyPiece, true), input);
      same(mapText(input, fuzzyPiece, true, false), referenceMapText(input, fuzzyPiece, true, false), input);
    }
  });

  it("maps a 5 MB ASCII file without a string per character (same result as the reference)", () => {
    const line = "const value = 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx';   \n";
    const big = line.repeat(Math.ceil((5 * 1024 * 1024) / line.length));
    const fast = mapText(big, fuzzyPiece, true);
    assert.equal(fast.text.length, big.length - 3 * Math.ceil((5 * 1024 * 1024) / line.length));
    assert.equal(fast.start[0], 0);
    assert.equal(fast.end[fast.text.length - 1], big.length);
  });
});
