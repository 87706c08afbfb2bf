// Workspace tools for the agent: read_file and edit_file over an injected WorkspaceFileSystem.
export type { ReadFileOptions, WorkspaceEntryType, WorkspaceFileSystem, WorkspaceRealPath, WorkspaceStat } from "./workspace-fs";
export { createNodeWorkspaceFs, readRegularFile } from "./workspace-fs";
export type { PathResult } from "./paths";
export { checkRealPath, MAX_PATH_LENGTH, resolveWorkspacePath } from "./paths";
export type { OpenedFile, WorkspaceToolErrorCode } from "./shared";
export { abortable, DEFAULT_MAX_EDIT_FILE_BYTES, DEFAULT_MAX_FILE_BYTES, DEFAULT_READ_TIMEOUT_MS, resolveToolPath, WorkspaceToolError } from "./shared";
export type { ReadFileDetails, ReadFileParams, ReadFileToolOptions } from "./read-file";
export { createReadFileTool, DEFAULT_READ_MAX_BYTES, DEFAULT_READ_MAX_LINES, readFileParameters } from "./read-file";
export type {
  EditFileDetails,
  EditFileParams,
  EditFileToolOptions,
  EditHunk,
  EditProposal,
  EditProposalStore,
  ProposeEditOptions,
} from "./edit-file";
export { applyEdit, asEditFileParams, createEditFileTool, editFileParameters, proposeEdit } from "./edit-file";
