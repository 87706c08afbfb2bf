// The MCP servers of a window: each started (in parallel) when a chat first needs tools, its state
// (starting, ready with N tools, failed with the reason and the last lines of its stderr, disabled,
// not allowed), restarted once after a crash, closed with its children on dispose. The host decides
// what may start (trust, consent, variables) through `prepare`. Part of out/mcp.js.
import type { AgentTool } from "@earendil-works/pi-agent-core";
import { McpClient, type McpOutputSaver, mcpServerSummary, StdioTransport, StreamableHttpTransport, type Tool } from "@earendil-works/pi-mcp";
import {
  createMcpAuthProvider,
  type McpAuthProvider,
  McpOAuthAuthorizationRequiredError,
  type McpOAuthServerStore,
  type McpOAuthSettings,
  type OAuthChallenge,
} from "@earendil-works/pi-mcp/oauth";
import type { McpServerDefinition, McpTransportConfig } from "./config";
import type { McpToolFacts } from "./gate";
import { serverIdentity } from "./identity";
import { plainLine } from "./plain-line";
import { MCP_BRIEF_INSTRUCTIONS_CHARS, type McpServerWords, mcpServersPrompt } from "./server-words";
import { oauthBinding, oauthSettings, signInLocation, signInToMcpServer } from "./oauth";
import { wrapMcpTools, wrapResourceTools } from "./tools";

/** How long a server may take to start and answer `initialize` before it counts as failed. */
export const MCP_START_TIMEOUT_MS = 20_000;
/** How many stderr lines a failed server's state shows (the log keeps all of it). */
export const MCP_STDERR_TAIL_LINES = 8;
/** A crashed server is started again this many times, then left failed. */
export const MCP_RESTARTS_AFTER_CRASH = 1;
/** The system prompt gives each server's instructions at most this much. */
export const MCP_INSTRUCTIONS_CHARS = 500;

export type McpServerState =
  | { kind: "stopped" }
  | { kind: "starting" }
  | { kind: "ready"; tools: number }
  | { kind: "failed"; reason: string; stderr: string[] }
  | { kind: "disabled" }
  /** Not started, and why (Restricted Mode, the user declined the definition). */
  | { kind: "blocked"; reason: string }
  /** An HTTP server refused us and names an OAuth authorization server (its origin): the user signs in. */
  | { kind: "needsSignIn"; authorizationServer: string; reason: string };

export interface McpServerSnapshot {
  name: string;
  scope: McpServerDefinition["scope"];
  file: string;
  state: McpServerState;
  tools: { name: string; agentName: string; disabled: boolean; annotations?: Readonly<Record<string, unknown>> }[];
  /** An HTTP server that signs in with OAuth: whether tokens are kept for it (Sign out is offered). */
  signedIn?: boolean;
}

/** What the sign-in needs from the host: where the browser goes, shown and opened there; the user's Cancel. */
export interface McpSignInHooks {
  openBrowser: (authorizationUrl: string) => Promise<boolean>;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** What the host answers before a server starts: its transport with variables resolved, or why not. */
export type McpPrepared = { transport: McpTransportConfig } | { blocked: string };

export interface McpServersOptions {
  clientInfo: { name: string; version: string };
  prepare: (server: McpServerDefinition) => Promise<McpPrepared>;
  isServerDisabled: (server: string) => boolean;
  isToolDisabled: (server: string, tool: string) => boolean;
  acceptsImages: () => boolean;
  saveOutput?: McpOutputSaver;
  /** The one redactor: every result's text goes through it (tools.ts). */
  redact?: (text: string) => string;
  /** Default working directory of stdio servers (the workspace folder). */
  cwd?: string;
  log: (line: string) => void;
  onChange: () => void;
  startTimeoutMs?: number;
  /**
   * OAuth sign-in for HTTP servers (absent: none): the store of a server URL and what its tokens are
   * bound to (oauthBinding: a configured metadata document and client; undefined: the authorization
   * server the server names). Tokens kept for one are never offered for another.
   */
  oauth?: { store: (serverUrl: string, binding: string | undefined) => McpOAuthServerStore & { clear(): Promise<void> }; clientName: string };
  /** The environment a stdio server starts with (before its own `env`): the host's, without provider keys. */
  inheritedEnv?: () => Record<string, string>;
}

/** An HTTP server's OAuth side, from its last start. */
interface OAuthUse {
  url: string;
  settings: McpOAuthSettings;
  store: McpOAuthServerStore & { clear(): Promise<void> };
  provider: McpAuthProvider;
  /** The server's last `WWW-Authenticate` challenge: sign-in uses its resource metadata URL and scope. */
  challenge?: OAuthChallenge;
  signedIn: boolean;
}

interface Entry {
  def: McpServerDefinition;
  state: McpServerState;
  client?: McpClient;
  transport?: StdioTransport | StreamableHttpTransport;
  tools: Tool[];
  wrapped: { tool: AgentTool; facts: McpToolFacts }[];
  instructions?: string;
  crashes: number;
  /** Bumped on each start and stop: a late event of an older start is ignored. */
  generation: number;
  started?: Promise<void>;
  oauth?: OAuthUse;
}

export class McpServers {
  private readonly entries = new Map<string, Entry>();
  private disposed = false;

