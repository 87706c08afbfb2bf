// Pending changes in the editor: a lens on each of Pi's pending hunks (Keep / Undo, or "changed
// by you since" where Undo would touch the user's lines), one at the top for the whole file, the
// added lines highlighted in the diff editor's colours, a badge on the tab and in the Explorer,
// and keys: Alt+Y / Alt+N keep / undo the change at the cursor, Alt+] / Alt+[ go to the next /
// previous pending change (across files). Every decision goes through PendingChanges, which the
// chat view's changed-files list shows too.
import * as vscode from "vscode";
import type { PendingHunk } from "../../core/checkpoints";
import type { DecisionOutcome, PendingChanges, PendingFile } from "./pending-changes";

/** The hunk lens's arguments, from a lens click or a test. */
interface HunkArgs {
  path?: unknown;
  hunk?: unknown;
}

function pending(file: PendingFile): PendingHunk[] {
  return file.hunks.filter((h) => h.decision === undefined);
}

/** The lines a hunk spans in the file now, at least one (a removal shows on the line after it). */
function spanOf(hunk: PendingHunk, lineCount: number): [number, number] {
  const start = Math.min(hunk.currentLine, Math.max(0, lineCount - 1));
  return [start, Math.max(start + 1, hunk.currentLine + hunk.added.length)];
}

function linesWord(n: number): string {
  return n === 1 ? "1 line" : `${n} lines`;
}

export class PendingEditor implements vscode.CodeLensProvider, vscode.FileDecorationProvider, vscode.Disposable {
  private readonly lensChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensChanged.event;
  private readonly decorationChanged = new vscode.EventEmitter<vscode.Uri[] | undefined>();
  readonly onDidChangeFileDecorations = this.decorationChanged.event;
  private readonly added = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor("diffEditor.insertedLineBackground"),
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.addedForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly removedAt = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    borderColor: new vscode.ThemeColor("diffEditor.removedTextBorder"),
    borderStyle: "solid none none none",
    borderWidth: "2px 0 0 0",
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.deletedForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly disposables: vscode.Disposable[];
  /** URIs with a badge now, so the ones that lose it are told. */
  private badged = new Set<string>();

  constructor(
    private readonly changes: PendingChanges,
    /** Says the outcome of a decision made in the editor (the view says it too). */
    private readonly notify: (outcome: DecisionOutcome) => void,
  ) {
    this.disposables = [
      vscode.languages.registerCodeLensProvider([{ scheme: "file" }, { scheme: "vscode-remote" }], this),
      vscode.window.registerFileDecorationProvider(this),
      vscode.commands.registerCommand("piChat.keepChange", (args?: HunkArgs) => this.decide(args, "keep")),
      vscode.commands.registerCommand("piChat.undoChange", (args?: HunkArgs) => this.decide(args, "undo")),
      vscode.commands.registerCommand("piChat.keepFileChanges", (args?: HunkArgs) => this.decideFile(args, "keep")),
      vscode.commands.registerCommand("piChat.undoFileChanges", (args?: HunkArgs) => this.decideFile(args, "undo")),
      vscode.commands.registerCommand("piChat.keepAllChanges", () => this.report(changes.keep(undefined))),
      vscode.commands.registerCommand("piChat.undoAllChanges", () => this.report(changes.undo(undefined))),
      vscode.commands.registerCommand("piChat.nextPendingChange", () => this.go(1)),
      vscode.commands.registerCommand("piChat.previousPendingChange", () => this.go(-1)),
      changes.onDidChange(() => this.refresh()),
      vscode.window.onDidChangeActiveTextEditor(() => this.refresh()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.decorate()),
      this.lensChanged,
      this.decorationChanged,
      this.added,
      this.removedAt,
    ];
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    const file = this.changes.fileOf(uri);
    if (!file) return undefined;
    const n = pending(file).length;
    return new vscode.FileDecoration(
      "Pi",
      `Pi Chat: ${n === 1 ? "1 change" : `${n} changes`} of Pi's pending Keep or Undo`,
      new vscode.ThemeColor("gitDecoration.modifiedResourceForeground"),
    );
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const file = this.changes.fileOf(document.uri);
    if (!file) return [];
    const hunks = pending(file);
    const path = file.write.path;
    const top = new vscode.Range(0, 0, 0, 0);
    const lenses = [
      new vscode.CodeLens(top, {
        title: `Pi Chat: Keep ${hunks.length === 1 ? "the change" : `all ${hunks.length} changes`}`,
        command: "piChat.keepFileChanges",
        arguments: [{ path }],
      }),
      new vscode.CodeLens(top, { title: "Undo all", command: "piChat.undoFileChanges", arguments: [{ path }] }),
    ];
    hunks.forEach((hunk, i) => {
      const [line] = spanOf(hunk, document.lineCount);
      const at = new vscode.Range(line, 0, line, 0);
      const name = `change ${i + 1} of ${hunks.length}`;
      lenses.push(new vscode.CodeLens(at, { title: `Keep ${name}`, command: "piChat.keepChange", arguments: [{ path, hunk: hunk.index }] }));
      lenses.push(
        hunk.changedByYou
          ? new vscode.CodeLens(at, { title: "Changed by you since: undo by hand", command: "" })
          : new vscode.CodeLens(at, {
              title: `Undo (${hunk.removed.length > 0 ? `puts back ${linesWord(hunk.removed.length)}` : `removes ${linesWord(hunk.added.length)}`})`,
              command: "piChat.undoChange",
              arguments: [{ path, hunk: hunk.index }],
            }),
      );
    });
    return lenses;
  }

