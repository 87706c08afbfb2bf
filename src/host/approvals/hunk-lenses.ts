// The hunks of an edit waiting for approval, in the editor: in the file's own editor (at each
// hunk's old lines) and in the proposal's side of the diff editor (at its new lines), a lens per
// hunk to Accept or Reject it and one at the top to Allow what is accepted or Deny. Alt+Y / Alt+N
// accept / reject the hunk at the cursor (piChat.acceptHunk / piChat.rejectHunk). Every choice goes
// through the approvals' one record (edit-approvals.ts), which the card shows too: card and editor
// never disagree, and either can decide.
import * as vscode from "vscode";
import type { EditApprovalRequest } from "../../core/session";
import { hunksFromUnifiedDiff } from "../../shared/diff-hunks";
import type { DiffHunk } from "../../shared/structured-diff";
import { PROPOSAL_SCHEME } from "../views/diff-view";

/** What the lenses read and change: the waiting edits and their record (EditApprovals). */
export interface HunkRecord {
  readonly pending: EditApprovalRequest[];
  rejectedOf(toolCallId: string): number[];
  chooseHunk(toolCallId: string, hunk: number, accept: boolean): boolean;
  editedOf(toolCallId: string): { hunk: number; text: string }[];
  decide(toolCallId: string, decision: "allow" | "deny", reason: undefined, rejectedHunks: readonly number[], editedHunks: readonly number[]): boolean;
  onDidChange(listener: () => void): { dispose(): void };
}

/** Where a document shows a waiting edit: the file itself (old lines) or the proposal (new lines). */
type Placement = { request: EditApprovalRequest; hunks: DiffHunk[]; side: "old" | "new" };

/** 0-based line of a hunk's first changed line on one side (its context skipped). */
function firstChangedLine(hunk: DiffHunk, side: "old" | "new"): number {
  const lead = hunk.lines.findIndex((l) => l.startsWith("+") || l.startsWith("-"));
  const start = side === "old" ? hunk.oldStart : hunk.newStart;
  return Math.max(0, start - 1 + Math.max(0, lead));
}

/** The span of a hunk on one side, 0-based, at least one line. */
function span(hunk: DiffHunk, side: "old" | "new"): [number, number] {
  const start = Math.max(0, (side === "old" ? hunk.oldStart : hunk.newStart) - 1);
  return [start, start + Math.max(1, side === "old" ? hunk.oldLines : hunk.newLines)];
}

