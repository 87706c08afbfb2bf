// Public types of the transcript store: the on-disk records, load results, the chat
// list, and the minimal storage interface the store runs over.

import type { ChatTree } from "./tree";

/** The store's view of a message: an opaque JSON object with a string `role`. */
export interface StoredMessage {
  readonly role: string;
}

const CHAT_ID = /^[a-z0-9][a-z0-9_-]{0,127}$/;

/**
 * Chat ids are file names (`chats/<id>.jsonl`), so an id from anywhere (index.json, the webview,
 * current-chat.json) is checked before it names a file: no "/", "\\" or "..". Lowercase only:
 * Windows/macOS file names ignore case.
 */
export function isValidChatId(id: unknown): id is string {
  return typeof id === "string" && CHAT_ID.test(id);
}

/**
 * The file format version this build writes, and the newest it reads.
 * 1: a linear list of message records (no ids). 2: a tree — every message record has an `id`
 * and a `parentId`, and `leaf` records say which branch is current. Version 1 files are read
 * as a chain and continued in the version 2 shape after a `version` record, never rewritten.
 * Details and the compatibility rules: format.ts.
 */
export const TRANSCRIPT_FORMAT_VERSION = 2;
/** The oldest version this build still reads. */
export const OLDEST_READABLE_VERSION = 1;

/** First line of every chat file. */
export interface TranscriptHeader {
  type: "header";
  version: number;
  chatId: string;
  /** Unix ms. */
  createdAt: number;
  title?: string;
  /** Where the chat came from when it was opened from another front end (a pi CLI session). Never written to. */
  origin?: ChatOrigin;
}

/** A chat opened from a pi CLI session: the file and pi's session id, for the user and for a later way back. */
export interface ChatOrigin {
  kind: "pi-session";
  path: string;
  sessionId: string;
}

/** A whole chat tree written in one go (an imported conversation): nodes in order, parents first. */
export interface ImportChatOptions<M extends StoredMessage> {
  title?: string;
  createdAt?: number;
  origin: ChatOrigin;
  nodes: readonly { id: string; parentId: string | null; message: M }[];
  leafId: string | null;
  model?: ChatModelChoice;
}

/**
 * One final message: a node of the chat's tree. Version 1 records have neither `id` nor
 * `parentId`; a missing `id` reads as `L<line number>`, a missing `parentId` as "the current
 * leaf at this point of the file" (for a version 1 file: the message before).
 */
export interface MessageRecord<M extends StoredMessage = StoredMessage> {
  type: "message";
  id?: string;
  /** null: a root. */
  parentId?: string | null;
  message: M;
}

/** The user moved to another branch: node `id` is the current leaf until a later message or leaf record. */
export interface LeafRecord {
  type: "leaf";
  id: string;
  /** Unix ms. */
  at: number;
}

/** Model and thinking level chosen for this chat; the last one wins. */
export interface ModelRecord {
  type: "model";
  provider: string;
  modelId: string;
  /** pi-ai thinking level ("off", "minimal", "low", "medium", "high", "xhigh"). */
  thinkingLevel?: string;
  /** Unix ms. */
  at: number;
}

/** Appended once to a version 1 file before the first record in a newer shape: what follows is `version`. */
export interface VersionRecord {
  type: "version";
  version: number;
  /** Unix ms. */
  at: number;
}

/** The model choice of a chat, as saved. */
export interface ChatModelChoice {
  provider: string;
  modelId: string;
  thinkingLevel?: string;
}

/** Title change; append-only, the last one wins. `title: null` clears it (back to derived). */
export interface MetaRecord {
  type: "meta";
  title: string | null;
  /** Unix ms. */
  at: number;
  /** "model": a title the chat's model suggested after its first answer (a rename by the user has none). */
  source?: "model";
}

export type TranscriptRecord<M extends StoredMessage = StoredMessage> =
  | TranscriptHeader
  | MessageRecord<M>
  | MetaRecord
  | LeafRecord
  | ModelRecord
  | VersionRecord;

/**
 * A problem load found: a skipped line (malformed, cut off, invalid record), or a
 * missing/invalid header that load worked around (then the line itself may be kept).
 */
