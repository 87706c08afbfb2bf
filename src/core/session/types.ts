// What a ChatSession is given: its options (the host's I/O, injected), the model binding a run
// resolves, the redactor, the shell command options, and the default system prompt.
import type { AgentMessage, StreamFn } from "@earendil-works/pi-agent-core";
import type { Api, Model } from "@earendil-works/pi-ai";
import type { RequestCapture } from "../context/chat-context";
import type { CompactionSettings } from "../context/compaction";
import type { BindingWindow } from "../context/server-window";
import type { EditApprover, EditPermissionSettings } from "../permissions";
import type { ChatTree } from "../transcript/tree";
import type { ChatModelChoice } from "../transcript/types";
import type { PathSummary } from "../transcript/chat-index";
import type { SearchBackend, WalkRules } from "../tools";
import type { ProblemsWatcher } from "../tools/problems-after-edit";
import { WORKSPACE_TOOLS_PROMPT } from "../tools/toolset";
import type { ChatCheckpoints } from "../checkpoints";
import type { ImageScaler } from "../images/image-scaler";
import type { WorkspaceFileSystem } from "../tools/workspace-fs";
import type { CommandApprover, CommandRuleStore } from "../permissions/command-gate";
import type { CommandRunner } from "../shell/runner";
import type { CommandFolders } from "../shell/command-folders";
import type { McpChatTools } from "../mcp/gate";
import type { McpOnDemandSetting } from "../mcp/tool-search";
import type { LeanModeSetting } from "../context/lean-mode";
import type { ErrorFix, FailedRequestModel } from "./run-errors";

/** What a run needs from the provider layer, resolved when a run starts (settings may have changed). */
export interface ModelBinding {
  model: Model<Api>;
  streamFn: StreamFn;
  getApiKey: (provider: string) => Promise<string | undefined> | string | undefined;
  /** What the model's server said of its window (OpenAI-compatible servers); absent: the catalog's window is the real one. */
  window?: BindingWindow;
  /**
   * Has the server asked for its window again at the next run (what it said stays shown until
   * then): called when a request was refused for its size (the user may restart the server with
   * another window, as the refusal card says).
   */
  askWindowAgain?: () => void;
}

/** What the session needs of the SecretRedactor (redaction.ts): text and whole values. */
export interface Redactor {
  /** Adds a key to redact by value (the key in use is added when a run binds its model). */
  add(secret: string | undefined): void;
  text(text: string): string;
  /** Where a never-ending output line can be cut without splitting a key (see SecretRedactor). */
  cutPoint(text: string, hold: number): number;
  /** Keys by value only (for streamed text, see StreamRedaction). */
  values(text: string): string;
  /** How much of a stream's end could be the start of a key (held until the next delta). */
  keyStartAtEnd(text: string): number;
  readonly longest: number;
  /** The same object when nothing in it changed. */
  deep<T>(value: T): T;
}

