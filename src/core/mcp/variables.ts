// Variables in a server definition, resolved just before it starts: `${env:NAME}` (VS Code) and
// `${NAME}` (pi) from the environment, `${workspaceFolder}` and `${userHome}`, and `${input:id}`
// asked from the user (the host keeps secret ones in SecretStorage). The resolved values live only
// in the started transport: never in a file, a log or a transcript.
import type { McpServerDefinition, McpTransportConfig } from "./config";

export interface VariableSources {
  env: Readonly<Record<string, string | undefined>>;
  workspaceFolder?: string;
  userHome?: string;
  /** The value of `${input:id}`; undefined when the user gave none (the server does not start). */
  input: (id: string) => Promise<string | undefined>;
}

const VARIABLE = /\$\{([^}]+)\}/g;

/** Thrown when a variable has no value: the server's state says which. */
export class McpVariableError extends Error {}

export async function resolveVariables(text: string, sources: VariableSources): Promise<string> {
  let out = "";
  let last = 0;
  for (const match of text.matchAll(VARIABLE)) {
    out += text.slice(last, match.index);
    out += await variableValue(match[1]!, sources);
    last = match.index + match[0].length;
  }
  return out + text.slice(last);
}

async function variableValue(name: string, sources: VariableSources): Promise<string> {
  if (name.startsWith("input:")) {
    const id = name.slice("input:".length);
    const value = await sources.input(id);
    if (value === undefined) throw new McpVariableError(`no value was given for ${wrap(name)}`);
    return value;
  }
  if (name === "workspaceFolder") {
    if (sources.workspaceFolder === undefined) throw new McpVariableError(`${wrap(name)} is used, but no folder is open`);
    return sources.workspaceFolder;
  }
  if (name === "userHome") {
    if (sources.userHome === undefined) throw new McpVariableError(`${wrap(name)} is not known here`);
    return sources.userHome;
  }
  const envName = name.startsWith("env:") ? name.slice("env:".length) : name;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(envName)) throw new McpVariableError(`${wrap(name)} is not a variable Pi Chat knows`);
  const value = sources.env[envName];
  if (value === undefined) throw new McpVariableError(`the environment variable ${envName} is not set`);
  return value;
}

/** The transport with every variable resolved (command, args, env, cwd, url, headers). */
export async function resolveTransport(server: McpServerDefinition, sources: VariableSources): Promise<McpTransportConfig> {
  const t = server.transport;
  const each = async (record: Record<string, string>) =>
    Object.fromEntries(await Promise.all(Object.entries(record).map(async ([k, v]) => [k, await resolveVariables(v, sources)] as const)));
  if (t.type === "http") {
    // The client secret of a pre-registered OAuth client may come from an input (kept in SecretStorage).
    const secret = t.oauth?.clientSecret !== undefined ? await resolveVariables(t.oauth.clientSecret, sources) : undefined;
    return {
      type: "http",
      url: await resolveVariables(t.url, sources),
      headers: await each(t.headers),
      ...(t.oauth ? { oauth: { ...t.oauth, ...(secret !== undefined ? { clientSecret: secret } : {}) } } : {}),
    };
  }
  const cwd = t.cwd !== undefined ? await resolveVariables(t.cwd, sources) : undefined;
  return {
    type: "stdio",
    command: await resolveVariables(t.command, sources),
    args: await Promise.all(t.args.map((a) => resolveVariables(a, sources))),
    env: await each(t.env),
    ...(cwd !== undefined ? { cwd } : {}),
  };
}

/** The `${input:id}` ids a definition uses, so the host asks for each once. */
export function inputIds(server: McpServerDefinition): string[] {
  const t = server.transport;
  const texts =
    t.type === "http"
      ? [t.url, ...Object.values(t.headers), ...(t.oauth?.clientSecret ? [t.oauth.clientSecret] : [])]
      : [t.command, ...t.args, ...Object.values(t.env), ...(t.cwd ? [t.cwd] : [])];
  const ids = new Set<string>();
  for (const text of texts) for (const m of text.matchAll(VARIABLE)) if (m[1]!.startsWith("input:")) ids.add(m[1]!.slice("input:".length));
  return [...ids];
}

/** A variable as written in the file, for messages. */
function wrap(name: string): string {
  return `$\{${name}}`;
}
