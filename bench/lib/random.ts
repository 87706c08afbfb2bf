// Deterministic randomness and text of realistic shape for the benchmark data.
// Tokens are what a model streams: ~4 characters each on average (words with their leading
// space, punctuation, newlines, Markdown, code with indentation, quotes and backslashes that
// JSON has to escape, the odd non-ASCII character).

import { Rng } from "../../test/support/seeded-random";

export { Rng };

const WORDS = (
  "the a to of and in is that it for this you with on be as are can we not if or your will " +
  "function value file line code call return type state message event test error change " +
  "should would could because when then first next also only just each every which where " +
  "read write update render reducer stream token delta chunk buffer array object string number " +
  "component module import export default async await promise handler listener callback " +
  "workspace extension webview transcript session provider model request response context " +
  "here there now instead before after while until since without between through about into " +
  "make use keep add remove move rename check handle parse format build run load save open " +
  "simple small large long short fast slow safe correct wrong missing empty full partial final"
).split(" ");

const CAPITALIZED = ["The", "This", "It", "If", "When", "We", "You", "Then", "Now", "Next", "First", "Also", "In", "For"];

const IDENTIFIERS = [
  "state",
  "items",
  "event",
  "message",
  "result",
  "options",
  "chatId",
  "index",
  "text",
  "delta",
  "store",
  "value",
  "count",
  "config",
  "handler",
  "entry",
  "path",
  "bytes",
  "lines",
  "offset",
  "node",
  "view",
];

const CODE_PIECES = [
  "const",
  " ",
  "=",
  " =",
  " ===",
  " !==",
  "(",
  ")",
  "{",
  "}",
  "[",
  "]",
  ";",
  ",",
  ".",
  "=>",
  " =>",
  "return",
  " return",
  "if",
  " if",
  "await",
  " await",
  "new",
  " new",
  "function",
  "export",
  "import",
  " from",
  '"',
  "'",
  "`",
  "${",
  "\\n",
  "  ",
  "    ",
  "\n",
  "\n  ",
  "\n    ",
  "?.",
  " ??",
  " &&",
  " ||",
  "map",
  "filter",
  "push",
  "length",
  "slice",
  "JSON",
  ".stringify",
  ".parse",
  "null",
  "undefined",
  "true",
];

const NON_ASCII = [" —", " é", " ü", " →", " …", " ✓", " 日本"];

/** BPE splits longer, rarer words into pieces; common short ones stay whole. */
function pushSplit(rng: Rng, out: string[], token: string): void {
  if (token.length >= 6 && rng.chance(0.6)) {
    const cut = rng.int(3, token.length - 2);
    out.push(token.slice(0, cut), token.slice(cut));
  } else {
    out.push(token);
  }
}

/** One prose token. */
function proseToken(rng: Rng, sentenceStart: boolean): string {
  if (sentenceStart) return (rng.chance(0.9) ? " " : "") + rng.pick(CAPITALIZED);
  const r = rng.next();
  if (r < 0.003) return rng.pick(NON_ASCII);
  if (r < 0.03) return ` \`${rng.pick(IDENTIFIERS)}\``;
  if (r < 0.05) return `${rng.pick(WORDS)}`.slice(0, 3);
  return ` ${rng.pick(WORDS)}`;
}

function codeToken(rng: Rng): string {
  return rng.chance(0.45) ? rng.pick(CODE_PIECES) : (rng.chance(0.5) ? " " : "") + rng.pick(IDENTIFIERS);
}

/**
 * `count` tokens of a Markdown answer: paragraphs, headings, bullet lists, fenced code blocks.
 */
