// The error the workspace tools throw for failures the model can act on, and the abort checks
// that throw it. Its own module so the file system adapters and the tools' helpers can share it.

/** Why a tool call failed; the message is what the model reads. */
export type WorkspaceToolErrorCode =
  | "invalid_path"
  | "not_found"
  | "not_a_file"
  | "too_large"
  | "binary"
  | "not_utf8"
  | "offset_out_of_range"
  | "invalid_edit"
  | "invalid_query"
  | "no_match"
  | "ambiguous_match"
  | "overlapping_edits"
  | "no_change"
  | "changed_since_proposal"
  | "proposal_mismatch"
  | "not_approved"
  | "hard_linked"
  | "image_refused"
  | "timeout"
  | "aborted";

/**
 * Thrown by the tools for failures the model can act on. The agent turns any thrown error into an
 * error tool result with `message` as its text; `code` lets the UI or the permission gate tell
 * the kinds apart without parsing text.
 */
export class WorkspaceToolError extends Error {
  constructor(
    readonly code: WorkspaceToolErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "WorkspaceToolError";
  }
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new WorkspaceToolError("aborted", "Operation aborted");
}

/** Rejects with an "aborted" WorkspaceToolError when `signal` fires, whatever `work` is waiting on. */
export function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new WorkspaceToolError("aborted", "Operation aborted"));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
