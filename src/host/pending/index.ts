// Keep / Undo of what Pi wrote since the last prompt: the review (pending-changes.ts) and its
// place in the editor (pending-editor.ts), made together for the chat host.
import * as vscode from "vscode";
import type { Checkpoints } from "../../core/checkpoints";
import type { PendingFileSummary } from "../../shared/protocol";
import type { WorkspacePaths } from "../adapters/workspace-paths";
import { PendingChanges } from "./pending-changes";
import { PendingEditor } from "./pending-editor";

export type { DecisionOutcome, PendingFile } from "./pending-changes";
export { PendingChanges } from "./pending-changes";

export class PendingReview implements vscode.Disposable {
  readonly changes: PendingChanges;
  readonly editor: PendingEditor;

  constructor(options: {
    checkpoints: Checkpoints;
    paths: WorkspacePaths;
    state: vscode.Memento;
    currentChatId: () => string;
    send: (files: PendingFileSummary[], said: string | undefined) => void;
    log: (line: string) => void;
  }) {
    this.changes = new PendingChanges(options);
    // A decision the editor could not carry out is also said where the user is (the view says every one).
    this.editor = new PendingEditor(this.changes, (outcome) => {
      if (!outcome.done) void vscode.window.showInformationMessage(`Pi Chat: ${outcome.said}`);
    });
    this.changes.refresh();
  }

  dispose(): void {
    this.editor.dispose();
    this.changes.dispose();
  }
}
