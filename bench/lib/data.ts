// Benchmark data: transcripts of realistic shape, deterministic (seeded PRNG).
// (`node out/bench/generate.cjs` prints the sizes or writes a chat file.)
//
// One "turn" of a generated chat is what a coding session produces:
//   user prompt (sometimes after a fileAttachment)
//   assistant: thinking + short text + read_file call            → toolResult: a few KB of source
//   assistant: thinking + text + edit_file call                  → approvalNotice (with the diff)
//                                                                 → toolResult: summary + unified diff in details
//   assistant: thinking + a Markdown answer with code
// (about 1 in 6 turns is a plain question: user → assistant with thinking + answer)
// A chat starts with the system message. Sizes are printed by `node out/bench/generate.cjs`.
//
// Also here: the 20,000-token streamed answer of P1, as the AgentEvents pi-agent-core emits
// (message_start, one message_update per token carrying the partial message, message_end),
// built the way pi-ai's faux provider streams a message.
import type { AgentEvent, AgentMessage } from "@earendil-works/pi-agent-core";
import type { AssistantMessage, AssistantMessageEvent, Usage } from "@earendil-works/pi-ai";
import type { ApprovalNoticeMessage, FileAttachmentMessage } from "../../src/core/messages";
import { chatItems, stateFromTranscript } from "../../src/shared/reducer";
import { FILE_PATHS, markdownText, markdownTokens, Rng, sourceFile, thinkingText, thinkingTokens } from "./random";

const BASE_TIME = Date.UTC(2025, 0, 6, 9, 0, 0);
const MODEL = { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5" } as const;

function usage(rng: Rng, output: number): Usage {
  const input = rng.int(2_000, 60_000);
  const cacheRead = rng.int(0, input);
  return {
    input: input - cacheRead,
    output,
    cacheRead,
    cacheWrite: rng.int(0, 2_000),
    totalTokens: input + output,
    cost: { input: 0.003, output: output * 0.000015, cacheRead: 0.0004, cacheWrite: 0.0001, total: 0.004 + output * 0.000015 },
  };
}

function assistant(rng: Rng, at: number, content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"]): AssistantMessage {
  const chars = content.reduce(
    (n, b) => n + (b.type === "text" ? b.text.length : b.type === "thinking" ? b.thinking.length : JSON.stringify(b.arguments).length),
    0,
  );
  return {
    role: "assistant",
    content,
    ...MODEL,
    responseId: rng.id("msg"),
    usage: usage(rng, Math.ceil(chars / 4)),
    stopReason,
    timestamp: at,
    durationMs: rng.int(800, 20_000),
  };
}

function thinking(rng: Rng, chars: number): AssistantMessage["content"][number] {
  return { type: "thinking", thinking: thinkingText(rng, chars), thinkingSignature: rng.id("sig").repeat(8) };
}

/** A generated chat of exactly `count` messages (the first is the system message). */
export function generateTranscript(count: number, seed = 1): AgentMessage[] {
  const rng = new Rng(seed);
  const messages: AgentMessage[] = [];
  let at = BASE_TIME;
  const tick = (): number => (at += rng.int(500, 30_000));
  messages.push({
    role: "system",
    content:
      "You are Pi Chat, a coding assistant inside the user's editor.\nYou can read files of the open workspace with read_file and change them with edit_file.\n" +
      "Paths are relative to the workspace root. Read a file before you edit it; edit_file replaces one exact occurrence of oldText.\nAnswer concisely, in Markdown.",
    timestamp: tick(),
  });
  while (messages.length < count) {
    for (const message of generateTurn(rng, tick)) {
      if (messages.length >= count) break;
      messages.push(message);
    }
  }
  return messages;
}

/** A generated chat whose ChatItems number at least `items` (whole turns). */
export function generateTranscriptWithItems(items: number, seed = 1): AgentMessage[] {
  // ~7 items per 8 messages; grow until there are enough, then cut to the first message that reaches the count.
  let count = Math.max(4, Math.ceil(items * 1.3));
  for (;;) {
    const messages = generateTranscript(count, seed);
    const state = stateFromTranscript(messages);
    if (chatItems(state).length >= items) {
      let lo = 1;
      let hi = messages.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (chatItems(stateFromTranscript(messages.slice(0, mid))).length >= items) hi = mid;
        else lo = mid + 1;
      }
      return messages.slice(0, lo);
    }
    count = Math.ceil(count * 1.5);
  }
}

