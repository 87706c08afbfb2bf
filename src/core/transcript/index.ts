// The transcript store: full chat transcripts on disk, append-only JSONL per chat.
export { TranscriptStore, TranscriptError } from "./store";
export type { AppendOptions, TranscriptStoreOptions, TranscriptErrorCode } from "./store";
export { ChatTree } from "./tree";
export { searchChatText } from "./chat-search";
export type { ChatTextHit } from "./chat-search";
export type { Fork, TreeNode } from "./tree";
export { createNodeTranscriptStorage } from "./node-storage";
export type { TrashEntry } from "./trash";
export { ChatLocks, HEARTBEAT_MS, STALE_AFTER_MS } from "./chat-lock";
export type { AcquireResult, ChatLocksOptions, HeldLock, LockOwner } from "./chat-lock";
export { isValidNodeId, parseTranscript } from "./format";
export type { ParsedTranscript, ParseOutcome } from "./format";
export { summarizePath } from "./chat-index";
export type { PathSummary } from "./chat-index";
export { deriveTitle, messageText, truncateText, DEFAULT_TITLE, TITLE_MAX_CHARS } from "./title";
export { isValidChatId, OLDEST_READABLE_VERSION, StorageNotFoundError, TRANSCRIPT_FORMAT_VERSION } from "./types";
export type {
  ChatModelChoice,
  ChatOrigin,
  ImportChatOptions,
  ChatSummary,
  CreateChatOptions,
  DamagedLine,
  FileStat,
  LoadedTranscript,
  LoadFailure,
  LoadFailureCode,
  LoadResult,
  MessageRecord,
  LeafRecord,
  MetaRecord,
  ModelRecord,
  VersionRecord,
  StoredMessage,
  TranscriptHeader,
  TranscriptRecord,
  TranscriptStorage,
} from "./types";
