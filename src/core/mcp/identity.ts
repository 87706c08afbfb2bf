// One answer to "which server is this?", used by every decision that trusts a server: the user's
// agreement to start it, "Always allow" for its tools, its `${input:…}` secrets and its OAuth
// tokens. A server is its scope, the file that defines it, its name and its whole definition
// (everything that decides what runs or where requests and credentials go). A name alone is never
// an identity: a repository can take any name. No vscode import; part of out/mcp.js and tests.
import { createHash } from "node:crypto";
import type { McpServerDefinition } from "./config";

/** The fields of a definition that decide what runs or where it connects, in the order the dialog lists them. */
export const DEFINITION_FIELDS = ["command", "args", "env", "cwd", "url", "headers", "oauth"] as const;
export type DefinitionField = (typeof DEFINITION_FIELDS)[number];

/** The definition as one canonical value per field (absent fields left out), keys sorted. */
export function canonicalDefinition(server: McpServerDefinition): Partial<Record<DefinitionField, unknown>> {
  const t = server.transport;
  const fields: Partial<Record<DefinitionField, unknown>> =
    t.type === "stdio"
      ? { command: t.command, args: t.args, env: sorted(t.env), ...(t.cwd !== undefined ? { cwd: t.cwd } : {}) }
      : { url: t.url, headers: sorted(t.headers), ...(t.oauth !== undefined ? { oauth: sorted(t.oauth as Record<string, unknown>) } : {}) };
  if (t.type === "stdio" && Object.keys(t.env).length === 0) delete fields.env;
  if (t.type === "http" && Object.keys(t.headers).length === 0) delete fields.headers;
  return fields;
}

/** The place a definition lives: scope, file and name. What a secret input and a consent are kept under. */
export function serverPlace(server: Pick<McpServerDefinition, "scope" | "file" | "name">): string {
  return JSON.stringify([server.scope, server.file, server.name]);
}

/** The server's identity: its place and a hash of its canonical definition. Any change is another server. */
export function serverIdentity(server: McpServerDefinition): string {
  const hash = createHash("sha256")
    .update(JSON.stringify(canonicalDefinition(server)))
    .digest("hex")
    .slice(0, 16);
  return `${server.scope}:${server.name}:${createHash("sha256").update(serverPlace(server)).digest("hex").slice(0, 8)}:${hash}`;
}

/** The server name of an identity (for lists the user reads). */
export function identityServerName(identity: string): string {
  const parts = identity.split(":");
  return parts.length >= 4 ? parts.slice(1, -2).join(":") : identity;
}

/** The fields whose value differs between two canonical definitions (a field added or removed counts). */
export function changedFields(before: Partial<Record<DefinitionField, unknown>>, after: Partial<Record<DefinitionField, unknown>>): DefinitionField[] {
  return DEFINITION_FIELDS.filter((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f]));
}

/** Every field of a definition as the consent dialog shows it, one line each, changed ones marked. */
export function definitionLines(server: McpServerDefinition, changed: readonly DefinitionField[] = []): string[] {
  const canonical = canonicalDefinition(server);
  const lines: string[] = [];
  for (const field of DEFINITION_FIELDS) {
    const value = canonical[field];
    const mark = changed.includes(field) ? "(changed) " : "";
    if (value === undefined) {
      if (changed.includes(field)) lines.push(`${mark}${field}: (removed)`);
      continue;
    }
    lines.push(`${mark}${field}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
  }
  return lines;
}

function sorted(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
