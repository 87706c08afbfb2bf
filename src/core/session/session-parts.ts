// A chat session's collaborators, built once and wired to each other: the path and its tree,
// the store (persistence), the context (compaction, the meter), the toolbox (tools, gates,
// background commands), the input queue, the agent's event subscriber and the run slot. The
// result is one object the folder's parts each read their own fields of (run-loop,
// agent-binding, user-command-run, branch-moves); ChatSession gives the few things only it knows.
import type { Agent, AgentMessage } from "@earendil-works/pi-agent-core";
import type { ChatEvent } from "../../shared/protocol";
import { ChatContext } from "../context/chat-context";
import { DeferredMcpTools } from "../mcp/tool-search";
import type { CompactionSettings } from "../context/compaction";
import type { ChatModelChoice } from "../transcript/types";
import type { AgentBindingDeps, McpRun } from "./agent-binding";
import type { BranchMoveHost } from "./branch-moves";
import { ChatBranches } from "./branching";
import { ChatPath } from "./chat-path";
import { InputQueue } from "./input-queue";
import { SessionPersistence } from "./persistence";
import { RunSlot, type RunHost } from "./run-loop";
import { createToolbox, type Toolbox } from "./session-tools";
import { PathStateKeeper } from "./path-state-keeper";
import type { ChatSessionOptions } from "./types";
import type { UserCommandHost } from "./user-command-run";
import { agentEventsToView } from "./view-events";

/** What only the session knows: its state, its agent, its own API. */
export interface SessionSelf {
  emit(event: ChatEvent): void;
  /** The system message a new chat starts with (prompt and the offered tools' declarations). */
  systemMessage(): AgentMessage | undefined;
  agent(): Agent | undefined;
  modelChoice(): ChatModelChoice | undefined;
  queueKept(): boolean;
  ensureAgent(): Promise<Agent>;
  sendQueued(): Promise<void>;
  /** The Stop button's way to end the `!cmd` while it runs. */
  setStop(controller: AbortController | undefined): void;
}

export type SessionParts = RunHost &
  UserCommandHost &
  AgentBindingDeps &
  BranchMoveHost &
  Toolbox & { path: ChatPath; branches: ChatBranches; store: SessionPersistence; queue: InputQueue; context: ChatContext; pathState: PathStateKeeper };

export function wireSession(options: ChatSessionOptions, self: SessionSelf): SessionParts {
  /** The whole transcript of the branch shown; the agent holds its projection. */
  const path = new ChatPath(systemMessageFirst(options.messages));
  /** The chat as a tree: which node each message of the path is, where it forks. */
  const branches = new ChatBranches(options.tree);
  const emit = self.emit;
  const store = new SessionPersistence({ options, path, branches, emit, systemMessage: self.systemMessage }, path.messages);
  store.noteUnendedBackground();
  const append = (message: AgentMessage): Promise<void> => store.append(message);
  const persistOnce = (message: AgentMessage): Promise<void> => store.persistOnce(message);
  const mcpRun: McpRun = { prompt: undefined, signIn: [], extras: undefined, lean: false };
  const context = new ChatContext({
    chatId: options.id,
    messages: () => path.messages,
    append,
    emit,
    settings: () => ({ ...options.compaction?.() }) as CompactionSettings,
    ...(options.log ? { log: options.log } : {}),
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
    runExtras: () => mcpRun.extras,
  });
  const slot = new RunSlot();
  const queue = new InputQueue(self.agent, (items, kept) => emit({ type: "queue/changed", items, kept }));
  const toolbox = createToolbox({
    id: options.id,
    options,
    acceptsImages: () => self.agent()?.state.model.input.includes("image"),
    emit,
    record: (notice) => queue.steerOwn(notice),
    transcript: () => path.messages,
    // The keeper is made below, from the toolbox's neighbours; the gates ask it only once calls come.
    mode: () => pathState.mode(),
  });
  const pathState = new PathStateKeeper({
    messages: () => path.messages,
    running: () => slot.running,
    steer: (message) => queue.steerOwn(message),
    append,
    emit,
  });
  const onAgentEvent = agentEventsToView({
    delivered: (m) => queue.delivered(m),
    addedByAgent: (m) => path.addedByAgent(m),
    persistOnce,
    redactor: options.redactor,
    emit,
  });
  return {
    ...toolbox,
    ...self,
    id: options.id,
    options,
    path,
    branches,
    store,
    queue,
    context,
    slot,
    pathState,
    mcpRun,
    deferred: new DeferredMcpTools(),
    signInNoted: new Set<string>(),
    append,
    persistOnce,
    onAgentEvent,
    ensureSystemMessage: () => store.ensureSystemMessage(),
    messages: () => path.messages,
    meter: () => context.meter(),
    afterToolCall: (toolContext) => toolbox.edits.afterToolCall(toolContext),
  };
}

/**
 * Messages saved before the agent existed (a `!cmd`, a setup error) precede the system message
 * on disk; the agent wants it first, or it adds a second one. The request view only: the file
 * keeps its order.
 */
function systemMessageFirst(messages: readonly AgentMessage[]): AgentMessage[] {
  const index = messages.findIndex((m) => m.role === "system");
  if (index <= 0) return messages.slice();
  return [messages[index]!, ...messages.slice(0, index), ...messages.slice(index + 1)];
}
