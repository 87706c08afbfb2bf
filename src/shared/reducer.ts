// The UI reducer: a pure function from ChatEvents to the ChatItems the webview draws.
// Folding it over a `message/end` per message gives a saved transcript's items, so a restored chat
// looks exactly like the live one did; transcript-state.ts builds the same in one pass (a test holds
// the two equal), message-items.ts and tool-items.ts make the items both use.
//
// Cost per streamed delta must not grow with the length of the chat, so items are kept in
// two parts: `settled` (finished turns, in immutable chunks that are shared between states)
// and `live` (the items of the message being produced, a short array copied per change).
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ChatItem, ChatState, SummaryItem, ToolItem } from "./chat-items";
import type { ChatEvent } from "./protocol";
import type { StructuredDiff } from "./structured-diff";
import { backgroundEndIn } from "./background-state";
import { inChunks, settleLive, updateLive, updateOpenAssistant } from "./item-chunks";
import { finalAssistant, itemForMessage, restoreMarks, startsUserTurn } from "./message-items";
import { markRestore, markSummarized, rewind } from "./reducer-rewind";
import { addToolCards, applyToolResult, approvalFromNotice, setBackground, updateTool, upsertApproval, upsertTool } from "./tool-items";

// The view's state and the transcript pass live beside the reducer; their names are read from here.
export type { ChatState } from "./chat-items";
export { chatItems, emptyChatState } from "./chat-state";
export { filesRestoredText } from "./message-items";
export { earlierItems, RESTORE_WINDOW_MESSAGES, restoredState, restoreStart, stateFromTranscript } from "./transcript-state";

/** Id of the "Compacting…" item while a summary is written; the summary message's item replaces it. */
export const COMPACTING_ITEM_ID = "compacting";

export function reduce(state: ChatState, event: ChatEvent): ChatState {
  switch (event.type) {
    case "message/start":
      return startMessage(state, event.message);
    case "message/blockStart":
      return updateOpenAssistant(state, (item) =>
        event.block === "toolCall" || item.blocks.some((b) => b.index === event.index)
          ? item
          : { ...item, blocks: [...item.blocks, { index: event.index, type: event.block, text: "" }] },
      );
    case "message/delta":
      return updateOpenAssistant(state, (item) => ({
        ...item,
        blocks: item.blocks.map((b) => (b.index === event.index ? { ...b, text: b.text + event.text } : b)),
      }));
    case "message/end":
      return endMessage(state, event.message, event.elided, event.diff);
    case "tool/start":
      return upsertTool(state, event.toolCallId, event.toolName, event.args, (t) => ({ ...t, status: "running" }));
    case "tool/end":
      return updateLive(
        state,
        (i) => i.kind === "tool" && i.id === event.toolCallId,
        (t) => (t.kind === "tool" && (t.status === "running" || t.status === "pending") ? { ...t, status: event.isError ? "error" : "success" } : t),
      );
    case "approval/request":
      // The call waits for the user, not for the tool: its card says so until the decision.
      return upsertApproval(setToolStatus(state, event.toolCallId, "pending"), event.toolCallId, event.toolName, (a) => ({
        ...a,
        state: "pending",
        ...(event.path !== undefined ? { path: event.path } : {}),
        ...(event.diff !== undefined ? { diff: event.diff } : {}),
        ...(event.protection !== undefined ? { protection: event.protection } : {}),
        ...(event.secret ? { secret: true } : {}),
        ...(event.command !== undefined ? { command: event.command } : {}),
        ...(event.cwd !== undefined ? { cwd: event.cwd } : {}),
        ...(event.suggestedRules !== undefined ? { suggestedRules: event.suggestedRules } : {}),
        ...(event.ruleNote !== undefined ? { ruleNote: event.ruleNote } : {}),
        ...(event.background !== undefined ? { background: { ...event.background } } : {}),
        ...(event.mcp !== undefined ? { mcp: { ...event.mcp } } : {}),
      }));
    case "approval/decided":
      return upsertApproval(event.decision === "allowed" ? setToolStatus(state, event.toolCallId, "running") : state, event.toolCallId, "", (a) => ({
        ...a,
        state: event.decision,
        ...(event.reason !== undefined ? { reason: event.reason } : {}),
        ...(event.rule !== undefined ? { rule: event.rule } : {}),
        ...(event.rejectedHunks !== undefined ? { rejectedHunks: event.rejectedHunks } : {}),
        ...(event.editedHunks !== undefined ? { editedHunks: event.editedHunks.map((hunk) => ({ hunk })) } : {}),
      }));
    case "approval/hunks":
      // Only while the edit waits: a decided card shows the hunks its decision rejected.
      return updateTool(state, event.toolCallId, (t) =>
        t.approval?.state === "pending" ? { ...t, approval: { ...t.approval, rejectedHunks: event.rejectedHunks, editedHunks: event.editedHunks ?? [] } } : t,
      );
    case "command/progress": {
      const id = state.openId;
      if (id === null) return state;
      return updateLive(
        state,
        (i) => i.id === id,
        (i) => (i.kind === "userCommand" && i.running ? { ...i, output: event.tail.join("\n"), elapsedMs: event.elapsedMs } : i),
      );
    }
    case "tool/progress":
      return updateLive(
        state,
        (i) => i.kind === "tool" && i.id === event.toolCallId,
        (t) => (t.kind === "tool" && t.status === "running" ? { ...t, progress: event.details } : t),
      );
    case "command/backgroundState":
      return setBackground(state, event.id, event.state);
    case "approval/cancelled":
      // Nobody decided: the card goes back to being a plain tool call (its result says it was cancelled).
      return updateTool(state, event.toolCallId, (t) => {
        if (t.approval?.state !== "pending") return t;
        const { approval: _dropped, ...rest } = t;
        return rest;
      });
    case "chat/runState":
      return state.running === event.running ? state : { ...state, running: event.running };
    case "compaction/start": {
      const running: SummaryItem = { kind: "summary", id: COMPACTING_ITEM_ID, state: "running", trigger: event.trigger };
      const settled = settleLive(withoutCompacting(state));
      return { ...settled, live: [running] };
    }
    case "compaction/end":
      return event.status === "done" ? state : withoutCompacting(state);
    case "context/meter":
      return { ...state, meter: event.meter };
    case "branch/rewind":
      return rewind(state, event.keep);
    case "queue/changed":
      return { ...state, queue: event.items, queueKept: event.kept };
    case "tasks/list":
      return { ...state, tasks: event.items };
    case "chat/mode":
      return { ...state, mode: event.mode };
    case "chat/planOffer":
      return { ...state, planOffer: event.toolCallId };
    case "items/earlier":
      return withEarlierItems(state, event.count, event.items);
    case "branch/forks":
      return { ...state, forks: [...(state.forks ?? []).filter((f) => f.messageIndex < event.from), ...event.forks] };
    default:
      // An event of a newer protocol: ignored, never an undefined state.
      return state;
  }
}

