// Realistic transcript messages and temp-dir helpers for the transcript tests.

import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { AssistantMessage, SystemMessage, ToolResultMessage, Usage, UserMessage } from "@earendil-works/pi-ai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TranscriptStore, createNodeTranscriptStorage, type TranscriptStoreOptions } from "../../../src/core/transcript";

/** Stands in for the app's approvalNotice (declared elsewhere by declaration merging). */
export interface ApprovalNoticeLike {
  role: "approvalNotice";
  toolCallId: string;
  decision: "allowed" | "denied";
  timestamp: number;
}

export type TestMessage = AgentMessage | ApprovalNoticeLike;

/** Stores opened per directory, closed before it is removed: a debounced index write must not race the removal. */
const openStores = new Map<string, TranscriptStore<TestMessage>[]>();

export function tempDir(): { dir: string; cleanup: () => Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), "pi-transcript-"));
  return {
    dir,
    cleanup: async () => {
      await Promise.all((openStores.get(dir) ?? []).map((store) => store.close().catch(() => undefined)));
      openStores.delete(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function openStore(dir: string, options: TranscriptStoreOptions = {}): TranscriptStore<TestMessage> {
  const store = new TranscriptStore<TestMessage>(createNodeTranscriptStorage(dir), { indexFlushDelayMs: 10, ...options });
  openStores.set(dir, [...(openStores.get(dir) ?? []), store]);
  return store;
}

export function usage(input: number, output: number): Usage {
  return {
    input,
    output,
    cacheRead: 1200,
    cacheWrite: 0,
    reasoning: 48,
    totalTokens: input + output + 1200,
    cost: { input: 0.00042, output: 0.0021, cacheRead: 0.00003, cacheWrite: 0, total: 0.00255 },
  };
}

export function systemMessage(ts: number): SystemMessage {
  return {
    role: "system",
    content: "You are Pi Chat, a coding assistant inside VS Code.",
    toolsAdded: [
      {
        name: "read_file",
        description: "Read a file from the workspace",
        parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      },
    ],
    timestamp: ts,
  };
}

export function userMessage(text: string, ts: number): UserMessage {
  return { role: "user", content: text, timestamp: ts };
}

export function assistantToolCall(callId: string, ts: number, thinkingChars = 400): AssistantMessage {
  return {
    role: "assistant",
    content: [
      {
        type: "thinking",
        thinking: "The user wants the default port. I should read src/config.ts first. ".repeat(Math.ceil(thinkingChars / 70)).slice(0, thinkingChars),
        thinkingSignature: "EqQBCkYIBRgCKkDx3vZ+signature/opaque==" + callId,
      },
      { type: "text", text: "Let me read the config file." },
      { type: "toolCall", id: callId, name: "read_file", arguments: { path: "src/config.ts", offset: 0, limit: null } },
    ],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    responseId: "msg_01" + callId,
    usage: usage(3120, 210),
    stopReason: "toolUse",
    timestamp: ts,
    durationMs: 1834,
  };
}

export function toolResult(callId: string, ts: number, bytes = 3000): ToolResultMessage {
  const line = "export const config = { port: 3000, host: 'localhost', \"quoted\": true };\n";
  const text = line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
  return {
    role: "toolResult",
    toolCallId: callId,
    toolName: "read_file",
    content: [{ type: "text", text }],
    details: { path: "src/config.ts", lines: 42, truncated: false, hunks: [{ start: 1, end: 3 }] },
    isError: false,
    timestamp: ts,
    durationMs: 4,
  };
}

export function assistantAnswer(text: string, ts: number): AssistantMessage {
  return {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "", thinkingSignature: "redacted-opaque-payload", redacted: true },
      { type: "text", text },
    ],
    api: "openai-responses",
    provider: "openai",
    model: "gpt-5",
    usage: usage(3500, 12),
    stopReason: "stop",
    timestamp: ts,
  };
}

export function approvalNotice(callId: string, ts: number): ApprovalNoticeLike {
  return { role: "approvalNotice", toolCallId: callId, decision: "denied", timestamp: ts };
}

/** The scenario chat: system, a read_file round, an answer, an edit denied. */
export function scenarioMessages(): TestMessage[] {
  const t = 1_750_000_000_000;
  return [
    systemMessage(t),
    userMessage("Read src/config.ts and tell me the default port.", t + 1),
    assistantToolCall("toolu_01A", t + 2),
    toolResult("toolu_01A", t + 3),
    assistantAnswer("The default port is 3000.", t + 4),
    userMessage("Change it to 8080.", t + 5),
    assistantToolCall("toolu_01B", t + 6),
    approvalNotice("toolu_01B", t + 7),
    // Multi-byte text last, so cuts land inside UTF-8 sequences too.
    assistantAnswer("好的 — you denied the edit ✓ 🎉; the port stays 3000.", t + 8),
  ];
}

/** `count` messages in the shape of real turns: user, assistant+tool call, tool result, answer. */
export function realisticMessages(count: number): TestMessage[] {
  const t = 1_750_000_000_000;
  const out: TestMessage[] = [systemMessage(t)];
  for (let i = 1; out.length < count; i++) {
    const id = `toolu_${i.toString().padStart(6, "0")}`;
    const turn: TestMessage[] = [
      userMessage(`Question number ${i}: what does the config say now?`, t + i * 10),
      assistantToolCall(id, t + i * 10 + 1),
      toolResult(id, t + i * 10 + 2, 3000),
      assistantAnswer(`Answer ${i}: the port is 3000.`, t + i * 10 + 3),
    ];
    for (const m of turn) if (out.length < count) out.push(m);
  }
  return out;
}
