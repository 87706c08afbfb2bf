// One run of a chat, from the claim on the chat's file to the queue sent after it: the writer's
// claim, the system message, the agent bound, the start (a prompt, a continue, a compaction), the
// overflow handled, a provider error explained, the MCP sign-in notes, and a setup failure
// reported with the user's words kept. RunSlot says whether a run (or a `!cmd`) holds the chat.
import type { Agent, AgentMessage } from "@earendil-works/pi-agent-core";
import type { ChatEvent } from "../../shared/protocol";
import type { ChatContext } from "../context/chat-context";
import { IMAGE_REFUSAL_NOTICE, isImageRefusal } from "../context/refused-images";
import { signInNoteText } from "../mcp/gate";
import type { McpRun } from "./agent-binding";
import type { InputQueue } from "./input-queue";
import { endedBadly, errorNotice, type FailedRequestModel, runSetupFix, withRetry } from "./run-errors";
import type { ChatSessionOptions } from "./types";

export const STILL_RUNNING = "A reply is still being written. Stop it or wait for it to finish.";

/** Whether a run holds the chat (a flag, set before anything of the run happens), and the run to wait for. */
export class RunSlot {
  private held = false;
  private current: Promise<void> | undefined;

  get running(): boolean {
    return this.held;
  }

  /** Holds the chat while `work` runs; `work` frees it (`free`) before its last event. */
  hold(work: () => Promise<void>): Promise<void> {
    this.held = true;
    const run = work();
    if (this.held) this.current = run;
    return run;
  }

  free(): void {
    this.held = false;
    this.current = undefined;
  }

  /** The run in progress, if any (it rejects as the run does). */
  get idle(): Promise<void> | undefined {
    return this.current;
  }
}

export interface RunHost {
  readonly slot: RunSlot;
  readonly options: Pick<ChatSessionOptions, "claimWriter" | "log" | "describeError">;
  readonly context: Pick<ChatContext, "startRun" | "afterRun">;
  readonly queue: Pick<InputQueue, "size" | "hold">;
  readonly mcpRun: McpRun;
  /** MCP servers whose sign-in note this session already showed. */
  readonly signInNoted: Set<string>;
  messages(): readonly AgentMessage[];
  /** The user's queue was kept by a Stop: it waits for them, not for the run's end. */
  queueKept(): boolean;
  emit(event: ChatEvent): void;
  append(message: AgentMessage): Promise<void>;
  ensureSystemMessage(): Promise<void>;
  ensureAgent(): Promise<Agent>;
  sendQueued(): Promise<void>;
}

export interface RunOptions {
  /** False: no overflow handling or error explanation after it (a compaction run). */
  afterRun?: boolean;
  /**
   * Runs once this window may write the chat, before anything is shown or saved (an edit or a
   * retry cuts the path there, so a refused run leaves the chat as it was).
   */
  prepare?: () => void | Promise<void>;
}

export function runChat(
  host: RunHost,
  start: (agent: Agent) => Promise<void>,
  pendingMessages: readonly AgentMessage[],
  options: RunOptions = {},
): Promise<void> {
  if (host.slot.running) return Promise.reject(new Error(STILL_RUNNING));
  const run = host.slot.hold(async () => {
    let release: (() => Promise<void>) | undefined;
    try {
      release = await host.options.claimWriter?.();
    } catch (error) {
      host.slot.free();
      throw error;
    }
    try {
      await options.prepare?.();
    } catch (error) {
      host.slot.free();
      await release?.().catch(() => undefined);
      throw error;
    }
    host.emit({ type: "chat/runState", running: true });
    let failed = true;
    try {
      await host.ensureSystemMessage();
      const agent = await host.ensureAgent();
      host.context.startRun();
      await start(agent);
      // An overflow is compacted and retried once; a full context is compacted for the next prompt.
      const handled = options.afterRun === false ? false : await host.context.afterRun(agent);
      if (!handled) await explainProviderError(host, agent);
      await noteMcpSignIn(host);
      failed = endedBadly(host.messages());
    } catch (error) {
      await reportRunFailure(host, error, pendingMessages);
    } finally {
      // A run that failed or was stopped keeps the queue for the user; one that ended well
      // sends what came too late for it (below).
      if (failed && host.queue.size > 0) host.queue.hold();
      host.slot.free();
      host.emit({ type: "chat/runState", running: false });
      await release?.().catch((error: unknown) => host.options.log?.(`could not release the chat lock: ${String(error)}`));
    }
  });
  return run.then(() => (host.queue.size > 0 && !host.queueKept() ? host.sendQueued() : undefined));
}

/** Setup failed before the agent ran: keep the user's words and say what to fix. */
async function reportRunFailure(host: RunHost, error: unknown, pendingMessages: readonly AgentMessage[]): Promise<void> {
  const agentHasThem = pendingMessages.length > 0 && host.messages().includes(pendingMessages[0]!);
  if (!agentHasThem) for (const m of pendingMessages) await host.append(m);
  await host.append(errorNotice(error instanceof Error ? error.message : String(error), runSetupFix(error)));
}

/** A failed request ends as an assistant message with stopReason "error": say what to do about it. */
async function explainProviderError(host: RunHost, agent: Agent): Promise<void> {
  const messages = host.messages();
  const last = messages[messages.length - 1];
  if (last?.role !== "assistant" || last.stopReason !== "error") return;
  const raw = last.errorMessage ?? "The model provider returned an error.";
  host.options.log?.(`provider error: ${raw}`);
  const sent = agent.state.model;
  const failed: FailedRequestModel | undefined = last.provider && last.model ? { provider: last.provider, id: last.model, baseUrl: sent.baseUrl } : undefined;
  const described = host.options.describeError?.(raw, failed) ?? { text: raw };
  // Which model failed: a chat can have its own, other than the settings'.
  const model = failed ? ` (model ${failed.provider}/${failed.id})` : "";
  // The provider's words go with the notice (one card), unless the notice already is them; the card
  // offers Retry whatever the error, since a failed turn can always be asked again (canContinue).
  await host.append(errorNotice(`${described.text}${model}`, { ...withRetry(described), ...(described.text !== raw ? { detail: raw } : {}) }));
  // The first time a provider refuses an image in this chat, say what changes (refused-images.ts).
  if (isImageRefusal(last) && !host.messages().slice(0, -2).some(isImageRefusal)) {
    await host.append({ role: "localNotice", level: "info", text: IMAGE_REFUSAL_NOTICE, timestamp: Date.now() });
  }
}

/** After the reply (never between a prompt and its branch): which MCP servers wait for a sign-in, with the button. */
async function noteMcpSignIn(host: RunHost): Promise<void> {
  for (const needed of host.mcpRun.signIn) {
    if (host.signInNoted.has(needed.server)) continue;
    host.signInNoted.add(needed.server);
    await host.append({ role: "localNotice", level: "info", text: signInNoteText(needed), fixCommand: "mcpSignIn", timestamp: Date.now() });
  }
}
