// MCP server definitions from the files users already keep: VS Code's `mcp.json` (`servers`, with
// `type` stdio/http and `${input:…}` / `${env:…}` variables) and pi's `mcpServers` files
// (`~/.pi/agent/mcp.json` for the user, `.pi/mcp.json` in the workspace). Parsing only: no file
// reading, no variables resolved (variables.ts), no trust decided (identity.ts and the host).
import { type McpOAuthConfig, validateMcpServerConfig } from "@earendil-works/pi-mcp";
// The ESM build: the UMD one (package "main") loads its parts with a require esbuild cannot follow.
import { type ParseError, parse as parseJsonc, printParseErrorCode } from "jsonc-parser/lib/esm/main.js";

/** Where a definition came from: the user's own file, or a file the workspace (a repository) ships. */
export type McpScope = "user" | "workspace";

export type McpTransportConfig =
  | { type: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  /** `oauth`: pi's client settings for sign-in (pi-mcp checked them); without it, sign-in registers a client. */
  | { type: "http"; url: string; headers: Record<string, string>; oauth?: McpOAuthConfig };

export interface McpServerDefinition {
  name: string;
  scope: McpScope;
  /** The file it was read from, for messages. */
  file: string;
  transport: McpTransportConfig;
  /** False: kept in the list, never started. */
  enabled: boolean;
  description?: string;
  /** Per-request timeout in seconds. */
  timeoutSeconds?: number;
  /** A workspace server that took the name of one of the user's own servers: that file (the consent dialog says so). */
  shadowsUserServer?: string;
}

/** An `inputs` entry of VS Code's mcp.json: what to ask for a `${input:id}`. */
export interface McpInputDefinition {
  id: string;
  /** The file that defines it: an input is one file's, never another's (its secret is kept per file and server). */
  file: string;
  description: string;
  password: boolean;
  default?: string;
}

/** A file's servers, its inputs, and what was wrong with it (shown, never thrown). */
export interface McpConfigFile {
  servers: McpServerDefinition[];
  inputs: McpInputDefinition[];
  /** `enabled` overrides for servers another file defines (pi's project overrides); a workspace's can only switch off. */
  overrides: { name: string; enabled: boolean; scope: McpScope }[];
  errors: string[];
}

const EMPTY: McpConfigFile = { servers: [], inputs: [], overrides: [], errors: [] };

/** Objects and arrays nested deeper than this are refused before parsing (a server entry needs about 5). */
export const MCP_CONFIG_MAX_DEPTH = 32;

/** How deep `[` and `{` nest outside strings and comments; stops counting past `limit`. */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: a hand-written scanner: one loop over the characters, one branch per token kind
export function jsonNesting(text: string, limit = MCP_CONFIG_MAX_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === "{" || c === "[") {
      deepest = Math.max(deepest, ++depth);
      if (deepest > limit) return deepest;
    } else if (c === "}" || c === "]") depth--;
  }
  return deepest;
}

/** JSON with comments and trailing commas, as VS Code writes its own files; nesting capped first. */
function parseFile(text: string, file: string): { value: Record<string, unknown> } | { error: string } {
  if (jsonNesting(text) > MCP_CONFIG_MAX_DEPTH) return { error: `${file}: nested deeper than ${MCP_CONFIG_MAX_DEPTH} levels; not read` };
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
  if (errors.length > 0) return { error: `${file}: not valid JSON (${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset})` };
  if (!isRecord(value)) return { error: `${file}: the file must hold a JSON object` };
  return { value };
}

/** VS Code's format: `{ "servers": { name: { type, command, args, env, url, headers } }, "inputs": [...] }`. */
export function parseVsCodeMcpJson(text: string, file: string, scope: McpScope): McpConfigFile {
  const parsed = parseFile(text, file);
  if ("error" in parsed) return { ...EMPTY, errors: [parsed.error] };
  const out: McpConfigFile = { servers: [], inputs: [], overrides: [], errors: [] };
  const servers = parsed.value.servers;
  if (servers !== undefined && !isRecord(servers)) out.errors.push(`${file}: "servers" must be an object`);
  for (const [name, raw] of Object.entries(isRecord(servers) ? servers : {})) {
    if (isRecord(raw) && (raw.type === "sse" || raw.type === "ws")) {
      out.errors.push(`${file}: server "${name}" uses type "${raw.type}", which Pi Chat does not support (stdio and http only)`);
      continue;
    }
    addServer(out, name, raw, file, scope);
  }
  const inputs = parsed.value.inputs;
  if (inputs !== undefined && !Array.isArray(inputs)) out.errors.push(`${file}: "inputs" must be an array`);
  for (const input of Array.isArray(inputs) ? inputs : []) {
    if (!isRecord(input) || typeof input.id !== "string" || input.id === "") {
      out.errors.push(`${file}: every input needs an "id"`);
      continue;
    }
    out.inputs.push({
      id: input.id,
      file,
      description: typeof input.description === "string" ? input.description : input.id,
      password: input.password === true,
      ...(typeof input.default === "string" ? { default: input.default } : {}),
    });
  }
  return out;
}