function* generateTurn(rng: Rng, tick: () => number): Generator<AgentMessage> {
  const path = rng.pick(FILE_PATHS);
  if (rng.chance(0.1)) {
    const attachment: FileAttachmentMessage = {
      role: "fileAttachment",
      path,
      range: { startLine: rng.int(1, 80), endLine: rng.int(81, 200) },
      timestamp: tick(),
    };
    yield attachment;
  }
  yield { role: "user", content: markdownText(rng, rng.int(60, 700)).replace(/```[\s\S]*?```/g, ""), timestamp: tick() };

  if (rng.chance(1 / 6)) {
    yield assistant(rng, tick(), [thinking(rng, rng.int(200, 1500)), { type: "text", text: markdownText(rng, rng.int(300, 3000)) }], "stop");
    return;
  }

  // read_file
  const readId = rng.id("toolu");
  yield assistant(
    rng,
    tick(),
    [
      thinking(rng, rng.int(150, 900)),
      { type: "text", text: markdownText(rng, rng.int(40, 240)) },
      { type: "toolCall", id: readId, name: "read_file", arguments: { path } },
    ],
    "toolUse",
  );
  const lines = sourceFile(rng, rng.int(1_500, 6_000));
  const text = lines.map((l, i) => `${String(i + 1).padStart(4)}\t${l}`).join("\n");
  yield {
    role: "toolResult",
    toolCallId: readId,
    toolName: "read_file",
    content: [{ type: "text", text }],
    details: { path, totalLines: lines.length, fileBytes: text.length, startLine: 1, endLine: lines.length, truncated: false, bytes: text.length },
    isError: false,
    timestamp: tick(),
    durationMs: rng.int(1, 30),
  };

  // edit_file, with the approval and a unified diff
  const editId = rng.id("toolu");
  const start = rng.int(0, Math.max(0, lines.length - 8));
  const oldLines = lines.slice(start, start + rng.int(2, 6));
  const newLines = [...oldLines.slice(0, 1), ...sourceFile(rng, rng.int(80, 600)), ...oldLines.slice(-1)];
  yield assistant(
    rng,
    tick(),
    [
      thinking(rng, rng.int(200, 1200)),
      { type: "text", text: markdownText(rng, rng.int(40, 300)) },
      { type: "toolCall", id: editId, name: "edit_file", arguments: { path, oldText: oldLines.join("\n"), newText: newLines.join("\n") } },
    ],
    "toolUse",
  );
  const ctxBefore = lines.slice(Math.max(0, start - 3), start);
  const ctxAfter = lines.slice(start + oldLines.length, start + oldLines.length + 3);
  const hunkLines = [...ctxBefore.map((l) => " " + l), ...oldLines.map((l) => "-" + l), ...newLines.map((l) => "+" + l), ...ctxAfter.map((l) => " " + l)];
  const oldStart = Math.max(1, start - ctxBefore.length + 1);
  const hunk = {
    oldStart,
    oldLines: ctxBefore.length + oldLines.length + ctxAfter.length,
    newStart: oldStart,
    newLines: ctxBefore.length + newLines.length + ctxAfter.length,
    lines: hunkLines,
  };
  const diff = `--- a/${path}\n+++ b/${path}\n@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@\n${hunkLines.join("\n")}\n`;
  const denied = rng.chance(0.1);
  const notice: ApprovalNoticeMessage = {
    role: "approvalNotice",
    toolCallId: editId,
    toolName: "edit_file",
    decision: denied ? "denied" : "allowed",
    ...(denied ? { reason: "Not like this, keep the old name." } : {}),
    path,
    diff,
    timestamp: tick(),
  };
  const result: AgentMessage = denied
    ? {
        role: "toolResult",
        toolCallId: editId,
        toolName: "edit_file",
        content: [{ type: "text", text: "The user denied this edit: Not like this, keep the old name." }],
        isError: true,
        timestamp: tick(),
      }
    : {
        role: "toolResult",
        toolCallId: editId,
        toolName: "edit_file",
        content: [
          { type: "text", text: `Edited ${path}: +${newLines.length} -${oldLines.length} lines, first change at line ${oldStart + ctxBefore.length}.` },
        ],
        details: { path, diff, hunks: [hunk], additions: newLines.length, deletions: oldLines.length, firstChangedLine: oldStart + ctxBefore.length },
        isError: false,
        timestamp: tick(),
        durationMs: rng.int(2, 40),
      };
  // The gate decides before the tool runs; the notice reaches the transcript after the result.
  yield result;
  yield notice;

  yield assistant(rng, tick(), [thinking(rng, rng.int(100, 800)), { type: "text", text: markdownText(rng, rng.int(300, 3000)) }], "stop");
}