export class HunkLenses implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changeEmitter.event;
  private readonly disposables: { dispose(): void }[];
  /** Hunks parsed once per waiting edit (its diff text does not change while it waits). */
  private readonly parsed = new Map<string, DiffHunk[]>();

  constructor(
    private readonly record: HunkRecord,
    private readonly uriOf: (toolPath: string) => vscode.Uri | undefined,
  ) {
    this.disposables = [
      vscode.languages.registerCodeLensProvider([{ scheme: "file" }, { scheme: PROPOSAL_SCHEME }, { scheme: "vscode-remote" }], this),
      vscode.commands.registerCommand("piChat.acceptHunk", (args?: unknown) => this.choose(args, true)),
      vscode.commands.registerCommand("piChat.rejectHunk", (args?: unknown) => this.choose(args, false)),
      vscode.commands.registerCommand("piChat.decideEdit", (args?: unknown) => this.decide(args)),
      record.onDidChange(() => this.refresh()),
      this.changeEmitter,
    ];
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const placement = this.placementOf(document.uri);
    if (!placement) return [];
    const { request, hunks, side } = placement;
    const rejected = new Set(this.record.rejectedOf(request.toolCallId));
    const toolCallId = request.toolCallId;
    const top = new vscode.Range(0, 0, 0, 0);
    const accepted = hunks.length - rejected.size;
    const lenses = [
      new vscode.CodeLens(top, {
        title: rejected.size === 0 ? "Pi Chat: Allow this edit" : `Pi Chat: Allow ${accepted} of ${hunks.length} hunks`,
        command: "piChat.decideEdit",
        arguments: [{ toolCallId, decision: "allow" }],
      }),
      new vscode.CodeLens(top, { title: "Deny", command: "piChat.decideEdit", arguments: [{ toolCallId, decision: "deny" }] }),
    ];
    if (hunks.length < 2) return lenses;
    hunks.forEach((hunk, i) => {
      const line = Math.min(firstChangedLine(hunk, side), Math.max(0, document.lineCount - 1));
      const at = new vscode.Range(line, 0, line, 0);
      const isRejected = rejected.has(i);
      lenses.push(
        new vscode.CodeLens(at, {
          title: `${isRejected ? "" : "✓ "}Accept hunk ${i + 1} of ${hunks.length}`,
          command: "piChat.acceptHunk",
          arguments: [{ toolCallId, hunk: i }],
        }),
        new vscode.CodeLens(at, { title: `${isRejected ? "✗ " : ""}Reject hunk ${i + 1}`, command: "piChat.rejectHunk", arguments: [{ toolCallId, hunk: i }] }),
      );
    });
    return lenses;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  private refresh(): void {
    const waiting = new Set(this.record.pending.map((r) => r.toolCallId));
    for (const id of this.parsed.keys()) if (!waiting.has(id)) this.parsed.delete(id);
    void vscode.commands.executeCommand("setContext", "piChat.editWaiting", waiting.size > 0);
    this.changeEmitter.fire();
  }

  private hunksOf(request: EditApprovalRequest): DiffHunk[] {
    let hunks = this.parsed.get(request.toolCallId);
    if (!hunks) {
      hunks = request.secret ? [] : hunksFromUnifiedDiff(request.diff);
      this.parsed.set(request.toolCallId, hunks);
    }
    return hunks;
  }

  /** The waiting edit a document shows, and on which side; a secret file's edit shows nowhere. */
  private placementOf(uri: vscode.Uri): Placement | undefined {
    const call = uri.scheme === PROPOSAL_SCHEME ? new URLSearchParams(uri.query).get("call") : undefined;
    const request = this.record.pending.find((r) => (call != null ? r.toolCallId === call : this.uriOf(r.path)?.toString() === uri.toString()));
    if (!request || request.secret) return undefined;
    return { request, hunks: this.hunksOf(request), side: uri.scheme === PROPOSAL_SCHEME ? "new" : "old" };
  }

  /** A lens names its edit and hunk; a key names none: the hunk at the cursor of the active editor. */
  private choose(args: unknown, accept: boolean): boolean {
    const named = args as { toolCallId?: unknown; hunk?: unknown } | undefined;
    if (typeof named?.toolCallId === "string" && typeof named.hunk === "number") return this.record.chooseHunk(named.toolCallId, named.hunk, accept);
    const editor = vscode.window.activeTextEditor;
    const placement = editor ? this.placementOf(editor.document.uri) : undefined;
    if (!editor || !placement) return false;
    const line = editor.selection.active.line;
    // The hunk holding the cursor, else the next one below it, else the last.
    const index = placement.hunks.findIndex((h) => span(h, placement.side)[1] > line);
    const hunk = index === -1 ? placement.hunks.length - 1 : index;
    return hunk >= 0 && this.record.chooseHunk(placement.request.toolCallId, hunk, accept);
  }

  private decide(args: unknown): boolean {
    const named = args as { toolCallId?: unknown; decision?: unknown } | undefined;
    if (typeof named?.toolCallId !== "string" || (named.decision !== "allow" && named.decision !== "deny")) return false;
    const { toolCallId } = named;
    return this.record.decide(
      toolCallId,
      named.decision,
      undefined,
      this.record.rejectedOf(toolCallId),
      this.record.editedOf(toolCallId).map((e) => e.hunk),
    );
  }
}
