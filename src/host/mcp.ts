// The host side of MCP: reads the configuration files, decides what may start (a workspace's
// servers only in a trusted workspace and only after the user agreed to that exact command line),
// asks for `${input:…}` values (secret ones kept in SecretStorage), keeps the user's choices in
// workspace state (always-allowed tools, disabled servers and tools: never in a file a repository
// could ship), waits for approvals on MCP cards, and shows "Pi Chat: MCP Servers". The client
// itself (pi-mcp) is in out/mcp.js, required on first need, never at activation.
import { randomUUID } from "node:crypto";
import { promises as fsp } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type * as McpBundle from "../core/mcp";
import type { McpConfigFile, McpInputDefinition, McpServerDefinition } from "../core/mcp/config";
import type { McpAllowStore, McpApprovalRequest, McpCallDecision, McpChatTools, McpToolFacts } from "../core/mcp/gate";
import type { McpPrepared, McpServers, McpServerSnapshot } from "../core/mcp/servers";
import type { AgentTool } from "@earendil-works/pi-agent-core";
import { setting } from "./settings";
import { DEFAULT_MCP_MAX_TOOLS } from "./settings-schema";

type Bundle = typeof McpBundle;

/** A chat's request waits this long for servers still starting; a slower one joins the next request. */
export const MCP_REQUEST_WAIT_MS = 5_000;

const ALLOWED_KEY = "piChat.mcp.alwaysAllowed";
const DISABLED_SERVERS_KEY = "piChat.mcp.disabledServers";
const DISABLED_TOOLS_KEY = "piChat.mcp.disabledTools";
const CONSENT_KEY = "piChat.mcp.agreedLaunches";
const INPUT_SECRET_PREFIX = "piChat.mcp.input.";

/** Where each configuration file is, lowest precedence first. */
export function mcpConfigFiles(
  workspaceFolder: string | undefined,
  home = os.homedir(),
): { file: string; format: "pi" | "vscode"; scope: "user" | "workspace" }[] {
  return [
    { file: path.join(home, ".pi", "agent", "mcp.json"), format: "pi", scope: "user" },
    ...(workspaceFolder !== undefined
      ? [
          { file: path.join(workspaceFolder, ".pi", "mcp.json"), format: "pi" as const, scope: "workspace" as const },
          { file: path.join(workspaceFolder, ".vscode", "mcp.json"), format: "vscode" as const, scope: "workspace" as const },
        ]
      : []),
  ];
}

interface PendingApproval {
  request: McpApprovalRequest;
  resolve: (decision: McpCallDecision) => void;
}

export interface HostMcpOptions {
  context: vscode.ExtensionContext;
  workspaceFolder: string | undefined;
  /** Where the whole output of a cut result goes (under the command logs, so the card's "Open the whole output" opens it). */
  outputDir: string;
  log: (line: string) => void;
  /** Test seam: the user's home (the user-level pi file). */
  home?: string;
  /** Test seam: where out/mcp.js is. */
  bundleDir?: string;
}

