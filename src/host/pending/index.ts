// Keep / Undo of what Pi wrote since the last prompt (or a checkpoint the user picks): the review
// (pending-changes.ts), its place in the editor (pending-editor.ts), and the command that picks
// the checkpoint, made together for the chat host.
import * as vscode from "vscode";
import type { Checkpoints } from "../../core/checkpoints";
import { checkpointLabel } from "../../shared/checkpoint-label";
import type { PendingCheckpoint } from "../../shared/protocol";
import type { WorkspacePaths } from "../adapters/workspace-paths";
import { type DecisionOutcome, PendingChanges, type PendingList } from "./pending-changes";
import { PendingEditor } from "./pending-editor";

export type { DecisionOutcome, PendingFile, PendingList } from "./pending-changes";
export { PendingChanges } from "./pending-changes";

/** A row of "Review Changes Since Checkpoint…": one checkpoint, newest first, the one in use said. */
export interface SinceChoice extends vscode.QuickPickItem {
  readonly markId: string;
}

export class PendingReview implements vscode.Disposable {
  readonly changes: PendingChanges;
  readonly editor: PendingEditor;
  private readonly command: vscode.Disposable;

  constructor(options: {
    checkpoints: Checkpoints;
    paths: WorkspacePaths;
    state: vscode.Memento;
    currentChatId: () => string;
    checkpointsOf: () => PendingCheckpoint[];
    send: (list: PendingList, said: string | undefined) => void;
    log: (line: string) => void;
  }) {
    this.changes = new PendingChanges(options);
    // A decision the editor could not carry out is also said where the user is (the view says every one).
    const notify = (outcome: DecisionOutcome) => {
      if (!outcome.done) void vscode.window.showInformationMessage(`Pi Chat: ${outcome.said}`);
    };
    this.editor = new PendingEditor(this.changes, notify);
    // An argument (a keybinding's, a test's) is as untrusted as the view's: the owner checks it.
    this.command = vscode.commands.registerCommand("piChat.reviewChangesSince", async (args?: { markId?: unknown }) => {
      const outcome = await (args && typeof args.markId === "string" ? this.changes.reviewSince(args.markId) : this.pickSince());
      if (outcome) notify(outcome);
      return outcome;
    });
    this.changes.refresh();
  }

  /** The quick pick's rows: the chat's checkpoints, newest first, labelled as the checkpoint UI labels them. */
  sinceChoices(): SinceChoice[] {
    const since = this.changes.sinceCheckpoint;
    const choices = this.changes.checkpointChoices;
    return choices.map((c, i) => {
      const inUse = since ? since.markId === c.markId : i === 0;
      return {
        markId: c.markId,
        label: `Since ${checkpointLabel(c)}`,
        ...(i === 0 ? { description: "your last message" } : {}),
        ...(inUse ? { detail: "Shown now" } : {}),
        picked: inUse,
      };
    });
  }

  private async pickSince(): Promise<DecisionOutcome | undefined> {
    await this.changes.settled();
    const choices = this.sinceChoices();
    if (choices.length === 0) return { done: false, said: "This chat has no checkpoint yet: send a message first." };
    const chosen = await vscode.window.showQuickPick(choices, {
      title: "Pi Chat: Review Changes Since Checkpoint",
      placeHolder: "Keep or Undo everything Pi and its commands changed since the message you pick",
    });
    if (!chosen) return undefined;
    const outcome = await this.changes.reviewSince(chosen.markId);
    // The list is in the chat view: shown, so the user sees what the pick brought.
    if (outcome.done) void vscode.commands.executeCommand("piChat.chatView.focus");
    return outcome;
  }

  dispose(): void {
    this.command.dispose();
    this.editor.dispose();
    this.changes.dispose();
  }
}
