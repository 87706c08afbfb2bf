// The host side of MCP: reads the configuration files (mcp-config-files.ts), decides what may
// start (a workspace's servers only in a trusted workspace and only after the user agreed to their
// whole definition, mcp-consent.ts; the user's own never with the workspace in Restricted Mode),
// asks for `${input:…}` values (mcp-inputs.ts), keeps the user's choices in workspace state
// (mcp-choices.ts), waits for approvals on MCP cards (approvals/pending-approvals.ts), signs in, and gives the
// chats their tools. "Pi Chat: MCP Servers" is mcp-servers-command.ts. The client itself (pi-mcp)
// is out/mcp.js (mcp-bundle.ts), required on first need, never at activation.
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { promises as fsp } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type * as McpBundle from "./mcp-bundle";
import { type LazyBundle, lazyBundle } from "../lazy-bundle";
import type { McpConfigFile, McpInputDefinition, McpServerDefinition, McpTransportConfig } from "../../core/mcp/config";
// identity.ts imports no pi-mcp: it may be in the activation bundle.
import { canonicalDefinition, changedFields, type DefinitionField, definitionLines, serverPlace } from "../../core/mcp/identity";
import type { McpAllowStore, McpApprovalRequest, McpCallDecision, McpChatTools, McpToolFacts } from "../../core/mcp/gate";
import type { McpOAuthSecretStore } from "../../core/mcp/oauth";
import type { McpPrepared, McpServers, McpServerSnapshot } from "../../core/mcp/servers";
import { joinRunning } from "../../core/join-running";
import { redact } from "../models/key-redaction";
import { setting } from "../settings";
import { DEFAULT_MCP_MAX_TOOLS } from "../settings-schema";
import { PendingApprovals } from "../approvals/pending-approvals";
import { McpChoices } from "./mcp-choices";
import { isInside, mcpConfigFiles, readConfigFile, withoutProviderKeys } from "./mcp-config-files";
import { askLaunch, askLaunches, askSignIn, ConsentQueue, type LaunchRequest } from "./mcp-consent";
import { askInputBox, McpInputs } from "./mcp-inputs";

type Bundle = typeof McpBundle;

/** A chat's request waits this long for servers still starting; a slower one joins the next request. */
export const MCP_REQUEST_WAIT_MS = 5_000;

export interface HostMcpOptions {
  context: vscode.ExtensionContext;
  workspaceFolder: string | undefined;
  /**
   * The command logs' root: the whole output of a cut result goes to `<outputDir>/<chat id>/`, the
   * chat's own log folder (the card's "Open the whole output" opens it; a chat deletion removes it).
   */
  outputDir: string;
  log: (line: string) => void;
  /** Test seam: the user's home (the user-level pi file). */
  home?: string;
  /** Test seam: where out/mcp.js is. */
  bundleDir?: string;
  /** Folder of the cross-window refresh locks of OAuth tokens (the extension's global storage). */
  lockDir: string;
}

