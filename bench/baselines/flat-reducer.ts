// BASELINE (not Pi Chat): the textbook immutable reducer over one flat ChatItem[]: a delta copies
// the items array to replace the streaming item (what `[...items.slice(0, -1), updated]` or
// `items.map(...)` in a React/Redux-style chat does). O(items) per delta.
import type { AssistantItem, ChatItem } from "../../src/shared/chat-items";

export interface FlatState {
  readonly items: readonly ChatItem[];
}

export function flatDelta(state: FlatState, index: number, text: string): FlatState {
  const items = state.items.slice();
  const last = items.length - 1;
  const item = items[last] as AssistantItem;
  items[last] = { ...item, blocks: item.blocks.map((b) => (b.index === index ? { ...b, text: b.text + text } : b)) };
  return { items };
}
