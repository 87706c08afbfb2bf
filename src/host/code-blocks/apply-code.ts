// "Apply to file" on a code block of an answer. The click is the user's, but the code is the
// model's, so it goes the way an edit_file call does: the same path guard (inside the workspace,
// symlinks resolved, `.git` refused), the same diff editor (the file beside the proposal), and a
// decision before anything is written; then one WorkspaceEdit (Ctrl+Z undoes it), saved.
//
// Which file: the one the block names after its language (```ts src/config.ts), and then the
// block is the whole file; else the active editor's file, where the block replaces the selection
// (or the whole file when nothing is selected). The decision is a modal naming the file and what it replaces; the extension's own
// tests answer it in place of a person (`ask`).
import * as vscode from "vscode";
import { hardLinkReason } from "../../core/checkpoints";
import { classifyEditPath, compileProtectedFiles } from "../../core/permissions";
import { resolveToolPath, type WorkspaceFileSystem } from "../../core/tools";
import type { ProposalDiffs } from "../views/diff-view";
import { isStale } from "../adapters/vscode-fs";
import type { WorkspacePaths } from "../adapters/workspace-paths";

export interface ApplyCodeOptions {
  paths: WorkspacePaths;
  fs: WorkspaceFileSystem;
  /** The one folder's root (absolute paths inside it are accepted), undefined with several. */
  workspaceRoot: vscode.Uri | undefined;
  diffs: ProposalDiffs;
  protectedFiles: () => readonly string[];
  log: (line: string) => void;
  /** Checkpoints: records the write (the file before and after) under the chat on screen. */
  recordWrite?: <T>(path: string, write: () => Promise<T>) => Promise<T>;
}

/** What came of one click, for the log and the tests. */
export type ApplyOutcome =
  | { status: "applied"; path: string }
  | { status: "undone"; path: string }
  | { status: "declined"; path: string }
  | { status: "unchanged"; path: string }
  | { status: "refused"; reason: string };

/** How many applied blocks keep their Undo: the newest ones (an old block's Undo then says it is too late). */
const UNDO_KEPT = 50;

/** What an Apply wrote, so its block's Undo can put the file back while nothing else changed it. */
interface AppliedEdit {
  path: string;
  uri: vscode.Uri;
  before: string;
  after: string;
}

/**
 * The block's text fitted to the text it replaces: the file's line ending (CRLF or LF), and its
 * final newline kept as it was (answers' code blocks never end with one; a file usually does).
 */
export function fitLineEndings(code: string, replaced: string, eol: "\n" | "\r\n"): string {
  let text = code.replace(/\r?\n/g, eol);
  const endsWithNewline = /\r?\n$/.test(replaced);
  if (endsWithNewline && !/\r?\n$/.test(text)) text += eol;
  else if (!endsWithNewline && replaced !== "" && /\r?\n$/.test(text)) text = text.replace(/\r?\n$/, "");
  return text;
}

/** Why `path` is not written: a file with more than one name (hardLinkReason, as edit_file refuses it); undefined otherwise. */
async function hardLinked(fs: WorkspaceFileSystem, path: string): Promise<string | undefined> {
  const links = (await fs.stat(path).catch(() => undefined))?.hardLinks ?? 1;
  return links > 1 ? `${path} was not changed: ${hardLinkReason(links)}.` : undefined;
}

export class CodeApplier {
  private count = 0;
  private readonly applied = new Map<number, AppliedEdit>();

  /** Asks the user; true applies. */
  ask: (question: string, detail: string) => Promise<boolean> = async (question, detail) =>
    (await vscode.window.showWarningMessage(question, { modal: true, detail }, "Apply")) === "Apply";

  constructor(private readonly options: ApplyCodeOptions) {}

  /** `requestId`: the webview's number for this click, which its Undo names. */
  async apply(code: string, pathHint: string | undefined, requestId?: number): Promise<ApplyOutcome> {
    const outcome = await this.tryApply(code, pathHint, requestId);
    if (outcome.status === "refused") void vscode.window.showWarningMessage(`Pi Chat: ${outcome.reason}`);
    else if (outcome.status === "unchanged") void vscode.window.showInformationMessage(`Pi Chat: ${outcome.path} already has this code.`);
    this.options.log(`apply to file: ${outcome.status}${"path" in outcome ? ` ${outcome.path}` : ` (${outcome.reason})`}`);
    return outcome;
  }

  /** Undo of the block's Apply: the file's text before it, if the file still has exactly what was applied. */
  async undo(requestId: number): Promise<ApplyOutcome> {
    const outcome = await this.tryUndo(requestId);
    if (outcome.status === "refused") void vscode.window.showWarningMessage(`Pi Chat: ${outcome.reason}`);
    this.options.log(`undo apply: ${outcome.status}${"path" in outcome ? ` ${outcome.path}` : ` (${outcome.reason})`}`);
    return outcome;
  }

  private async tryUndo(requestId: number): Promise<ApplyOutcome> {
    const edit = this.applied.get(requestId);
    if (!edit) return { status: "refused", reason: "that change can no longer be undone from the chat (use Undo in the editor)." };
    let document: vscode.TextDocument;
    try {
      document = await vscode.workspace.openTextDocument(edit.uri);
    } catch {
      return { status: "refused", reason: `${edit.path} could not be opened, so the change was not undone.` };
    }
    if (document.getText() !== edit.after)
      return { status: "refused", reason: `${edit.path} changed after the code was applied; nothing was undone (use Undo in the editor).` };
    const workspaceEdit = new vscode.WorkspaceEdit();
    workspaceEdit.replace(edit.uri, new vscode.Range(document.positionAt(0), document.positionAt(edit.after.length)), edit.before);
    if (!(await vscode.workspace.applyEdit(workspaceEdit))) return { status: "refused", reason: `${edit.path} could not be changed back (read-only?).` };
    await document.save();
    this.applied.delete(requestId);
    return { status: "undone", path: edit.path };
  }

