// What one chat keeps of its conversation for the model, wired into a session: the budget of
// the current model, compaction (after a turn over the threshold, before a request that would
// pass it, on a context-overflow error with one retry, by hand), the meter's figures, and the
// capture of the request actually sent ("what the model sees").
import type { Agent, AgentMessage, AgentRequestUpdate, PrepareRequestContext, StreamFn } from "@earendil-works/pi-agent-core";
import { isContextOverflow, type Api, type AssistantMessage, type Message, type Model } from "@earendil-works/pi-ai";
import type { ContextMeter } from "../../shared/context-meter";
import type { ChatEvent } from "../../shared/protocol";
import type { RequestView } from "../context-policy";
import type { CompactionSummaryMessage, CompactionTrigger, LocalNoticeMessage } from "../messages";
import { errorNotice } from "../session/run-errors";
import { contextBudget, DEFAULT_COMPACTION_SETTINGS, type CompactionSettings, type ContextBudget } from "./compaction";
import { compactPath, type CompactionOutcome, summaryModelOf } from "./compactor";
import { contextMeter, contextSize, fixedParts, MeterCache, type MeterModel, type RunExtras } from "./meter";
import { answerSizedByUs, type OversizedRequest, requestFit, requestTokens } from "./request-fit";
import type { BindingWindow } from "./server-window";

/** The model, stream function and key lookup of a run (the session's ModelBinding). */
export interface ContextBinding {
  model: Model<Api>;
  streamFn: StreamFn;
  getApiKey: (provider: string) => Promise<string | undefined> | string | undefined;
  /** What the server said of the window (OpenAI-compatible servers): absent, the catalog's window. */
  window?: BindingWindow;
  /** Has the server asked for its window again at the next run (ModelBinding.askWindowAgain). */
  askWindowAgain?: () => void;
}

/** What the meter and the budget need of a model: known from the settings before any request (a restored chat). */
export type PreviewModel = MeterModel & { maxTokens: number };

/** The request the model was actually sent, as the stream function and the provider adapter saw it. */
export interface RequestCapture {
  chatId: string;
  sentAt: number;
  model: { provider: string; id: string; api: string; contextWindow: number };
  /** The messages after transformContext and convertToLlm, system messages (prompt, tools) included. */
  messages: Message[];
  /** The provider's request body (pi-ai's onPayload), exactly as handed to the SDK. */
  payload?: unknown;
  maxOutputTokens?: number;
  /** MCP tools only listed by name in this request's system prompt (loaded on demand with tool_search), not declared. */
  listedTools?: string[];
  /** Lean mode was on (a short prompt, the essential tools). */
  lean?: boolean;
  /** How the transcript became this request. */
  view: { transcriptMessages: number; summarized: number; trimmed: number; compactionAt?: number };
}

export interface ChatContextHost {
  chatId: string;
  messages(): readonly AgentMessage[];
  /** Appends one message to the transcript: saved and shown. */
  append(message: AgentMessage): Promise<void>;
  emit(event: ChatEvent): void;
  settings(): CompactionSettings;
  log?(line: string): void;
  onRequest?(capture: RequestCapture): void;
  /** What the current run sends beyond the transcript (the MCP servers' tools and section). */
  runExtras?(): RunExtras | undefined;
}

/** Retried once after a compaction; a second overflow ends in a notice. */
const OVERFLOW_RETRIES = 1;

export class ChatContext {
  private binding: ContextBinding | undefined;
  /** The settings' model, for the meter until a run binds the real one. */
  private preview: PreviewModel | undefined;
  private running: AbortController | undefined;
  private lastView: RequestView | undefined;
  private lastCapture: RequestCapture | undefined;
  /** A compaction failed in this run: do not ask again before every request. */
  private failedThisRun = false;
  /** The user was told that requests are trimmed; told again only after a request that was not. */
  private trimExplained = false;
  /** An automatic compaction failed and the user was told: the next failures (one try a run) say nothing new until one succeeds. */
  private failureExplained = false;
  /** A request this run did not send because it could not fit the window: told by afterRun. */
  private refused: OversizedRequest | undefined;
  /** The meter's running totals along the path, so each update adds up only what changed. */
  private readonly meterCache = new MeterCache();
  /**
   * The same sums over the requests' contexts: the agent holds the path's projection, so a
   * message sits at another index there, and one cache for both would walk again on each switch.
   */
  private readonly requestCache = new MeterCache();