export function markdownTokens(rng: Rng, count: number): string[] {
  const out: string[] = [];
  let sentenceStart = true;
  let sentenceLength = 0;
  let paragraphSentences = 0;
  let mode: "prose" | "code" = "prose";
  let codeLeft = 0;
  while (out.length < count) {
    if (mode === "code") {
      if (codeLeft-- <= 0) {
        out.push("\n```", "\n\n");
        mode = "prose";
        sentenceStart = true;
        continue;
      }
      pushSplit(rng, out, codeToken(rng));
      continue;
    }
    if (sentenceStart && paragraphSentences >= rng.int(2, 5)) {
      paragraphSentences = 0;
      const r = rng.next();
      if (r < 0.15) {
        out.push("\n\n```", "ts", "\n");
        mode = "code";
        codeLeft = rng.int(40, 250);
        continue;
      }
      if (r < 0.25) out.push("\n\n", "##", " " + rng.pick(CAPITALIZED), " " + rng.pick(WORDS), "\n\n");
      else if (r < 0.4) out.push("\n\n", "-");
      else out.push("\n\n");
    }
    pushSplit(rng, out, proseToken(rng, sentenceStart));
    sentenceStart = false;
    if (++sentenceLength >= rng.int(8, 24)) {
      out.push(rng.chance(0.85) ? "." : rng.pick([":", "?", "!"]));
      sentenceLength = 0;
      sentenceStart = true;
      paragraphSentences++;
    } else if (rng.chance(0.06)) {
      out.push(",");
    }
  }
  out.length = count;
  return out;
}

/** Plain reasoning prose (no Markdown structure). */
export function thinkingTokens(rng: Rng, count: number): string[] {
  const out: string[] = [];
  let sentenceStart = true;
  let sentenceLength = 0;
  while (out.length < count) {
    pushSplit(rng, out, proseToken(rng, sentenceStart));
    sentenceStart = false;
    if (++sentenceLength >= rng.int(6, 20)) {
      out.push(".");
      if (rng.chance(0.2)) out.push("\n\n");
      sentenceLength = 0;
      sentenceStart = true;
    }
  }
  out.length = count;
  return out;
}

/** Roughly `chars` characters of Markdown (for messages that are not streamed here). */
export function markdownText(rng: Rng, chars: number): string {
  return markdownTokens(rng, Math.max(1, Math.round(chars / 4)))
    .join("")
    .trimStart();
}

export function thinkingText(rng: Rng, chars: number): string {
  return thinkingTokens(rng, Math.max(1, Math.round(chars / 4)))
    .join("")
    .trimStart();
}

/** A source file of about `bytes` bytes (TypeScript-like lines). */
export function sourceFile(rng: Rng, bytes: number): string[] {
  const lines: string[] = [];
  let size = 0;
  let depth = 0;
  while (size < bytes) {
    const indent = "  ".repeat(depth);
    const r = rng.next();
    let line: string;
    if (r < 0.08 && depth < 4) {
      line = `${indent}${rng.pick(["export function", "function", "async function", "if (", "for (const", "class"])} ${rng.pick(IDENTIFIERS)}${rng.pick(["(", " of ", " "])}${rng.pick(IDENTIFIERS)}) {`;
      depth++;
    } else if (r < 0.16 && depth > 0) {
      depth--;
      line = `${"  ".repeat(depth)}}`;
    } else if (r < 0.22) {
      // Thinking tokens can hold paragraph breaks: one source line must not become two.
      line = `${indent}// ${thinkingTokens(rng, rng.int(5, 14)).join("").replace(/\n/g, " ").trim()}`;
    } else if (r < 0.26) {
      line = "";
    } else {
      const pieces: string[] = [];
      for (let i = rng.int(4, 14); i > 0; i--) pieces.push(codeToken(rng));
      line = `${indent}${rng.pick(["const ", "let ", "return ", "await ", ""])}${rng.pick(IDENTIFIERS)}${pieces.join("").replace(/\n/g, " ")};`;
    }
    lines.push(line);
    size += line.length + 1;
  }
  return lines;
}

export const FILE_PATHS = [
  "src/core/session.ts",
  "src/shared/reducer.ts",
  "src/host/controller.ts",
  "src/core/transcript/store.ts",
  "webview/app.tsx",
  "webview/items.tsx",
  "src/core/tools/read-file.ts",
  "package.json",
  "README.md",
  "src/utils/format.ts",
  "test/unit/reducer.test.ts",
  "src/api/client.ts",
  "lib/parser.js",
  "docs/design.md",
];
