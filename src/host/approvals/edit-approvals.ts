// Edits waiting for the user's approval: the diff shown, the card's decision, and the cancel when
// the run ends (a stop, or a switch to another chat aborts it). The waiting itself is
// pending-approvals.ts, shared with the command approvals (shell/shell-commands.ts) and the MCP
// ones (mcp/host-mcp.ts); the card's answer is tried on each in turn (handlers/approvals.ts).
import type { EditApprovalRequest, EditDecision } from "../../core/session";
import type { ProposalDiffs } from "../views/diff-view";
import { checkedRejectedHunks } from "../../shared/partial-patch";
import { PendingApprovals } from "./pending-approvals";

export class EditApprovals {
  private readonly waiting = new PendingApprovals<EditApprovalRequest, EditDecision>();

  constructor(
    private readonly diffs: ProposalDiffs,
    /** "Allow for this chat" was chosen: the view's status says so. */
    private readonly allowedForChat: () => void,
  ) {}

  /** The session's approver: resolves with the user's decision, rejects when the run is aborted. */
  ask(request: EditApprovalRequest, signal: AbortSignal | undefined): Promise<EditDecision> {
    const decision = this.waiting.wait(request, signal, () => void this.diffs.close(request.toolCallId));
    // A secret file's content is shown only when the user asks for it (the card's button).
    if (!request.secret && !signal?.aborted) void this.diffs.show(request);
    return decision;
  }

  /**
   * Settles an edit approval of the chat on screen; a stale click (decided, cancelled) does nothing.
   * `rejectedHunks` comes from the view: it is taken only when every index names a hunk of this
   * very edit (else the whole decision is dropped, and the card still waits). False when dropped.
   */
  decide(toolCallId: string, decision: "allow" | "deny" | "allowForChat", reason: string | undefined, rejectedHunks?: readonly number[]): boolean {
    const request = this.waiting.get(toolCallId);
    if (!request) return false;
    const rejected = rejectedHunks === undefined ? [] : checkedRejectedHunks(rejectedHunks, request.hunkCount);
    if (rejected === undefined) return false;
    const settled = this.waiting.settle(toolCallId, (): EditDecision => {
      if (decision === "deny") return { decision: "deny", ...(reason ? { reason } : {}) };
      // A reason goes with an allow only when it explains rejected hunks.
      return { decision, ...(rejected.length > 0 ? { rejectedHunks: rejected, ...(reason ? { reason } : {}) } : {}) };
    });
    if (!settled) return false;
    void this.diffs.close(toolCallId);
    if (decision === "allowForChat") this.allowedForChat();
    return true;
  }

  /** The card's "Open diff" (a secret file's diff is shown only then). */
  async openDiff(toolCallId: string): Promise<void> {
    const request = this.waiting.get(toolCallId);
    if (request) await this.diffs.show(request);
  }
}
