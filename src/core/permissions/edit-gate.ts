// The permission gate for edit_file, run in the agent's beforeToolCall (in the host, next to
// the tool: the UI only answers it). It computes the edit, decides with decideEdit() whether it
// is refused, asked about or applied, asks the user through the injected approver, and leaves
// the proposal for the tool to write. afterToolCall() keeps secret files' diffs out of the
// transcript. No agent needed to test it: hand it a file system, an approver and a call.
import type { AfterToolCallContext, AfterToolCallResult, BeforeToolCallContext, BeforeToolCallResult } from "@earendil-works/pi-agent-core";
import { hunksFromPatch } from "../../shared/diff-hunks";
import type { ChatEvent } from "../../shared/protocol";
import type { StructuredDiff } from "../../shared/structured-diff";
import type { ApprovalNoticeMessage } from "../messages";
import { narrowProposal } from "../tools/partial-edit";
import { asEditFileParams, proposeEdit, resolveWorkspacePath, type EditFileDetails, type EditProposal, type WorkspaceFileSystem } from "../tools";
import { decideEdit, type ApprovalMode } from "./edit-decision";
import { classifyEditPath, compileProtectedFiles, DEFAULT_PROTECTED_FILES, isInsideGitDir, secretDiffSummary, type ProtectedFiles } from "./protected-paths";

export interface EditApprovalRequest {
  chatId: string;
  toolCallId: string;
  toolName: string;
  path: string;
  /** The unified diff, or for a secret file only "secret file: N lines changed". */
  diff: string;
  /** The whole file as it would be after the edit, for VS Code's side-by-side diff editor. */
  proposedText: string;
  /** Why this edit is asked about although the settings would have applied it (a protected file, Restricted Mode). */
  protection?: string;
  /** A secret file (.env*): its diff editor opens only when the user asks for it. */
  secret?: boolean;
  /** How many hunks the card shows (0 for a secret file): a decision may reject only these. */
  hunkCount: number;
}

/**
 * The user's answer. An allow may reject some hunks (0-based, as the card numbers them less one):
 * only the others are written, and the reason, if any, goes to the model with the rejected ones.
 */
export type EditDecision =
  | {
      decision: "allow" | "allowForChat";
      rejectedHunks?: readonly number[];
      /** Hunks the user changed before accepting (0-based): written as the user's text (the hunk's new side, edited). */
      editedHunks?: readonly { hunk: number; text: string }[];
      reason?: string;
    }
  | { decision: "deny"; reason?: string };

/** Asks the user. Rejects (or the signal aborts) when the run is stopped before a decision. */
export type EditApprover = (request: EditApprovalRequest, signal: AbortSignal | undefined) => Promise<EditDecision>;

/** The settings the gate reads at each call (they may change during a chat). */
export interface EditPermissionSettings {
  approvalMode: () => ApprovalMode;
  /** Globs of protected files (piChat.protectedFiles); default DEFAULT_PROTECTED_FILES. */
  protectedFiles?: () => readonly string[];
  /** VS Code's workspace trust; default true. */
  workspaceTrusted?: () => boolean;
}

export interface EditGateOptions extends EditPermissionSettings {
  chatId: string;
  fs: WorkspaceFileSystem;
  workspaceRoot?: string;
  approver: EditApprover;
  /** Where allowed proposals are left for edit_file's execute (keyed by toolCallId). */
  proposals: Map<string, EditProposal>;
  /** The live approval events for the view. */
  emit: (event: ChatEvent) => void;
  /** Adds the decision to the transcript, before the next model request (agent.steer). */
  record: (notice: ApprovalNoticeMessage) => void;
}

export class EditGate {
  private allowedForChat = false;
  private readonly secretCalls = new Set<string>();
  private compiled: ProtectedFiles | undefined;

  constructor(private readonly options: EditGateOptions) {}

  get allowsEditsForChat(): boolean {
    return this.allowedForChat;
  }

