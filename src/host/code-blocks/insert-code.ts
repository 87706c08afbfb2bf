// "Insert at cursor" on a code block of an answer: the user's click puts the block's text at
// every cursor of the active editor, on lines of its own, as one undoable edit. When the block's
// language does not fit the file (or the block names none), the user is asked first, with the
// file named. Nothing else can trigger it: the webview sends it only from that button, and the
// host shows where it went (or why it could not).
import * as path from "node:path";
import * as vscode from "vscode";
import { languageFits, onOwnLines } from "../../core/code-insert";

export class CodeInserter {
  /** Asks the user; true inserts. A test seam, as CodeApplier.ask. */
  ask: (question: string) => Promise<boolean> = async (question) => (await vscode.window.showWarningMessage(question, { modal: true }, "Insert")) === "Insert";

  /** `language`: the block's fence language, if it has one. */
  async insert(code: string, language: string | undefined): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showInformationMessage("Pi Chat: open a file and put the cursor where the code should go, then choose Insert at cursor again.");
      return;
    }
    const document = editor.document;
    if (!languageFits(language, document.languageId)) {
      const name = document.uri.scheme === "untitled" ? "the untitled editor" : path.basename(document.uri.path);
      const block = language ? `This ${language} block` : "This code block";
      if (!(await this.ask(`${block} does not look like ${document.languageId}. Insert it into ${name} anyway?`))) return;
      if (vscode.window.activeTextEditor?.document !== document) {
        void vscode.window.showWarningMessage(`Pi Chat: ${name} is no longer the active editor; nothing was inserted.`);
        return;
      }
    }
    const done = await editor.edit((edit) => {
      for (const selection of editor.selections) {
        const line = document.lineAt(selection.start.line);
        const endLine = document.lineAt(selection.end.line);
        const before = line.text.slice(0, selection.start.character);
        const after = endLine.text.slice(selection.end.character);
        edit.replace(selection, onOwnLines(code, before, after));
      }
    });
    if (!done) {
      void vscode.window.showWarningMessage("Pi Chat: the code could not be inserted (the editor is read-only or changed meanwhile).");
      return;
    }
    await vscode.window.showTextDocument(document, editor.viewColumn);
  }
}