export interface DamagedLine {
  /** 1-based line number. */
  line: number;
  /** Offset of the line's first byte in the file. */
  byteOffset: number;
  byteLength: number;
  reason: string;
  /** The last line, with no newline after it: a write that was cut off. */
  tail: boolean;
}

export interface LoadedTranscript<M extends StoredMessage> {
  ok: true;
  chatId: string;
  header: TranscriptHeader;
  /** Explicit title (header or last meta line), else derived from the first user message. */
  title: string;
  /** True when `title` came from the header or a rename, not from the messages. */
  titleIsExplicit: boolean;
  /** The messages on the path from the root to the current leaf: what the chat shows and the model gets. */
  messages: M[];
  /** Every message of the file as a tree (branches included), with the current leaf. */
  tree: ChatTree<M>;
  /** The model chosen for this chat, if one was saved. */
  model?: ChatModelChoice;
  /** Present only when lines were skipped; the messages from every good line are still returned. */
  damaged?: DamagedLine[];
}

export type LoadFailureCode =
  | "notFound"
  | "invalidId"
  /** Zero bytes. */
  | "empty"
  /** No header and no readable record: not a transcript. */
  | "noHeader"
  /** A header from a newer (or unknown) format: refused rather than misread. */
  | "unsupportedVersion"
  | "readError";

export interface LoadFailure {
  ok: false;
  chatId: string;
  code: LoadFailureCode;
  reason: string;
}

export type LoadResult<M extends StoredMessage> = LoadedTranscript<M> | LoadFailure;

/** One row of the history list. */
export interface ChatSummary {
  id: string;
  title: string;
  /** Unix ms. */
  createdAt: number;
  /** Unix ms: timestamp of the last message or rename, else the file's mtime. */
  updatedAt: number;
  messageCount: number;
  /** Size of the chat file in bytes. */
  sizeBytes: number;
  /** The first prompt's start (the derived title even when the chat was renamed). */
  firstPrompt?: string;
  /** "provider/model" of the chat's saved model choice, or of its last answer. */
  model?: string;
  /** Start of the last user/assistant text, for the history list. */
  lastPreview?: string;
  /** Some lines were skipped on the last scan. */
  damaged?: boolean;
  /** Set when the chat cannot be opened (e.g. unsupported version); the file is kept. */
  unreadable?: { code: LoadFailureCode; reason: string };
}

export interface CreateChatOptions<M extends StoredMessage> {
  /** Lowercase letters, digits, `-` and `_`; generated when omitted. */
  id?: string;
  title?: string;
  createdAt?: number;
  /** Written in the same write as the header (e.g. the leading system message). */
  messages?: readonly M[];
}

export interface FileStat {
  size: number;
  mtimeMs: number;
}

/**
 * All file I/O the store does. Paths are relative to the store's root and use `/`.
 * The Node implementation is `createNodeTranscriptStorage`.
 */
export interface TranscriptStorage {
  /** Whole file, or undefined when it does not exist. */
  read(path: string): Promise<Uint8Array | undefined>;
  /** Up to `length` bytes from `position`, or undefined when the file does not exist. */
  readRange(path: string, position: number, length: number): Promise<Uint8Array | undefined>;
  stat(path: string): Promise<FileStat | undefined>;
  /** Appends to an existing file; rejects with `StorageNotFoundError` when it is missing (never creates it). */
  append(path: string, data: Uint8Array, options: { sync: boolean }): Promise<void>;
  /** Creates a new file with `data`, creating parent folders; false when it already exists. */
  createExclusive(path: string, data: Uint8Array, options: { sync: boolean }): Promise<boolean>;
  /** Replaces the file atomically (temp file + rename), creating parent folders. */
  writeAtomic(path: string, data: Uint8Array): Promise<void>;
  /** Deletes the file; a missing file is fine. */
  remove(path: string): Promise<void>;
  /** File names directly inside `dir`; [] when the folder does not exist. */
  list(dir: string): Promise<string[]>;
  /**
   * Renames the file as it is (no copy), creating the target's folders; false when `from` does
   * not exist or `to` already does (nothing is overwritten).
   */
  move(from: string, to: string): Promise<boolean>;
}

export class StorageNotFoundError extends Error {
  constructor(readonly path: string) {
    super(`not found: ${path}`);
    this.name = "StorageNotFoundError";
  }
}