  constructor(private readonly options: McpServersOptions) {}

  /** New definitions: servers whose definition changed restart (if they ran), removed ones stop. */
  setDefinitions(defs: readonly McpServerDefinition[]): void {
    const names = new Set(defs.map((d) => d.name));
    for (const [name, entry] of this.entries)
      if (!names.has(name)) {
        void this.stop(entry);
        this.entries.delete(name);
      }
    for (const def of defs) {
      const entry = this.entries.get(def.name);
      if (!entry) {
        this.entries.set(def.name, { def, state: { kind: "stopped" }, tools: [], wrapped: [], crashes: 0, generation: 0 });
        continue;
      }
      if (JSON.stringify(entry.def) === JSON.stringify(def)) continue;
      const wasRunning = entry.state.kind !== "stopped";
      entry.def = def;
      entry.crashes = 0;
      void this.stop(entry).then(() => (wasRunning ? this.start(entry) : undefined));
    }
    this.options.onChange();
  }

  /** Starts every server that is not started yet, in parallel; resolves when all settled or after `waitMs`. */
  async ensureStarted(waitMs: number): Promise<void> {
    const pending = [...this.entries.values()]
      .map((entry) => (entry.state.kind === "stopped" ? this.start(entry) : entry.started))
      .filter((p) => p !== undefined);
    if (pending.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(pending), new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
  }

  /** Names of servers waiting for the user to sign in. */
  get needingSignIn(): string[] {
    return [...this.entries.values()].filter((e) => e.state.kind === "needsSignIn").map((e) => e.def.name);
  }

  /**
   * Signs in to a server that needs it (or whose tokens the user wants renewed), then starts it
   * again with the new tokens. Rejects with the reason (cancelled, timed out, refused).
   */
  async signIn(name: string, hooks: McpSignInHooks): Promise<"refreshed" | "signedIn"> {
    const entry = this.entries.get(name);
    const oauth = entry?.oauth;
    if (!entry || !oauth || !this.options.oauth) throw new Error(`the MCP server "${name}" does not sign in with OAuth`);
    const result = await signInToMcpServer({
      serverUrl: oauth.url,
      store: oauth.store,
      settings: oauth.settings,
      clientName: this.options.oauth.clientName,
      ...(oauth.challenge ? { challenge: oauth.challenge } : {}),
      openBrowser: hooks.openBrowser,
      ...(hooks.signal ? { signal: hooks.signal } : {}),
      ...(hooks.timeoutMs !== undefined ? { timeoutMs: hooks.timeoutMs } : {}),
    });
    this.options.log(`MCP server "${name}": ${result === "refreshed" ? "the kept sign-in was renewed" : "signed in"}`);
    await this.restart(name);
    return result;
  }

  /** Forgets a server's tokens and client registration; it then needs a sign-in again. */
  async signOut(name: string): Promise<void> {
    const entry = this.entries.get(name);
    const oauth = entry?.oauth;
    if (!entry || !oauth) return;
    await this.stop(entry);
    await oauth.store.clear();
    oauth.signedIn = false;
    this.options.log(`MCP server "${name}": signed out`);
    await this.start(entry);
  }

  /** Names of servers still starting (a request went without them). */
  get starting(): string[] {
    return [...this.entries.values()].filter((e) => e.state.kind === "starting").map((e) => e.def.name);
  }

  list(): McpServerSnapshot[] {
    return [...this.entries.values()].map((e) => ({
      name: e.def.name,
      scope: e.def.scope,
      file: e.def.file,
      state: e.state,
      tools: e.wrapped.map((w) => ({
        name: w.facts.tool,
        agentName: w.tool.name,
        disabled: this.options.isToolDisabled(e.def.name, w.facts.tool),
        ...(w.facts.annotations ? { annotations: w.facts.annotations } : {}),
      })),
      ...(e.oauth ? { signedIn: e.oauth.signedIn } : {}),
    }));
  }

  /** The tools of ready servers, disabled ones left out, at most `max` (in the order of the configuration). */
  tools(max: number): { tools: AgentTool[]; leftOut: number } {
    const all = [...this.entries.values()]
      .filter((e) => e.state.kind === "ready")
      .flatMap((e) => e.wrapped.filter((w) => !this.options.isToolDisabled(e.def.name, w.facts.tool)).map((w) => w.tool));
    return { tools: all.slice(0, max), leftOut: Math.max(0, all.length - max) };
  }

  describe(agentName: string): McpToolFacts | undefined {
    for (const e of this.entries.values()) {
      if (e.state.kind !== "ready") continue;
      const found = e.wrapped.find((w) => w.tool.name === agentName);
      if (found) return { ...found.facts, ...(this.options.isToolDisabled(e.def.name, found.facts.tool) ? { disabled: true } : {}) };
    }
    return undefined;
  }

  /**
   * What each ready server says of itself, as plain capped lines (plainLine: no line break, fence
   * or heading of a server's can shape the prompt), with the names of its offered tools.
   */
  words(): McpServerWords[] {
    return [...this.entries.values()]
      .filter((e) => e.state.kind === "ready" && e.wrapped.length > 0)
      .map((e) => ({
        name: e.def.name,
        tools: e.wrapped.filter((w) => !this.options.isToolDisabled(e.def.name, w.facts.tool)).map((w) => w.tool.name),
        summary: e.def.description?.trim() ? plainLine(mcpServerSummary(e.def.description, undefined), MCP_INSTRUCTIONS_CHARS) : "",
        brief: briefSummary(e.def.description, e.instructions),
        instructions: plainLine(e.instructions ?? "", MCP_INSTRUCTIONS_CHARS),
      }));
  }

  /** The system prompt's paragraph with every tool declared: the ready servers, one plain line each. */
  prompt(): string {
    return mcpServersPrompt(this.words());
  }

  async restart(name: string): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry) return;
    entry.crashes = 0;
    await this.stop(entry);
    await this.start(entry);
  }