/** pi's format: `{ "mcpServers": { name: { command, args, env, cwd } | { url, headers } } }`. */
export function parsePiMcpJson(text: string, file: string, scope: McpScope): McpConfigFile {
  const parsed = parseFile(text, file);
  if ("error" in parsed) return { ...EMPTY, errors: [parsed.error] };
  const out: McpConfigFile = { servers: [], inputs: [], overrides: [], errors: [] };
  const servers = parsed.value.mcpServers;
  if (servers !== undefined && !isRecord(servers)) out.errors.push(`${file}: "mcpServers" must be an object`);
  for (const [name, raw] of Object.entries(isRecord(servers) ? servers : {})) {
    // An entry with no command, url or type only switches a server another file defines on or off.
    if (isRecord(raw) && raw.command === undefined && raw.url === undefined && raw.type === undefined) {
      if (typeof raw.enabled === "boolean") out.overrides.push({ name, enabled: raw.enabled, scope });
      else out.errors.push(`${file}: server "${name}" has neither "command" nor "url"`);
      continue;
    }
    addServer(out, name, raw, file, scope);
  }
  return out;
}

function addServer(out: McpConfigFile, name: string, raw: unknown, file: string, scope: McpScope): void {
  const result = validateMcpServerConfig(name, raw);
  if (result.kind === "invalid") {
    out.errors.push(`${file}: ${result.error}`);
    return;
  }
  const config = result.config;
  const transport: McpTransportConfig =
    result.kind === "stdio"
      ? {
          type: "stdio",
          command: result.config.command,
          args: [...(result.config.args ?? [])],
          env: { ...(result.config.env ?? {}) },
          ...(result.config.cwd !== undefined ? { cwd: result.config.cwd } : {}),
        }
      : {
          type: "http",
          url: result.config.url,
          headers: { ...(result.config.headers ?? {}) },
          ...(result.config.oauth !== undefined ? { oauth: { ...result.config.oauth } } : {}),
        };
  out.servers.push({
    name,
    scope,
    file,
    transport,
    enabled: config.enabled !== false,
    ...(typeof config.description === "string" ? { description: config.description } : {}),
    ...(typeof config.timeout === "number" ? { timeoutSeconds: config.timeout } : {}),
  });
}

/**
 * All files in order of precedence, lowest first (the user's, then the workspace's): a later file's
 * server of the same name replaces an earlier one, so a name means one server (a workspace server
 * that replaces the user's own says so: `shadowsUserServer`). Overrides switch servers off, and
 * on only from the user's own file: a workspace can narrow what runs, never widen it. Two names
 * that map to one tool namespace (`a-b`, `a_b`) are an error.
 */
export function mergeMcpConfigs(files: readonly McpConfigFile[]): McpConfigFile {
  const byName = new Map<string, McpServerDefinition>();
  const inputs = new Map<string, McpInputDefinition>();
  const errors: string[] = [];
  for (const f of files) {
    errors.push(...f.errors);
    for (const s of f.servers) {
      const shadowed = byName.get(s.name);
      byName.set(s.name, shadowed?.scope === "user" && s.scope === "workspace" ? { ...s, shadowsUserServer: shadowed.file } : s);
    }
    for (const i of f.inputs) inputs.set(JSON.stringify([i.file, i.id]), i);
  }
  for (const f of files)
    for (const o of f.overrides) {
      const server = byName.get(o.name);
      if (!server) continue;
      if (o.enabled && o.scope === "workspace") {
        if (!server.enabled) errors.push(`The workspace's file asks to switch on "${o.name}", which your own file switches off; it stays off.`);
        continue;
      }
      byName.set(o.name, { ...server, enabled: o.enabled });
    }
  const namespaces = new Map<string, string>();
  for (const name of [...byName.keys()]) {
    const namespace = name.replace(/-/g, "_");
    const other = namespaces.get(namespace);
    if (other !== undefined) {
      errors.push(`MCP servers "${other}" and "${name}" would share one tool namespace; "${name}" was left out. Rename one of them.`);
      byName.delete(name);
    } else namespaces.set(namespace, name);
  }
  return { servers: [...byName.values()], inputs: [...inputs.values()], overrides: [], errors };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
