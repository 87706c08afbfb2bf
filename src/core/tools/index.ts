// Workspace tools for the agent over an injected WorkspaceFileSystem: read_file, edit_file, and the
// read-only discovery tools list_files, find_files, search (with an injected search engine).
export type { ReadFileOptions, WorkspaceDirEntry, WorkspaceEntryType, WorkspaceFileSystem, WorkspaceRealPath, WorkspaceStat } from "./workspace-fs";
export { createNodeWorkspaceFs, readRegularFile } from "./workspace-fs";
export type { PathResult } from "./paths";
export { checkRealPath, MAX_PATH_LENGTH, resolveWorkspacePath } from "./paths";
export type { OpenedFile } from "./file-access";
export type { WorkspaceToolErrorCode } from "./tool-error";
export { DEFAULT_MAX_EDIT_FILE_BYTES, DEFAULT_MAX_FILE_BYTES, DEFAULT_READ_TIMEOUT_MS, resolveToolPath } from "./file-access";
export { abortable, WorkspaceToolError } from "./tool-error";
export type { ReadFileDetails, ReadFileParams, ReadFileToolOptions } from "./read-file";
export { createReadFileTool, DEFAULT_READ_MAX_BYTES, DEFAULT_READ_MAX_LINES, readFileParameters } from "./read-file";
export type {
  EditFileDetails,
  EditFileParams,
  EditFileToolOptions,
  EditProposal,
  EditProposalStore,
  ProposeEditOptions,
} from "./edit-file";
export { applyEdit, asEditFileParams, createEditFileTool, editFileParameters, proposeEdit } from "./edit-file";
export type { DiscoveryTarget } from "./file-access";
export { resolveDiscoveryTarget } from "./file-access";
export type { OutputCaps } from "./output-caps";
export { capLines, shortenAround } from "./output-caps";
export type { GlobResult } from "./glob";
export { compileGlob } from "./glob";
export type { WalkEntry, WalkOptions, WalkRules } from "./workspace-walk";
export { ALWAYS_SKIPPED, IGNORE_FILE_NAMES, MAX_WALK_ENTRIES, SKIPPED_BY_DEFAULT, walkWorkspace } from "./workspace-walk";
export type { SearchBackend, SearchMatch, SearchOutcome, SearchRequest } from "./search-backend";
export { compareMatches, createPortableSearch, queryRegExp, SEARCH_MAX_COLLECTED, SEARCH_MAX_FILE_BYTES } from "./search-backend";
export type { SearchDetails, SearchParams, SearchToolOptions } from "./search";
export { createSearchTool, SEARCH_CAPS, searchParameters } from "./search";
export type { FindFilesDetails, FindFilesParams, FindFilesToolOptions } from "./find-files";
export { createFindFilesTool, FIND_CAPS, findFilesParameters } from "./find-files";
export type { ListFilesDetails, ListFilesParams, ListFilesToolOptions } from "./list-files";
export { createListFilesTool, DEFAULT_LIST_DEPTH, LIST_CAPS, listFilesParameters } from "./list-files";