  async beforeToolCall(context: BeforeToolCallContext, signal: AbortSignal | undefined): Promise<BeforeToolCallResult | undefined> {
    if (context.toolCall.name !== "edit_file") return undefined;
    const params = asEditFileParams(context.args);
    if (!params) return { block: true, reason: "edit_file needs a path, and oldText and newText as strings or edits: [{oldText, newText}, …]." };
    // Refused before the file is even read.
    const lexical = resolveWorkspacePath(this.options.workspaceRoot, params.path);
    if (lexical.ok && isInsideGitDir(lexical.path)) return { block: true, reason: refusal(classifyEditPath([lexical.path], this.protectedFiles())) };

    let proposal: EditProposal;
    try {
      proposal = await proposeEdit(this.options.fs, this.options.workspaceRoot, params, signal ? { signal } : {});
    } catch (error) {
      // Nothing to ask the user about: the model gets the reason (no match, several matches, bad path).
      return { block: true, reason: error instanceof Error ? error.message : String(error) };
    }
    const pathClass = classifyEditPath([proposal.path, proposal.realPath], this.protectedFiles());
    const decision = decideEdit({
      path: pathClass,
      approvalMode: this.options.approvalMode(),
      allowedForChat: this.allowedForChat,
      workspaceTrusted: this.options.workspaceTrusted?.() ?? true,
    });
    const toolCallId = context.toolCall.id;
    if (decision.action === "refuse") return { block: true, reason: refusal(pathClass) };
    const secret = pathClass.kind === "protected" && pathClass.secret;
    if (secret) this.secretCalls.add(toolCallId);
    if (decision.action === "apply") {
      this.options.proposals.set(toolCallId, proposal);
      return undefined;
    }
    return this.ask(toolCallId, proposal, decision.why, secret, signal);
  }

  /** A secret file's diff never reaches the transcript or the view: the details keep counts only. */
  async afterToolCall(context: AfterToolCallContext): Promise<AfterToolCallResult | undefined> {
    const id = context.toolCall.id;
    if (!this.secretCalls.delete(id)) return undefined;
    const details = context.result.details as Partial<EditFileDetails> | undefined;
    if (!details || typeof details !== "object") return undefined;
    return { details: redactedDetails(details) };
  }

