// What every approval card waits on, whatever it approves (an edit, a command, an MCP tool call):
// the request under its tool call id until the user answers, and a run's abort cancels the wait
// (the card goes stale; a late click finds nothing and does nothing).
export class PendingApprovals<Request extends { toolCallId: string }, Decision> {
  private readonly waiting = new Map<string, { request: Request; resolve: (decision: Decision) => void }>();

  /** Resolves with the user's decision; rejects when `signal` aborts first (`cancelled` runs then). */
  wait(request: Request, signal: AbortSignal | undefined, cancelled?: () => void): Promise<Decision> {
    return new Promise<Decision>((resolve, reject) => {
      if (signal?.aborted) return reject(new Error("aborted"));
      this.waiting.set(request.toolCallId, { request, resolve });
      signal?.addEventListener("abort", () => {
        if (this.waiting.delete(request.toolCallId)) {
          cancelled?.();
          reject(new Error("aborted"));
        }
      });
    });
  }

  /** The request waiting under this id, if any. */
  get(toolCallId: string): Request | undefined {
    return this.waiting.get(toolCallId)?.request;
  }

  get requests(): Request[] {
    return [...this.waiting.values()].map((p) => p.request);
  }

  /** Settles the approval with `decide(request)`'s answer; false for an id nothing waits under (decided, cancelled). */
  settle(toolCallId: string, decide: (request: Request) => Decision): boolean {
    const pending = this.waiting.get(toolCallId);
    if (!pending) return false;
    this.waiting.delete(toolCallId);
    pending.resolve(decide(pending.request));
    return true;
  }

  /** Answers every approval still waiting (VS Code is closing). */
  settleAll(decision: Decision): void {
    for (const pending of this.waiting.values()) pending.resolve(decision);
    this.waiting.clear();
  }
}
