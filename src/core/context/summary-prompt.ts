// The summary request: a structured prompt over the conversation serialized as text (so the
// model summarizes it instead of continuing it), the update prompt when an earlier summary
// exists, and the sentence the chat model later gets for a summary.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import type { CompactionPlan } from "./compaction";
import { CHARS_PER_TOKEN } from "./tokens";

export const SUMMARY_SYSTEM_PROMPT = [
  "You write context checkpoints: you read a conversation between a user and an AI coding assistant and write the structured summary another assistant will continue the work from.",
  "Do not continue the conversation. Do not answer questions in it. Output only the summary, in the exact format asked for.",
].join("\n");

const FORMAT = `## Goal
[What the user is trying to accomplish; several items if the chat covers several tasks.]

## Constraints & Preferences
- [Requirements and preferences the user stated, or "(none)"]

## User Instructions & Corrections
- [Every explicit instruction or correction of the user that still holds, quoted verbatim ("…"), or "(none)"]

## Progress
### Done
- [x] [Completed work]
### In Progress
- [ ] [Current work, and every task the user asked for that is not done yet]
### Blocked
- [Problems in the way, or "(none)"]

## Key Decisions
- **[Decision]**: [Why]

## Files
- [Path]: [what was learned or changed there]

## Next Steps
1. [What should happen next, in order]

## Critical Facts
- [Values, names, paths, settings, commands and error messages needed to continue, copied verbatim. When a value was changed, give only the current one and say it replaced the old.]`;

const NEW_SUMMARY = `The text in <conversation> is a conversation to summarize. Write a structured context checkpoint in this EXACT format:

${FORMAT}

Keep each section short. Copy file paths, function names, numbers and error messages exactly.`;

const UPDATE_SUMMARY = `The text in <conversation> is NEW conversation that follows the summary in <previous-summary>. Update that summary with it:
- keep everything in the previous summary that still holds, the user's goal and their quoted instructions and corrections word for word;
- add the new progress, decisions and facts;
- move finished items from "In Progress" to "Done", and update "Next Steps";
- when a value changed (a port, a name, a path), keep only the current value and say it replaced the old one;
- copy file paths, function names, numbers and error messages exactly.

Use this EXACT format:

${FORMAT}`;

const SPLIT_TURN_NOTE =
  'The conversation ends in the middle of the current turn: its remaining messages are kept verbatim after the summary. Say in "In Progress" what that turn asked for and what it has done so far.';

/** A tool result longer than this is cut in the serialized conversation: the summary needs what it said, not all of it. */
export const TOOL_RESULT_MAX_CHARS = 2_000;

export interface SummaryRequest {
  systemPrompt: string;
  prompt: string;
  maxTokens: number;
  /** The conversation was longer than the summary request may be: its oldest part was left out. */
  truncated: boolean;
}

/**
 * The summary request for a plan. `maxInputTokens` bounds the request (the summary request
 * must fit the window too): when the conversation is longer, its oldest part is left out, as
 * the previous summary already covers the start.
 */
export function buildSummaryRequest(
  plan: CompactionPlan,
  convert: (messages: AgentMessage[]) => Message[],
  options: { maxInputTokens: number; maxTokens: number; instructions?: string },
): SummaryRequest {
  const previous = plan.previous?.summary;
  let task = previous ? UPDATE_SUMMARY : NEW_SUMMARY;
  if (plan.splitTurn) task += `\n\n${SPLIT_TURN_NOTE}`;
  const focus = options.instructions?.trim();
  if (focus) task += `\n\nThe user asked this summary to keep in particular: ${focus}`;
  const fixed = `<conversation>\n\n</conversation>\n\n${previous ? `<previous-summary>\n${previous}\n</previous-summary>\n\n` : ""}${task}`;
  const budgetChars = Math.max(1_000, options.maxInputTokens * CHARS_PER_TOKEN - fixed.length - SUMMARY_SYSTEM_PROMPT.length);
  let conversation = serializeConversation(convert(plan.toSummarize));
  let truncated = false;
  if (conversation.length > budgetChars) {
    truncated = true;
    conversation = `[… the oldest part of this conversation is left out: it is too long for one summary request …]\n\n${conversation.slice(conversation.length - budgetChars)}`;
  }
  const prompt = `<conversation>\n${conversation}\n</conversation>\n\n${previous ? `<previous-summary>\n${previous}\n</previous-summary>\n\n` : ""}${task}`;
  return { systemPrompt: SUMMARY_SYSTEM_PROMPT, prompt, maxTokens: options.maxTokens, truncated };
}

/** The conversation as plain text with speaker labels, tool results shortened. */
export function serializeConversation(messages: readonly Message[]): string {
  const parts: string[] = [];
  for (const m of messages) {
    if (m.role === "user") {
      const text = typeof m.content === "string" ? m.content : m.content.map((c) => (c.type === "text" ? c.text : "[image]")).join("\n");
      if (text.trim()) parts.push(`[User]: ${text}`);
    } else if (m.role === "assistant") {
      const text = m.content.flatMap((c) => (c.type === "text" && c.text.trim() ? [c.text] : [])).join("\n");
      const calls = m.content.flatMap((c) =>
        c.type === "toolCall"
          ? [
              `${c.name}(${Object.entries(c.arguments ?? {})
                .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
                .join(", ")})`,
            ]
          : [],
      );
      if (text) parts.push(`[Assistant]: ${text}`);
      if (calls.length > 0) parts.push(`[Assistant tool calls]: ${calls.join("; ")}`);
    } else if (m.role === "toolResult") {
      const text = m.content.map((c) => (c.type === "text" ? c.text : "[image]")).join("\n");
      parts.push(`[Tool result${m.isError ? " (error)" : ""} ${m.toolName}]: ${shorten(text, TOOL_RESULT_MAX_CHARS)}`);
    }
    // System messages are never summarized: they stay in every request.
  }
  return parts.join("\n\n");
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[… ${text.length - max} more characters]`;
}
