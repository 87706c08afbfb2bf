// The one formatter of sizes, durations and counts that the tools, the host and the cards share.
import assert from "node:assert/strict";
import { formatBytes, formatDuration, plural } from "../../../src/shared/format";

describe("format", () => {
  it("formatBytes: binary units, one decimal at most", () => {
    assert.deepEqual([0, 1023, 1024, 1536, 12_345, 1024 * 1024 - 1, 1024 * 1024, 5.25 * 1024 * 1024].map(formatBytes), [
      "0 B",
      "1023 B",
      "1 KB",
      "1.5 KB",
      "12.1 KB",
      "1024 KB",
      "1 MB",
      "5.3 MB",
    ]);
  });

  it("formatDuration: ms, then seconds (one decimal under 10), then minutes", () => {
    assert.deepEqual([0, 849.6, 1000, 1540, 9_950, 42_400, 185_000].map(formatDuration), ["0 ms", "850 ms", "1.0 s", "1.5 s", "9.9 s", "42 s", "3 min 5 s"]);
  });

  it("plural: one, many, an irregular plural, thousands separated", () => {
    assert.deepEqual(
      [plural(1, "file"), plural(0, "file"), plural(2, "entry", "entries"), plural(1234, "line")],
      ["1 file", "0 files", "2 entries", "1,234 lines"],
    );
  });
});