// ---- P1: a long streamed answer ----

export interface StreamedAnswer {
  thinking: string[];
  text: string[];
  final: AssistantMessage;
}

/** A streamed answer of `thinkingCount` + `textCount` tokens (one token per delta event). */
export function streamedAnswer(seed: number, thinkingCount: number, textCount: number): StreamedAnswer {
  const rng = new Rng(seed);
  const thinking = thinkingTokens(rng, thinkingCount);
  const text = markdownTokens(rng, textCount);
  const final = assistant(
    rng,
    BASE_TIME,
    [
      { type: "thinking", thinking: thinking.join("") },
      { type: "text", text: text.join("") },
    ],
    "stop",
  );
  return { thinking, text, final };
}

/** One step of the stream: an AgentEvent, and whether it carries a token (the clock advances before those). */
export interface StreamStep {
  token: boolean;
  event: AgentEvent;
}

/**
 * The AgentEvents of one agent run answering with `answer`, in the order and shape pi-agent-core's
 * loop emits them over pi-ai's faux stream: `message_update.message` is a shallow copy of the partial
 * message, whose content blocks grow in place (consume each event before pulling the next).
 */
export function* streamEvents(answer: StreamedAnswer): Generator<StreamStep> {
  const final = answer.final;
  const partial: AssistantMessage = { ...final, content: [], stopReason: "pending", usage: { ...final.usage, output: 0 } };
  const update = (assistantMessageEvent: AssistantMessageEvent): AgentEvent => ({ type: "message_update", assistantMessageEvent, message: { ...partial } });
  yield { token: false, event: { type: "agent_start" } };
  yield { token: false, event: { type: "turn_start" } };
  yield { token: false, event: { type: "message_start", message: { ...partial } } };

  const thinkingBlock = { type: "thinking" as const, thinking: "" };
  partial.content = [thinkingBlock];
  yield { token: false, event: update({ type: "thinking_start", contentIndex: 0, partial: { ...partial } }) };
  for (const delta of answer.thinking) {
    thinkingBlock.thinking += delta;
    yield { token: true, event: update({ type: "thinking_delta", contentIndex: 0, delta, partial: { ...partial } }) };
  }
  yield { token: false, event: update({ type: "thinking_end", contentIndex: 0, content: thinkingBlock.thinking, partial: { ...partial } }) };

  const textBlock = { type: "text" as const, text: "" };
  partial.content = [thinkingBlock, textBlock];
  yield { token: false, event: update({ type: "text_start", contentIndex: 1, partial: { ...partial } }) };
  for (const delta of answer.text) {
    textBlock.text += delta;
    yield { token: true, event: update({ type: "text_delta", contentIndex: 1, delta, partial: { ...partial } }) };
  }
  yield { token: false, event: update({ type: "text_end", contentIndex: 1, content: textBlock.text, partial: { ...partial } }) };

  yield { token: false, event: { type: "message_end", message: final } };
  yield { token: false, event: { type: "turn_end", message: final, toolResults: [] } };
  yield { token: false, event: { type: "agent_end", messages: [final] } };
}

// ---- sizes ----

export function jsonlBytes(messages: readonly AgentMessage[]): number {
  let n = 0;
  for (const m of messages) n += Buffer.byteLength(JSON.stringify({ type: "message", message: m })) + 1;
  return n;
}

export function describe(messages: readonly AgentMessage[]): { messages: number; items: number; bytes: number; byRole: Record<string, number> } {
  const byRole: Record<string, number> = {};
  for (const m of messages) byRole[m.role] = (byRole[m.role] ?? 0) + 1;
  return { messages: messages.length, items: chatItems(stateFromTranscript(messages)).length, bytes: jsonlBytes(messages), byRole };
}

/** The chat file TranscriptStore would have written for these messages. */
export function transcriptFileText(chatId: string, messages: readonly AgentMessage[]): string {
  const header = JSON.stringify({ type: "header", version: 1, chatId, createdAt: BASE_TIME });
  return header + "\n" + messages.map((m) => JSON.stringify({ type: "message", message: m }) + "\n").join("");
}