  constructor(private readonly host: ChatContextHost) {}

  get compacting(): boolean {
    return this.running !== undefined;
  }

  /** The last request sent in this session (none after a restore until the next one). */
  get lastRequest(): RequestCapture | undefined {
    return this.lastCapture;
  }

  get model(): Model<Api> | undefined {
    return this.binding?.model;
  }

  bind(binding: ContextBinding): void {
    this.binding = binding;
  }

  /** The meter shows "used / window" before the first request of a restored chat. */
  previewModel(model: PreviewModel | undefined): void {
    this.preview = model;
  }

  budget(model: PreviewModel | undefined = this.binding?.model ?? this.preview): ContextBudget | undefined {
    if (!model || !(model.contextWindow > 0)) return undefined;
    const fixed = Math.ceil(this.fixedTokens() * this.tokenScale());
    return contextBudget(model.contextWindow, model.maxTokens, this.settings(), fixed);
  }

  /** The window is a working guess (no server or setting said it): the meter says "unknown" instead. */
  private windowUnknown(): boolean {
    return this.binding ? this.binding.window?.known === false : this.preview !== undefined && !(this.preview.contextWindow > 0);
  }

  /** The server's tokens per token of our estimate (1 unless the server measured it). */
  private tokenScale(): number {
    return this.binding?.window?.tokenScale ?? 1;
  }

  /** Where the request view is trimmed (in estimated tokens): the threshold, in the server's tokens. */
  trimLimit(): number | undefined {
    const threshold = this.budget()?.threshold;
    return threshold === undefined ? undefined : Math.floor(threshold / this.tokenScale());
  }

  meter(): ContextMeter {
    const model = this.binding?.model ?? this.preview;
    const unknown = this.windowUnknown();
    const budget = unknown ? undefined : this.budget();
    const meter = contextMeter(
      this.host.messages(),
      model ? { contextWindow: unknown ? 0 : model.contextWindow, cost: model.cost } : undefined,
      budget?.threshold,
      this.lastView?.trimmed,
      this.meterCache,
      this.host.runExtras?.(),
      this.tokenScale(),
    );
    if (unknown) meter.windowUnknown = true;
    return meter;
  }

  /** Stops a compaction under way (the transcript stays as it was). */
  abort(): void {
    this.running?.abort();
  }

  startRun(): void {
    this.failedThisRun = false;
    this.refused = undefined;
  }

  /** transformContext's report on the request it built. */
  noteView(view: RequestView): void {
    this.lastView = view;
    if (view.trimmed === 0) this.trimExplained = false;
  }

  /**
   * The stream function every chat request goes through: caps the answer so it fits the window,
   * and records what was sent (the context and the provider's body).
   */
  wrapStreamFn(streamFn: StreamFn): StreamFn {
    return (model, context, options) => {
      const budget = this.budget(model);
      const view = this.lastView;
      const messages = this.host.messages();
      const capture: RequestCapture = {
        chatId: this.host.chatId,
        sentAt: Date.now(),
        model: { provider: model.provider, id: model.id, api: model.api, contextWindow: model.contextWindow },
        // The list, not the messages: they are final and never changed (the transcript's own
        // objects, or new ones convertToLlm made), and a deep copy cost O(context) per request.
        messages: [...context.messages],
        view: { transcriptMessages: messages.length, summarized: view?.summarized ?? 0, trimmed: view?.trimmed ?? 0 },
      };
      const compactionAt = lastIndexOf(messages, "compactionSummary");
      if (compactionAt !== -1) capture.view.compactionAt = compactionAt;
      // A server's known window is never passed: measure the request, and size the answer to what is left.
      const fit = budget && this.binding?.window?.known ? requestFit(requestTokens(context, this.tokenScale()), budget, this.binding.window) : undefined;
      if (fit?.refused) this.refuse(fit.refused);
      const cap = fit?.maxOutputTokens ?? budget?.maxOutputTokens;
      const maxTokens = cap !== undefined ? Math.min(options?.maxTokens ?? cap, cap) : options?.maxTokens;
      const extras = this.host.runExtras?.();
      if (extras?.mcpListed && extras.mcpListed.length > 0) capture.listedTools = [...extras.mcpListed];
      if (extras?.lean) capture.lean = true;
      if (maxTokens !== undefined) capture.maxOutputTokens = maxTokens;
      this.lastCapture = capture;
      const userOnPayload = options?.onPayload;
      const wrapped = {
        ...options,
        ...(maxTokens !== undefined ? { maxTokens } : {}),
        onPayload: async (payload: unknown, payloadModel: Model<Api>) => {
          const replaced = await userOnPayload?.(payload, payloadModel);
          // As JSON, which is what goes over the wire (the body may hold values structuredClone refuses).
          // Recording must never break the request.
          try {
            capture.payload = JSON.parse(JSON.stringify(replaced ?? payload)) as unknown;
          } catch (error) {
            this.host.log?.(`could not record the request body: ${String(error)}`);
          }
          this.notifyRequest(capture);
          return replaced;
        },
      };
      this.notifyRequest(capture);
      const sent = fit?.maxOutputTokens !== undefined ? answerSizedByUs(model) : model;
      return streamFn(sent, context, wrapped);
    };
  }

