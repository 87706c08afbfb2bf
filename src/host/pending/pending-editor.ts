// Pending changes in the editor: a lens on each of Pi's pending hunks (Keep / Undo, or "changed
// by you since" where Undo would touch the user's lines), one at the top for the whole file (and
// Open Diff: before Pi ↔ now in VS Code's diff editor), the added lines highlighted in the diff
// editor's colours, removed lines shown without hovering (the first one and how many more, after
// the line where they were; all of them in the hover), a badge on the tab and in the Explorer,
// and keys: Alt+Y / Alt+N keep / undo the change at the cursor, Alt+] / Alt+[ go to the next /
// previous pending change (across files). Every decision goes through PendingChanges, which the
// chat view's changed-files list shows too.
import * as vscode from "vscode";
import { isFileState, type PendingHunk } from "../../core/checkpoints";
import { CHECKPOINT_SCHEME } from "../checkpoints/host-checkpoints";
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

/** Removed lines a hover shows in full; more are counted. */
const HOVER_MAX_LINES = 200;
/** Characters of the first removed line shown in the editor (the hover has it all). */
const INLINE_MAX_CHARS = 120;

/** What the editor shows of a hunk's removed lines without hovering: the first one, and how many more. */
export function removedInline(removed: readonly string[]): string {
  const first = (removed[0] ?? "").replace(/\r?\n$/, "").replace(/\t/g, "  ");
  const shown = first.length > INLINE_MAX_CHARS ? `${first.slice(0, INLINE_MAX_CHARS - 1)}…` : first;
  const more = removed.length - 1;
  return `− ${shown.trim() === "" ? "(an empty line)" : shown}${more > 0 ? `   (+${more} more removed ${more === 1 ? "line" : "lines"})` : ""}`;
}

function removedHover(removed: readonly string[]): vscode.MarkdownString {
  const hover = new vscode.MarkdownString(`Pi removed ${linesWord(removed.length)} here (Undo puts ${removed.length === 1 ? "it" : "them"} back):`);
  const shown = removed.slice(0, HOVER_MAX_LINES).join("");
  hover.appendCodeblock(shown.replace(/\r?\n$/, ""), "text");
  if (removed.length > HOVER_MAX_LINES) hover.appendText(`…and ${removed.length - HOVER_MAX_LINES} more lines (Open Diff shows them all).`);
  return hover;
}

/** The decorations set on one editor, as the product set them (tests read them through `decorationsOf`). */
export interface PendingDecorations {
  /** The added lines (whole lines). */
  readonly added: readonly vscode.Range[];
  /** The lines where lines were removed (whole lines: the rule above). */
  readonly removedAt: readonly vscode.Range[];
  /** At the end of each such line: the removed text shown, and all of it in the hover. */
  readonly removed: readonly vscode.DecorationOptions[];
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
  // The line where lines were removed: a rule above it, and the removed text after it in the
  // diff editor's removed colours (high contrast themes give those a border; the rule stays).
  private readonly removedAt = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    borderColor: new vscode.ThemeColor("diffEditor.removedTextBorder"),
    borderStyle: "solid none none none",
    borderWidth: "2px 0 0 0",
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.deletedForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  // Not whole-line: its range is the end of the line, so the text comes after the line's own.
  private readonly removedText = vscode.window.createTextEditorDecorationType({
    after: {
      margin: "0 0 0 2em",
      color: new vscode.ThemeColor("editorCodeLens.foreground"),
      backgroundColor: new vscode.ThemeColor("diffEditor.removedTextBackground"),
      border: "1px dashed",
      borderColor: new vscode.ThemeColor("diffEditor.removedTextBorder"),
      fontStyle: "italic",
    },
  });
  /** What each editor (by its document's URI) was last given. */
  private readonly shown = new Map<string, PendingDecorations>();
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
      vscode.commands.registerCommand("piChat.openPendingDiff", (args?: HunkArgs) => this.openDiff(args)),
      vscode.commands.registerCommand("piChat.nextPendingChange", () => this.go(1)),
      vscode.commands.registerCommand("piChat.previousPendingChange", () => this.go(-1)),
      changes.onDidChange(() => this.refresh()),
      vscode.window.onDidChangeActiveTextEditor(() => this.refresh()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.decorate()),
      this.lensChanged,
      this.decorationChanged,
      this.added,
      this.removedAt,
      this.removedText,
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
      new vscode.CodeLens(top, { title: "Open Diff", command: "piChat.openPendingDiff", arguments: [{ path }] }),
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

  /** The decorations the product last set on the editor of `uri` (tests: ranges and text, as set). */
  decorationsOf(uri: vscode.Uri): PendingDecorations | undefined {
    return this.shown.get(uri.toString());
  }

  /**
   * The added lines of each pending hunk highlighted; where lines were removed, a rule above the
   * line and the first removed line (and how many more) after it, all of them in the hover.
   */
  private decorate(): void {
    this.shown.clear();
    for (const editor of vscode.window.visibleTextEditors) {
      const file = this.changes.fileOf(editor.document.uri);
      const hunks = file ? pending(file) : [];
      const added: vscode.Range[] = [];
      const removedAt: vscode.Range[] = [];
      const removed: vscode.DecorationOptions[] = [];
      for (const h of hunks) {
        if (h.added.length > 0) added.push(new vscode.Range(h.currentLine, 0, h.currentLine + h.added.length - 1, 0));
        if (h.removed.length > 0) {
          const line = Math.min(h.currentLine, Math.max(0, editor.document.lineCount - 1));
          const end = editor.document.lineAt(line).range.end;
          removedAt.push(new vscode.Range(line, 0, line, 0));
          removed.push({
            range: new vscode.Range(end, end),
            hoverMessage: removedHover(h.removed),
            renderOptions: { after: { contentText: removedInline(h.removed) } },
          });
        }
      }
      editor.setDecorations(this.added, added);
      editor.setDecorations(this.removedAt, removedAt);
      editor.setDecorations(this.removedText, removed);
      this.shown.set(editor.document.uri.toString(), { added, removedAt, removed });
    }
  }

  /**
   * Open Diff: what was there before Pi's write (the checkpoint store's copy) beside the file now,
   * in VS Code's diff editor. Only a listed file: a path from a lens argument that is not one does nothing.
   */
  private async openDiff(args: HunkArgs | undefined): Promise<boolean> {
    const editor = vscode.window.activeTextEditor;
    const file = typeof args?.path === "string" ? this.changes.files.get(args.path) : editor ? this.changes.fileOf(editor.document.uri) : undefined;
    if (!file) return false;
    const { before, path } = file.write;
    const left = vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${path}`, query: isFileState(before) ? `hash=${before.hash}` : "" });
    await vscode.commands.executeCommand("vscode.diff", left, file.uri, `${path} (before Pi ↔ now)`, { preview: true });
    return true;
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
