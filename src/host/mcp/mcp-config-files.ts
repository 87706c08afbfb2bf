// Where the MCP configuration files are (the user's pi file, then the workspace's .pi and .vscode
// files), and how one is read: a regular file within a size limit, never a FIFO or /dev/zero. Also
// the two checks a server's launch needs: a path inside the workspace folder, and the environment
// without the provider keys.
import { constants as fsConstants, promises as fsp } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { McpConfigFile } from "../../core/mcp/config";
import { PROVIDER_KEY_ENV_VARS } from "../providers/catalog";

/** A configuration file larger than this is not read (real ones are a few KB; a link to /dev/zero is refused before). */
export const MCP_CONFIG_MAX_BYTES = 1024 * 1024;

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

/**
 * One configuration file, read with limits: a regular file (a link to /dev/zero, a FIFO or a folder
 * is refused without reading; opened non-blocking so a FIFO cannot hang the open), at most
 * MCP_CONFIG_MAX_BYTES. Undefined: no file. `parsed` is the cached result when the file is unchanged.
 */
export async function readConfigFile(
  file: string,
  cached: { signature: string; parsed: McpConfigFile } | undefined,
): Promise<(({ text: string } | { error: string }) & { signature: string; parsed?: McpConfigFile }) | undefined> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? undefined : { error: `cannot be read (${code ?? String(error)})`, signature: `error:${code}` };
  }
  try {
    const stat = await handle.stat();
    const signature = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}`;
    if (cached?.signature === signature) return { text: "", signature, parsed: cached.parsed };
    if (!stat.isFile()) return { error: "not a regular file; not read", signature };
    if (stat.size > MCP_CONFIG_MAX_BYTES) return { error: `larger than ${MCP_CONFIG_MAX_BYTES / 1024} KB; not read`, signature };
    const buffer = Buffer.alloc(MCP_CONFIG_MAX_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MCP_CONFIG_MAX_BYTES) return { error: `larger than ${MCP_CONFIG_MAX_BYTES / 1024} KB; not read`, signature };
    return { text: buffer.subarray(0, bytesRead).toString("utf8"), signature };
  } finally {
    await handle.close();
  }
}

export function isInside(folder: string, target: string): boolean {
  const relative = path.relative(folder, target);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/** The host's environment without the provider keys (the list commands strip too). */
export function withoutProviderKeys(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !PROVIDER_KEY_ENV_VARS.includes(k)) out[k] = v;
  return out;
}
