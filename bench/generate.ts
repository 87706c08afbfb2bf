// Writes a generated benchmark chat (see bench/lib/data.ts for its shape) and prints its sizes.
//   node out/bench/generate.cjs [messages=10000] [out.jsonl] [seed=1]
import { writeFileSync } from "node:fs";
import { describe, generateTranscript, transcriptFileText } from "./lib/data";

const count = Number(process.argv[2] ?? 10_000);
const out = process.argv[3];
const seed = Number(process.argv[4] ?? 1);
const messages = generateTranscript(count, seed);
if (out) writeFileSync(out, transcriptFileText("bench", messages));
console.log(JSON.stringify(describe(messages), null, 2));
