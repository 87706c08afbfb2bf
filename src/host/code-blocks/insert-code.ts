// "Insert at cursor" on a code block of an answer: the user's click puts the block's text at
// every cursor of the active editor, as one undoable edit. Nothing else can trigger it: the
// webview sends it only from that button, and the host shows where it went (or why it could not).
import * as vscode from "vscode";

export async function insertAtCursor(code: string): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage("Pi Chat: open a file and put the cursor where the code should go, then choose Insert at cursor again.");
    return;
  }
  const done = await editor.edit((edit) => {
    for (const selection of editor.selections) edit.replace(selection, code);
  });
  if (!done) {
    void vscode.window.showWarningMessage("Pi Chat: the code could not be inserted (the editor is read-only or changed meanwhile).");
    return;
  }
  await vscode.window.showTextDocument(editor.document, editor.viewColumn);
}
