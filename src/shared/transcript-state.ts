// A saved transcript's view, built in one mutable pass instead of folding the reducer over
// every message (a restore is on the user's path when VS Code starts), and the window of it a
// restore builds first: the newest messages, the earlier ones when the view comes near them.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ToolResultMessage } from "@earendil-works/pi-ai";
import type { ChatItem, ChatState, ToolItem } from "./chat-items";
import { chatItems, emptyChatState } from "./chat-state";
import { SavedDiffs, withoutDiffText } from "./diff-hunks";
import { backgroundEndIn, mergeBackgroundState } from "./background-state";
import { inChunks } from "./item-chunks";
import { finalAssistant, itemForMessage, restoreMarks, startsUserTurn } from "./message-items";
import { markRestore, markSummarized, messageIndexOf } from "./reducer-rewind";
import { newApproval, newToolItem, setApprovalFromNotice, setToolDone } from "./tool-items";
import { currentTaskList } from "./task-list";
import { currentMode } from "./chat-mode";
import { approvablePlan } from "./plans";

/**
 * A restore builds the items of about this many of the newest messages; the view asks for the
 * earlier ones when it is scrolled near them. Opening a 10,000-message chat then costs the items
 * of a few screens, not of the whole chat (and a snapshot that carries them, not all).
 */
export const RESTORE_WINDOW_MESSAGES = 200;

/**
 * Rebuilds the view of a saved transcript: what folding `reduce` over a `message/end` per message
 * gives (`replayWithReducer`), in one mutable pass. Restoring a long chat is on the user's path
 * when VS Code starts; the fold copies the state, the settled chunks and the live items per
 * message, this pass appends to one array and chunks it at the end. Items are made by the
 * reducer's own functions, and a test holds the two equal.
 */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the restore pass as one mutable loop for speed (bench P3); replay.test.ts holds it equal to the reducer
export function stateFromTranscript(messages: readonly AgentMessage[], from = 0): ChatState {
  const settled: ChatItem[] = [];
  let live: ChatItem[] = [];
  // Where each tool card is, so a result or an approval finds it without scanning: the fold's
  // `live.some(...)` per message is what made a long chat's restore quadratic in its live part.
  const settledTools = new Map<string, number>();
  let liveTools = new Map<string, number>();
  let count = from;
  const diffs = new SavedDiffs(from === 0 ? messages : messages.slice(from));
  const pushLive = (item: ChatItem): void => {
    if (item.kind === "tool") liveTools.set(item.id, live.length);
    live.push(item);
  };
  const settle = (): void => {
    for (const item of live) {
      if (item.kind === "tool") settledTools.set(item.id, settled.length);
      settled.push(item);
    }
    live = [];
    liveTools = new Map();
  };
  for (let at = from; at < messages.length; at++) {
    const message = messages[at]!;
    const id = `m${count++}`;
    // Where startMessage settles the live part.
    if (message.role === "compactionSummary" || message.role === "assistant" || startsUserTurn(live, message)) settle();
    switch (message.role) {
      case "assistant":
        live.push(finalAssistant(id, [], message, undefined));
        for (const block of message.content) {
          // addToolCards: a call already on a card keeps it.
          if (block.type === "toolCall" && !liveTools.has(block.id)) pushLive(newToolItem(block.id, block.name, block.arguments));
        }
        break;
      case "toolResult": {
        // The view's form of the result: an edit's diff as hunks, as the live event had it.
        const diff = diffs.of(message);
        const shown = diff ? withoutDiffText(message) : message;
        const at = liveTools.get(message.toolCallId);
        // Every card here was made by this pass, so it is filled in place (the fold copies it).
        if (at === undefined) pushLive(setToolDone(newToolItem(message.toolCallId, message.toolName, undefined), shown as ToolResultMessage, diff));
        else setToolDone(live[at] as ToolItem, shown as ToolResultMessage, diff);
        break;
      }
      case "approvalNotice": {
        const diff = diffs.of(message);
        const atLive = liveTools.get(message.toolCallId);
        const atSettled = atLive === undefined ? settledTools.get(message.toolCallId) : undefined;
        let card = (atLive !== undefined ? live[atLive] : atSettled !== undefined ? settled[atSettled] : undefined) as ToolItem | undefined;
        if (card === undefined) {
          card = newToolItem(message.toolCallId, message.toolName, undefined);
          pushLive(card);
        }
        card.approval = setApprovalFromNotice(card.approval ?? newApproval(card, message.toolCallId, message.toolName), message, diff);
        break;
      }
      default: {
        const item = itemForMessage(id, message, false);
        if (item) live.push(item);
        if (message.role === "compactionSummary") {
          // markSummarized replaces items in place (same positions), so the tool maps stay right.
          const marked = markSummarized({ ...emptyChatState, settled: [settled], live }, count - 1 - Math.max(0, Math.floor(message.keptMessageCount) || 0));
          const flat = marked.settled[0] ?? [];
          if (flat !== settled) settled.splice(0, settled.length, ...flat);
          live = marked.live.slice();
        }
        if (message.role === "filesRestored") {
          const marked = markRestore({ ...emptyChatState, settled: [settled], live }, restoreMarks(message));
          const flat = marked.settled[0] ?? [];
          if (flat !== settled) settled.splice(0, settled.length, ...flat);
          live = marked.live.slice();
        }
      }
    }
    // A command_output result or a reopened chat's notice may say how a background command ended: its card follows.
    const end = backgroundEndIn(message);
    if (end) {
      const atLive = liveTools.get(end.id);
      const atSettled = atLive === undefined ? settledTools.get(end.id) : undefined;
      const card = (atLive !== undefined ? live[atLive] : atSettled !== undefined ? settled[atSettled] : undefined) as ToolItem | undefined;
      if (card) card.background = mergeBackgroundState(card.background, end.state);
    }
  }
  return { ...emptyChatState, settled: inChunks(settled), live, messageCount: count, ...(from > 0 ? { earlier: from } : {}) };
}

