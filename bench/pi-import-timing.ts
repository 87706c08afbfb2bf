// A figure for docs/pi-sessions.md, not a test: the time to read and map a pi session of 15,000
// chained compaction entries, and one with a 40 MB first message (refused by the reader's entry
// limit now). Run:
//   node_modules/.bin/esbuild bench/pi-import-timing.ts --bundle --platform=node --outfile=out/pi-import-timing.cjs && node out/pi-import-timing.cjs
import { importPiSession, parsePiSession } from "../src/core/pi-sessions";

const HEADER = JSON.stringify({ type: "session", version: 3, id: "11111111-2222-3333-4444-555555555555", timestamp: "2026-01-02T03:04:05.000Z", cwd: "/p" });
const user = (text: string) => ({ type: "message", id: "u0", parentId: null, timestamp: "", message: { role: "user", content: text, timestamp: 1 } });

function compactions(n: number): Buffer {
  const lines = [HEADER, JSON.stringify(user("hi"))];
  let parent = "u0";
  for (let i = 0; i < n; i++) {
    lines.push(
      JSON.stringify({
        type: "compaction",
        id: `c${i}`,
        parentId: parent,
        timestamp: "",
        summary: `summary ${i}`,
        firstKeptEntryId: parent,
        tokensBefore: 1000,
      }),
    );
    parent = `c${i}`;
  }
  return Buffer.from(`${lines.join("\n")}\n`);
}

const cases: [string, Buffer][] = [
  ["15,000 compaction entries", compactions(15_000)],
  ["a 40 MB first message", Buffer.from(`${HEADER}\n${JSON.stringify(user("x".repeat(40 * 1024 * 1024)))}\n`)],
];
for (const [name, bytes] of cases) {
  const started = performance.now();
  const parsed = parsePiSession(bytes);
  const read = performance.now();
  const imported = parsed.ok ? importPiSession(parsed.session, { path: "/x.jsonl" }, 0) : undefined;
  const mapped = performance.now();
  const outcome = imported ? `${imported.nodes.length} nodes` : `refused: ${parsed.ok ? "" : parsed.reason}`;
  console.log(`${name}: read ${(read - started).toFixed(0)} ms, map ${(mapped - read).toFixed(0)} ms; ${outcome}`);
}
