// MCP tool calls waiting for the user's answer on their card (allow, allow always, deny); a run's
// abort cancels its wait, and closing VS Code denies what still waits.
import type { McpApprovalRequest, McpCallDecision } from "../../core/mcp/gate";

interface PendingApproval {
  request: McpApprovalRequest;
  resolve: (decision: McpCallDecision) => void;
}

export class McpApprovals {
  private readonly waiting = new Map<string, PendingApproval>();

  ask(request: McpApprovalRequest, signal: AbortSignal | undefined): Promise<McpCallDecision> {
    return new Promise<McpCallDecision>((resolve, reject) => {
      if (signal?.aborted) return reject(new Error("aborted"));
      this.waiting.set(request.toolCallId, { request, resolve });
      signal?.addEventListener("abort", () => {
        if (this.waiting.delete(request.toolCallId)) reject(new Error("aborted"));
      });
    });
  }

  /** The user's answer on an MCP card; false when the id is not an MCP call waiting here. */
  decide(toolCallId: string, decision: string, reason: string | undefined): boolean {
    const pending = this.waiting.get(toolCallId);
    if (!pending) return false;
    this.waiting.delete(toolCallId);
    if (decision === "deny") pending.resolve({ decision: "deny", ...(reason ? { reason } : {}) });
    else if (decision === "allowAlways") pending.resolve({ decision: "allowAlways" });
    else pending.resolve({ decision: "allow" });
    return true;
  }

  denyAll(reason: string): void {
    for (const pending of this.waiting.values()) pending.resolve({ decision: "deny", reason });
    this.waiting.clear();
  }
}
