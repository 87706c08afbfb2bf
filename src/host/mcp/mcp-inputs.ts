// `${input:id}` values of MCP definitions: asked with VS Code's input box; a password input is kept
// in SecretStorage, another for this window only. Kept per place (the file that defines the server,
// its scope) and server: another file or server asks anew.
import { createHash } from "node:crypto";
import * as vscode from "vscode";
import type { McpInputDefinition, McpServerDefinition } from "../../core/mcp/config";
import { serverPlace } from "../../core/mcp/identity";

const INPUT_SECRET_PREFIX = "piChat.mcp.input.";

/** SecretStorage key of a `${input:id}` value: by the place of the server that uses it (scope, file, name) and the id. */
export function mcpInputSecretKey(server: Pick<McpServerDefinition, "scope" | "file" | "name">, id: string): string {
  return (
    INPUT_SECRET_PREFIX +
    createHash("sha256")
      .update(JSON.stringify([serverPlace(server), id]))
      .digest("hex")
  );
}

/** Asks for one input, saying which server and file want it. */
export function askInputBox(server: McpServerDefinition, input: McpInputDefinition): Thenable<string | undefined> {
  return vscode.window.showInputBox({
    title: `MCP server "${server.name}" (${server.scope === "user" ? "your own file" : server.file}): ${input.id}`,
    prompt: input.description,
    password: input.password,
    ignoreFocusOut: true,
    ...(input.default !== undefined ? { value: input.default } : {}),
  });
}

export class McpInputs {
  /** Non-secret input values of this window (secret ones are in SecretStorage). */
  private readonly values = new Map<string, string>();

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly ask: (server: McpServerDefinition, input: McpInputDefinition) => Thenable<string | undefined>,
  ) {}

  /** The value of `${input:id}` for `server`; `declared`: the inputs the configuration files declare. */
  async value(server: McpServerDefinition, id: string, declared: readonly McpInputDefinition[]): Promise<string | undefined> {
    const definition: McpInputDefinition = declared.find((i) => i.id === id && i.file === server.file) ?? {
      id,
      file: server.file,
      description: id,
      password: true,
    };
    const key = mcpInputSecretKey(server, id);
    if (definition.password) {
      const kept = await this.secrets.get(key);
      if (kept !== undefined) return kept;
    } else if (this.values.has(key)) return this.values.get(key);
    const value = await this.ask(server, definition);
    if (value === undefined) return undefined;
    if (definition.password) await this.secrets.store(key, value);
    else this.values.set(key, value);
    return value;
  }
}
