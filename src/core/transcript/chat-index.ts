// index.json: a cache of one summary per chat file, for the history list. It is never
// the source of truth: each entry records the file size it was built from, and an entry
// whose size differs from the file's (or a file with no entry) is rebuilt from the file.
// Chat files only grow (appends, renames), so a changed file always has a changed size.

import type { ParsedTranscript } from "./format";
import { isPlainObject } from "./format";
import { DEFAULT_TITLE, deriveTitle, previewFromMessage, titleFromMessage } from "./title";
import { isValidChatId, type ChatSummary, type LoadFailureCode, type StoredMessage } from "./types";

// 2: entries carry the chat's model (the chosen one, else the last answer's); a version 1 cache is rebuilt.
const INDEX_VERSION = 2;

export interface IndexEntry {
  id: string;
  createdAt: number;
  updatedAt: number;
  messageCount: number;
  /** From the header or the last rename. */
  explicitTitle?: string;
  /** From the first user message. */
  derivedTitle?: string;
  lastPreview?: string;
  /** "provider/model" of the chat's saved choice (a model record). */
  model?: string;
  /** "provider/model" of the last answer. */
  answerModel?: string;
  damaged?: boolean;
  unreadable?: { code: LoadFailureCode; reason: string };
  /** Size of the chat file this entry describes; the staleness check. */
  fileSize: number;
}

export function entryFromParsed(id: string, parsed: ParsedTranscript<StoredMessage>, fileSize: number, mtimeMs: number): IndexEntry {
  const entry: IndexEntry = {
    id,
    createdAt: parsed.header.createdAt || mtimeMs,
    updatedAt: parsed.lastActivity ?? (parsed.header.createdAt || mtimeMs),
    messageCount: 0,
    fileSize,
  };
  const explicit = explicitTitle(parsed.header.title, parsed.metaTitle);
  if (explicit !== undefined) entry.explicitTitle = explicit;
  const derived = deriveTitle([...parsed.tree.nodes()].map((n) => n.message));
  if (derived !== undefined) entry.derivedTitle = derived;
  applyPath(entry, summarizePath(parsed.messages.length, backwards(parsed.messages)));
  if (parsed.model) entry.model = `${parsed.model.provider}/${parsed.model.modelId}`;
  if (parsed.damaged.length > 0) entry.damaged = true;
  return entry;
}

/**
 * The part of an entry that describes the chat's current path (root to leaf): what changes
 * when an edit, a retry or a branch switch moves the leaf to another branch.
 */
export interface PathSummary {
  messageCount: number;
  lastPreview?: string;
  /** "provider/model" of the path's last answer. */
  answerModel?: string;
}

/**
 * The summary of a path of `messageCount` messages, as a reread of the file gives it, from its
 * messages newest first (read only until the preview and the answer model are found: a few
 * messages, whatever the path's length). `redact` is applied to the message the preview is taken
 * from, before the preview is cut, so no part of a key reaches index.json.
 */
export function summarizePath(
  messageCount: number,
  newestFirst: Iterable<StoredMessage>,
  redact: (message: StoredMessage) => StoredMessage = (m) => m,
): PathSummary {
  const summary: PathSummary = { messageCount };
  let previewFound = false;
  for (const message of newestFirst) {
    if (!previewFound && previewFromMessage(message) !== undefined) {
      previewFound = true;
      const preview = previewFromMessage(redact(message));
      if (preview !== undefined) summary.lastPreview = preview;
    }
    if (summary.answerModel === undefined) {
      const label = answerModel(message);
      if (label !== undefined) summary.answerModel = label;
    }
    if (previewFound && summary.answerModel !== undefined) break;
  }
  return summary;
}

function* backwards<T>(items: readonly T[]): IterableIterator<T> {
  for (let i = items.length - 1; i >= 0; i--) yield items[i]!;
}

/** Makes the entry describe another path of the same chat (in place: the entry is never dropped). */
export function applyPath(entry: IndexEntry, path: PathSummary): void {
  entry.messageCount = path.messageCount;
  if (path.lastPreview === undefined) delete entry.lastPreview;
  else entry.lastPreview = path.lastPreview;
  if (path.answerModel === undefined) delete entry.answerModel;
  else entry.answerModel = path.answerModel;
}

export function unreadableEntry(id: string, code: LoadFailureCode, reason: string, fileSize: number, mtimeMs: number): IndexEntry {
  return { id, createdAt: mtimeMs, updatedAt: mtimeMs, messageCount: 0, fileSize, unreadable: { code, reason } };
}

/** A meta line (even one clearing the title) overrides the header title. */
export function explicitTitle(headerTitle: string | undefined, metaTitle: string | null | undefined): string | undefined {
  if (metaTitle !== undefined) return metaTitle ?? undefined;
  return headerTitle;
}

