// Whether an edit is refused, asked about or applied at once: one pure function over the facts
// the gate has, so every combination is tested in a table (test/unit/permissions/).
import type { PathClass } from "./protected-paths";

export type ApprovalMode = "ask" | "auto";

export interface EditDecisionInput {
  path: PathClass;
  /** The user's setting (user settings only: a workspace cannot choose "auto"). */
  approvalMode: ApprovalMode;
  /** The user chose "Allow edits for this chat" earlier in this chat. */
  allowedForChat: boolean;
  /** VS Code's workspace trust. A folder opened in Restricted Mode never gets edits without asking. */
  workspaceTrusted: boolean;
}

export type EditDecisionResult =
  | { action: "refuse"; reason: string }
  /** `why` is shown on the card when the user would otherwise not have been asked. */
  | { action: "ask"; why?: string }
  | { action: "apply" };

export const RESTRICTED_MODE_REASON = "This folder is open in Restricted Mode (not trusted), so every edit is asked about, whatever the approval setting.";

export function decideEdit(input: EditDecisionInput): EditDecisionResult {
  const { path } = input;
  if (path.kind === "refused") return { action: "refuse", reason: path.reason };
  if (path.kind === "protected") return { action: "ask", why: path.reason };
  if (!input.workspaceTrusted) {
    const wouldSkip = input.approvalMode === "auto" || input.allowedForChat;
    return wouldSkip ? { action: "ask", why: RESTRICTED_MODE_REASON } : { action: "ask" };
  }
  if (input.approvalMode === "auto" || input.allowedForChat) return { action: "apply" };
  return { action: "ask" };
}
