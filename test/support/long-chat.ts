// A long saved chat of plain questions and answers ("Question i" / "Answer i"), as another window
// would have written it: the restore tests open it at its newest messages and ask for the rest.
import type { AgentMessage } from "@earendil-works/pi-agent-core";

export function questionsAndAnswers(turns: number, options: { at?: number; model?: string } = {}): AgentMessage[] {
  const at = options.at ?? 0;
  const messages: AgentMessage[] = [];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: "user", content: [{ type: "text", text: `Question ${i}` }], timestamp: at + i });
    messages.push({
      role: "assistant",
      content: [{ type: "text", text: `Answer ${i}` }],
      api: "openai-completions",
      provider: "local",
      model: options.model ?? "local-model",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "stop",
      timestamp: at + i,
    });
  }
  return messages;
}