  /** Not sent: the run's error card says why. The card asks the user to restart the server with a larger window, so the next run asks it again. */
  private refuse(refusal: OversizedRequest): never {
    this.refused = refusal;
    this.binding?.askWindowAgain?.();
    throw new Error(refusal.text);
  }

  private notifyRequest(capture: RequestCapture): void {
    try {
      this.host.onRequest?.(capture);
    } catch (error) {
      this.host.log?.(`request observer failed: ${String(error)}`);
    }
  }

  /**
   * Before every request of a run (pi-agent-core's prepareRequest): a context over the threshold
   * is compacted first, so no request is sent that cannot fit its answer.
   */
  async beforeRequest(request: PrepareRequestContext, signal: AbortSignal | undefined): Promise<AgentRequestUpdate | undefined> {
    const budget = this.budget(request.model);
    // What every request carries must fit before anything else is tried: no summary makes it smaller.
    const window = this.binding?.window;
    if (budget && window?.known) {
      const fixed = requestFit({ fixed: Math.ceil(this.fixedTokens() * this.tokenScale()), total: 0 }, budget, window);
      if (fixed.refused) this.refuse(fixed.refused);
    }
    if (!budget || !this.settings().enabled || this.failedThisRun) return undefined;
    if (contextSize(request.context.messages, this.requestCache, this.tokenScale()).tokens <= budget.threshold) return undefined;
    const outcome = await this.compact("threshold", { ...(signal ? { signal } : {}) });
    if (outcome.status !== "done") return undefined;
    return { context: { ...request.context, messages: [...request.context.messages, outcome.message] } };
  }

  /**
   * After a run: a context-overflow error is compacted and retried once (true: handled, the
   * caller does not explain the error); a context over the threshold is compacted for the next prompt.
   */
  async afterRun(agent: Agent): Promise<boolean> {
    // A request refused before sending: say why and what fixes it (compacting cannot, for the fixed part).
    const refused = this.refused;
    if (refused && lastAssistant(this.host.messages())?.stopReason === "error") {
      this.refused = undefined;
      await this.host.append(errorNotice(refused.text, refused));
      return true;
    }
    for (let attempt = 0; this.settings().enabled; attempt++) {
      const last = lastAssistant(this.host.messages());
      const window = this.binding?.model.contextWindow ?? 0;
      // Only a refused request is retried: an answer that came (a silent overflow) is not asked again.
      if (last?.stopReason !== "error" || !isContextOverflow(last, window)) break;
      if (attempt >= OVERFLOW_RETRIES) {
        await this.host.append(
          notice(
            "error",
            `The conversation is still too long for ${last.model} after compacting it.`,
            "Run “Pi Chat: Compact Chat” to keep less of it verbatim, or “Pi Chat: New Chat from Summary” to go on in a new chat.",
            "newChatFromSummary",
          ),
        );
        return true;
      }
      const outcome = await this.compact("overflow", {});
      if (outcome.status === "cancelled") return true;
      if (outcome.status !== "done") {
        await this.host.append(
          notice(
            "error",
            `The conversation is too long for ${last.model}, and it could not be summarized: ${outcome.status === "failed" ? outcome.error : outcome.reason}`,
            "Start a new chat, or run “Pi Chat: Compact Chat” again.",
            "compact",
          ),
        );
        return true;
      }
      this.host.log?.("context overflow: compacted, retrying once");
      await agent.continue();
    }
    await this.explainTrim();
    const budget = this.budget();
    if (
      budget &&
      this.settings().enabled &&
      !this.failedThisRun &&
      contextSize(this.host.messages(), this.meterCache, this.tokenScale()).tokens > budget.threshold
    ) {
      await this.compact("threshold", {});
    }
    return false;
  }