function setToolStatus(state: ChatState, toolCallId: string, status: ToolItem["status"]): ChatState {
  return updateLive(
    state,
    (i) => i.kind === "tool" && i.id === toolCallId,
    (t) => (t.kind === "tool" && t.status !== status ? { ...t, status } : t),
  );
}

/** The items of a state's earlier messages arrived: they go before everything it holds. */
function withEarlierItems(state: ChatState, count: number, items: readonly ChatItem[]): ChatState {
  // A late answer (the path changed since it was asked for) would put wrong items first: it waits for the next ask.
  if (state.earlier !== count) return state;
  const { earlier: _built, ...rest } = state;
  return { ...rest, settled: [...inChunks(items), ...state.settled] };
}

// ---- messages ----

function startMessage(state: ChatState, message: AgentMessage): ChatState {
  const id = `m${state.messageCount}`;
  let next: ChatState = { ...(message.role === "compactionSummary" ? withoutCompacting(state) : state), messageCount: state.messageCount + 1, openId: id };
  if (message.role === "compactionSummary") next = settleLive(next);
  if (message.role === "assistant" || startsUserTurn(next.live, message)) next = settleLive(next);
  const item = itemForMessage(id, message, true);
  return item ? { ...next, live: [...next.live, item] } : next;
}

function endMessage(state: ChatState, message: AgentMessage, elided: readonly number[] | undefined, diff: StructuredDiff | undefined): ChatState {
  const ended = endMessageItems(state, message, elided, diff);
  // A command_output result or a reopened chat's notice may say how a background command ended: its card follows.
  const end = backgroundEndIn(message);
  return end ? setBackground(ended, end.id, end.state) : ended;
}

function endMessageItems(state: ChatState, message: AgentMessage, elided: readonly number[] | undefined, diff: StructuredDiff | undefined): ChatState {
  if (state.openId === null) {
    // Replay (or a message that was never started live): start and end in one go.
    return endMessageItems(startMessage(state, message), message, undefined, diff);
  }
  const id = state.openId;
  const closed: ChatState = { ...state, openId: null };
  switch (message.role) {
    case "assistant":
      return addToolCards(
        updateLive(
          closed,
          (i) => i.id === id,
          (i) => (i.kind === "assistant" ? finalAssistant(i.id, i.blocks, message, elided) : i),
        ),
        message,
      );
    case "toolResult":
      return applyToolResult(closed, message, diff);
    case "approvalNotice":
      return upsertApproval(closed, message.toolCallId, message.toolName, (a) => approvalFromNotice(a, message, diff));
    case "compactionSummary": {
      const item = itemForMessage(id, message, false);
      const replaced = item
        ? updateLive(
            closed,
            (i) => i.id === id,
            () => item,
          )
        : closed;
      const index = Number(id.slice(1));
      return markSummarized(replaced, index - Math.max(0, Math.floor(message.keptMessageCount) || 0));
    }
    default: {
      // user, fileAttachment, localNotice: the whole message came with message_start; take the final one.
      const item = itemForMessage(id, message, false);
      const ended = item
        ? updateLive(
            closed,
            (i) => i.id === id,
            () => item,
          )
        : closed;
      return message.role === "filesRestored" ? markRestore(ended, restoreMarks(message)) : ended;
    }
  }
}

// ---- compaction ----

function withoutCompacting(state: ChatState): ChatState {
  return state.live.some((i) => i.id === COMPACTING_ITEM_ID) ? { ...state, live: state.live.filter((i) => i.id !== COMPACTING_ITEM_ID) } : state;
}
