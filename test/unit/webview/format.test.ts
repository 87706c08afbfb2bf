// groupDigits must write what toLocaleString("en-US") writes, which it stands in for.
import assert from "node:assert/strict";
import { clockTime, groupDigits } from "../../../webview/format";

describe("the view's number and time formats", () => {
  it("groupDigits writes integers as toLocaleString('en-US') does", () => {
    for (const n of [0, 7, 42, 999, 1_000, 9_800, 12_345, 100_000, 999_999, 1_000_000, 1_234_567_890, -1, -1_000, -9_876_543, Number.MAX_SAFE_INTEGER]) {
      assert.equal(groupDigits(n), n.toLocaleString("en-US"), String(n));
    }
  });

  it("other numbers go through toLocaleString", () => {
    for (const n of [1.5, 1234.5678, Number.NaN, Number.POSITIVE_INFINITY]) assert.equal(groupDigits(n), n.toLocaleString("en-US"));
  });

  it("clockTime is the locale's hour and minute, and nothing for no time", () => {
    const ms = Date.UTC(2026, 11, 5, 10, 42);
    assert.equal(clockTime(ms), new Date(ms).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" }));
    assert.equal(clockTime(0), "");
    assert.equal(clockTime(Number.NaN), "");
  });
});
