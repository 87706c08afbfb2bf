// Edits waiting for the user's approval: the diff shown, the card's decision, and the cancel when
// the run ends (a stop, or a switch to another chat aborts it). Command approvals live with the
// shell (shell/shell-commands.ts), MCP tool approvals with MCP (mcp/); the card's answer is tried
// on each in turn (handlers/approvals.ts).
import type { EditApprovalRequest, EditDecision } from "../../core/session";
import type { ProposalDiffs } from "../views/diff-view";

interface PendingApproval {
  request: EditApprovalRequest;
  resolve: (decision: EditDecision) => void;
}

export class EditApprovals {
  private readonly waiting = new Map<string, PendingApproval>();

  constructor(
    private readonly diffs: ProposalDiffs,
    /** "Allow for this chat" was chosen: the view's status says so. */
    private readonly allowedForChat: () => void,
  ) {}

  /** The session's approver: resolves with the user's decision, rejects when the run is aborted. */
  ask(request: EditApprovalRequest, signal: AbortSignal | undefined): Promise<EditDecision> {
    return new Promise<EditDecision>((resolve, reject) => {
      if (signal?.aborted) return reject(new Error("aborted"));
      this.waiting.set(request.toolCallId, { request, resolve });
      signal?.addEventListener("abort", () => {
        if (this.waiting.delete(request.toolCallId)) {
          void this.diffs.close(request.toolCallId);
          reject(new Error("aborted"));
        }
      });
      // A secret file's content is shown only when the user asks for it (the card's button).
      if (!request.secret) void this.diffs.show(request);
    });
  }

  /** Settles an edit approval of the chat on screen; a stale click (decided, cancelled) does nothing. */
  decide(toolCallId: string, decision: "allow" | "deny" | "allowForChat", reason: string | undefined): void {
    const pending = this.waiting.get(toolCallId);
    if (!pending) return;
    this.waiting.delete(toolCallId);
    void this.diffs.close(toolCallId);
    pending.resolve(decision === "deny" ? { decision: "deny", ...(reason ? { reason } : {}) } : { decision });
    if (decision === "allowForChat") this.allowedForChat();
  }

  /** The card's "Open diff" (a secret file's diff is shown only then). */
  async openDiff(toolCallId: string): Promise<void> {
    const pending = this.waiting.get(toolCallId);
    if (pending) await this.diffs.show(pending.request);
  }
}
