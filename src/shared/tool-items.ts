// Tool cards and their approvals in the chat's state: a call's card made once, its result,
// its approval (asked, decided, or read back from a saved notice) and a background run's state
// updated in place wherever the card is (live or settled). Pure.
import type { AssistantMessage, ToolResultMessage } from "@earendil-works/pi-ai";
import type { ApprovalNoticeMessage } from "./app-messages";
import type { ChatItem, ChatState, ToolApproval, ToolItem } from "./chat-items";
import type { StructuredDiff } from "./structured-diff";
import { mergeBackgroundState, type BackgroundRunState } from "./background-state";
import { updateLive } from "./item-chunks";

export function addToolCards(state: ChatState, message: AssistantMessage): ChatState {
  let next = state;
  for (const block of message.content) {
    if (block.type !== "toolCall") continue;
    next = upsertTool(next, block.id, block.name, block.arguments, (t) => t);
  }
  return next;
}

export function applyToolResult(state: ChatState, message: ToolResultMessage, diff: StructuredDiff | undefined): ChatState {
  return upsertTool(state, message.toolCallId, message.toolName, undefined, (t) => toolDone(t, message, diff));
}

function toolDone(t: ToolItem, message: ToolResultMessage, diff: StructuredDiff | undefined): ToolItem {
  if (t.progress === undefined) return setToolDone({ ...t }, message, diff);
  const { progress: _live, ...rest } = t;
  return setToolDone(rest, message, diff);
}

/** Writes a result (and an edit's hunks) onto a card the caller owns (a copy, or one the restore pass made). */
export function setToolDone(t: ToolItem, message: ToolResultMessage, diff: StructuredDiff | undefined): ToolItem {
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

export function setBackground(state: ChatState, id: string, next: BackgroundRunState): ChatState {
  return updateTool(state, id, (t) => withBackground(t, next));
}

export function approvalFromNotice(a: ToolApproval, message: ApprovalNoticeMessage, diff: StructuredDiff | undefined): ToolApproval {
  return setApprovalFromNotice({ ...a }, message, diff);
}

/** Writes a saved decision (and the hunks of its diff) onto an approval the caller owns. */
export function setApprovalFromNotice(approval: ToolApproval, message: ApprovalNoticeMessage, diff: StructuredDiff | undefined): ToolApproval {
  approval.state = message.decision;
  if (message.path !== undefined) approval.path = message.path;
  if (message.reason !== undefined) approval.reason = message.reason;
  if (diff !== undefined) approval.diff = diff;
  if (message.secret) approval.secret = true;
  if (message.command !== undefined) approval.command = message.command;
  if (message.cwd !== undefined) approval.cwd = message.cwd;
  if (message.rule !== undefined) approval.rule = message.rule;
  if (Array.isArray(message.rejectedHunks) && message.rejectedHunks.length > 0) approval.rejectedHunks = message.rejectedHunks.filter(Number.isInteger);
  if (Array.isArray(message.editedHunks) && message.editedHunks.length > 0)
    approval.editedHunks = message.editedHunks.filter(Number.isInteger).map((hunk) => ({ hunk }));
  if (message.mcp !== undefined) approval.mcp = { ...approval.mcp, ...message.mcp };
  return approval;
}

export function upsertTool(state: ChatState, toolCallId: string, name: string, args: unknown, update: (t: ToolItem) => ToolItem): ChatState {
  if (state.live.some((i) => i.kind === "tool" && i.id === toolCallId)) {
    return updateLive(
      state,
      (i) => i.kind === "tool" && i.id === toolCallId,
      (i) => (i.kind === "tool" ? update(i) : i),
    );
  }
  return { ...state, live: [...state.live, update(newToolItem(toolCallId, name, args))] };
}

export function newToolItem(toolCallId: string, name: string, args: unknown): ToolItem {
  return { kind: "tool", id: toolCallId, name, args: args ?? {}, status: "pending" };
}

/** The card with its approval set (a new pending one when it has none yet). */
function withApproval(t: ToolItem, toolCallId: string, toolName: string, update: (a: ToolApproval) => ToolApproval): ToolItem {
  return { ...t, approval: update(t.approval ?? newApproval(t, toolCallId, toolName)) };
}

export function newApproval(t: ToolItem, toolCallId: string, toolName: string): ToolApproval {
  return { kind: "approval", id: `approval:${toolCallId}`, toolCallId, toolName: t.name || toolName, state: "pending" };
}

/**
 * Sets the approval on the card of its call. The card is normally in the live part (the notice
 * follows the tool result in the same step); if a user turn settled it first, it is found in
 * the settled chunks, and a call without any card gets one.
 */
export function upsertApproval(state: ChatState, toolCallId: string, toolName: string, update: (a: ToolApproval) => ToolApproval): ChatState {
  const apply = (t: ToolItem): ToolItem => withApproval(t, toolCallId, toolName, update);
  if (hasTool(state, toolCallId)) return updateTool(state, toolCallId, apply);
  return upsertTool(state, toolCallId, toolName, undefined, apply);
}

function hasTool(state: ChatState, toolCallId: string): boolean {
  const isCall = (i: ChatItem) => i.kind === "tool" && i.id === toolCallId;
  return state.live.some(isCall) || state.settled.some((chunk) => chunk.some(isCall));
}

/** Updates the card of a call wherever it is; a settled chunk is copied, never edited in place. */
export function updateTool(state: ChatState, toolCallId: string, update: (t: ToolItem) => ToolItem): ChatState {
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
