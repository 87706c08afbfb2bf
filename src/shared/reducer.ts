// The UI reducer: a pure function from ChatEvents to the ChatItems the webview draws.
// The same function rebuilds the items of a saved transcript (replaying a `message/end` per message),
// so a restored chat looks exactly like the live one did.
//
// Cost per streamed delta must not grow with the length of the chat, so items are kept in
// two parts: `settled` (finished turns, in immutable chunks that are shared between states)
// and `live` (the items of the message being produced, a short array copied per change).
import { imageRefs } from "./images";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { AssistantMessage, ToolResultMessage, UserMessage } from "@earendil-works/pi-ai";
import { isFixCommandId, type ApprovalNoticeMessage } from "./app-messages"; // also: the app message kinds in AgentMessage
import type { AssistantBlock, AssistantItem, ChatItem, ChatState, SummaryItem, ToolApproval, ToolItem } from "./chat-items";
import { SavedDiffs, withoutDiffText } from "./diff-hunks";
import type { ChatEvent } from "./protocol";
import type { StructuredDiff } from "./structured-diff";
import { backgroundEndIn, mergeBackgroundState, type BackgroundRunState } from "./background-state";
import { inChunks, settleLive, updateLive, updateOpenAssistant } from "./item-chunks";
import { markRestore, markSummarized, messageIndexOf, type RestoreMarks, rewind } from "./reducer-rewind";

export type { ChatState } from "./chat-items";

/**
 * A restore builds the items of about this many of the newest messages; the view asks for the
 * earlier ones when it is scrolled near them. Opening a 10,000-message chat then costs the items
 * of a few screens, not of the whole chat (and a snapshot that carries them, not all).
 */
export const RESTORE_WINDOW_MESSAGES = 200;

/** Id of the "Compacting…" item while a summary is written; the summary message's item replaces it. */
export const COMPACTING_ITEM_ID = "compacting";

export const emptyChatState: ChatState = { settled: [], live: [], messageCount: 0, openId: null, running: false, forks: [], queue: [], queueKept: false };

export function chatItems(state: ChatState): ChatItem[] {
  const out: ChatItem[] = [];
  for (const chunk of state.settled) for (const item of chunk) out.push(item);
  for (const item of state.live) out.push(item);
  return out;
}

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
      }));
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

/**
 * Rebuilds the view of a saved transcript: what folding `reduce` over a `message/end` per message
 * gives (`replayWithReducer`), in one mutable pass. Restoring a long chat is on the user's path
 * when VS Code starts; the fold copies the state, the settled chunks and the live items per
 * message, this pass appends to one array and chunks it at the end. Items are made by the
 * reducer's own functions, and a test holds the two equal.
 */
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
  return stateFromTranscript(messages, restoreStart(messages));
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

/** The items of a state's earlier messages arrived: they go before everything it holds. */
function withEarlierItems(state: ChatState, count: number, items: readonly ChatItem[]): ChatState {
  // A late answer (the path changed since it was asked for) would put wrong items first: it waits for the next ask.
  if (state.earlier !== count) return state;
  const { earlier: _built, ...rest } = state;
  return { ...rest, settled: [...inChunks(items), ...state.settled] };
}