  /**
   * Trimming is the fallback when no summary made the context fit: never silent. A failed
   * compaction's notice already says it; compaction turned off, or a summary that still left the
   * context too long, is said here, once per stretch of trimmed requests.
   */
  private async explainTrim(): Promise<void> {
    const trimmed = this.lastView?.trimmed ?? 0;
    if (trimmed === 0 || this.trimExplained) return;
    this.trimExplained = true;
    if (this.failedThisRun) return;
    const why = this.settings().enabled
      ? `Even after summarizing, the conversation was too long for the context window: its oldest ${trimmed} messages were left out of the request.`
      : `Compaction is off (piChat.compaction.enabled), so the oldest ${trimmed} messages of this conversation were left out of the request to fit the context window.`;
    await this.host.append(notice("info", why, "“Compact now” summarizes them instead, so the model keeps what they said.", "compact"));
  }

  /** Compacts the transcript now; the summary message is appended when it succeeded, nothing otherwise. */
  async compact(trigger: CompactionTrigger, options: { instructions?: string; signal?: AbortSignal }): Promise<CompactionOutcome> {
    const binding = this.binding;
    const budget = this.budget();
    if (!binding || !budget) return { status: "failed", error: "No model is selected yet." };
    if (this.running) return { status: "nothing", reason: "A compaction is already running." };
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    options.signal?.addEventListener("abort", onAbort);
    if (options.signal?.aborted) controller.abort();
    this.running = controller;
    this.host.emit({ type: "compaction/start", trigger });
    let outcome: CompactionOutcome;
    try {
      const apiKey = await binding.getApiKey(binding.model.provider);
      outcome = await compactPath(this.host.messages(), summaryModelOf(binding, apiKey), {
        trigger,
        budget,
        tokenScale: this.tokenScale(),
        signal: controller.signal,
        ...(options.instructions ? { instructions: options.instructions } : {}),
      });
    } catch (error) {
      outcome = { status: "failed", error: error instanceof Error ? error.message : String(error) };
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      this.running = undefined;
    }
    this.host.emit({
      type: "compaction/end",
      status: outcome.status,
      ...(outcome.status === "failed" ? { error: outcome.error } : outcome.status === "nothing" ? { error: outcome.reason } : {}),
    });
    if (outcome.status === "done") {
      this.failureExplained = false;
      await this.host.append(outcome.message);
      this.host.log?.(
        `compacted (${trigger}): ${outcome.message.tokensBefore} → ${outcome.message.tokensAfter} tokens, ${outcome.message.summarizedMessageCount} messages`,
      );
    } else if (outcome.status === "failed" && trigger !== "manual") {
      this.failedThisRun = true;
      this.trimExplained = true;
      this.host.log?.(`compaction failed: ${outcome.error}`);
      if (this.failureExplained) return outcome;
      this.failureExplained = true;
      await this.host.append(
        notice(
          "info",
          `The conversation could not be summarized (${outcome.error}). Its oldest turns are left out of the next requests instead.`,
          "Run “Pi Chat: Compact Chat” to try again.",
          "compact",
        ),
      );
    }
    return outcome;
  }

  private settings(): CompactionSettings {
    try {
      return { ...DEFAULT_COMPACTION_SETTINGS, ...this.host.settings() };
    } catch {
      return DEFAULT_COMPACTION_SETTINGS;
    }
  }

  /** The system prompt and tool declarations (the MCP servers' too): in every request. */
  private fixedTokens(): number {
    const fixed = fixedParts(this.host.messages(), this.host.runExtras?.(), this.meterCache);
    return fixed.instructions + fixed.tools + fixed.mcpTools;
  }
}

function lastAssistant(messages: readonly AgentMessage[]): AssistantMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "assistant") return m;
    if (m.role === "user" || m.role === "toolResult" || m.role === "compactionSummary") return undefined;
  }
  return undefined;
}

function lastIndexOf(messages: readonly AgentMessage[], role: AgentMessage["role"]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === role) return i;
  return -1;
}

function notice(level: LocalNoticeMessage["level"], text: string, fix: string, fixCommand: LocalNoticeMessage["fixCommand"]): LocalNoticeMessage {
  return { role: "localNotice", level, text, fix, ...(fixCommand ? { fixCommand } : {}), timestamp: Date.now() };
}

export type { CompactionSummaryMessage };
