// The user's own words that a compaction keeps verbatim beside the model-written summary (the model
// reads them as userWordsFact in app-message-facts.ts says): the
// first prompt (the goal) and the newest ones, within a bound. A summary is the model's reading of
// the chat; the goal, an explicit instruction ("never touch the tests") or a correction ("no, port
// 8080") must reach the next request exactly as the user wrote them, whatever the summary says.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { CHARS_PER_TOKEN, tokensOfText } from "./tokens";

/** One prompt is kept up to this many characters (its head: what the user said first). */
export const USER_WORDS_MAX_CHARS_EACH = 2_000;
/** At most this many tokens of the user's words travel with a summary, and never more than a sixteenth of the threshold. */
export const USER_WORDS_MAX_TOKENS = 1_500;

export function userWordsBudget(threshold: number): number {
  return Math.max(0, Math.min(USER_WORDS_MAX_TOKENS, Math.floor(threshold / 16)));
}

/** The text of a user prompt, or undefined for one with no text (an image alone). */
function promptText(message: AgentMessage): string | undefined {
  if (message.role !== "user") return undefined;
  const text = typeof message.content === "string" ? message.content : message.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n");
  const trimmed = text.trim();
  return trimmed === "" ? undefined : trimmed;
}

function capped(text: string): string {
  return text.length <= USER_WORDS_MAX_CHARS_EACH ? text : `${text.slice(0, USER_WORDS_MAX_CHARS_EACH)} […]`;
}

/**
 * The user's words to keep: the previous summary's, then the prompts of `summarized`, reduced to
 * the first (the goal) and the newest that fit `maxTokens`, in the order they were said.
 */
export function keptUserWords(previous: readonly string[] | undefined, summarized: readonly AgentMessage[], maxTokens: number): string[] {
  const all = [...(Array.isArray(previous) ? previous.filter((w): w is string => typeof w === "string") : [])];
  for (const m of summarized) {
    const text = promptText(m);
    if (text !== undefined) all.push(capped(text));
  }
  if (all.length === 0 || maxTokens <= 0) return [];
  const first = all[0]!;
  let left = maxTokens - tokensOfText(first);
  if (left < 0) return [first.slice(0, maxTokens * CHARS_PER_TOKEN)];
  const newest: string[] = [];
  for (let i = all.length - 1; i > 0; i--) {
    const cost = tokensOfText(all[i]!);
    if (cost > left) break;
    newest.push(all[i]!);
    left -= cost;
  }
  return [first, ...newest.reverse()];
}