/** The view of a transcript by folding the reducer over it: what `stateFromTranscript` must equal. */
export function replayWithReducer(messages: readonly AgentMessage[]): ChatState {
  let state = emptyChatState;
  const diffs = new SavedDiffs(messages);
  for (const message of messages) state = reduce(state, diffs.event(message));
  return state;
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

/** A user turn begins with its attachments; keep those together with the user message that follows. */
function startsUserTurn(live: readonly ChatItem[], message: AgentMessage): boolean {
  if (message.role === "bashExecution") return true;
  if (message.role !== "user" && message.role !== "fileAttachment") return false;
  const last = live[live.length - 1];
  return last === undefined || last.kind !== "attachment";
}

function itemForMessage(id: string, message: AgentMessage, open: boolean): ChatItem | null {
  switch (message.role) {
    case "user": {
      const item: ChatItem = { kind: "user", id, text: userText(message), timestamp: message.timestamp };
      const images = imageRefs(message);
      if (images.length > 0) item.images = images;
      return item;
    }
    case "assistant":
      return {
        kind: "assistant",
        id,
        blocks: assistantBlocks(message),
        isStreaming: true,
        model: message.model,
        timestamp: message.timestamp,
      };
    case "fileAttachment":
      return {
        kind: "attachment",
        id,
        path: message.path,
        ...(message.range ? { range: { ...message.range } } : {}),
        ...(message.mention ? { mention: message.mention } : {}),
        ...(message.note ? { note: message.note } : {}),
      };
    case "bashExecution":
      return {
        kind: "userCommand",
        id,
        command: message.command,
        // Live, message_start carries the message before it ran; message_end the final one.
        running: open,
        output: message.output,
        exitCode: message.exitCode,
        cancelled: message.cancelled,
        truncated: message.truncated,
        excludeFromContext: message.excludeFromContext !== false,
        ...(message.durationMs !== undefined ? { durationMs: message.durationMs } : {}),
        ...(message.logFile !== undefined ? { logFile: message.logFile } : {}),
        ...(message.via !== undefined ? { via: message.via } : {}),
        ...(message.cwd !== undefined ? { cwd: message.cwd } : {}),
      };
    case "filesRestored":
      // Shown as an info notice: what the restore put back, deleted and left.
      return {
        kind: "notice",
        id,
        level: "info",
        text: filesRestoredText(message),
        ...(!message.redo && typeof message.redoMarkId === "string" ? { redo: { markId: message.redoMarkId, state: "offered" as const } } : {}),
      };
    case "localNotice":
      return {
        kind: "notice",
        id,
        level: message.level,
        text: message.text,
        ...(message.fix !== undefined ? { fix: message.fix } : {}),
        ...(isFixCommandId(message.fixCommand) ? { fixCommand: message.fixCommand } : {}),
        ...(Array.isArray(message.moreFixCommands) && message.moreFixCommands.some(isFixCommandId)
          ? { moreFixCommands: message.moreFixCommands.filter(isFixCommandId) }
          : {}),
        ...(typeof message.detail === "string" && message.detail !== "" ? { detail: message.detail } : {}),
      };
    case "compactionSummary":
      return {
        kind: "summary",
        id,
        state: "done",
        trigger: message.trigger,
        summary: message.summary,
        tokensBefore: message.tokensBefore,
        tokensAfter: message.tokensAfter,
        summarizedMessageCount: message.summarizedMessageCount,
        readFiles: Array.isArray(message.readFiles) ? message.readFiles : [],
        modifiedFiles: Array.isArray(message.modifiedFiles) ? message.modifiedFiles : [],
        ...(message.instructions ? { instructions: message.instructions } : {}),
        ...(message.usage && message.usage.cost > 0 ? { cost: message.usage.cost } : {}),
      };
    // The system prompt, tool results and approval notices are not items of their own.
    case "system":
    case "toolResult":
    case "approvalNotice":
      return null;
  }
}

/** What a restore's note marks on the items before it (reducer-rewind.ts). */
function restoreMarks(message: Extract<AgentMessage, { role: "filesRestored" }>): RestoreMarks {
  return {
    redo: message.redo,
    ...(typeof message.redoMarkId === "string" ? { redoMarkId: message.redoMarkId } : {}),
    ...(typeof message.messageIndex === "number" ? { messageIndex: message.messageIndex } : {}),
    paths: [...message.restored, ...message.deleted],
  };
}

/** The line a restore leaves in the chat. */
export function filesRestoredText(message: Extract<AgentMessage, { role: "filesRestored" }>): string {
  const what = message.redo
    ? `Redid the changes undone by the restore to message ${message.messageNumber}`
    : `Files restored to before message ${message.messageNumber}`;
  const n = (count: number, one: string) => `${count} ${one}${count === 1 ? "" : "s"}`;
  const parts = [`${n(message.restored.length, "file")} put back`, `${n(message.deleted.length, "file")} deleted`];
  if (message.skipped.length > 0)
    parts.push(`${n(message.skipped.length, "file")} skipped (${message.skipped.map((s) => `${s.path}: ${s.reason}`).join("; ")})`);
  return `${what}: ${parts.join(", ")}.`;
}

function userText(message: UserMessage): string {
  const content = message.content;
  if (typeof content === "string") return content;
  // One text block (nearly every prompt) needs no map and join.
  if (content.length === 1 && content[0]!.type === "text") return content[0]!.text;
  // Images with a blob are shown as thumbnails; one without (an old transcript) is named.
  return content.flatMap((c) => (c.type === "text" ? [c.text] : imageRefs({ ...message, content: [c] }).length > 0 ? [] : ["[image]"])).join("\n");
}

function assistantBlocks(message: AssistantMessage, streamed?: readonly AssistantBlock[], elided?: readonly number[]): AssistantBlock[] {
  const blocks: AssistantBlock[] = [];
  const content = message.content;
  for (let index = 0; index < content.length; index++) {
    const block = content[index]!;
    if (block.type === "toolCall") continue;
    const fromStream = elided?.includes(index) ? streamed?.find((b) => b.index === index)?.text : undefined;
    if (block.type === "text") blocks.push({ index, type: "text", text: fromStream ?? block.text });
    else {
      const thinking: AssistantBlock = { index, type: "thinking", text: fromStream ?? block.thinking };
      if (block.redacted) thinking.redacted = true;
      blocks.push(thinking);
    }
  }
  return blocks;
}

/** The answer's card once it is whole; `streamed` gives the text of blocks the live stream elided. */
function finalAssistant(id: string, streamed: readonly AssistantBlock[], message: AssistantMessage, elided: readonly number[] | undefined): AssistantItem {
  const final: AssistantItem = {
    kind: "assistant",
    id,
    blocks: assistantBlocks(message, streamed, elided),
    isStreaming: false,
    stopReason: message.stopReason,
    model: message.model,
    timestamp: message.timestamp,
  };
  if (message.errorMessage !== undefined) final.errorMessage = message.errorMessage;
  return final;
}

// ---- tools and approvals ----

function addToolCards(state: ChatState, message: AssistantMessage): ChatState {
  let next = state;
  for (const block of message.content) {
    if (block.type !== "toolCall") continue;
    next = upsertTool(next, block.id, block.name, block.arguments, (t) => t);
  }
  return next;
}

function applyToolResult(state: ChatState, message: ToolResultMessage, diff: StructuredDiff | undefined): ChatState {
  return upsertTool(state, message.toolCallId, message.toolName, undefined, (t) => toolDone(t, message, diff));
}

function toolDone(t: ToolItem, message: ToolResultMessage, diff: StructuredDiff | undefined): ToolItem {
  if (t.progress === undefined) return setToolDone({ ...t }, message, diff);
  const { progress: _live, ...rest } = t;
  return setToolDone(rest, message, diff);
}

/** Writes a result (and an edit's hunks) onto a card the caller owns (a copy, or one the restore pass made). */
function setToolDone(t: ToolItem, message: ToolResultMessage, diff: StructuredDiff | undefined): ToolItem {
  const content = message.content;
  const only = content.length === 1 ? content[0] : undefined;
  // One text block (nearly every result) needs no map and join.
  t.resultText = only?.type === "text" ? only.text : content.map((c) => (c.type === "text" ? c.text : `[${c.mimeType}]`)).join("\n");
  t.status = message.isError ? "error" : "success";
  if (message.details !== undefined) t.details = message.details;
  if (diff !== undefined) t.diff = diff;
  // Left running in the background: the card offers Stop until an event or a later message says it ended.
  if (t.background === undefined && isLeftRunning(message)) t.background = { state: "running" };
  return t;
}

function isLeftRunning(message: ToolResultMessage): boolean {
  if (message.toolName !== "run_command" || typeof message.details !== "object" || message.details === null) return false;
  const background = (message.details as { background?: { ready?: unknown } }).background;
  return background?.ready === "pattern" || background?.ready === "waited";
}

function withBackground(t: ToolItem, next: BackgroundRunState): ToolItem {
  const merged = mergeBackgroundState(t.background, next);
  return merged === t.background ? t : { ...t, background: merged };
}

function setBackground(state: ChatState, id: string, next: BackgroundRunState): ChatState {
  return updateTool(state, id, (t) => withBackground(t, next));
}

function approvalFromNotice(a: ToolApproval, message: ApprovalNoticeMessage, diff: StructuredDiff | undefined): ToolApproval {
  return setApprovalFromNotice({ ...a }, message, diff);
}

/** Writes a saved decision (and the hunks of its diff) onto an approval the caller owns. */
function setApprovalFromNotice(approval: ToolApproval, message: ApprovalNoticeMessage, diff: StructuredDiff | undefined): ToolApproval {
  approval.state = message.decision;
  if (message.path !== undefined) approval.path = message.path;
  if (message.reason !== undefined) approval.reason = message.reason;
  if (diff !== undefined) approval.diff = diff;
  if (message.secret) approval.secret = true;
  if (message.command !== undefined) approval.command = message.command;
  if (message.cwd !== undefined) approval.cwd = message.cwd;
  if (message.rule !== undefined) approval.rule = message.rule;
  if (message.mcp !== undefined) approval.mcp = { ...approval.mcp, ...message.mcp };
  return approval;
}

function upsertTool(state: ChatState, toolCallId: string, name: string, args: unknown, update: (t: ToolItem) => ToolItem): ChatState {
  if (state.live.some((i) => i.kind === "tool" && i.id === toolCallId)) {
    return updateLive(
      state,
      (i) => i.kind === "tool" && i.id === toolCallId,
      (i) => (i.kind === "tool" ? update(i) : i),
    );
  }
  return { ...state, live: [...state.live, update(newToolItem(toolCallId, name, args))] };
}

function newToolItem(toolCallId: string, name: string, args: unknown): ToolItem {
  return { kind: "tool", id: toolCallId, name, args: args ?? {}, status: "pending" };
}

/** The card with its approval set (a new pending one when it has none yet). */
function withApproval(t: ToolItem, toolCallId: string, toolName: string, update: (a: ToolApproval) => ToolApproval): ToolItem {
  return { ...t, approval: update(t.approval ?? newApproval(t, toolCallId, toolName)) };
}

function newApproval(t: ToolItem, toolCallId: string, toolName: string): ToolApproval {
  return { kind: "approval", id: `approval:${toolCallId}`, toolCallId, toolName: t.name || toolName, state: "pending" };
}

/**
 * Sets the approval on the card of its call. The card is normally in the live part (the notice
 * follows the tool result in the same step); if a user turn settled it first, it is found in
 * the settled chunks, and a call without any card gets one.
 */
function upsertApproval(state: ChatState, toolCallId: string, toolName: string, update: (a: ToolApproval) => ToolApproval): ChatState {
  const apply = (t: ToolItem): ToolItem => withApproval(t, toolCallId, toolName, update);
  if (hasTool(state, toolCallId)) return updateTool(state, toolCallId, apply);
  return upsertTool(state, toolCallId, toolName, undefined, apply);
}

function hasTool(state: ChatState, toolCallId: string): boolean {
  const isCall = (i: ChatItem) => i.kind === "tool" && i.id === toolCallId;
  return state.live.some(isCall) || state.settled.some((chunk) => chunk.some(isCall));
}

/** Updates the card of a call wherever it is; a settled chunk is copied, never edited in place. */
function updateTool(state: ChatState, toolCallId: string, update: (t: ToolItem) => ToolItem): ChatState {
  const isCall = (i: ChatItem) => i.kind === "tool" && i.id === toolCallId;
  const apply = (i: ChatItem) => (i.kind === "tool" ? update(i) : i);
  if (state.live.some(isCall)) return updateLive(state, isCall, apply);
  for (let c = state.settled.length - 1; c >= 0; c--) {
    const chunk = state.settled[c]!;
    const index = chunk.findIndex(isCall);
    if (index === -1) continue;
    const updated = apply(chunk[index]!);
    if (updated === chunk[index]) return state;
    const settled = state.settled.slice();
    const copy = chunk.slice();
    copy[index] = updated;
    settled[c] = copy;
    return { ...state, settled };
  }
  return state;
}

// ---- compaction ----

function withoutCompacting(state: ChatState): ChatState {
  return state.live.some((i) => i.id === COMPACTING_ITEM_ID) ? { ...state, live: state.live.filter((i) => i.id !== COMPACTING_ITEM_ID) } : state;
}
