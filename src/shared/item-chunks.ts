// The chat state's two parts (src/shared/reducer.ts): `settled` items in immutable chunks of
// SETTLED_CHUNK_SIZE, shared between states, and `live` items, copied per change. These helpers
// keep that shape, so a streamed delta costs the same at any chat length.
import type { AssistantItem, ChatItem, ChatState } from "./chat-items";

export const SETTLED_CHUNK_SIZE = 64;

/** Settled items as the state keeps them: chunks of SETTLED_CHUNK_SIZE. */
export function inChunks(items: readonly ChatItem[]): (readonly ChatItem[])[] {
  const chunks: (readonly ChatItem[])[] = [];
  for (let i = 0; i < items.length; i += SETTLED_CHUNK_SIZE) chunks.push(items.slice(i, i + SETTLED_CHUNK_SIZE));
  return chunks;
}

export function updateOpenAssistant(state: ChatState, update: (item: AssistantItem) => AssistantItem): ChatState {
  const id = state.openId;
  if (id === null) return state;
  return updateLive(
    state,
    (i) => i.id === id,
    (i) => (i.kind === "assistant" ? update(i) : i),
  );
}

/** Replaces the last live item matching `match`; the state is returned as is when none does. */
export function updateLive(state: ChatState, match: (item: ChatItem) => boolean, update: (item: ChatItem) => ChatItem): ChatState {
  for (let index = state.live.length - 1; index >= 0; index--) {
    const item = state.live[index]!;
    if (!match(item)) continue;
    const updated = update(item);
    if (updated === item) return state;
    const live = state.live.slice();
    live[index] = updated;
    return { ...state, live };
  }
  return state;
}

export function settleLive(state: ChatState): ChatState {
  if (state.live.length === 0) return state;
  const settled = state.settled.slice();
  let pending = state.live;
  while (pending.length > 0) {
    const last = settled[settled.length - 1];
    const room = last ? SETTLED_CHUNK_SIZE - last.length : 0;
    if (last && room > 0) {
      settled[settled.length - 1] = [...last, ...pending.slice(0, room)];
      pending = pending.slice(room);
    } else {
      settled.push(pending.slice(0, SETTLED_CHUNK_SIZE));
      pending = pending.slice(SETTLED_CHUNK_SIZE);
    }
  }
  return { ...state, settled, live: [] };
}
