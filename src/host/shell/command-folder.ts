// Which folder a `!cmd` runs in. With one folder, that one. With several, the folder of the file in
// the active editor (where the user is working), else the user picks one; the card then names it.
// Nothing is guessed: a dismissed pick runs nothing and says so.
import * as vscode from "vscode";
import type { WorkspacePaths } from "../adapters/workspace-paths";

/** `{}`: the one folder; `{ cwd }`: that folder (its tool name); undefined: the user chose none. */
export async function chooseUserCommandFolder(paths: WorkspacePaths, command: string): Promise<{ cwd?: string } | undefined> {
  if (!paths.multiRoot) return {};
  const onDisk = paths.folders.filter((f) => f.uri.scheme === "file");
  const active = vscode.window.activeTextEditor?.document.uri;
  const activePath = active ? paths.pathOf(active) : undefined;
  const activeFolder = activePath?.split("/")[0];
  if (activeFolder !== undefined && onDisk.some((f) => f.name === activeFolder)) return { cwd: activeFolder };
  if (onDisk.length === 1) return { cwd: onDisk[0]!.name };
  const picked = await vscode.window.showQuickPick(
    onDisk.map((f) => ({ label: f.name, description: f.uri.fsPath })),
    {
      title: `Run ${command.length > 60 ? `${command.slice(0, 60)}\u2026` : command}`,
      placeHolder: "This workspace has several folders: run the command in which one?",
    },
  );
  if (!picked) {
    void vscode.window.showInformationMessage("Pi Chat: the command was not run (no folder chosen).");
    return undefined;
  }
  return { cwd: picked.label };
}
