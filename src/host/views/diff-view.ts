// Proposed edits in VS Code's diff editor: the file on the left, the proposal (a read-only
// virtual document) on the right. Nothing is written until the user allows the edit.
import * as vscode from "vscode";
import type { EditApprovalRequest } from "../../core/session";

export const PROPOSAL_SCHEME = "pi-chat-proposal";

export class ProposalDiffs implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly proposals = new Map<string, EditApprovalRequest>();
  private readonly registration: vscode.Disposable;
  /** Tool call ids whose diff editor was opened, for tests and to close it later. */
  readonly opened: string[] = [];

  /** `uriOf` turns a tool path into the file's URI (undefined: not in an open folder). */
  constructor(readonly uriOf: (toolPath: string) => vscode.Uri | undefined) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.proposals.get(new URLSearchParams(uri.query).get("call") ?? "")?.proposedText ?? "";
  }

  async show(request: EditApprovalRequest): Promise<void> {
    const original = this.uriOf(request.path);
    if (!original) return;
    this.proposals.set(request.toolCallId, request);
    const proposed = this.proposalUri(request);
    this.opened.push(request.toolCallId);
    await vscode.commands.executeCommand("vscode.diff", original, proposed, `${request.path} ↔ proposed edit (Pi Chat)`, {
      preview: true,
      preserveFocus: true,
    });
  }

  async close(toolCallId: string): Promise<void> {
    const request = this.proposals.get(toolCallId);
    this.proposals.delete(toolCallId);
    if (!request) return;
    const proposed = this.proposalUri(request).toString();
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === proposed);
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true);
  }

  dispose(): void {
    this.registration.dispose();
  }

  private proposalUri(request: EditApprovalRequest): vscode.Uri {
    return vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${request.path}`, query: `call=${encodeURIComponent(request.toolCallId)}` });
  }
}