export interface ChatSessionOptions {
  id: string;
  /** The saved transcript (the path to the current leaf), or [] for a new chat. */
  messages: readonly AgentMessage[];
  /** The saved chat as a tree (its current path must be `messages`); a new chat starts an empty one. */
  tree?: ChatTree<AgentMessage>;
  systemPrompt: string;
  fs: WorkspaceFileSystem;
  /** Absolute workspace root, so the tools accept absolute paths inside it. */
  workspaceRoot?: string;
  /** The discovery tools' engine and VS Code's excludes (defaults: portable search, no excludes). */
  discovery?: { searchBackend?: SearchBackend; rules?: () => WalkRules; searchRules?: () => WalkRules };
  /** The model for a run: the chat's own choice when it has one, else the settings'. */
  resolveModel: (choice?: ChatModelChoice) => Promise<ModelBinding>;
  /** The model this chat was set to (its transcript's last model line), if any. */
  model?: ChatModelChoice;
  /** Saves the chat's model choice (a model line in its transcript). */
  persistModel?: (choice: ChatModelChoice) => Promise<void>;
  approver: EditApprover;
  /** The approval mode, protected files and workspace trust the edit gate reads at each call. */
  approvalMode: EditPermissionSettings["approvalMode"];
  protectedFiles?: EditPermissionSettings["protectedFiles"];
  workspaceTrusted?: EditPermissionSettings["workspaceTrusted"];
  /**
   * Saves one final message as a child of `parentId` and resolves to its node id. Awaited before
   * the next event, so the transcript order is the event order.
   */
  persist: (message: AgentMessage, parentId: string | null, newPath?: PathSummary) => Promise<string>;
  /** Saves which leaf is current after a branch switch, with its path's summary for the history list. */
  persistLeaf?: (nodeId: string, path: PathSummary) => Promise<void>;
  /**
   * Makes this window the chat's only writer before a run starts (another VS Code window may be
   * writing it); resolves to the release, called when the run ends. Rejects, with the reason the
   * user reads, when the run must not start: then nothing is shown or saved.
   */
  claimWriter?: () => Promise<() => Promise<void>>;
  /** Removes the API keys in use (and key shapes) from everything saved or shown. */
  redactor?: Redactor;
  maxContextTokens?: number;
  /** Running shell commands (run_command); absent: the tool is not offered. */
  commands?: CommandOptions;
  /** Explains a provider error (401, 429, network) with its fix, for a notice in the chat. */
  describeError?: (errorMessage: string, model?: FailedRequestModel) => { text: string } & ErrorFix;
  /** Compaction settings, read when they are needed (the user may change them). */
  compaction?: () => Partial<CompactionSettings>;
  /** Called with every chat request as it is sent ("what the model sees"). */
  onRequest?: (capture: RequestCapture) => void;
  log?: (line: string) => void;
  /**
   * Request-time additions to the context after the policy (project instructions, image bytes):
   * I/O the pure policy must not do. Returns a new array; a failure falls back to its input.
   */
  extendContext?: RequestContextStep;
  /** The language server's errors, reported after each applied edit. */
  problems?: ProblemsWatcher;
  /** Scales large images read_file returns (a worker thread in the extension); without it they are refused. */
  imageScaler?: ImageScaler;
  /** The window's MCP servers' tools (every call asks: src/core/mcp/gate.ts); absent: none. */
  mcp?: McpChatTools;
  /** `piChat.mcp.toolsOnDemand`, read at each run (mcp/tool-search.ts); absent: "auto". */
  mcpOnDemand?: () => McpOnDemandSetting;
  /** `piChat.leanMode`, read at each run (context/lean-mode.ts); absent: off (the host passes the setting, "auto" by default). */
  leanMode?: () => LeanModeSetting;
  /** Records what edit_file and run_command change, per user message (src/core/checkpoints). */
  checkpoints?: ChatCheckpoints;
}

/** One request-time step over the request view of the transcript; never mutates its input. */
export type RequestContextStep = (messages: AgentMessage[], signal?: AbortSignal) => Promise<AgentMessage[]>;

export interface CommandOptions {
  /** The terminal when shell integration is there, else a child process: chosen per run. */
  runner: () => CommandRunner;
  /** False in restricted mode (untrusted workspace): the tool is not offered and the gate refuses. */
  enabled: () => boolean;
  rules: CommandRuleStore;
  approver: CommandApprover;
  defaultTimeoutSeconds: () => number;
  /** Folder for the full-output logs of this chat's commands. */
  logDir?: string;
  /** The folders commands may run in; default: the one workspaceRoot. */
  folders?: CommandFolders;
}

export const DEFAULT_SYSTEM_PROMPT = [
  "You are Pi Chat, a coding assistant inside the user's editor.",
  WORKSPACE_TOOLS_PROMPT,
  "When the run_command tool is available, use it to run the project's tests, builds, linters and git commands rather than guessing their results; every run needs the user's yes.",
  "Read a file before you edit it. Answer concisely, in Markdown.",
].join("\n");
