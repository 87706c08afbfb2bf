// Edits waiting for the user's approval: the diff shown, the card's decision, and the cancel when
// the run ends (a stop, or a switch to another chat aborts it). The waiting itself is
// pending-approvals.ts, shared with the command approvals (shell/shell-commands.ts) and the MCP
// ones (mcp/host-mcp.ts); the card's answer is tried on each in turn (handlers/approvals.ts).
// Per hunk, this is the one record of what the user rejected so far, from the card or from the
// editor (hunk-lenses.ts): each choice is told to both, and a decision is taken only for the
// hunks that record holds, so what is written is what both showed.
import type { EditApprovalRequest, EditDecision } from "../../core/session";
import { checkedRejectedHunks } from "../../shared/partial-patch";
import type { ProposalDiffs } from "../views/diff-view";
import { HunkLenses } from "./hunk-lenses";
import { PendingApprovals } from "./pending-approvals";

export class EditApprovals {
  private readonly waiting = new PendingApprovals<EditApprovalRequest, EditDecision>();
  /** Per waiting edit: the hunks rejected so far (0-based). */
  private readonly rejected = new Map<string, Set<number>>();
  /** Per waiting edit: the user's own text for hunks they edited on the card. */
  private readonly edited = new Map<string, Map<number, string>>();
  private readonly listeners = new Set<() => void>();
  private readonly lenses: HunkLenses;

  constructor(
    private readonly diffs: ProposalDiffs,
    /** "Allow for this chat" was chosen: the view's status says so. */
    private readonly allowedForChat: () => void,
    /** A hunk was accepted or rejected: the card shows the record. */
    private readonly hunksChanged: (toolCallId: string, rejected: number[], edited: { hunk: number; text: string }[]) => void = () => undefined,
  ) {
    this.lenses = new HunkLenses(this, diffs.uriOf);
  }

  dispose(): void {
    this.lenses.dispose();
  }

  /** The session's approver: resolves with the user's decision, rejects when the run is aborted. */
  ask(request: EditApprovalRequest, signal: AbortSignal | undefined): Promise<EditDecision> {
    this.rejected.set(request.toolCallId, new Set());
    this.edited.set(request.toolCallId, new Map());
    const decision = this.waiting.wait(request, signal, () => this.ended(request.toolCallId));
    // A secret file's content is shown only when the user asks for it (the card's button).
    if (!request.secret && !signal?.aborted) void this.diffs.show(request);
    this.changed();
    return decision;
  }

  /** The edits waiting, for the editor's lenses. */
  get pending(): EditApprovalRequest[] {
    return this.waiting.requests;
  }

  /** The hunks of a waiting edit rejected so far, sorted. */
  rejectedOf(toolCallId: string): number[] {
    return [...(this.rejected.get(toolCallId) ?? [])].sort((a, b) => a - b);
  }

  /** Something the lenses show changed (an edit came, went, or a hunk was chosen). */
  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Accepts or rejects one hunk of a waiting edit; false (nothing changes) for an edit not waiting or a hunk it has not. */
  chooseHunk(toolCallId: string, hunk: number, accept: boolean): boolean {
    const request = this.waiting.get(toolCallId);
    const rejected = this.rejected.get(toolCallId);
    if (!request || !rejected || !Number.isInteger(hunk) || hunk < 0 || hunk >= request.hunkCount) return false;
    if (accept) rejected.delete(hunk);
    else rejected.add(hunk);
    this.told(toolCallId);
    return true;
  }

  /** The hunks of a waiting edit the user edited, with their text, by hunk. */
  editedOf(toolCallId: string): { hunk: number; text: string }[] {
    return [...(this.edited.get(toolCallId) ?? [])].sort((a, b) => a[0] - b[0]).map(([hunk, text]) => ({ hunk, text }));
  }

  /**
   * The user's text for one hunk (null: the proposal's again). Editing a hunk accepts it. False
   * (nothing changes) for an edit not waiting, a secret file's (the card never shows its lines) or a hunk it has not.
   */
  editHunk(toolCallId: string, hunk: number, text: string | null): boolean {
    const request = this.waiting.get(toolCallId);
    const edited = this.edited.get(toolCallId);
    if (!request || !edited || request.secret || !Number.isInteger(hunk) || hunk < 0 || hunk >= request.hunkCount) return false;
    if (text === null) edited.delete(hunk);
    else {
      edited.set(hunk, text);
      this.rejected.get(toolCallId)?.delete(hunk);
    }
    this.told(toolCallId);
    return true;
  }

  /** Card and editor are told the record as it is now. */
  private told(toolCallId: string): void {
    this.hunksChanged(toolCallId, this.rejectedOf(toolCallId), this.editedOf(toolCallId));
    this.changed();
  }

  /**
   * Settles an edit approval of the chat on screen; a stale click (decided, cancelled) does nothing.
   * An allow is taken only when the hunks it rejects (`rejectedHunks`, from the view: untrusted) are
   * exactly the record's, so the user saw what is written; else the whole decision is dropped and
   * the card still waits. False when dropped.
   */
  decide(
    toolCallId: string,
    decision: "allow" | "deny" | "allowForChat",
    reason: string | undefined,
    rejectedHunks?: readonly number[],
    editedHunks?: readonly number[],
  ): boolean {
    const request = this.waiting.get(toolCallId);
    if (!request) return false;
    const rejected = this.rejectedOf(toolCallId);
    const edited = this.editedOf(toolCallId);
    if (decision !== "deny") {
      const named = checkedRejectedHunks(rejectedHunks ?? [], request.hunkCount);
      const namedEdits = checkedRejectedHunks(editedHunks ?? [], request.hunkCount);
      if (
        !sameList(named, rejected) ||
        !sameList(
          namedEdits,
          edited.map((e) => e.hunk),
        )
      )
        return false;
    }
    const settled = this.waiting.settle(toolCallId, (): EditDecision => {
      if (decision === "deny") return { decision: "deny", ...(reason ? { reason } : {}) };
      // A reason goes with an allow only when it explains rejected hunks.
      return {
        decision,
        ...(rejected.length > 0 ? { rejectedHunks: rejected, ...(reason ? { reason } : {}) } : {}),
        ...(edited.length > 0 ? { editedHunks: edited } : {}),
      };
    });
    if (!settled) return false;
    this.ended(toolCallId);
    if (decision === "allowForChat") this.allowedForChat();
    return true;
  }

  /** The card's "Open diff" (a secret file's diff is shown only then). */
  async openDiff(toolCallId: string): Promise<void> {
    const request = this.waiting.get(toolCallId);
    if (request) await this.diffs.show(request);
  }

  private ended(toolCallId: string): void {
    this.rejected.delete(toolCallId);
    this.edited.delete(toolCallId);
    void this.diffs.close(toolCallId);
    this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

function sameList(named: readonly number[] | undefined, record: readonly number[]): boolean {
  return named !== undefined && named.length === record.length && named.every((h, i) => h === record[i]);
}
