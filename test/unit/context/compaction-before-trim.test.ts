// Compaction comes before any turn is left out: the size that decides it is the whole untrimmed
// path, whatever the provider's usage says (a request that was trimmed, a server that counts low
// or reports nothing), so the trim — the fallback — never runs while compaction was not tried.
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { requestView } from "../../../src/core/context-policy";
import { applyCompaction } from "../../../src/core/context/compaction";
import { contextMeter, contextSize } from "../../../src/core/context/meter";
import { estimateMessageTokens, estimateTokensOf } from "../../../src/core/context/tokens";
import { Rng } from "../../support/seeded-random";
import { assistant, summaryMessage, system, text, usage, user } from "./messages";

/** `turns` question/answer pairs of ~`size` tokens each; every answer reports `usageOf(the request it answered)`. */
function chat(turns: number, size: number, usageOf: (requestTokens: number) => number): AgentMessage[] {
  const path: AgentMessage[] = [system];
  for (let i = 0; i < turns; i++) {
    path.push(user(`question ${i} ${text(size)}`));
    const sent = estimateTokensOf(path);
    path.push(assistant(`answer ${i} ${text(size)}`, usage(usageOf(sent), size)));
  }
  return path;
}

describe("compaction before trimming: the size of the untrimmed path", () => {
  it("a usage that counted a trimmed request does not hide the messages the trim left out", () => {
    const path = chat(40, 500, (sent) => sent);
    // The last request was trimmed to ~10k tokens: its usage says so, the path is ~40k.
    const last = path.length - 1;
    path[last] = assistant("answer", usage(10_000, 500));
    const size = contextSize(path);
    assert.ok(size.tokens >= estimateTokensOf(path), `${size.tokens} < the path's ${estimateTokensOf(path)}`);
    assert.equal(size.estimated, true);
    assert.ok(contextSize(path).tokens > 30_000);
  });

  it("a server that counts half, or reports nothing, still gets the path's size", () => {
    const exact = chat(20, 400, (sent) => sent);
    const half = chat(20, 400, (sent) => Math.floor(sent / 2));
    const none = chat(20, 400, () => 0);
    const whole = estimateTokensOf(exact);
    for (const [name, path] of [
      ["half", half],
      ["none", none],
    ] as const) {
      assert.ok(contextSize(path).tokens >= whole - 2 * 400, `${name}: ${contextSize(path).tokens} vs ${whole}`);
    }
  });

  it("a provider that counts more than our estimate is believed, for what it saw and for what follows", () => {
    const path = chat(5, 200, (sent) => Math.floor(sent * 1.5));
    const answer = path[path.length - 1]!;
    const sent = answer.role === "assistant" ? answer.usage.input + answer.usage.output : 0;
    const next = user(`next ${text(1_000)}`);
    const size = contextSize([...path, next]);
    assert.ok(size.tokens >= sent + estimateMessageTokens(next) * 1.45, `${size.tokens}: the new message is scaled like the count`);
    assert.ok(size.tokens > estimateTokensOf([...path, next]) * 1.4);
  });

  it("after a compaction: the summary, the kept messages and what followed, estimated where no usage covers them", () => {
    const before = chat(30, 300, (sent) => sent);
    const summary = summaryMessage({ keptMessageCount: 4, tokensAfter: 2_000 });
    const after = [user(`go on ${text(3_000)}`)];
    const path = [...before, summary, ...after];
    const view = estimateTokensOf(applyCompaction(path).messages);
    assert.equal(contextSize(path).tokens, Math.max(view, 2_000 + estimateMessageTokens(after[0]!)));
  });

  it("the trim never runs while the untrimmed path is under the threshold (any usage, any sizes)", () => {
    const rng = new Rng(22);
    let trims = 0;
    for (let n = 0; n < 300; n++) {
      const factor = [0, 0.5, 0.8, 1, 1.3, 2][Math.floor(rng.next() * 6)]!;
      const path = chat(1 + Math.floor(rng.next() * 40), 50 + Math.floor(rng.next() * 600), (sent) => Math.floor(sent * factor));
      if (rng.next() < 0.3) path.splice(Math.floor(path.length / 2), 0, summaryMessage({ keptMessageCount: 3, tokensAfter: 1_000 }));
      const threshold = 2_000 + Math.floor(rng.next() * 20_000);
      const view = requestView(path, { maxContextTokens: threshold });
      if (view.trimmed === 0) continue;
      trims++;
      const size = contextSize(path).tokens;
      assert.ok(size > threshold, `case ${n}: trimmed ${view.trimmed} messages while the path's size ${size} ≤ threshold ${threshold}`);
    }
    assert.ok(trims > 50, `the cases reach the trim (${trims})`);
  });

  it("the meter shows that same size, and its drop after a compaction", () => {
    const path = chat(30, 500, (sent) => Math.floor(sent / 2));
    const meter = contextMeter(path, { contextWindow: 32_768 }, 24_576);
    assert.equal(meter.tokens, contextSize(path).tokens);
    const compacted = [...path, summaryMessage({ keptMessageCount: 2, tokensAfter: 3_000 })];
    const after = contextMeter(compacted, { contextWindow: 32_768 }, 24_576);
    assert.ok(after.tokens < meter.tokens / 3, `${after.tokens} after vs ${meter.tokens} before`);
    assert.equal(after.reduced?.kind, "compacted");
  });
});
