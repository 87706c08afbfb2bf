// "Pi Chat: MCP Servers": every configured server with its state (starting, ready with N tools,
// failed with the reason and the last lines of its stderr, disabled, not started and why), and what
// the user can do with one: restart it, disable or enable it, choose which of its tools Pi may use,
// open the file that defines it, sign in (OAuth) or out. Problems in the files are listed first.
import * as vscode from "vscode";
import type { McpServerSnapshot, McpServerState } from "../../core/mcp/servers";
import type { HostMcp } from "./host-mcp";

export function describeMcpState(state: McpServerState): string {
  switch (state.kind) {
    case "stopped":
      return "not started yet (starts when a chat needs tools)";
    case "starting":
      return "starting…";
    case "ready":
      return `ready, ${state.tools} tool${state.tools === 1 ? "" : "s"}`;
    case "failed":
      return `failed: ${state.reason}`;
    case "disabled":
      return "disabled";
    case "blocked":
      return state.reason;
    case "needsSignIn":
      return `needs sign-in (at ${state.authorizationServer})`;
  }
}

function stateIcon(state: McpServerState): string {
  return {
    stopped: "$(circle-outline)",
    starting: "$(loading~spin)",
    ready: "$(pass)",
    failed: "$(error)",
    disabled: "$(circle-slash)",
    blocked: "$(shield)",
    needsSignIn: "$(sign-in)",
  }[state.kind];
}

interface ServerPick extends vscode.QuickPickItem {
  server?: McpServerSnapshot;
  forget?: true;
}

export async function showMcpServers(mcp: HostMcp): Promise<void> {
  const servers = await mcp.list();
  const errors = mcp.configErrors;
  if (servers.length === 0 && errors.length === 0) {
    void vscode.window.showInformationMessage(
      "Pi Chat: no MCP servers are configured. Add them to .vscode/mcp.json or .pi/mcp.json in the workspace, or to ~/.pi/agent/mcp.json for every workspace.",
    );
    return;
  }
  const items: ServerPick[] = [
    ...errors.map((e) => ({ label: "$(warning) Configuration problem", detail: e })),
    ...servers.map((s) => ({
      label: `${stateIcon(s.state)} ${s.name}`,
      description: `${describeMcpState(s.state)} · ${s.scope === "user" ? "user" : "workspace"}`,
      detail: s.state.kind === "failed" && s.state.stderr.length > 0 ? `stderr: ${s.state.stderr.join(" ⏎ ")}` : s.file,
      server: s,
    })),
    ...(mcp.alwaysAllowed.length > 0
      ? [{ label: '$(discard) Forget "Always allow" choices', description: mcp.alwaysAllowed.join(", "), forget: true as const }]
      : []),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: "Pi Chat: MCP Servers",
    placeHolder: "Pick a server to restart, disable or choose its tools",
    matchOnDetail: true,
  });
  if (picked?.forget) {
    await mcp.forgetAlwaysAllowed();
    void vscode.window.showInformationMessage("Pi Chat: every MCP tool asks again in this workspace.");
    return;
  }
  if (!picked?.server) return;
  await serverActions(mcp, picked.server);
}

async function serverActions(mcp: HostMcp, server: McpServerSnapshot): Promise<void> {
  const disabled = server.state.kind === "disabled";
  const actions: (vscode.QuickPickItem & { run: () => Promise<void> })[] = [
    ...(server.state.kind === "needsSignIn"
      ? [
          {
            label: "$(sign-in) Sign In…",
            description: `opens ${server.state.authorizationServer} in your browser`,
            run: () => mcp.signIn(server.name).then(() => undefined),
          },
        ]
      : []),
    ...(server.signedIn
      ? [{ label: "$(sign-out) Sign Out", description: "forgets its tokens and client registration", run: () => mcp.signOut(server.name) }]
      : []),
    ...(disabled ? [] : [{ label: "$(debug-restart) Restart", run: () => mcp.restart(server.name) }]),
    disabled
      ? { label: "$(play) Enable", run: () => mcp.setServerDisabled(server.name, false) }
      : { label: "$(circle-slash) Disable", description: "stops it; its tools are not offered", run: () => mcp.setServerDisabled(server.name, true) },
    ...(server.tools.length > 0
      ? [
          {
            label: "$(tools) Choose Tools…",
            description: `${server.tools.filter((t) => !t.disabled).length} of ${server.tools.length} in use`,
            run: () => chooseTools(mcp, server),
          },
        ]
      : []),
    {
      label: "$(go-to-file) Open Configuration File",
      description: server.file,
      run: async () => {
        await vscode.window.showTextDocument(vscode.Uri.file(server.file));
      },
    },
  ];
  const action = await vscode.window.showQuickPick(actions, { title: `MCP server ${server.name}: ${describeMcpState(server.state)}` });
  await action?.run();
}

async function chooseTools(mcp: HostMcp, server: McpServerSnapshot): Promise<void> {
  const items = server.tools.map((t) => ({
    label: t.name,
    description: t.annotations?.readOnlyHint === true ? "says it only reads" : "",
    picked: !t.disabled,
    tool: t,
  }));
  const chosen = await vscode.window.showQuickPick(items, { title: `Tools of ${server.name} Pi may use`, canPickMany: true });
  if (!chosen) return;
  const keep = new Set(chosen.map((c) => c.tool.name));
  for (const t of server.tools) if (keep.has(t.name) === t.disabled) await mcp.setToolDisabled(server.name, t.name, !keep.has(t.name));
}

/**
 * "Pi Chat: Sign In to MCP Server" (also the chat note's Sign In button): the server named, the only
 * one waiting for a sign-in, or the one the user picks. False when no sign-in happened.
 */
export async function signInToMcpServer(mcp: HostMcp, server?: string): Promise<boolean> {
  let name = server;
  if (name === undefined) {
    await mcp.list();
    const waiting = mcp.needingSignIn;
    if (waiting.length === 0) {
      void vscode.window.showInformationMessage("Pi Chat: no MCP server is waiting for a sign-in.");
      return false;
    }
    name = waiting.length === 1 ? waiting[0] : await vscode.window.showQuickPick(waiting, { title: "Sign in to which MCP server?" });
  }
  return name === undefined ? false : mcp.signIn(name);
}