  private async tryApply(code: string, pathHint: string | undefined, requestId: number | undefined): Promise<ApplyOutcome> {
    const target = await this.target(pathHint);
    if ("reason" in target) return { status: "refused", reason: target.reason };
    const { path, uri } = target;

    const pathClass = classifyEditPath([path], compileProtectedFiles(this.options.protectedFiles()));
    if (pathClass.kind === "refused") return { status: "refused", reason: pathClass.reason };
    const linked = await hardLinked(this.options.fs, path);
    if (linked) return { status: "refused", reason: linked };

    let document: vscode.TextDocument;
    try {
      document = await vscode.workspace.openTextDocument(uri);
    } catch {
      return { status: "refused", reason: `${path} could not be opened as a text file. Create it first, then choose Apply to file again.` };
    }
    // VS Code's copy of a saved file is older than the disk until it reloads it after a write behind
    // its back (a restore, a command): the diff and the edit would start from the old text, and the
    // save would fail ("the content of the file is newer") or put the old text back.
    const stale = `${path} changed on disk a moment ago and the editor has not caught up yet; nothing was written. Choose Apply to file again.`;
    if (await isStale(document)) return { status: "refused", reason: stale };
    // A block that names its file is that file's whole text; an unnamed one goes where the user selected.
    const editor = vscode.window.activeTextEditor;
    const selection = target.named || editor?.document.uri.toString() !== uri.toString() || editor.selection.isEmpty ? undefined : editor.selection;
    const range = selection ?? new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length));
    const before = document.getText();
    // The file's own line endings and final newline, as edit_file keeps them.
    const text = fitLineEndings(code, document.getText(range), document.eol === vscode.EndOfLine.CRLF ? "\r\n" : "\n");
    const proposed = before.slice(0, document.offsetAt(range.start)) + text + before.slice(document.offsetAt(range.end));
    if (proposed === before) return { status: "unchanged", path };

    const version = document.version;
    const id = `apply-${++this.count}`;
    const secret = pathClass.kind === "protected" && pathClass.secret;
    // A secret file's diff opens only when asked for, as with edit_file.
    if (!secret) await this.options.diffs.show({ chatId: "", toolCallId: id, toolName: "apply", path, diff: "", proposedText: proposed, hunkCount: 0 });
    let yes: boolean;
    try {
      const what = selection ? `the selected lines ${selection.start.line + 1}–${selection.end.line + 1}` : "the whole file";
      const why = pathClass.kind === "protected" ? `\n\n${pathClass.reason}` : "";
      yes = await this.ask(
        `Apply the code block to ${path}?`,
        `It replaces ${what}${secret ? "" : "; the diff is open in the editor"}. Undo with Ctrl+Z.${why}`,
      );
    } finally {
      await this.options.diffs.close(id);
    }
    if (!yes) return { status: "declined", path };
    if (document.version !== version)
      return { status: "refused", reason: `${path} changed while you decided; nothing was written. Choose Apply to file again.` };
    if (await isStale(document)) return { status: "refused", reason: stale };
    const linkedNow = await hardLinked(this.options.fs, path);
    if (linkedNow) return { status: "refused", reason: linkedNow };

    const edit = new vscode.WorkspaceEdit();
    edit.replace(uri, range, text);
    const write = async (): Promise<boolean> => {
      if (!(await vscode.workspace.applyEdit(edit))) return false;
      return document.save();
    };
    const written = this.options.recordWrite ? await this.options.recordWrite(path, write) : await write();
    if (!written) return { status: "refused", reason: `${path} could not be changed (read-only, or changed meanwhile).` };
    await vscode.window.showTextDocument(document, { preview: false });
    if (requestId !== undefined) {
      this.applied.set(requestId, { path, uri, before, after: document.getText() });
      for (const old of this.applied.keys()) if (this.applied.size > UNDO_KEPT) this.applied.delete(old);
    }
    return { status: "applied", path };
  }

  /** The file to apply to: the block's own path (through the tools' path guard), else the active editor's. */
  private async target(pathHint: string | undefined, named = true): Promise<{ path: string; uri: vscode.Uri; named: boolean } | { reason: string }> {
    const { paths, fs, workspaceRoot } = this.options;
    if (pathHint !== undefined && pathHint.trim() !== "") {
      let path: string;
      try {
        path = (await resolveToolPath(fs, workspaceRoot?.scheme === "file" ? workspaceRoot.fsPath : undefined, pathHint.trim())).realPath;
      } catch (error) {
        return {
          reason: `the code block names ${JSON.stringify(pathHint.slice(0, 200))}, which is not a file Pi Chat may change: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
      const uri = paths.uriOf(path);
      return uri ? { path, uri, named } : { reason: `${path} is not in an open folder.` };
    }
    const active = vscode.window.activeTextEditor?.document.uri;
    const path = active && paths.pathOf(active);
    if (!active || path === undefined) return { reason: "open the file the code belongs in (a file of this workspace), then choose Apply to file again." };
    // The same guard as a named path: a symlink out of the workspace is not followed.
    return this.target(path, false);
  }
}
