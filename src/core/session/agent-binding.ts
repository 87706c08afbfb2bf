// Binds a run to its model: the key in use joins the redactor, the chat's thinking level is
// clamped to what the model supports, the MCP servers' tools and prompt are fetched for the run
// (with what they add to every request, for the meter), and the chat's pi Agent is built the first
// time or rebound to the new model and tools after that.
import {
  Agent,
  type AgentContext,
  type AgentLoopTurnUpdate,
  type AfterToolCallContext,
  type AfterToolCallResult,
  type AgentEvent,
  type AgentTool,
} from "@earendil-works/pi-agent-core";
import { clampThinkingLevel } from "@earendil-works/pi-ai";
import type { ChatEvent } from "../../shared/protocol";
import { convertToLlm, createTransformContext } from "../context-policy";
import type { ChatContext } from "../context/chat-context";
import type { RunExtras } from "../context/meter";
import { isLeanMode, leanTools, withLeanPrompt } from "../context/lean-mode";
import { withSystemSection } from "../context/project-instructions";
import { estimateToolDeclarationTokens, tokensOfText } from "../context/tokens";
import { MCP_SERVERS_SECTION, type McpRunTools, type McpSignInNeeded } from "../mcp/gate";
import { instructedOnPath, mcpOnDemandPrompt, mcpServersPrompt, serverOfTool } from "../mcp/server-words";
import { createToolSearchTool, loadedOnPath, shouldDeferMcpTools, type DeferredMcpTools } from "../mcp/tool-search";
import type { ChatModelChoice } from "../transcript/types";
import type { ChatPath } from "./chat-path";
import type { ToolGates } from "./tool-gates";
import type { ChatSessionOptions, ModelBinding, Redactor, RequestContextStep } from "./types";

/** What the MCP servers bring to one run. */
export interface McpRun {
  /** The system prompt's section on the MCP servers of this run (their names and instructions). */
  prompt: string | undefined;
  /** Servers waiting for a sign-in at this run's start; each gets one note per session. */
  signIn: McpSignInNeeded[];
  /** What they add to every request of this run, for the meter and the compaction budget. */
  extras: RunExtras | undefined;
  /** Lean mode for this run (lean-mode.ts): the short prompt replaces the chat's in each request. */
  lean: boolean;
}

export interface AgentBindingDeps {
  id: string;
  options: ChatSessionOptions;
  keys: Redactor;
  context: ChatContext;
  path: ChatPath;
  /** Written at each binding, read by the request step, the meter and the sign-in notes. */
  mcpRun: McpRun;
  gates: ToolGates;
  afterToolCall(context: AfterToolCallContext): Promise<AfterToolCallResult | undefined>;
  /** The session's tools (the gates pick those offered to this run). */
  tools: readonly AgentTool[];
  /** The run's MCP tools when they are deferred behind tool_search (mcp/tool-search.ts). */
  deferred: DeferredMcpTools;
  modelChoice(): ChatModelChoice | undefined;
  emit(event: ChatEvent): void;
  onAgentEvent(event: AgentEvent): Promise<void>;
}

/** The agent for this run: `current` rebound to `binding`, or a new one (`built`) the caller adopts. */
export async function bindAgent(current: Agent | undefined, binding: ModelBinding, deps: AgentBindingDeps): Promise<{ agent: Agent; built: boolean }> {
  try {
    deps.keys.add(await binding.getApiKey(binding.model.provider));
  } catch {
    // no key: nothing more to redact
  }
  deps.context.bind(binding);
  // The window is known now: the meter can show "used / window".
  deps.emit({ type: "context/meter", meter: deps.context.meter() });
  // The chat's thinking level, as far as its model supports it ("off" by default).
  const thinkingLevel = clampThinkingLevel(binding.model, (deps.modelChoice()?.thinkingLevel ?? "off") as Parameters<typeof clampThinkingLevel>[1]);
  const mcp = await deps.options.mcp?.forRun({ acceptsImages: binding.model.input.includes("image"), chatId: deps.id });
  const lean = isLeanMode(deps.options.leanMode?.() ?? "off", binding.model.contextWindow);
  const tools = runTools(mcp, lean, deps);
  deps.mcpRun.lean = lean;
  deps.mcpRun.signIn = mcp?.signIn ?? [];
  // The run's tools and lean mode are known now: the meter says what they cost.
  deps.emit({ type: "context/meter", meter: deps.context.meter() });
  if (current) {
    current.state.tools = tools;
    current.prepareNextTurnWithContext = (turn) => withLoadedTools(turn.context, deps);
    current.state.model = binding.model;
    current.state.thinkingLevel = thinkingLevel;
    current.streamFunction = deps.context.wrapStreamFn(binding.streamFn);
    current.getApiKey = binding.getApiKey;
    return { agent: current, built: false };
  }
  const { options, context, path } = deps;
  const agent = new Agent({
    initialState: { systemPrompt: options.systemPrompt, model: binding.model, thinkingLevel, tools, messages: path.projection() },
    streamFn: context.wrapStreamFn(binding.streamFn),
    getApiKey: binding.getApiKey,
    convertToLlm,
    transformContext: withRequestSteps(
      createTransformContext({
        // Trimming is the fallback when no summary could be made: at the same threshold.
        get maxContextTokens() {
          return options.maxContextTokens ?? context.trimLimit() ?? Math.floor(binding.model.contextWindow * 0.75);
        },
        onFallback: (reason) => options.log?.(`context policy fell back to the full transcript: ${reason}`),
        // The agent holds the projection: what the summary stands for is counted on the path.
        onView: (view) => context.noteView({ ...view, summarized: path.summarizedIn(view.messages) }),
      }),
      deps,
    ),
    prepareRequest: (request, signal) => context.beforeRequest(request, signal),
    // What tool_search loaded is declared from the next call on (pi records the change in the transcript).
    prepareNextTurnWithContext: (turn) => withLoadedTools(turn.context, deps),
    beforeToolCall: deps.gates.beforeToolCall,
    afterToolCall: (toolContext) => deps.afterToolCall(toolContext),
    sessionId: deps.id,
  });
  // A follow-up or steer is its attachments and its prompt: pi must deliver them together.
  agent.followUpMode = "all";
  agent.steeringMode = "all";
  agent.subscribe((event) => deps.onAgentEvent(event));
  return { agent, built: true };
}

