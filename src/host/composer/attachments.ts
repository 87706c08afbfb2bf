// Files attached for the next prompt: "Ask about this file" (with its selection), the chip's
// remove, and taking them (with what the message's `@` mentions carry) when a prompt is sent.
import * as vscode from "vscode";
import type { MentionRef } from "../../shared/mentions";
import type { PendingAttachment } from "../../shared/protocol";
import type { MentionAttachment } from "./composer-bundle";
import type { WorkspacePaths } from "../adapters/workspace-paths";
import type { ViewPort } from "../views/view-port";
import type { ComposerLists } from "./composer-lists";

export class Attachments {
  private list: PendingAttachment[] = [];

  constructor(
    private readonly paths: WorkspacePaths,
    private readonly lists: ComposerLists,
    private readonly view: ViewPort,
  ) {}

  get pending(): readonly PendingAttachment[] {
    return this.list;
  }

  /** "Ask about this file": attach the file (and selection) to the next prompt and focus the composer. */
  async askAboutFile(uri: vscode.Uri | undefined, selection: vscode.Selection | undefined): Promise<void> {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!target) {
      void vscode.window.showInformationMessage("Pi Chat: open a file first, then ask about it.");
      return;
    }
    const relative = this.paths.pathOf(target);
    if (relative === undefined) {
      void vscode.window.showWarningMessage("Pi Chat can only read files inside the open workspace folders.");
      return;
    }
    const attachment: PendingAttachment = { path: relative };
    if (selection && !selection.isEmpty) {
      const endLine = selection.end.character === 0 && selection.end.line > selection.start.line ? selection.end.line : selection.end.line + 1;
      attachment.range = { startLine: selection.start.line + 1, endLine };
    }
    this.list = [...this.list.filter((a) => a.path !== attachment.path), attachment];
    // Kept here: if the view is still loading, its first snapshot carries it.
    await this.view.reveal();
    this.view.send({ type: "composer/attachments", attachments: this.list });
    this.view.send({ type: "view/focus" });
  }

  /** The chip's ×: the attachment at `index` is dropped. */
  remove(index: number): void {
    this.list = this.list.filter((_, i) => i !== index);
    this.view.send({ type: "composer/attachments", attachments: this.list });
  }

  /** The files attached with "Ask about this file", then what the message's `@` mentions carry, read now. */
  async take(mentions: readonly MentionRef[]): Promise<MentionAttachment[]> {
    const attached = this.list;
    this.list = [];
    this.view.send({ type: "composer/attachments", attachments: [] });
    const mentioned = await this.lists.mentions.resolve(mentions);
    return [...attached.filter((a) => !mentioned.some((m) => m.mention === undefined && m.path === a.path)), ...mentioned];
  }
}
