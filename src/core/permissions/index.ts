// Permissions: what the agent may do without asking, pure decisions plus the edit gate.
export { decideEdit, RESTRICTED_MODE_REASON, type ApprovalMode, type EditDecisionInput, type EditDecisionResult } from "./edit-decision";
export { EditGate, type EditApprovalRequest, type EditApprover, type EditDecision, type EditGateOptions, type EditPermissionSettings } from "./edit-gate";
export {
  classifyEditPath,
  compileProtectedFiles,
  DEFAULT_PROTECTED_FILES,
  isInsideGitDir,
  isSecretFile,
  SECRET_FILES,
  secretFileKind,
  secretDiffSummary,
  type PathClass,
  type ProtectedFiles,
} from "./protected-paths";
