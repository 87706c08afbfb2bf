import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { contextMeter, contextSize } from "../../../src/core/context/meter";
import { estimateMessageTokens, estimateTokensOf } from "../../../src/core/context/tokens";
import { formatTokens } from "../../../src/shared/context-meter";
import { assistant, summaryMessage, system, text, usage, user } from "./messages";

describe("context meter", () => {
  it("is the last answer's usage (input + cache + output) plus an estimate of what came after", () => {
    const answer = assistant("hi", { ...usage(40_000, 1_200, 0.05), cacheRead: 2_000, cacheWrite: 10 });
    const after = user(text(300));
    const path: AgentMessage[] = [system, user("q"), answer, after];
    // The provider counted far more than our estimate of what it was sent: the estimate of what came
    // after is scaled alike (at most twice).
    assert.deepEqual(contextSize(path), { tokens: 40_000 + 2_000 + 10 + 1_200 + Math.ceil(estimateMessageTokens(after) * 2), estimated: false });
  });

  it("before any request, and after an error, it is an estimate of the messages", () => {
    const path: AgentMessage[] = [system, user(text(500))];
    assert.deepEqual(contextSize(path), { tokens: estimateTokensOf(path), estimated: true });
    const failed = { ...assistant(""), stopReason: "error" as const, usage: usage(0, 0) };
    assert.equal(contextSize([...path, failed]).estimated, true);
  });

  it("after a compaction it starts from the summary's own figure, not from usage of the context that was replaced", () => {
    const big = assistant("old", usage(150_000, 500));
    const summary = summaryMessage({ keptMessageCount: 1, tokensAfter: 3_000 });
    const next = user("go on");
    const size = contextSize([system, user("q"), big, summary, next]);
    // The messages after it are estimated, scaled as the provider's last count was (at most twice).
    assert.deepEqual(size, { tokens: 3_000 + Math.ceil(estimateMessageTokens(next) * 2), estimated: true });
  });

  it("sums the usage and cost of the last turn and of the whole chat, summaries included", () => {
    const path: AgentMessage[] = [
      system,
      user("one"),
      assistant("a", usage(100, 10, 0.01)),
      summaryMessage({ keptMessageCount: 2, usage: { input: 500, output: 50, cacheRead: 0, cacheWrite: 0, cost: 0.002 } }),
      user("two"),
      assistant("b", usage(200, 20, 0.02)),
      assistant("c", usage(300, 30, 0.03)),
    ];
    const meter = contextMeter(path, { contextWindow: 200_000, cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } }, 183_616);
    assert.deepEqual(meter.lastTurn, { input: 500, output: 50, cacheRead: 0, cacheWrite: 0, cost: 0.05 });
    assert.equal(meter.chat.input, 1_100);
    assert.equal(meter.chat.output, 110);
    assert.ok(Math.abs(meter.chat.cost - 0.062) < 1e-9);
    assert.equal(meter.priced, true);
    assert.equal(meter.window, 200_000);
    assert.equal(meter.reduced?.kind, "compacted");
  });

  it("shows no price for a model without prices (a local server)", () => {
    const meter = contextMeter([system, user("q"), assistant("a", usage(10, 1))], {
      contextWindow: 8_000,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    });
    assert.equal(meter.priced, false);
  });

  it("formats like the header shows it", () => {
    assert.equal(formatTokens(41_210), "41.2k");
    assert.equal(formatTokens(200_000), "200k");
    assert.equal(formatTokens(950), "950");
    assert.equal(formatTokens(1_000), "1k");
  });
});
