// The checkpoints' change feed in VS Code: the file-system watcher VS Code already runs on the
// workspace folders, its events turned into tool paths. VS Code does not tell an extension when
// its watcher drops events, so the core audits it (every walk must find only changes it named)
// and walks whenever it is not trusted. Nor does it say when its watcher has caught up: the core
// never relies on that (a change stamped before a command started is not the command's). VS Code's own writes (a save, the Explorer's file
// operations) are named at once, without the watcher's delay. `files.watcherExclude` patterns
// beyond VS Code's defaults make the feed untrusted (they may hide files a command changes), and
// a change of that setting counts as lost events.
import * as vscode from "vscode";
import type { ChangeFeed, ChangeListener } from "../../core/checkpoints";
import type { WorkspacePaths } from "../adapters/workspace-paths";

/** `files.watcherExclude` patterns turned on beyond VS Code's defaults (they may hide visible files from the watcher). */
export function extraWatcherExcludes(): string[] {
  const inspected = vscode.workspace.getConfiguration("files").inspect<Record<string, boolean>>("watcherExclude");
  const defaults = inspected?.defaultValue ?? {};
  const set = { ...inspected?.globalValue, ...inspected?.workspaceValue, ...inspected?.workspaceFolderValue };
  return Object.entries(set)
    .filter(([glob, on]) => on === true && defaults[glob] !== true)
    .map(([glob]) => glob);
}

export function createWatcherFeed(paths: WorkspacePaths): ChangeFeed {
  return {
    subscribe(listener: ChangeListener): () => void {
      const report = (uri: vscode.Uri): void => {
        const path = paths.pathOf(uri);
        if (path !== undefined) listener.changed([path]);
      };
      const disposables: vscode.Disposable[] = [];
      for (const folder of paths.folders) {
        const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder.uri, "**"));
        disposables.push(watcher, watcher.onDidCreate(report), watcher.onDidChange(report), watcher.onDidDelete(report));
      }
      // What VS Code itself writes is named at once, without the watcher's delay: a save, and the
      // Explorer's (or an extension's workspace edit's) create, delete and rename.
      disposables.push(
        // Named before the save is written too: a look meanwhile stats it itself.
        vscode.workspace.onWillSaveTextDocument((e) => report(e.document.uri)),
        vscode.workspace.onDidSaveTextDocument((doc) => report(doc.uri)),
        vscode.workspace.onDidCreateFiles((e) => e.files.forEach(report)),
        vscode.workspace.onDidDeleteFiles((e) => e.files.forEach(report)),
        vscode.workspace.onDidRenameFiles((e) => {
          for (const f of e.files) {
            report(f.oldUri);
            report(f.newUri);
          }
        }),
        vscode.workspace.onDidChangeConfiguration((e) => {
          if (e.affectsConfiguration("files.watcherExclude")) listener.lost("files.watcherExclude changed");
        }),
      );
      return () => {
        for (const d of disposables) d.dispose();
      };
    },
    untrusted() {
      const extra = extraWatcherExcludes();
      return extra.length > 0 ? `files.watcherExclude hides ${extra.join(", ")} from the watcher` : undefined;
    },
  };
}
