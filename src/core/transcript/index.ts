// The transcript store: full chat transcripts on disk, append-only JSONL per chat.
export { TranscriptStore, TranscriptError } from "./store";
export type { TranscriptStoreOptions, TranscriptErrorCode } from "./store";
export { createNodeTranscriptStorage } from "./node-storage";
export { ChatLocks, HEARTBEAT_MS, STALE_AFTER_MS } from "./chat-lock";
export type { AcquireResult, ChatLocksOptions, HeldLock, LockOwner } from "./chat-lock";
export { parseTranscript } from "./format";
export type { ParsedTranscript, ParseOutcome } from "./format";
export { deriveTitle, messageText, truncateText, DEFAULT_TITLE, TITLE_MAX_CHARS } from "./title";
export { isValidChatId, StorageNotFoundError, TRANSCRIPT_FORMAT_VERSION } from "./types";
export type {
  ChatSummary,
  CreateChatOptions,
  DamagedLine,
  FileStat,
  LoadedTranscript,
  LoadFailure,
  LoadFailureCode,
  LoadResult,
  MessageRecord,
  MetaRecord,
  StoredMessage,
  TranscriptHeader,
  TranscriptRecord,
  TranscriptStorage,
} from "./types";