/**
 * The run's tool set: the offered tools (the essential ones, short, in lean mode) and the MCP
 * tools, all declared below the threshold; above it (or in lean mode) listed in the MCP section
 * and behind tool_search, with those the path declares already kept (a reload, a branch). A
 * server's full instructions are then in front of the model exactly once: in a tool_search result
 * the agent holds, or in the section while a tool of it is declared without such a result.
 */
function runTools(mcp: McpRunTools | undefined, lean: boolean, deps: AgentBindingDeps): AgentTool[] {
  const offered = deps.gates.offered(deps.tools);
  const own = lean ? leanTools(offered) : offered;
  // The gates pick MCP tools too: plan mode offers none.
  const mcpTools = deps.gates.offered(mcp?.tools ?? []);
  const servers = mcp?.servers ?? [];
  const notes = mcp?.notes ?? [];
  if (!shouldDeferMcpTools(mcpTools, lean, deps.options.mcpOnDemand?.())) {
    deps.deferred.reset([], new Set());
    deps.mcpRun.prompt = mcpServersPrompt(servers, notes) || undefined;
    deps.mcpRun.extras = mcp || lean ? runExtras(mcpTools, [], deps.mcpRun.prompt, lean) : undefined;
    return [...own, ...mcpTools];
  }
  const loaded = loadedOnPath(deps.path.messages);
  const told = instructedOnPath(deps.path.projection());
  const serverOf = serverOfTool(servers);
  const inFull = new Set([...loaded].map(serverOf).filter((server) => !told.has(server)));
  deps.deferred.reset(mcpTools, loaded, servers, new Set([...told, ...inFull]));
  deps.mcpRun.prompt = mcpOnDemandPrompt(servers, mcpTools, inFull, notes);
  deps.mcpRun.extras = runExtras(deps.deferred.declared(), deps.deferred.listed(), deps.mcpRun.prompt, lean);
  return [...own, createToolSearchTool(deps.deferred), ...deps.deferred.declared()];
}

function runExtras(declared: readonly AgentTool[], listed: readonly AgentTool[], prompt: string | undefined, lean: boolean): RunExtras {
  return {
    ...(lean ? { lean } : {}),
    mcpTools: declared.map((tool) => ({ name: tool.name, tokens: estimateToolDeclarationTokens([tool]) })),
    mcpPromptTokens: prompt ? tokensOfText(prompt) : 0,
    mcpListed: listed.map((tool) => tool.name),
  };
}

/** The next turn's context with the tools tool_search loaded in this one; undefined when it loaded none. */
function withLoadedTools(context: AgentContext, deps: Pick<AgentBindingDeps, "deferred" | "mcpRun">): AgentLoopTurnUpdate | undefined {
  const loaded = deps.deferred.takeLoaded();
  if (loaded.length === 0) return undefined;
  deps.mcpRun.extras = runExtras(deps.deferred.declared(), deps.deferred.listed(), deps.mcpRun.prompt, deps.mcpRun.lean);
  return { context: { ...context, tools: [...(context.tools ?? []), ...loaded] } };
}

/** The policy, then the MCP servers' section and the host's request-time step; a failing step never breaks the request. */
function withRequestSteps(policy: RequestContextStep, deps: Pick<AgentBindingDeps, "options" | "mcpRun">): RequestContextStep {
  const extended: RequestContextStep = async (messages, signal) => {
    const view = withSystemSection(await policy(messages, signal), MCP_SERVERS_SECTION, deps.mcpRun.prompt);
    const extend = deps.options.extendContext;
    if (!extend) return view;
    try {
      return await extend(view, signal);
    } catch (error) {
      deps.options.log?.(`request context step failed, sent without it: ${error instanceof Error ? error.message : String(error)}`);
      return view;
    }
  };
  // Lean mode last: its prompt replaces the chat's, and the host's skills list is cut to names.
  return async (messages, signal) => {
    const view = await extended(messages, signal);
    return deps.mcpRun.lean ? withLeanPrompt(view) : view;
  };
}
