// A proposed plan opened in an editor so the user can change it before approving: an untitled
// Markdown document per plan (by its tool call id). *Approve and act* takes the document's text
// when it is still open, so what the user approves is what they see; closed, the plan as proposed.
import * as vscode from "vscode";

export class PlanDrafts {
  private readonly drafts = new Map<string, vscode.TextDocument>();

  /** Opens (or shows again) the plan of `toolCallId` as an editable Markdown document beside the chat. */
  async open(toolCallId: string, plan: string): Promise<vscode.TextDocument> {
    let doc = this.drafts.get(toolCallId);
    if (!doc || doc.isClosed) {
      doc = await vscode.workspace.openTextDocument({ language: "markdown", content: plan });
      this.drafts.set(toolCallId, doc);
    }
    await vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.Active });
    return doc;
  }

  /** The plan as the user left it in its editor, if it is still open. */
  textOf(toolCallId: string): string | undefined {
    const doc = this.drafts.get(toolCallId);
    return doc && !doc.isClosed ? doc.getText() : undefined;
  }

  /** The approved plan's document is done with: forgotten (the user may keep or close the editor). */
  forget(toolCallId: string): void {
    this.drafts.delete(toolCallId);
  }
}
