// Cutting the chat's items back: to a message (a branch switch, a retry, an edit) and marking
// what a compaction summarized. Pure; chunks that do not change are kept as they are.
import type { ChatItem, ChatState } from "./chat-items";

/**
 * Marks the items of messages before `firstKept` (a message index) as summarized. Tool and
 * approval cards follow the message they belong to. Chunks that do not change are kept as they are.
 */
export function markSummarized(state: ChatState, firstKept: number): ChatState {
  let current = false;
  const mark = (items: readonly ChatItem[]): readonly ChatItem[] => {
    let out: ChatItem[] | undefined;
    items.forEach((item, index) => {
      const match = /^m(\d+)$/.exec(item.id);
      if (match) current = Number(match[1]) < firstKept;
      if (current && !item.summarized && item.kind !== "summary") {
        out ??= items.slice();
        out[index] = { ...item, summarized: true };
      }
    });
    return out ?? items;
  };
  const settled = state.settled.map(mark);
  const live = mark(state.live);
  const changed = live !== state.live || settled.some((chunk, i) => chunk !== state.settled[i]);
  return changed ? { ...state, settled, live } : state;
}

/** Items that carry the index of their own message in their id (`m<index>`); tool and approval cards belong to the message before them. */
export function messageIndexOf(item: ChatItem): number | undefined {
  if (item.kind === "tool") return undefined;
  // "compacting" (a summary being written) has no message yet: it goes with whatever is dropped.
  const index = /^m(\d+)$/.exec(item.id);
  return index ? Number(index[1]) : Number.POSITIVE_INFINITY;
}

/**
 * Drops the items of messages `keep` and later. Works from the end, so the cost is the number of
 * items dropped plus the number of chunks, not the length of the chat.
 */
export function rewind(state: ChatState, keep: number): ChatState {
  if (keep >= state.messageCount && state.openId === null) return state;
  const chunks: (readonly ChatItem[])[] = [...state.settled, state.live];
  let chunk = chunks.length - 1;
  let cut = chunks[chunk]!.length;
  // Walk back over whole message groups (a message item and the cards after it).
  let c = chunk;
  let i = cut - 1;
  for (;;) {
    while (c >= 0 && i < 0) {
      c--;
      i = c >= 0 ? chunks[c]!.length - 1 : -1;
    }
    if (c < 0) {
      chunk = 0;
      cut = 0;
      break;
    }
    const index = messageIndexOf(chunks[c]![i]!);
    if (index !== undefined) {
      if (index < keep) break;
      chunk = c;
      cut = i;
    }
    i--;
  }
  const kept = chunks.slice(0, chunk);
  const partial = chunks[chunk]!.slice(0, cut);
  if (partial.length > 0) kept.push(partial);
  // A cut inside the messages a restore did not build: fewer of them are missing now.
  const { earlier, ...whole } = state;
  const missing = earlier === undefined ? 0 : Math.min(earlier, keep);
  const rewound: ChatState = {
    ...whole,
    ...(missing > 0 ? { earlier: missing } : {}),
    settled: [],
    live: [],
    messageCount: Math.min(keep, state.messageCount),
    openId: null,
    forks: (state.forks ?? []).filter((f) => f.messageIndex < keep && f.showAt < keep),
  };
  // Everything kept is final: settle it (in the existing chunks, without copying items).
  return { ...rewound, settled: kept.filter((k) => k.length > 0) };
}

/** What a restore's note (or its Redo's) changes on the items before it. */
export interface RestoreMarks {
  redo: boolean;
  redoMarkId?: string;
  /** The prompt's path index: edits of its turn and later ones were restored. */
  messageIndex?: number;
  /** The files put back or deleted. */
  paths: readonly string[];
}

/**
 * A restore marks the applied edits of the restored turns whose file it put back (they no longer
 * hold); its Redo clears those marks and turns the restore note's *Redo* into "done". Chunks that
 * do not change are kept as they are.
 */
export function markRestore(state: ChatState, marks: RestoreMarks): ChatState {
  const paths = new Set(marks.paths);
  let current = -1;
  const mark = (items: readonly ChatItem[]): readonly ChatItem[] => {
    let out: ChatItem[] | undefined;
    items.forEach((item, index) => {
      const own = messageIndexOf(item);
      if (own !== undefined && Number.isFinite(own)) current = own;
      let next: ChatItem = item;
      if (item.kind === "tool" && item.name === "edit_file" && item.status === "success" && paths.has(editPath(item) ?? "")) {
        if (!marks.redo && marks.messageIndex !== undefined && current >= marks.messageIndex && !item.undoneByRestore)
          next = { ...item, undoneByRestore: true };
        else if (marks.redo && item.undoneByRestore) {
          const { undoneByRestore: _redone, ...rest } = item;
          next = rest;
        }
      } else if (marks.redo && item.kind === "notice" && item.redo?.state === "offered" && item.redo.markId === marks.redoMarkId) {
        next = { ...item, redo: { ...item.redo, state: "done" } };
      }
      if (next !== item) {
        out ??= items.slice();
        out[index] = next;
      }
    });
    return out ?? items;
  };
  const settled = state.settled.map(mark);
  const live = mark(state.live);
  const changed = live !== state.live || settled.some((chunk, i) => chunk !== state.settled[i]);
  return changed ? { ...state, settled, live } : state;
}

/** The file an edit_file call wrote (its result's path, else its arguments'). */
function editPath(item: ChatItem & { kind: "tool" }): string | undefined {
  for (const source of [item.details, item.args]) {
    if (typeof source === "object" && source !== null && "path" in source && typeof source.path === "string") return source.path;
  }
  return undefined;
}