  private async ask(
    toolCallId: string,
    proposal: EditProposal,
    protection: string | undefined,
    secret: boolean,
    signal: AbortSignal | undefined,
  ): Promise<BeforeToolCallResult | undefined> {
    const { emit } = this.options;
    const diff = secret ? secretDiffSummary(proposal.details.additions, proposal.details.deletions) : proposal.details.diff;
    const extra = { ...(protection ? { protection } : {}), ...(secret ? { secret: true } : {}) };
    // The view gets the hunks structuredPatch made for the proposal; a secret file's only as a count.
    const { additions, deletions } = proposal.details;
    const hunks: StructuredDiff = secret
      ? { kind: "secret", changedLines: Math.max(additions, deletions) }
      : { kind: "hunks", hunks: hunksFromPatch(proposal.details.hunks) };
    const hunkCount = hunks.kind === "hunks" ? hunks.hunks.length : 0;
    emit({ type: "approval/request", toolCallId, toolName: "edit_file", path: proposal.path, diff: hunks, ...extra });
    let decision: EditDecision;
    try {
      const proposedText = new TextDecoder().decode(proposal.newBytes).replace(/^\uFEFF/, "");
      decision = await this.options.approver(
        { chatId: this.options.chatId, toolCallId, toolName: "edit_file", path: proposal.path, diff, proposedText, hunkCount, ...extra },
        signal,
      );
    } catch {
      this.secretCalls.delete(toolCallId);
      emit({ type: "approval/cancelled", toolCallId });
      return { block: true, reason: "The edit was cancelled before the user decided. Nothing was changed." };
    }
    // Rejecting every hunk is a denial; rejecting some writes the others (partial-edit.ts).
    const rejected = decision.decision === "deny" ? [] : (decision.rejectedHunks ?? []);
    const denied = decision.decision === "deny" || (rejected.length > 0 && rejected.length >= hunkCount);
    const reason = decision.reason?.trim() || undefined;
    const edited = editedHunksOf(decision, hunkCount, rejected);
    const partial = !denied && (rejected.length > 0 || edited.size > 0);
    let written = proposal;
    if (partial) {
      try {
        written = narrowProposal(proposal, rejected, reason, edited);
      } catch {
        // The hunks do not describe the file (cannot happen for a live proposal): write nothing rather than guess.
        this.secretCalls.delete(toolCallId);
        emit({ type: "approval/cancelled", toolCallId });
        return { block: true, reason: "Part of the edit could not be taken apart into hunks, so nothing was changed. Redo the edit." };
      }
    }
    const notice: ApprovalNoticeMessage = {
      role: "approvalNotice",
      toolCallId,
      toolName: "edit_file",
      decision: denied ? "denied" : "allowed",
      path: proposal.path,
      diff,
      ...(secret ? { secret: true } : {}),
      ...(reason ? { reason } : {}),
      ...(partial && rejected.length > 0 ? { rejectedHunks: [...rejected] } : {}),
      ...(edited.size > 0 ? { editedHunks: [...edited.keys()].sort((a, b) => a - b) } : {}),
      timestamp: Date.now(),
    };
    emit({
      type: "approval/decided",
      toolCallId,
      decision: notice.decision,
      ...(reason ? { reason } : {}),
      ...(notice.rejectedHunks ? { rejectedHunks: notice.rejectedHunks } : {}),
      ...(notice.editedHunks ? { editedHunks: notice.editedHunks } : {}),
    });
    this.options.record(notice);
    if (denied) {
      this.secretCalls.delete(toolCallId);
      return { block: true, reason: `The user denied this edit${reason ? `: "${reason}"` : ""}. Nothing was changed.` };
    }
    if (decision.decision === "allowForChat") this.allowedForChat = true;
    this.options.proposals.set(toolCallId, written);
    return undefined;
  }

  private protectedFiles(): ProtectedFiles {
    const patterns = this.options.protectedFiles?.() ?? DEFAULT_PROTECTED_FILES;
    if (!this.compiled || !samePatterns(this.compiled.patterns, patterns)) this.compiled = compileProtectedFiles(patterns);
    return this.compiled;
  }
}

function refusal(pathClass: ReturnType<typeof classifyEditPath>): string {
  return pathClass.kind === "refused" ? `Refused: ${pathClass.reason}` : "Refused.";
}

function samePatterns(a: readonly string[], b: readonly string[]): boolean {
  const trimmed = b.filter((p) => typeof p === "string" && p.trim() !== "").map((p) => p.trim());
  return a.length === trimmed.length && a.every((p, i) => p === trimmed[i]);
}

function redactedDetails(details: Partial<EditFileDetails>): Record<string, unknown> {
  const additions = details.additions ?? 0;
  const deletions = details.deletions ?? 0;
  return {
    ...(details.path !== undefined ? { path: details.path } : {}),
    additions,
    deletions,
    ...(details.firstChangedLine !== undefined ? { firstChangedLine: details.firstChangedLine } : {}),
    secret: true,
    summary: secretDiffSummary(additions, deletions),
  };
}

/** The user's text per hunk edited before accepting: in range, and not also rejected (a rejected hunk keeps the file's lines). */
function editedHunksOf(decision: EditDecision, hunkCount: number, rejected: readonly number[]): Map<number, string> {
  if (decision.decision === "deny") return new Map();
  const valid = (decision.editedHunks ?? []).filter((e) => Number.isInteger(e.hunk) && e.hunk >= 0 && e.hunk < hunkCount && !rejected.includes(e.hunk));
  return new Map(valid.map((e) => [e.hunk, e.text] as const));
}
