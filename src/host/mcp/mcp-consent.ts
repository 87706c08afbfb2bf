// The questions MCP asks before anything runs: "Start this workspace server?" (its whole
// definition shown, changed fields marked; several at once in one dialog, so a repository with
// 10,000 servers gives one question) and "Sign in in the browser?". The dialogs are the defaults of
// HostMcp's replaceable seams (host tests answer them).
import * as path from "node:path";
import * as vscode from "vscode";
import type { McpServerDefinition } from "../../core/mcp/config";
import type { DefinitionField } from "../../core/mcp/identity";

/** What a consent dialog shows about one workspace server. */
export interface LaunchRequest {
  server: McpServerDefinition;
  /** Every field of its definition, one per line, changed ones marked. */
  launch: string;
  /** Fields changed since the user last agreed (empty: never agreed). */
  changed: readonly DefinitionField[];
}

/** The many-servers dialog details this many servers; the rest are counted. */
export const MCP_CONSENT_LISTED = 20;

/** Asks whether one workspace server may start (a modal). */
export async function askLaunch(server: McpServerDefinition, launch: string, changed: readonly DefinitionField[]): Promise<boolean> {
  const start = "Start Server";
  const where = `${path.basename(path.dirname(server.file))}/${path.basename(server.file)}`;
  const shadow =
    server.shadowsUserServer !== undefined ? ` It has the name of your own server in ${server.shadowsUserServer}, which it replaces in this workspace.` : "";
  const answer = await vscode.window.showWarningMessage(
    changed.length > 0
      ? `The definition of the MCP server "${server.name}" (${where}) changed: ${changed.join(", ")}.${shadow} Start it?`
      : `This workspace defines the MCP server "${server.name}" (${where}).${shadow} Start it?`,
    { modal: true, detail: launch },
    start,
  );
  return answer === start;
}

/** Asks about many workspace servers at once (a modal listing them; one answer for all). */
export async function askLaunches(requests: readonly LaunchRequest[]): Promise<boolean> {
  const start = `Start All ${requests.length}`;
  const shown = requests.slice(0, MCP_CONSENT_LISTED);
  const detail = [
    ...shown.map(
      (r) =>
        `${r.server.name} (${r.server.file})${r.changed.length > 0 ? `, changed: ${r.changed.join(", ")}` : ""}${r.server.shadowsUserServer !== undefined ? ", replaces your own server of that name" : ""}\n${r.launch}`,
    ),
    ...(requests.length > shown.length ? [`…and ${requests.length - shown.length} more (Pi Chat: MCP Servers lists them)`] : []),
  ].join("\n\n");
  const answer = await vscode.window.showWarningMessage(
    `This workspace defines ${requests.length} MCP servers that want to start. Start all of them?`,
    { modal: true, detail },
    start,
  );
  return answer === start;
}

/** Before the browser opens for a sign-in: which server asks and where the browser goes. */
export async function askSignIn(server: string, authorizationUrl: string): Promise<boolean> {
  const open = "Open Browser";
  const answer = await vscode.window.showInformationMessage(
    `Sign in to the MCP server "${server}"? Pi Chat opens ${new URL(authorizationUrl).host} in your browser.`,
    {
      modal: true,
      detail: `The sign-in page: ${new URL(authorizationUrl).origin}\nAfter you allow access there, the browser comes back to Pi Chat on this computer.`,
    },
    open,
  );
  return answer === open;
}

/** Consents asked in the same turn: the first schedules one question for all of them. */
export class ConsentQueue {
  private queue: { request: LaunchRequest; resolve: (yes: boolean) => void }[] = [];
  private open: Promise<void> | undefined;

  /** `confirm`: one question for the batch (one server or several). */
  constructor(private readonly confirm: (batch: readonly LaunchRequest[]) => Promise<boolean>) {}

  ask(request: LaunchRequest): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      this.queue.push({ request, resolve });
      // Servers start together (in one synchronous pass): the microtask runs after every one has queued.
      if (this.queue.length === 1) queueMicrotask(() => void this.flush());
    });
  }

  /** The "Start this server?" question on screen now, if any: a request waits for its answer. */
  get current(): Promise<void> | undefined {
    return this.open;
  }

  private flush(): Promise<void> {
    const asked = this.askQueued().finally(() => {
      if (this.open === asked) this.open = undefined;
    });
    this.open = asked;
    return asked;
  }

  private async askQueued(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    let yes = false;
    try {
      yes = await this.confirm(batch.map((b) => b.request));
    } finally {
      for (const b of batch) b.resolve(yes);
    }
  }
}