export class HostMcp implements McpChatTools, vscode.Disposable {
  private bundle: Bundle | undefined;
  private servers: McpServers | undefined;
  private config: McpConfigFile | undefined;
  private readonly approvals = new Map<string, PendingApproval>();
  /** Non-secret input values of this window (secret ones are in SecretStorage). */
  private readonly inputValues = new Map<string, string>();
  private readonly watchers: vscode.Disposable[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when a server's state changes (the MCP Servers list refreshes). */
  readonly onDidChange = this.changed.event;
  readonly allowed: McpAllowStore;
  /** Whether the model of the latest run takes images (MCP images go only to one that does). */
  private acceptsImages = false;

  constructor(private readonly options: HostMcpOptions) {
    const state = options.context.workspaceState;
    this.allowed = {
      has: (server, tool) => this.stateList(ALLOWED_KEY).includes(`${server}/${tool}`),
      add: async (server, tool) => {
        const list = this.stateList(ALLOWED_KEY);
        if (!list.includes(`${server}/${tool}`)) await state.update(ALLOWED_KEY, [...list, `${server}/${tool}`]);
        options.log(`MCP: always allow ${server}/${tool} in this workspace`);
      },
    };
    for (const { file } of mcpConfigFiles(options.workspaceFolder, options.home)) {
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(file)), path.basename(file)));
      const reload = () => void this.reload();
      watcher.onDidChange(reload);
      watcher.onDidCreate(reload);
      watcher.onDidDelete(reload);
      this.watchers.push(watcher);
    }
  }

  /** Asks whether a workspace's server may start, showing what it runs in full (a modal). Host tests replace it. */
  confirmLaunch = async (server: McpServerDefinition, launch: string, changed: boolean): Promise<boolean> => {
    const start = "Start Server";
    const where = `${path.basename(path.dirname(server.file))}/${path.basename(server.file)}`;
    const answer = await vscode.window.showWarningMessage(
      changed
        ? `The command line of the MCP server "${server.name}" (${where}) changed. Start it? It runs:`
        : `This workspace defines the MCP server "${server.name}" (${where}). Start it? It runs:`,
      { modal: true, detail: launch },
      start,
    );
    return answer === start;
  };

  // ---- McpChatTools ----

  async forRun(run: { acceptsImages: boolean }): Promise<{ tools: AgentTool[]; prompt: string }> {
    this.acceptsImages = run.acceptsImages;
    const servers = await this.ensureServers();
    if (!servers) return { tools: [], prompt: "" };
    await servers.ensureStarted(MCP_REQUEST_WAIT_MS);
    const { tools, leftOut } = servers.tools(this.maxTools());
    const notes: string[] = [];
    const starting = servers.starting;
    if (starting.length > 0) notes.push(`Still starting (their tools come with a later request): ${starting.join(", ")}.`);
    if (leftOut > 0) notes.push(`${leftOut} MCP tool(s) were left out (piChat.mcp.maxTools is ${this.maxTools()}).`);
    const prompt = [servers.prompt(), ...notes].filter((p) => p !== "").join("\n");
    return { tools, prompt };
  }

  describe(toolName: string): McpToolFacts | undefined {
    return this.servers?.describe(toolName);
  }

  approver = (request: McpApprovalRequest, signal: AbortSignal | undefined): Promise<McpCallDecision> =>
    new Promise<McpCallDecision>((resolve, reject) => {
      if (signal?.aborted) return reject(new Error("aborted"));
      this.approvals.set(request.toolCallId, { request, resolve });
      signal?.addEventListener("abort", () => {
        if (this.approvals.delete(request.toolCallId)) reject(new Error("aborted"));
      });
    });

  /** The user's answer on an MCP card; false when the id is not an MCP call waiting here. */
  decide(toolCallId: string, decision: string, reason: string | undefined): boolean {
    const pending = this.approvals.get(toolCallId);
    if (!pending) return false;
    this.approvals.delete(toolCallId);
    if (decision === "deny") pending.resolve({ decision: "deny", ...(reason ? { reason } : {}) });
    else if (decision === "allowAlways") pending.resolve({ decision: "allowAlways" });
    else pending.resolve({ decision: "allow" });
    return true;
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
    return this.stateList(ALLOWED_KEY);
  }

  async forgetAlwaysAllowed(): Promise<void> {
    await this.options.context.workspaceState.update(ALLOWED_KEY, []);
    this.options.log("MCP: the always-allowed tools of this workspace were forgotten");
  }

  async restart(name: string): Promise<void> {
    await this.servers?.restart(name);
  }

  async setServerDisabled(name: string, disabled: boolean): Promise<void> {
    await this.setInList(DISABLED_SERVERS_KEY, name, disabled);
    await this.servers?.disabledChanged(name);
  }

  async setToolDisabled(server: string, tool: string, disabled: boolean): Promise<void> {
    await this.setInList(DISABLED_TOOLS_KEY, `${server}/${tool}`, disabled);
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
    for (const pending of this.approvals.values()) pending.resolve({ decision: "deny", reason: "VS Code is closing" });
    this.approvals.clear();
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
      isServerDisabled: (name) => this.stateList(DISABLED_SERVERS_KEY).includes(name),
      isToolDisabled: (server, tool) => this.stateList(DISABLED_TOOLS_KEY).includes(`${server}/${tool}`),
      acceptsImages: () => this.acceptsImages,
      saveOutput: (data, extension) => this.saveOutput(data, extension),
      ...(this.options.workspaceFolder !== undefined ? { cwd: this.options.workspaceFolder } : {}),
      log: this.options.log,
      onChange: () => this.changed.fire(),
    });
    this.servers.setDefinitions(config.servers);
    for (const error of config.errors) this.options.log(`MCP configuration: ${error}`);
    return this.servers;
  }

  /** The merged configuration, or undefined when no file exists (then out/mcp.js is not even loaded). */
  private async readConfig(): Promise<McpConfigFile | undefined> {
    const texts: { file: string; format: "pi" | "vscode"; scope: "user" | "workspace"; text: string }[] = [];
    for (const entry of mcpConfigFiles(this.options.workspaceFolder, this.options.home)) {
      try {
        texts.push({ ...entry, text: await fsp.readFile(entry.file, "utf8") });
      } catch {
        // No such file: nothing configured there.
      }
    }
    if (texts.length === 0) return undefined;
    const bundle = this.load();
    return bundle.mergeMcpConfigs(
      texts.map((t) => (t.format === "pi" ? bundle.parsePiMcpJson(t.text, t.file, t.scope) : bundle.parseVsCodeMcpJson(t.text, t.file, t.scope))),
    );
  }

  private load(): Bundle {
    // A computed path keeps esbuild from inlining the bundle into extension.js.
    this.bundle ??= require(path.join(this.options.bundleDir ?? __dirname, "mcp.js")) as Bundle;
    return this.bundle;
  }

  /** Before a server starts: trust and the user's agreement for a workspace's server, then its variables. */
  private async prepare(server: McpServerDefinition): Promise<McpPrepared> {
    const bundle = this.load();
    if (server.scope === "workspace") {
      if (!vscode.workspace.isTrusted)
        return { blocked: "Restricted Mode: a server defined by the workspace runs code from the repository, so it starts only in a trusted workspace." };
      const launch = bundle.launchDescription(server);
      const agreed = this.options.context.workspaceState.get<Record<string, string>>(CONSENT_KEY) ?? {};
      if (agreed[server.name] !== launch) {
        if (!(await this.confirmLaunch(server, launch, agreed[server.name] !== undefined)))
          return { blocked: "Not started: you did not agree to its command line. Restart it from Pi Chat: MCP Servers to be asked again." };
        await this.options.context.workspaceState.update(CONSENT_KEY, { ...agreed, [server.name]: launch });
      }
    }
    try {
      return {
        transport: await bundle.resolveTransport(server, {
          env: process.env,
          ...(this.options.workspaceFolder !== undefined ? { workspaceFolder: this.options.workspaceFolder } : {}),
          userHome: os.homedir(),
          input: (id) => this.input(id),
        }),
      };
    } catch (error) {
      return { blocked: `Not started: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  /** `${input:id}`: asked once with VS Code's input box; a password input is kept in SecretStorage. */
  private async input(id: string): Promise<string | undefined> {
    const definition: McpInputDefinition = this.config?.inputs.find((i) => i.id === id) ?? { id, description: id, password: true };
    if (definition.password) {
      const kept = await this.options.context.secrets.get(INPUT_SECRET_PREFIX + id);
      if (kept !== undefined) return kept;
    } else if (this.inputValues.has(id)) return this.inputValues.get(id);
    const value = await vscode.window.showInputBox({
      title: `MCP server input: ${id}`,
      prompt: definition.description,
      password: definition.password,
      ignoreFocusOut: true,
      ...(definition.default !== undefined ? { value: definition.default } : {}),
    });
    if (value === undefined) return undefined;
    if (definition.password) await this.options.context.secrets.store(INPUT_SECRET_PREFIX + id, value);
    else this.inputValues.set(id, value);
    return value;
  }

  private async saveOutput(data: string | Uint8Array, extension: string): Promise<string> {
    await fsp.mkdir(this.options.outputDir, { recursive: true });
    // .log whatever the content: the card's "Open the whole output" opens only logs under this folder.
    const file = path.join(this.options.outputDir, `mcp-${randomUUID()}${extension === ".log" ? "" : extension}.log`);
    await fsp.writeFile(file, data);
    return file;
  }

  private maxTools(): number {
    const value = setting("mcp.maxTools");
    return value >= 0 ? Math.floor(value) : DEFAULT_MCP_MAX_TOOLS;
  }

  private stateList(key: string): string[] {
    const saved = this.options.context.workspaceState.get<unknown>(key);
    return Array.isArray(saved) ? saved.filter((v): v is string => typeof v === "string") : [];
  }

  private async setInList(key: string, value: string, present: boolean): Promise<void> {
    const list = this.stateList(key).filter((v) => v !== value);
    await this.options.context.workspaceState.update(key, present ? [...list, value] : list);
  }
}
