// Checkpoints: what Pi wrote since each user message, and restoring the files to one of them.
export type { ChangeFeed, ChangeListener, CommandChange, SnapshotSource, StatWalk } from "./baseline";
export { BASELINE_BUDGET_BYTES, WorkspaceBaseline } from "./baseline";
export { ChatCheckpoints, Checkpoints, type CheckpointsOptions, type CommandBefore } from "./checkpoints";
export { type CheckpointFolder, createNodeCheckpointIo, folderResolver } from "./node-io";
export { planRestore, type PiDid, type PlannedFile, type RestorePlan, type SkippedFile } from "./plan";
export { executeRestore, recoverRestore, type PendingRestore, type RecoveryReport, type RestoreOutcome, type RestoreStep } from "./restore";
export { CheckpointStorage, sha256 } from "./storage";
export * from "./types";
export * from "./pending";