/** Applies appended messages to an entry in place (the cheap path of append). */
export function applyMessages(entry: IndexEntry, messages: readonly StoredMessage[], appendedBytes: number): void {
  entry.messageCount += messages.length;
  entry.fileSize += appendedBytes;
  let updatedAt: number | undefined;
  for (const message of messages) {
    if (entry.derivedTitle === undefined) {
      const title = titleFromMessage(message);
      if (title !== undefined) entry.derivedTitle = title;
    }
    const preview = previewFromMessage(message);
    if (preview !== undefined) entry.lastPreview = preview;
    const label = answerModel(message);
    if (label !== undefined) entry.answerModel = label;
    const ts = (message as StoredMessage & { timestamp?: unknown }).timestamp;
    if (typeof ts === "number" && Number.isFinite(ts)) updatedAt = ts;
  }
  // Same rule as a scan (last timestamped record), so a rescan gives the same entry.
  if (updatedAt !== undefined) entry.updatedAt = updatedAt;
}

export function toSummary(entry: IndexEntry): ChatSummary {
  const summary: ChatSummary = {
    id: entry.id,
    title: entry.explicitTitle || entry.derivedTitle || DEFAULT_TITLE,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
    messageCount: entry.messageCount,
    sizeBytes: entry.fileSize,
  };
  if (entry.derivedTitle !== undefined) summary.firstPrompt = entry.derivedTitle;
  const model = entry.model ?? entry.answerModel;
  if (model !== undefined) summary.model = model;
  if (entry.lastPreview !== undefined) summary.lastPreview = entry.lastPreview;
  if (entry.damaged) summary.damaged = true;
  if (entry.unreadable) summary.unreadable = { ...entry.unreadable };
  return summary;
}

export function serializeIndex(entries: Iterable<IndexEntry>): string {
  return JSON.stringify({ version: INDEX_VERSION, chats: [...entries] });
}

/** Never throws: a corrupt or foreign index.json gives an empty (or partial) cache. */
export function parseIndex(bytes: Uint8Array | undefined): Map<string, IndexEntry> {
  return readIndexFile(bytes) ?? new Map();
}

/** The entries of index.json, or undefined when it is missing, corrupt, foreign or of another version. Never throws. */
export function readIndexFile(bytes: Uint8Array | undefined): Map<string, IndexEntry> | undefined {
  if (!bytes) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
  if (!isPlainObject(value) || value["version"] !== INDEX_VERSION || !Array.isArray(value["chats"])) return undefined;
  const entries = new Map<string, IndexEntry>();
  for (const raw of value["chats"] as unknown[]) {
    const entry = readEntry(raw);
    if (entry) entries.set(entry.id, entry);
  }
  return entries;
}

function readEntry(raw: unknown): IndexEntry | undefined {
  if (!isPlainObject(raw)) return undefined;
  const { id, createdAt, updatedAt, messageCount, fileSize } = raw;
  // A tampered index must not make the store read or list a file outside chats/.
  if (!isValidChatId(id) || !isNumber(createdAt) || !isNumber(updatedAt) || !isNumber(messageCount) || !isNumber(fileSize)) {
    return undefined;
  }
  const entry: IndexEntry = { id, createdAt, updatedAt, messageCount, fileSize };
  if (typeof raw["explicitTitle"] === "string") entry.explicitTitle = raw["explicitTitle"];
  if (typeof raw["derivedTitle"] === "string") entry.derivedTitle = raw["derivedTitle"];
  if (typeof raw["lastPreview"] === "string") entry.lastPreview = raw["lastPreview"];
  if (typeof raw["model"] === "string") entry.model = raw["model"];
  if (typeof raw["answerModel"] === "string") entry.answerModel = raw["answerModel"];
  if (raw["damaged"] === true) entry.damaged = true;
  const unreadable = raw["unreadable"];
  if (isPlainObject(unreadable) && typeof unreadable["code"] === "string" && typeof unreadable["reason"] === "string") {
    // An unreadable entry is only a cache of a failed scan; an unknown code just means "rescan".
    if (!FAILURE_CODES.has(unreadable["code"])) return undefined;
    entry.unreadable = { code: unreadable["code"] as LoadFailureCode, reason: unreadable["reason"] };
  }
  return entry;
}

const FAILURE_CODES: ReadonlySet<string> = new Set<LoadFailureCode>(["notFound", "invalidId", "empty", "noHeader", "unsupportedVersion", "readError"]);

/** "provider/model" of an assistant message, read defensively (messages are opaque here). */
function answerModel(message: StoredMessage): string | undefined {
  if (message.role !== "assistant") return undefined;
  const { provider, model } = message as StoredMessage & { provider?: unknown; model?: unknown };
  return typeof provider === "string" && typeof model === "string" ? `${provider}/${model}` : undefined;
}

function isNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}
