// The context policy: what one model request is built from.
//   AgentMessage[] --transformContext--> AgentMessage[] --convertToLlm--> Message[]
// Both are pure. They never mutate their input (the array and its messages are shared with
// agent.state.messages) and never throw: on any failure they fall back to a safe value.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { AssistantMessage, Message, ToolResultMessage, UserMessage } from "@earendil-works/pi-ai";
import { applyCompaction } from "./context/compaction";
import { appMessageFact } from "./context/app-message-facts";
import { withoutRefusedImages } from "./context/refused-images";
import { estimateMessageTokens } from "./context/tokens";
import { isAppMessage } from "./messages";
import { messageModelMark } from "../shared/model-visibility";

export interface ContextPolicyOptions {
  /** Rough token budget for the messages of one request (system prompt and tools included). */
  maxContextTokens: number;
  /** Called with the reason when the policy had to fall back to its input. Must not throw either. */
  onFallback?: (reason: string) => void;
}

/** ~4 characters a token, over what the model is sent: good enough to decide when to trim, and cheap. */
export function estimateTokens(message: AgentMessage): number {
  return estimateMessageTokens(message);
}

export function createTransformContext(
  options: ContextPolicyOptions & { onView?: (view: RequestView) => void },
): (messages: AgentMessage[]) => Promise<AgentMessage[]> {
  return async (messages) => {
    const view = requestView(messages, options);
    try {
      options.onView?.(view);
    } catch {
      // An observer must not break the request.
    }
    return view.messages;
  };
}

/** One request's view of the transcript, and what of the transcript it leaves out. */
export interface RequestView {
  messages: AgentMessage[];
  /** Messages a compaction summary stands for. */
  summarized: number;
  /** Messages left out by trimming (no summary could make the context fit). */
  trimmed: number;
}

/**
 * The request view of the transcript: tool calls without a result (a run cut off by a crash or a
 * reload) get a synthetic error result; after a compaction the model gets the system prompt, the
 * summary, the kept messages and what followed; when the budget is still exceeded the oldest whole
 * turns are left out, with a note saying so; each image sent before a provider refused an image
 * is a short text instead. The transcript itself is never changed.
 */
export function transformContext(messages: readonly AgentMessage[], options: ContextPolicyOptions): AgentMessage[] {
  return requestView(messages, options).messages;
}

export function requestView(messages: readonly AgentMessage[], options: ContextPolicyOptions): RequestView {
  try {
    // The summary's cut first: a summary's kept messages are counted on the path as saved (no
    // closing results inserted yet), and the passes after it walk the view, not the whole chat, so
    // a request costs what the model gets, not what the chat holds (P21).
    const compacted = applyCompaction(messages);
    // Images a provider refused are not sent again (the transcript keeps them): refused-images.ts.
    // On the view, the same as on the path: a refusal before the kept messages has no image of
    // the view before it (only system messages and the summary), one after has the same ones.
    const sendable = withoutRefusedImages(compacted.messages);
    const trimmed = trimToBudget(closeDanglingToolCalls(sendable), options.maxContextTokens);
    return { messages: trimmed.messages, summarized: compacted.summarized, trimmed: trimmed.left };
  } catch (error) {
    try {
      options.onFallback?.(error instanceof Error ? error.message : String(error));
    } catch {
      // A failing logger must not break the request.
    }
    return { messages: messages.slice(), summarized: 0, trimmed: 0 };
  }
}

function closeDanglingToolCalls(messages: readonly AgentMessage[]): AgentMessage[] {
  const answered = answeredToolCalls(messages);
  const out: AgentMessage[] = [];
  let pending: { id: string; name: string }[] = [];
  const flush = () => {
    for (const call of pending) out.push(interruptedToolResult(call.id, call.name, 0));
    pending = [];
  };
  for (const m of messages) {
    if (m.role === "assistant" || m.role === "user") flush();
    out.push(m);
    if (m.role === "assistant" && m.stopReason !== "error" && m.stopReason !== "aborted") pending = unansweredToolCalls(m, answered);
  }
  // Calls of the last message may still be running in this very run: only close earlier ones.
  return out;
}

function answeredToolCalls(messages: readonly AgentMessage[]): Set<string> {
  const answered = new Set<string>();
  for (const m of messages) if (m.role === "toolResult") answered.add(m.toolCallId);
  return answered;
}

function unansweredToolCalls(message: AssistantMessage, answered: ReadonlySet<string>): { id: string; name: string }[] {
  return message.content.flatMap((c) => (c.type === "toolCall" && !answered.has(c.id) ? [{ id: c.id, name: c.name }] : []));
}

/** The result of a tool call that a crash, a reload or a stop left without one. */
export function interruptedToolResult(toolCallId: string, toolName: string, timestamp: number): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName,
    content: [{ type: "text", text: "This tool call was interrupted before it finished; it has no result. Call it again if it is still needed." }],
    isError: true,
    timestamp,
  };
}

/**
 * Keeps the leading system message (and a compaction summary after it) and the newest turns that
 * fit. Cuts only where a user turn starts, so a tool call is never separated from its result.
 * The fallback for when no summary could be made.
 */
