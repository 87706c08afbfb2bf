// The user's MCP choices, kept in workspace state (never in a file a repository could ship): the
// tools always allowed (by server identity, never by name alone), the servers and tools turned off,
// and the workspace servers' definitions the user agreed to.
import type * as vscode from "vscode";
import type { McpAllowStore } from "../../core/mcp/gate";

const ALLOWED_KEY = "piChat.mcp.alwaysAllowedByIdentity";
/** The server name of each identity in ALLOWED_KEY, for the list the user reads. */
const ALLOWED_NAMES_KEY = "piChat.mcp.alwaysAllowedNames";
const DISABLED_SERVERS_KEY = "piChat.mcp.disabledServers";
const DISABLED_TOOLS_KEY = "piChat.mcp.disabledTools";
/** Agreed workspace servers: their place (scope, file, name) → the canonical definition agreed to. */
const CONSENT_KEY = "piChat.mcp.agreedDefinitions";

export class McpChoices {
  /** "Always allow" on an MCP card. */
  readonly allowed: McpAllowStore;

  constructor(
    private readonly state: vscode.Memento,
    private readonly log: (line: string) => void,
  ) {
    // Kept under the server's identity (scope, file, name, definition), never its name alone: a
    // repository's server that takes the name of the user's own inherits none of its choices.
    const entry = (identity: string, tool: string) => JSON.stringify([identity, tool]);
    this.allowed = {
      has: (facts) => this.list(ALLOWED_KEY).includes(entry(facts.identity, facts.tool)),
      add: async (facts) => {
        const list = this.list(ALLOWED_KEY);
        if (!list.includes(entry(facts.identity, facts.tool))) await state.update(ALLOWED_KEY, [...list, entry(facts.identity, facts.tool)]);
        await state.update(ALLOWED_NAMES_KEY, { ...this.allowedNames(), [facts.identity]: facts.server });
        log(`MCP: always allow ${facts.server}/${facts.tool} in this workspace`);
      },
    };
  }

  /** The tools the user always allowed in this workspace (`server/tool`). */
  get alwaysAllowed(): readonly string[] {
    const names = this.allowedNames();
    return this.list(ALLOWED_KEY).map((e) => {
      const [identity, tool] = JSON.parse(e) as [string, string];
      return `${names[identity] ?? "?"}/${tool}`;
    });
  }

  async forgetAlwaysAllowed(): Promise<void> {
    await this.state.update(ALLOWED_KEY, []);
    await this.state.update(ALLOWED_NAMES_KEY, {});
    this.log("MCP: the always-allowed tools of this workspace were forgotten");
  }

  isServerDisabled(name: string): boolean {
    return this.list(DISABLED_SERVERS_KEY).includes(name);
  }

  isToolDisabled(server: string, tool: string): boolean {
    return this.list(DISABLED_TOOLS_KEY).includes(`${server}/${tool}`);
  }

  setServerDisabled(name: string, disabled: boolean): Promise<void> {
    return this.setInList(DISABLED_SERVERS_KEY, name, disabled);
  }

  setToolDisabled(server: string, tool: string, disabled: boolean): Promise<void> {
    return this.setInList(DISABLED_TOOLS_KEY, `${server}/${tool}`, disabled);
  }

  /** The definition (canonical JSON) the user last agreed to for the server at `place`, if any. */
  agreedDefinition(place: string): string | undefined {
    return this.state.get<Record<string, string>>(CONSENT_KEY)?.[place];
  }

  async agree(place: string, definition: string): Promise<void> {
    // Read again: another server's consent may have been saved while its dialog was open.
    const now = this.state.get<Record<string, string>>(CONSENT_KEY) ?? {};
    await this.state.update(CONSENT_KEY, { ...now, [place]: definition });
  }

  private allowedNames(): Record<string, string> {
    const saved = this.state.get<unknown>(ALLOWED_NAMES_KEY);
    return typeof saved === "object" && saved !== null ? (saved as Record<string, string>) : {};
  }

  private list(key: string): string[] {
    const saved = this.state.get<unknown>(key);
    return Array.isArray(saved) ? saved.filter((v): v is string => typeof v === "string") : [];
  }

  private async setInList(key: string, value: string, present: boolean): Promise<void> {
    const list = this.list(key).filter((v) => v !== value);
    await this.state.update(key, present ? [...list, value] : list);
  }
}