/**
 * The view of a saved transcript as a restore shows it: the items of its newest messages only
 * (from `restoreStart`), the rest left for `earlierItems` when the view comes near them.
 */
export function restoredState(messages: readonly AgentMessage[]): ChatState {
  const state = stateFromTranscript(messages, restoreStart(messages));
  const tasks = currentTaskList(messages);
  const mode = currentMode(messages);
  const planOffer = approvablePlan(messages)?.toolCallId;
  return { ...state, ...(tasks.length > 0 ? { tasks } : {}), ...(mode === "plan" ? { mode } : {}), ...(planOffer !== undefined ? { planOffer } : {}) };
}

/**
 * Where a restore may start building items so that what it builds is exactly the tail of the full
 * view: at a user turn that follows the model's message or a tool result (the replay settles
 * everything before it there), at least `minTail` messages before the end, with no approval notice
 * after it about a call made before it (that notice updates the older card, where a partial build
 * would add a new one). 0 when there is no such place: everything is built.
 */
export function restoreStart(messages: readonly AgentMessage[], minTail = RESTORE_WINDOW_MESSAGES): number {
  // Calls named by approval notices after `i` and not made after `i`.
  const unmatched = new Set<string>();
  for (let i = messages.length - 1; i > 0; i--) {
    const message = messages[i]!;
    if (message.role === "approvalNotice") unmatched.add(message.toolCallId);
    else if (message.role === "assistant" && unmatched.size > 0) {
      for (const block of message.content) if (block.type === "toolCall") unmatched.delete(block.id);
    }
    if (messages.length - i < minTail || unmatched.size > 0) continue;
    const role = message.role;
    const before = messages[i - 1]!.role;
    if ((role === "user" || role === "fileAttachment" || role === "bashExecution") && (before === "assistant" || before === "toolResult")) return i;
  }
  return 0;
}

/**
 * The items of the first `count` messages as the full view has them (later messages may have
 * changed them: an approval, a background command's end, a summary marking them summarized).
 */
export function earlierItems(messages: readonly AgentMessage[], count: number): ChatItem[] {
  if (count <= 0) return [];
  const all = chatItems(stateFromTranscript(messages));
  // Tool and approval cards go with the message before them, as in `rewind`.
  const end = all.findIndex((item) => (messageIndexOf(item) ?? -1) >= count);
  return end === -1 ? all : all.slice(0, end);
}
