// The host side of shell commands: which runner runs them, the user's allow rules (workspace
// state, never settings: a cloned repository cannot allow itself anything), the approvals
// waiting on command cards, restricted mode, and opening a command's whole output.
import * as path from "node:path";
import * as vscode from "vscode";
import { NodeCommandRunner } from "../../core/shell/node-runner";
import type { CommandRunner } from "../../core/shell/runner";
import type { CommandApprovalRequest, CommandDecision, CommandRuleStore } from "../../core/permissions/command-gate";
import { parseRule } from "../../core/permissions/command-rules";
import { DEFAULT_COMMAND_TIMEOUT_SECONDS, MAX_COMMAND_TIMEOUT_SECONDS } from "../../core/tools/run-command";
import { TerminalCommandRunner, type TerminalRunnerOptions } from "./terminal-runner";
import { severalFolders, singleFolder, type CommandFolders } from "../../core/shell/command-folders";
import type { NamedFolder } from "../adapters/workspace-paths";
import { PROVIDER_KEY_ENV_VARS } from "../providers/catalog";
import { setting } from "../settings";
import { PendingApprovals } from "../approvals/pending-approvals";

const RULES_KEY = "piChat.commandAllowRules";

type TerminalSeams = Omit<TerminalRunnerOptions, "fallback" | "log" | "launcherDir">;

export class HostShellCommands implements vscode.Disposable {
  /** Commands do not get the API keys Pi Chat reads from the environment: `env` would show them, a script could send them. */
  readonly processRunner = new NodeCommandRunner({ removeEnv: PROVIDER_KEY_ENV_VARS });
  /** Created on the first command that may use a terminal. */
  private terminalRunner: TerminalCommandRunner | undefined;
  /** Its test seams (setTerminalSeams); none in use. */
  private terminalSeams: TerminalSeams = {};
  private readonly approvals = new PendingApprovals<CommandApprovalRequest, CommandDecision>();
  readonly rules: CommandRuleStore;

  constructor(
    context: vscode.ExtensionContext,
    /** Folder of the command logs (`<storage>/command-output`). */
    readonly logRoot: string,
    /** The workspace folders by their tool names (workspace-paths.ts). */
    private readonly workspaceFolders: readonly NamedFolder[],
    private readonly log: (line: string) => void,
  ) {
    const state = context.workspaceState;
    this.rules = {
      list: () => {
        const saved = state.get<unknown>(RULES_KEY);
        return Array.isArray(saved) ? saved.filter((r): r is string => typeof r === "string" && parseRule(r).ok) : [];
      },
      add: async (rule) => {
        const current = this.rules.list();
        if (current.includes(rule)) return;
        await state.update(RULES_KEY, [...current, rule]);
        this.log(`command allow rule added for this workspace: ${rule}`);
      },
    };
  }

  /** Commands run only in a trusted workspace with a folder on disk. */
  enabled(): boolean {
    return vscode.workspace.isTrusted && this.workspaceFolders.some((f) => f.uri.scheme === "file");
  }

  /** Where commands may run: the one folder, or each folder on disk by its name; undefined with none on disk. */
  get folders(): CommandFolders | undefined {
    const onDisk = this.workspaceFolders.filter((f) => f.uri.scheme === "file");
    if (onDisk.length === 0) return undefined;
    if (this.workspaceFolders.length === 1) return singleFolder(onDisk[0]!.uri.fsPath);
    return severalFolders(onDisk.map((f) => ({ name: f.name, path: f.uri.fsPath })));
  }

  /**
   * piChat.commands.useTerminal (default on): the visible "Pi Chat" terminal where shell
   * integration comes up, else (and when off) a child process.
   */
  runner(): CommandRunner {
    // User settings only (settings.ts): a cloned repository cannot move commands out of sight.
    if (setting("commands.useTerminal") === false) return this.processRunner;
    this.terminalRunner ??= new TerminalCommandRunner({
      ...this.terminalSeams,
      fallback: this.processRunner,
      log: this.log,
      removeEnv: PROVIDER_KEY_ENV_VARS,
      launcherDir: path.join(path.dirname(this.logRoot), "command-launchers"),
    });
    return this.terminalRunner;
  }

  /** Host tests (terminal-nets.test.ts): ends the terminal runner; the next command makes a new one with these seams. */
  async setTerminalSeams(seams: TerminalSeams): Promise<void> {
    const old = this.terminalRunner;
    this.terminalRunner = undefined;
    this.terminalSeams = seams;
    await old?.dispose();
  }

  defaultTimeoutSeconds(): number {
    // User settings only: a cloned repository cannot let a command run for half an hour unasked.
    const value = setting("commands.timeoutSeconds");
    return value >= 1 ? Math.min(value, MAX_COMMAND_TIMEOUT_SECONDS) : DEFAULT_COMMAND_TIMEOUT_SECONDS;
  }

  approver(request: CommandApprovalRequest, signal: AbortSignal | undefined): Promise<CommandDecision> {
    return this.approvals.wait(request, signal);
  }

  get pendingApprovals(): readonly CommandApprovalRequest[] {
    return this.approvals.requests;
  }

  /** The user's answer on a command card; false when the id is not a command waiting here. */
  decide(toolCallId: string, decision: string, reason: string | undefined, rule: string | undefined): boolean {
    return this.approvals.settle(toolCallId, (): CommandDecision => {
      if (decision === "deny") return { decision: "deny", ...(reason ? { reason } : {}) };
      return decision === "allowAlways" && rule ? { decision: "allowAlways", rule } : { decision: "allow" };
    });
  }

  /** Opens a command's whole output. The path comes from a tool result: only files under logRoot. */
  async openOutput(file: string | undefined): Promise<void> {
    if (!file) {
      void vscode.window.showInformationMessage("Pi Chat: this command's whole output was not kept.");
      return;
    }
    const relative = path.relative(this.logRoot, file);
    if (relative.startsWith("..") || path.isAbsolute(relative) || !file.endsWith(".log")) return;
    try {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
      await vscode.window.showTextDocument(doc, { preview: true });
    } catch {
      void vscode.window.showWarningMessage("Pi Chat: the output of this command is no longer there (logs go with their chat).");
    }
  }

  /**
   * Ends every command and whatever finished ones left, at once (no grace: VS Code is closing), and
   * resolves when they are gone. Deactivation awaits it; bounded by the runners' kill waits.
   */
  async endAllRuns(): Promise<void> {
    await Promise.all([this.terminalRunner?.dispose(), this.processRunner.dispose()]);
    this.terminalRunner = undefined;
  }

  dispose(): Promise<void> {
    return this.endAllRuns();
  }
}