export class HostMcp implements McpChatTools, vscode.Disposable {
  private readonly bundle: LazyBundle<Bundle>;
  private servers: McpServers | undefined;
  private config: McpConfigFile | undefined;
  private readonly approvals = new PendingApprovals<McpApprovalRequest, McpCallDecision>();
  private readonly choices: McpChoices;
  private readonly inputs: McpInputs;
  /** Workspace servers waiting for "Start this server?", asked together. */
  private readonly consents = new ConsentQueue((batch) =>
    batch.length === 1 ? this.confirmLaunch(batch[0]!.server, batch[0]!.launch, batch[0]!.changed) : this.confirmLaunches(batch),
  );
  private readonly watchers: vscode.Disposable[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when a server's state changes (the MCP Servers list refreshes). */
  readonly onDidChange = this.changed.event;
  readonly allowed: McpAllowStore;
  /** Whether the model of the latest run takes images (MCP images go only to one that does). */
  private acceptsImages = false;
  /** One OAuth store per server URL, so its cache and refresh lock are shared by every start. */
  private readonly oauthStores = new Map<string, McpOAuthSecretStore>();
  /** Each configuration file as last parsed, by the file's identity, size and time: read again only when it changed. */
  private readonly configCache = new Map<string, { signature: string; parsed: McpConfigFile }>();
  /** The chat whose MCP call is running (its log folder takes a cut result's whole text). */
  private readonly outputChat = new AsyncLocalStorage<string>();
  /** Sign-ins under way, by server: a second click joins the first. */
  private readonly signingIn = new Map<string, Promise<boolean>>();

  constructor(private readonly options: HostMcpOptions) {
    this.bundle = lazyBundle<Bundle>("mcp.js", options.bundleDir);
    this.home = options.home ?? os.homedir();
    this.choices = new McpChoices(options.context.workspaceState, options.log);
    this.allowed = this.choices.allowed;
    this.inputs = new McpInputs(options.context.secrets, (server, input) => this.askInput(server, input));
    // Another window signed in, out, or refreshed: read the secret again.
    this.watchers.push(
      options.context.secrets.onDidChange((e) => {
        for (const store of this.oauthStores.values()) if (store.key === e.key) store.forget();
      }),
    );
    for (const { file } of mcpConfigFiles(options.workspaceFolder, options.home)) {
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(file)), path.basename(file)));
      const reload = () => void this.reload();
      watcher.onDidChange(reload);
      watcher.onDidCreate(reload);
      watcher.onDidDelete(reload);
      this.watchers.push(watcher);
    }
  }

  /**
   * Asks whether a workspace's server may start (a modal): every field of its definition in `launch`
   * (changed ones marked), which fields changed since the user last agreed (empty: never agreed), and
   * whether it takes the name of one of the user's own servers. Host tests replace it.
   */
  confirmLaunch: (server: McpServerDefinition, launch: string, changed: readonly DefinitionField[]) => Promise<boolean> = askLaunch;

  /**
   * Asks about many workspace servers at once (a modal listing them; one answer for all). Used when
   * several wait for consent together, so a repository with 10,000 servers gives one dialog, not
   * 10,000. Host tests replace it.
   */
  confirmLaunches: (requests: readonly LaunchRequest[]) => Promise<boolean> = askLaunches;

  /** How long a request waits for servers still starting (their tools come with a later request). Test seam. */
  requestWaitMs = MCP_REQUEST_WAIT_MS;

  /** Requests waiting for the answer to "Start this server?" now. */
  private runsHeld = 0;

  /** Whether a request waits for the answer to "Start this server?" now (a seam for tests to wait on). */
  get heldForConsent(): boolean {
    return this.runsHeld > 0;
  }

  /** The user's home: where the user's own file is, and where a user server starts in Restricted Mode. Test seam. */
  home: string;

  /**
   * Before the browser opens for a sign-in: says which server asks and where the browser goes (the
   * authorization server's origin, in full in the detail). Host tests replace it.
   */
  confirmSignIn: (server: string, authorizationUrl: string) => Promise<boolean> = askSignIn;

  /** Opens the authorization page. Host tests replace it with a browser of their own (test/support/oauth-server.ts). */
  openExternal = (uri: vscode.Uri): Thenable<boolean> => vscode.env.openExternal(uri);

  /**
   * Signs in to a server that asks for it (OAuth): confirms where the browser goes, opens it, waits
   * (cancellable, with a timeout) and starts the server again. False when it did not happen; every
   * reason but the user's Cancel is shown.
   */
  signIn(name: string): Promise<boolean> {
    // A second click while the first sign-in waits joins it instead of opening another page.
    return joinRunning(this.signingIn, name, () => this.runSignIn(name));
  }

  private async runSignIn(name: string): Promise<boolean> {
    const servers = await this.ensureServers();
    if (!servers) return false;
    const bundle = this.load();
    try {
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Pi Chat: signing in to the MCP server "${name}"`, cancellable: true },
        async (progress, token) => {
          const cancel = new AbortController();
          token.onCancellationRequested(() => cancel.abort());
          await servers.signIn(name, {
            signal: cancel.signal,
            openBrowser: async (url) => {
              if (!(await this.confirmSignIn(name, url))) return false;
              progress.report({ message: `waiting for you to finish in the browser (${new URL(url).host})…` });
              return this.openExternal(vscode.Uri.parse(url, true));
            },
          });
        },
      );
      return true;
    } catch (error) {
      if (error instanceof bundle.McpSignInCancelledError) {
        this.options.log(`MCP server "${name}": sign-in cancelled`);
        return false;
      }
      const reason = error instanceof Error ? error.message : String(error);
      this.options.log(`MCP server "${name}": sign-in failed: ${reason}`);
      void vscode.window.showErrorMessage(`Pi Chat: signing in to the MCP server "${name}" failed: ${reason}`);
      return false;
    }
  }

  /** Forgets a server's tokens and client registration (SecretStorage); it asks for a sign-in again. */
  async signOut(name: string): Promise<void> {
    await this.servers?.signOut(name);
  }

  /** The servers that wait for a sign-in (for "Pi Chat: Sign In to MCP Server"). */
  get needingSignIn(): string[] {
    return this.servers?.needingSignIn ?? [];
  }

  private oauthStore(serverUrl: string, binding: string | undefined): McpOAuthSecretStore {
    const key = JSON.stringify([serverUrl, binding]);
    let store = this.oauthStores.get(key);
    if (!store) {
      store = new (this.load().McpOAuthSecretStore)(serverUrl, this.options.context.secrets, this.options.lockDir, undefined, binding);
      this.oauthStores.set(key, store);
    }
    return store;
  }

  // ---- McpChatTools ----

  async forRun(run: { acceptsImages: boolean; chatId?: string }): ReturnType<McpChatTools["forRun"]> {
    this.acceptsImages = run.acceptsImages;
    const servers = await this.ensureServers();
    if (!servers) return { tools: [], servers: [], notes: [] };
    await servers.ensureStarted(this.requestWaitMs);
    // A "Start this server?" question still open decides this request's tools: the request waits for
    // the answer (the dialog is modal, so the user answers it first anyway), then for the start.
    // Without this, the first message went out without the server's tools while the user read it.
    while (this.consents.current !== undefined) {
      this.runsHeld++;
      try {
        await this.consents.current;
      } finally {
        this.runsHeld--;
      }
      await servers.ensureStarted(this.requestWaitMs);
    }
    const windowTools = servers.tools(this.maxTools());
    const leftOut = windowTools.leftOut;
    // Each call runs knowing its chat, so a cut result's whole text lands in that chat's log folder.
    const chatId = run.chatId;
    const tools = windowTools.tools.map((tool) =>
      chatId === undefined
        ? tool
        : { ...tool, execute: (...args: Parameters<typeof tool.execute>) => this.outputChat.run(chatId, () => tool.execute(...args)) },
    );
    const notes: string[] = [];
    const starting = servers.starting;
    if (starting.length > 0) notes.push(`Still starting (their tools come with a later request): ${starting.join(", ")}.`);
    if (leftOut > 0) notes.push(`${leftOut} MCP tool(s) were left out (piChat.mcp.maxTools is ${this.maxTools()}).`);
    const signIn = servers.list().flatMap((s) => (s.state.kind === "needsSignIn" ? [{ server: s.name, at: s.state.authorizationServer }] : []));
    if (signIn.length > 0) notes.push(`Waiting for the user to sign in (no tools until then): ${signIn.map((s) => s.server).join(", ")}.`);
    return { tools, servers: servers.words(), notes, signIn };
  }

  describe(toolName: string): McpToolFacts | undefined {
    return this.servers?.describe(toolName);
  }

  approver = (request: McpApprovalRequest, signal: AbortSignal | undefined): Promise<McpCallDecision> => this.approvals.wait(request, signal);

  /** The user's answer on an MCP card; false when the id is not an MCP call waiting here. */
  decide(toolCallId: string, decision: string, reason: string | undefined): boolean {
    return this.approvals.settle(toolCallId, () =>
      decision === "deny"
        ? { decision: "deny", ...(reason ? { reason } : {}) }
        : decision === "allowAlways"
          ? { decision: "allowAlways" }
          : { decision: "allow" },
    );
  }

  // ---- the servers ----

  /** The servers and their states (starting none: the list does not start anything). */
  async list(): Promise<McpServerSnapshot[]> {
    const servers = await this.ensureServers();
    return servers?.list() ?? [];
  }

  /** Problems in the configuration files, for the list. */
  get configErrors(): readonly string[] {
    return this.config?.errors ?? [];
  }

  /** The tools the user always allowed in this workspace (`server/tool`). */
  get alwaysAllowed(): readonly string[] {
    return this.choices.alwaysAllowed;
  }

  forgetAlwaysAllowed(): Promise<void> {
    return this.choices.forgetAlwaysAllowed();
  }

  async restart(name: string): Promise<void> {
    await this.servers?.restart(name);
  }

  async setServerDisabled(name: string, disabled: boolean): Promise<void> {
    await this.choices.setServerDisabled(name, disabled);
    await this.servers?.disabledChanged(name);
  }

  async setToolDisabled(server: string, tool: string, disabled: boolean): Promise<void> {
    await this.choices.setToolDisabled(server, tool, disabled);
    this.changed.fire();
  }

  /** Reads the files again; a server whose definition changed restarts. */
  async reload(): Promise<void> {
    if (!this.servers) return;
    const config = await this.readConfig();
    this.config = config;
    this.servers.setDefinitions(config?.servers ?? []);
  }

  async dispose(): Promise<void> {
    for (const w of this.watchers) w.dispose();
    this.approvals.settleAll({ decision: "deny", reason: "VS Code is closing" });
    this.changed.dispose();
    await this.servers?.dispose();
  }

  private async ensureServers(): Promise<McpServers | undefined> {
    if (this.servers) return this.servers;
    const config = await this.readConfig();
    if (!config) return undefined;
    this.config = config;
    const bundle = this.load();
    this.servers ??= new bundle.McpServers({
      clientInfo: { name: "pi-chat", version: String(this.options.context.extension?.packageJSON?.version ?? "0") },
      prepare: (server) => this.prepare(server),
      isServerDisabled: (name) => this.choices.isServerDisabled(name),
      isToolDisabled: (server, tool) => this.choices.isToolDisabled(server, tool),
      acceptsImages: () => this.acceptsImages,
      saveOutput: (data, extension) => this.saveOutput(data, extension),
      redact,
      ...(this.options.workspaceFolder !== undefined ? { cwd: this.options.workspaceFolder } : {}),
      log: this.options.log,
      onChange: () => this.changed.fire(),
      oauth: { store: (url, binding) => this.oauthStore(url, binding), clientName: "Pi Chat (VS Code)" },
      inheritedEnv: () => withoutProviderKeys(process.env),
    });
    this.servers.setDefinitions(config.servers);
    for (const error of config.errors) this.options.log(`MCP configuration: ${error}`);
    return this.servers;
  }

  /** The merged configuration, or undefined when no file exists (then out/mcp.js is not even loaded). */
  private async readConfig(): Promise<McpConfigFile | undefined> {
    const files: McpConfigFile[] = [];
    for (const entry of mcpConfigFiles(this.options.workspaceFolder, this.home)) {
      const read = await readConfigFile(entry.file, this.configCache.get(entry.file));
      if (read === undefined) {
        this.configCache.delete(entry.file);
        continue;
      }
      let parsed = read.parsed;
      if (parsed === undefined) {
        const bundle = this.load();
        parsed =
          "error" in read
            ? { servers: [], inputs: [], overrides: [], errors: [`${entry.file}: ${read.error}`] }
            : entry.format === "pi"
              ? bundle.parsePiMcpJson(read.text, entry.file, entry.scope)
              : bundle.parseVsCodeMcpJson(read.text, entry.file, entry.scope);
        this.configCache.set(entry.file, { signature: read.signature, parsed });
      }
      files.push(parsed);
    }
    if (files.length === 0) return undefined;
    return this.load().mergeMcpConfigs(files);
  }

  private load(): Bundle {
    return this.bundle.load();
  }

  /**
   * Before a server starts. A workspace's server: only in a trusted folder, and only after the user
   * agreed to its whole definition (any change asks again). Any stdio server in Restricted Mode:
   * never in the workspace folder or with it on its paths (the user's home is its working folder);
   * one that needs the workspace waits for trust. Then its variables.
   */
  private async prepare(server: McpServerDefinition): Promise<McpPrepared> {
    const bundle = this.load();
    const trusted = vscode.workspace.isTrusted;
    if (server.scope === "workspace") {
      if (!trusted)
        return { blocked: "Restricted Mode: a server defined by the workspace runs code from the repository, so it starts only in a trusted workspace." };
      const place = serverPlace(server);
      const definition = canonicalDefinition(server);
      const before = this.choices.agreedDefinition(place);
      if (before !== JSON.stringify(definition)) {
        const changed = before !== undefined ? changedFields(JSON.parse(before) as typeof definition, definition) : [];
        if (!(await this.consents.ask({ server, launch: definitionLines(server, changed).join("\n"), changed })))
          return { blocked: "Not started: you did not agree to its definition. Restart it from Pi Chat: MCP Servers to be asked again." };
        await this.choices.agree(place, JSON.stringify(definition));
      }
    }
    let transport: McpTransportConfig;
    try {
      transport = await bundle.resolveTransport(server, {
        env: process.env,
        ...(this.options.workspaceFolder !== undefined ? { workspaceFolder: this.options.workspaceFolder } : {}),
        userHome: os.homedir(),
        input: (id) => this.inputs.value(server, id, this.config?.inputs ?? []),
      });
    } catch (error) {
      return { blocked: `Not started: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (transport.type === "http") return { transport };
    if (!trusted) {
      const needs = this.workspaceUse(transport);
      if (needs !== undefined)
        return {
          blocked: `Restricted Mode: its ${needs} names the workspace folder, so it would run the repository's code. It starts once you trust this folder.`,
        };
      // Absolute: a relative folder would be taken from the extension host's own working folder.
      return { transport: { ...transport, cwd: path.resolve(this.home, transport.cwd ?? ".") } };
    }
    return { transport: { ...transport, cwd: transport.cwd ?? this.options.workspaceFolder ?? this.home } };
  }

  /** The first field of a resolved stdio definition that names the workspace folder (a path in it), or undefined. */
  private workspaceUse(t: Extract<McpTransportConfig, { type: "stdio" }>): string | undefined {
    const folder = this.options.workspaceFolder;
    if (folder === undefined) return undefined;
    const inside = (text: string) => text.includes(folder) || isInside(folder, path.resolve(this.home, text));
    if (inside(t.command)) return "command";
    if (t.cwd !== undefined && isInside(folder, path.resolve(this.home, t.cwd))) return "working folder";
    if (t.args.some((a) => a.includes(folder))) return "arguments";
    if (Object.values(t.env).some((v) => v.includes(folder))) return "environment";
    return undefined;
  }

  /** Asks for one `${input:…}` value, saying which server and file want it. Host tests replace it. */
  askInput: (server: McpServerDefinition, input: McpInputDefinition) => Thenable<string | undefined> = askInputBox;

  /** The whole text of a cut result (already redacted, tools.ts), in the calling chat's log folder, readable by the user only. */
  private async saveOutput(data: string | Uint8Array, extension: string): Promise<string> {
    const chatId = this.outputChat.getStore();
    if (chatId === undefined || !/^[A-Za-z0-9_-]+$/.test(chatId)) throw new Error("no chat to keep it with");
    const dir = path.join(this.options.outputDir, chatId);
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    // .log whatever the content: the card's "Open the whole output" opens only logs under this folder.
    const file = path.join(dir, `mcp-${randomUUID()}${extension === ".log" ? "" : extension}.log`);
    await fsp.writeFile(file, data, { mode: 0o600 });
    return file;
  }

  private maxTools(): number {
    const value = setting("mcp.maxTools");
    return value >= 0 ? Math.floor(value) : DEFAULT_MCP_MAX_TOOLS;
  }
}
