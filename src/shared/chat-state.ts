// The view's state at rest: the empty chat and its items in order (settled chunks, then the live
// part). Shared by the reducer and the transcript pass, so neither has to import the other.
import type { ChatItem, ChatState } from "./chat-items";

export const emptyChatState: ChatState = { settled: [], live: [], messageCount: 0, openId: null, running: false, forks: [], queue: [], queueKept: false };

export function chatItems(state: ChatState): ChatItem[] {
  const out: ChatItem[] = [];
  for (const chunk of state.settled) for (const item of chunk) out.push(item);
  for (const item of state.live) out.push(item);
  return out;
}