  /** Stops a server the user disabled (its processes end), or starts one they enabled again. */
  async disabledChanged(name: string): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry) return;
    if (this.options.isServerDisabled(name)) {
      await this.stop(entry);
      this.setState(entry, { kind: "disabled" });
    } else if (entry.state.kind === "disabled") {
      this.setState(entry, { kind: "stopped" });
      await this.start(entry);
    }
  }

  /** Ends every server process (with its children). */
  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.allSettled([...this.entries.values()].map((e) => this.stop(e)));
  }

  private start(entry: Entry): Promise<void> {
    if (this.disposed) return Promise.resolve();
    const generation = ++entry.generation;
    const started = this.startOnce(entry, generation).catch(async (error: unknown) => {
      if (generation !== entry.generation) return;
      if (error instanceof McpOAuthAuthorizationRequiredError && entry.oauth) {
        void this.closeClient(entry);
        entry.oauth.signedIn = false;
        const where = await signInLocation(entry.oauth.url, entry.oauth.settings, entry.oauth.challenge);
        if (generation !== entry.generation) return;
        if (where !== undefined) {
          this.options.log(`MCP server "${entry.def.name}" needs sign-in at ${where}`);
          this.setState(entry, { kind: "needsSignIn", authorizationServer: where, reason: "it asks you to sign in" });
          return;
        }
        error = new Error("it refused the connection (HTTP 401) and names no OAuth authorization server to sign in with");
      }
      const stderr = tailLines(entry.transport instanceof StdioTransport ? entry.transport.stderr : "");
      const reason = error instanceof Error ? error.message : String(error);
      this.options.log(`MCP server "${entry.def.name}" failed to start: ${reason}`);
      void this.closeClient(entry);
      this.setState(entry, { kind: "failed", reason, stderr });
    });
    entry.started = started;
    return started;
  }

  private async startOnce(entry: Entry, generation: number): Promise<void> {
    const def = entry.def;
    if (!def.enabled || this.options.isServerDisabled(def.name)) {
      this.setState(entry, { kind: "disabled" });
      return;
    }
    this.setState(entry, { kind: "starting" });
    const prepared = await this.options.prepare(def);
    if (generation !== entry.generation) return;
    if ("blocked" in prepared) {
      this.setState(entry, { kind: "blocked", reason: prepared.blocked });
      return;
    }
    const transport = this.createTransport(entry, prepared.transport);
    const client = new McpClient({
      ...this.options.clientInfo,
      ...(def.timeoutSeconds !== undefined ? { requestTimeoutMs: def.timeoutSeconds * 1000 } : {}),
    });
    entry.transport = transport;
    entry.client = client;
    client.onClose(() => this.closed(entry, generation));
    const timeoutMs = this.options.startTimeoutMs ?? MCP_START_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`it did not answer within ${Math.round(timeoutMs / 1000)} s of starting`)), timeoutMs);
    });
    try {
      await Promise.race([client.connect(transport), timeout]);
      const tools = await Promise.race([client.listTools(), timeout]);
      if (generation !== entry.generation) return;
      entry.tools = tools;
      entry.instructions = client.instructions;
      const wrapOptions = {
        server: def.name,
        identity: serverIdentity(def),
        client,
        // Our own tools never start with mcp__: only other servers' names can clash.
        isTaken: (n: string) => this.takenByOtherServer(def.name, n),
        acceptsImages: this.options.acceptsImages,
        ...(this.options.saveOutput ? { saveOutput: this.options.saveOutput } : {}),
        ...(this.options.redact ? { redact: this.options.redact } : {}),
        ...(def.timeoutSeconds !== undefined ? { timeoutMs: def.timeoutSeconds * 1000 } : {}),
        // Started again, the server lands in needsSignIn (or is ready, if another window signed in meanwhile).
        onSignInNeeded: () => {
          if (generation === entry.generation) void this.restart(def.name);
        },
      };
      const wrapped = wrapMcpTools(tools, wrapOptions);
      // A server that offers resources gets two more tools: list them, read one.
      if (client.serverCapabilities?.resources)
        wrapped.push(...wrapResourceTools({ ...wrapOptions, isTaken: (n) => wrapped.some((w) => w.tool.name === n) || wrapOptions.isTaken(n) }));
      entry.wrapped = wrapped;
      this.options.log(`MCP server "${def.name}" ready: ${tools.length} tool(s)`);
      if (entry.oauth) entry.oauth.signedIn = (await entry.oauth.store.load())?.tokens !== undefined;
      this.setState(entry, { kind: "ready", tools: tools.length });
    } finally {
      clearTimeout(timer);
    }
  }

  private createTransport(entry: Entry, t: McpTransportConfig): StdioTransport | StreamableHttpTransport {
    const def = entry.def;
    if (t.type === "http") {
      entry.oauth = this.oauthFor(entry, t);
      return new StreamableHttpTransport({ url: t.url, headers: t.headers, ...(entry.oauth ? { authProvider: entry.oauth.provider } : {}) });
    }
    const cwd = t.cwd ?? this.options.cwd;
    const inherited = this.options.inheritedEnv?.();
    return new StdioTransport({
      command: t.command,
      args: t.args,
      // Not the host's whole environment: the provider keys commands never get are not a server's either.
      ...(inherited ? { env: { ...inherited, ...t.env }, inheritEnv: false } : { env: t.env }),
      ...(cwd !== undefined ? { cwd } : {}),
      stderr: "pipe",
      onStderr: (chunk) => {
        for (const line of chunk.split(/\r?\n/)) if (line.trim() !== "") this.options.log(`[mcp ${def.name}] ${line}`);
      },
    });
  }

  /**
   * OAuth for an HTTP server, unless the user configured its Authorization header themselves (a
   * static token: a 401 is then a wrong token, not a sign-in). pi's `oauth` field always asks for it.
   * The provider sends the kept access token and refreshes it; it never opens a browser.
   */
  private oauthFor(entry: Entry, t: Extract<McpTransportConfig, { type: "http" }>): OAuthUse | undefined {
    const hooks = this.options.oauth;
    if (!hooks) return undefined;
    if (t.oauth === undefined && Object.keys(t.headers).some((h) => h.toLowerCase() === "authorization")) return undefined;
    const store = hooks.store(t.url, oauthBinding(t.oauth));
    const settings = oauthSettings(t.oauth);
    const previous = entry.oauth?.url === t.url && entry.oauth.store === store ? entry.oauth : undefined;
    const use: OAuthUse = {
      url: t.url,
      settings,
      store,
      signedIn: previous?.signedIn ?? false,
      provider: createMcpAuthProvider({
        serverUrl: t.url,
        store,
        settings: () => settings,
        clientName: hooks.clientName,
        onChallenge: (challenge) => {
          use.challenge = challenge;
        },
      }),
      ...(previous?.challenge ? { challenge: previous.challenge } : {}),
    };
    return use;
  }

  /** The connection ended. Not asked for: a crash, started again once, then failed with its stderr. */
  private closed(entry: Entry, generation: number): void {
    if (generation !== entry.generation || this.disposed || entry.state.kind !== "ready") return;
    const stderr = tailLines(entry.transport instanceof StdioTransport ? entry.transport.stderr : "");
    entry.wrapped = [];
    if (entry.crashes < MCP_RESTARTS_AFTER_CRASH) {
      entry.crashes++;
      this.options.log(`MCP server "${entry.def.name}" exited; starting it again`);
      void this.start(entry);
      return;
    }
    this.options.log(`MCP server "${entry.def.name}" exited again; left stopped`);
    this.setState(entry, { kind: "failed", reason: "it exited", stderr });
  }

  private takenByOtherServer(server: string, name: string): boolean {
    for (const e of this.entries.values()) if (e.def.name !== server && e.wrapped.some((w) => w.tool.name === name)) return true;
    return false;
  }

  private async stop(entry: Entry): Promise<void> {
    entry.generation++;
    entry.wrapped = [];
    // A refresh under way saves its rotated tokens first: dropping them would lose the grant.
    await entry.oauth?.provider.settled();
    await this.closeClient(entry);
    if (entry.state.kind !== "disabled") this.setState(entry, { kind: "stopped" });
  }

  private async closeClient(entry: Entry): Promise<void> {
    const client = entry.client;
    entry.client = undefined;
    // Read before the close: the transport forgets its process when it ends.
    const pid = entry.transport instanceof StdioTransport ? entry.transport.pid : undefined;
    await client?.close().catch((error: unknown) => this.options.log(`MCP server "${entry.def.name}" did not close cleanly: ${String(error)}`));
    // pi-mcp ends the server's process group with SIGTERM; a child of the server that ignores it
    // (a double-forked daemon, say) would outlive the stop. The group gets SIGKILL as well.
    if (client && pid !== undefined && process.platform !== "win32") {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // The group is gone already.
      }
    }
  }

  private setState(entry: Entry, state: McpServerState): void {
    entry.state = state;
    if (!this.disposed) this.options.onChange();
  }
}

function tailLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .filter((l) => l.trim() !== "")
    .slice(-MCP_STDERR_TAIL_LINES);
}

/** A server in the on-demand listing: the first line of its description or instructions (pi's mcpServerSummary), heading marks out, capped. */
export function briefSummary(description: string | undefined, instructions: string | undefined): string {
  return plainLine(mcpServerSummary(description, instructions).replace(/^#+\s*/, ""), MCP_BRIEF_INSTRUCTIONS_CHARS);
}