  private refresh(): void {
    const editor = vscode.window.activeTextEditor;
    const here = editor ? this.changes.fileOf(editor.document.uri) : undefined;
    void vscode.commands.executeCommand("setContext", "piChat.pendingHere", here !== undefined);
    void vscode.commands.executeCommand("setContext", "piChat.hasPendingChanges", this.changes.files.size > 0);
    this.lensChanged.fire();
    const now = new Set([...this.changes.files.values()].map((f) => f.uri.toString()));
    const told = [...new Set([...now, ...this.badged])].map((u) => vscode.Uri.parse(u));
    this.badged = now;
    this.decorationChanged.fire(told);
    this.decorate();
  }

  /** The added lines of each pending hunk highlighted; a removal marked where its lines were. */
  private decorate(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      const file = this.changes.fileOf(editor.document.uri);
      const hunks = file ? pending(file) : [];
      const added: vscode.Range[] = [];
      const removed: vscode.DecorationOptions[] = [];
      for (const h of hunks) {
        if (h.added.length > 0) added.push(new vscode.Range(h.currentLine, 0, h.currentLine + h.added.length - 1, 0));
        if (h.removed.length > 0) {
          const line = Math.min(h.currentLine, Math.max(0, editor.document.lineCount - 1));
          removed.push({ range: new vscode.Range(line, 0, line, 0), hoverMessage: `Pi removed ${linesWord(h.removed.length)} here:\n\n${h.removed.join("")}` });
        }
      }
      editor.setDecorations(this.added, added);
      editor.setDecorations(this.removedAt, removed);
    }
  }

  /** A lens names its file and hunk; a key names none: the pending hunk at (or else after) the cursor. */
  private hunkAt(args: HunkArgs | undefined): { path: string; hunk: number } | undefined {
    if (typeof args?.path === "string" && typeof args.hunk === "number") return { path: args.path, hunk: args.hunk };
    const editor = vscode.window.activeTextEditor;
    const file = editor && this.changes.fileOf(editor.document.uri);
    if (!editor || !file) return undefined;
    const line = editor.selection.active.line;
    const hunks = pending(file);
    const hunk = hunks.find((h) => spanOf(h, editor.document.lineCount)[1] > line) ?? hunks[hunks.length - 1];
    return hunk && { path: file.write.path, hunk: hunk.index };
  }

  private decide(args: HunkArgs | undefined, action: "keep" | "undo"): Promise<DecisionOutcome> {
    const at = this.hunkAt(args);
    if (!at) return this.report(Promise.resolve({ done: false, said: "No change of Pi's is pending here." }));
    return this.report(action === "keep" ? this.changes.keep(at.path, [at.hunk]) : this.changes.undo(at.path, [at.hunk]));
  }

  private decideFile(args: HunkArgs | undefined, action: "keep" | "undo"): Promise<DecisionOutcome> {
    const editor = vscode.window.activeTextEditor;
    const path = typeof args?.path === "string" ? args.path : editor && this.changes.fileOf(editor.document.uri)?.write.path;
    if (path === undefined) return this.report(Promise.resolve({ done: false, said: "No change of Pi's is pending in this file." }));
    return this.report(action === "keep" ? this.changes.keep(path) : this.changes.undo(path));
  }

  private async report(decision: Promise<DecisionOutcome>): Promise<DecisionOutcome> {
    const outcome = await decision;
    this.notify(outcome);
    return outcome;
  }

  /** Moves the cursor to the next (or previous) pending hunk, on to the next file's at the end of one. */
  private async go(step: 1 | -1): Promise<boolean> {
    await this.changes.settled();
    const stops = [...this.changes.files.values()].flatMap((f) => pending(f).map((h) => ({ uri: f.uri, line: h.currentLine })));
    if (stops.length === 0) return false;
    const editor = vscode.window.activeTextEditor;
    const here = editor?.document.uri.toString();
    const line = editor?.selection.active.line ?? -1;
    const at = stops.findIndex((s) => s.uri.toString() === here && s.line === line);
    const inFile = stops.map((s, i) => ({ ...s, i })).filter((s) => s.uri.toString() === here);
    const after = (step === 1 ? inFile.find((s) => s.line > line) : inFile.reverse().find((s) => s.line < line))?.i ?? -1;
    const index = at !== -1 ? (at + step + stops.length) % stops.length : after !== -1 ? after : step === 1 ? 0 : stops.length - 1;
    const stop = stops[index];
    if (!stop) return false;
    const shown = await vscode.window.showTextDocument(stop.uri, { preview: false });
    const position = new vscode.Position(Math.min(stop.line, Math.max(0, shown.document.lineCount - 1)), 0);
    shown.selection = new vscode.Selection(position, position);
    shown.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    return true;
  }

  /** Opens a listed file at its first pending change (the view's list); false for a path not listed. */
  async open(path: string): Promise<boolean> {
    const file = this.changes.files.get(path);
    if (!file) return false;
    const first = pending(file)[0];
    // A file Pi deleted has no editor: the list's Undo brings it back.
    const shown = await vscode.window.showTextDocument(file.uri, { preview: false }).then(
      (editor) => editor,
      () => undefined,
    );
    if (!shown) return false;
    const position = new vscode.Position(Math.min(first?.currentLine ?? 0, Math.max(0, shown.document.lineCount - 1)), 0);
    shown.selection = new vscode.Selection(position, position);
    shown.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    return true;
  }
}