function trimToBudget(messages: AgentMessage[], maxTokens: number): { messages: AgentMessage[]; left: number } {
  if (!(maxTokens > 0)) return { messages, left: 0 };
  const costs = messages.map(estimateTokens);
  let total = costs.reduce((a, b) => a + b, 0);
  if (total <= maxTokens) return { messages, left: 0 };
  let head = 0;
  while (head < messages.length && (messages[head]!.role === "system" || messages[head]!.role === "compactionSummary")) head++;
  // Turn starts after the head, oldest first; never cut the last turn.
  const turnStarts: number[] = [];
  for (let i = head + 1; i < messages.length; i++) {
    const m = messages[i]!;
    const prev = messages[i - 1]!;
    if ((m.role === "user" || m.role === "fileAttachment" || m.role === "bashExecution") && prev.role !== "fileAttachment" && prev.role !== "bashExecution")
      turnStarts.push(i);
  }
  let cut = head;
  for (const start of turnStarts) {
    if (total <= maxTokens) break;
    for (let i = cut; i < start; i++) total -= costs[i]!;
    cut = start;
  }
  if (cut === head) return { messages, left: 0 };
  const note: UserMessage = {
    role: "user",
    content: `[${cut - head} earlier messages of this conversation are not shown, to fit the context window.]`,
    timestamp: 0,
  };
  return { messages: [...messages.slice(0, head), note, ...messages.slice(cut)], left: cut - head };
}

/**
 * What the model sees. Standard messages pass through unchanged (the leading system message
 * included: pi-ai carries the system prompt and tool declarations in it). Each app message is
 * turned into a user message stating the fact, or dropped, as APP_MESSAGE_KINDS says.
 */
export function convertToLlm(messages: readonly AgentMessage[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    try {
      if (!isAppMessage(message)) {
        if (message.role === "system" || message.role === "user" || message.role === "assistant" || message.role === "toolResult") out.push(message);
        continue;
      }
      // One decision for the model and the chat's marks (model-visibility.ts): the kind's switch, a `!!cmd`.
      if (messageModelMark(message).visibility === "never") continue;
      const fact = appMessageFact(message);
      if (fact !== null) out.push({ role: "user", content: fact, timestamp: message.timestamp });
    } catch {
      // A malformed message (from an old or damaged transcript) is left out, never fatal.
    }
  }
  return out;
}

/** True when the transcript ends in the middle of a turn: the next step is the model's. */
export function canContinue(messages: readonly AgentMessage[]): boolean {
  const last = lastTurnMessage(messages);
  if (!last) return false;
  if (last.role === "user" || last.role === "toolResult" || last.role === "fileAttachment") return true;
  return last.role === "assistant" && isCutOff(last);
}

/**
 * What `continue()` appends before the agent picks a cut-off turn up (pure: only new messages):
 * a result for each tool call a reload or crash left without one; after a provider error, an info
 * notice marking the retry (never sent to the model), and the model retries from the last user turn;
 * after an answer cut at the token limit, the request to continue it (the model reads why).
 */
export function repairsBeforeContinue(messages: readonly AgentMessage[], now: number): AgentMessage[] {
  // The turn's assistant message: results that did arrive (a first call done, a second cut off) come after it.
  let last: AssistantMessage | undefined;
  for (let i = messages.length - 1; i >= 0 && !last; i--) {
    const m = messages[i]!;
    if (m.role === "assistant") last = m;
    else if (m.role !== "toolResult" && m.role !== "localNotice" && m.role !== "approvalNotice" && m.role !== "compactionSummary") return [];
  }
  if (!last) return [];
  if (last.stopReason === "toolUse")
    return unansweredToolCalls(last, answeredToolCalls(messages)).map((call) => interruptedToolResult(call.id, call.name, now));
  if (last.stopReason === "error") return [{ role: "localNotice", level: "info", text: "Retrying after the error.", timestamp: now }];
  // The model is told its answer was cut, so it goes on instead of starting over (app-message-facts.ts).
  if (last.stopReason === "length") return [{ role: "answerContinued", reason: "length", timestamp: now }];
  return [];
}

/** The last turn is an answer the server cut at its output token limit: its card offers Continue. */
export function cutAtTokenLimit(messages: readonly AgentMessage[]): boolean {
  const last = lastTurnMessage(messages);
  return last?.role === "assistant" && last.stopReason === "length";
}

/** The newest message that is not a notice: notices never change what comes next. */
function lastTurnMessage(messages: readonly AgentMessage[]): AgentMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "localNotice" && m.role !== "approvalNotice" && m.role !== "compactionSummary") return m;
  }
  return undefined;
}

/**
 * A tool-use message is cut off when a reload or crash came before its results were saved;
 * a provider error (401, 429, network) can be retried once the cause is fixed; an answer the
 * server cut at its output token limit can be continued. A run the user stopped is not: they chose to.
 */
function isCutOff(message: AssistantMessage): boolean {
  return message.stopReason === "toolUse" || message.stopReason === "error" || message.stopReason === "length";
}
