// "Run in terminal" on a shell code block of an answer. The command is the model's, so nothing runs
// on the click alone: the user sees the whole command and is asked; only the user's "Run in
// Terminal" sends it to a VS Code terminal the user sees ("Pi Chat", in the workspace folder,
// shown), where it runs as if typed, and where the user can stop it. A short command is shown in a
// modal, characters a reader cannot see written as escapes (\u202E); a longer one, which a modal
// cannot show whole, opens whole in an editor beside, and a notification that leaves the editor
// readable asks. The extension's own tests answer in place of a person (`ask`).
import * as vscode from "vscode";
import { chooseUserCommandFolder } from "../shell/command-folder";
import type { WorkspacePaths } from "../adapters/workspace-paths";
import { visibleText } from "../../shared/visible-text";

/** Shown whole in the modal up to this many characters; a longer one opens whole in an editor instead. */
export const SHOWN_COMMAND_CHARS = 2_000;
const TERMINAL_NAME = "Pi Chat";

export type RunInTerminalOutcome = { status: "sent"; cwd: string | undefined } | { status: "declined" } | { status: "refused"; reason: string };

export class TerminalLauncher {
  private terminal: { terminal: vscode.Terminal; cwd: string | undefined } | undefined;

  /**
   * Asks the user; true runs. `modal` false: the command is open in an editor, which a modal would
   * cover, so a notification asks.
   */
  ask: (question: string, detail: string, modal: boolean) => Promise<boolean> = async (question, detail, modal) =>
    (await (modal
      ? vscode.window.showWarningMessage(question, { modal: true, detail }, "Run in Terminal")
      : vscode.window.showWarningMessage(`${question} ${detail}`, "Run in Terminal"))) === "Run in Terminal";

  constructor(
    private readonly paths: WorkspacePaths,
    private readonly log: (line: string) => void,
  ) {}

  async run(command: string): Promise<RunInTerminalOutcome> {
    const outcome = await this.tryRun(command);
    if (outcome.status === "refused") void vscode.window.showWarningMessage(`Pi Chat: ${outcome.reason}`);
    this.log(`run in terminal: ${outcome.status}${outcome.status === "refused" ? ` (${outcome.reason})` : ""}`);
    return outcome;
  }

  private async tryRun(command: string): Promise<RunInTerminalOutcome> {
    const text = command.replace(/\r\n?/g, "\n").trim();
    if (text === "") return { status: "refused", reason: "the code block has no command to run." };
    // As for `!command` and the run_command tool: commands run only in a trusted workspace's folder.
    if (!vscode.workspace.isTrusted)
      return { status: "refused", reason: "commands do not run in Restricted Mode. Trust the workspace first, or copy the command." };
    const lines = text.split("\n").length;
    const question = lines > 1 ? `Run these ${lines} lines in a terminal?` : "Run this command in a terminal?";
    const where = `It comes from the answer: read it before you run it. It runs in the "${TERMINAL_NAME}" terminal, as if you typed it.`;
    const shown = visibleText(text);
    let yes: boolean;
    if (shown.length <= SHOWN_COMMAND_CHARS) {
      const escaped = shown !== text ? "\n\nCharacters you could not see are written as \\u escapes (\\u202E)." : "";
      yes = await this.ask(question, `${shown}${escaped}\n\n${where}`, true);
    } else {
      // Too long for a dialog: all of it in an editor the user can scroll (VS Code marks invisible characters there).
      const document = await vscode.workspace.openTextDocument({ content: text, language: "shellscript" });
      await vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Beside });
      yes = await this.ask(
        question,
        `The whole command (${text.length.toLocaleString("en-US")} characters) is open in the editor beside (what runs is the answer's, not an edit made there). ${where}`,
        false,
      );
    }
    if (!yes) return { status: "declined" };
    // The folder a `!command` would run in (with several folders: the active file's, or the user's pick).
    const folder = await chooseUserCommandFolder(this.paths, text);
    if (!folder) return { status: "declined" };
    const cwd = this.folderPath(folder.cwd);
    const terminal = this.terminalIn(cwd);
    terminal.show(false);
    terminal.sendText(text, true);
    return { status: "sent", cwd };
  }

  /** Absolute path of the folder to run in: the named folder, or the only one; undefined without a folder on disk. */
  private folderPath(name: string | undefined): string | undefined {
    const onDisk = this.paths.folders.filter((f) => f.uri.scheme === "file");
    const folder = name === undefined ? onDisk[0] : onDisk.find((f) => f.name === name);
    return folder?.uri.fsPath;
  }

  /** The Pi Chat terminal of that folder, reused while it is open; a new one otherwise. */
  private terminalIn(cwd: string | undefined): vscode.Terminal {
    const current = this.terminal;
    if (current && current.cwd === cwd && current.terminal.exitStatus === undefined && vscode.window.terminals.includes(current.terminal))
      return current.terminal;
    const terminal = vscode.window.createTerminal({ name: TERMINAL_NAME, ...(cwd !== undefined ? { cwd } : {}) });
    this.terminal = { terminal, cwd };
    return terminal;
  }
}
