// A second caller joins the run under way; a settled run, kept or failed, lets the next one start.
import assert from "node:assert/strict";
import { joinRunning } from "../../../src/core/join-running";

describe("joinRunning", () => {
  it("a second call while the first runs gets the same promise and starts nothing", async () => {
    const running = new Map<string, Promise<number>>();
    let starts = 0;
    let finish: (value: number) => void = () => {};
    const start = () => {
      starts++;
      return new Promise<number>((resolve) => {
        finish = resolve;
      });
    };
    const first = joinRunning(running, "openai", start);
    const second = joinRunning(running, "openai", start);
    assert.equal(second, first);
    assert.equal(starts, 1);
    finish(7);
    assert.deepEqual(await Promise.all([first, second]), [7, 7]);
  });

  it("another key runs on its own", () => {
    const running = new Map<string, Promise<string>>();
    const never = () => new Promise<string>(() => {});
    const a = joinRunning(running, "a", never);
    const b = joinRunning(running, "b", never);
    assert.notEqual(a, b);
    assert.equal(running.size, 2);
  });

  it("once a run settles, failed or not, the next call starts afresh", async () => {
    const running = new Map<string, Promise<string>>();
    await assert.rejects(
      joinRunning(running, "k", () => Promise.reject(new Error("cancelled"))),
      /cancelled/,
    );
    assert.equal(running.size, 0);
    assert.equal(await joinRunning(running, "k", () => Promise.resolve("again")), "again");
    assert.equal(running.size, 0);
  });
});
