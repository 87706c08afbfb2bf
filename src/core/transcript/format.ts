// The JSONL line format: serializing records and parsing a whole file. Pure functions,
// no I/O. Parsing never throws: every bad line becomes a DamagedLine.
//
// Format version 2 (a tree), and how version 1 files (linear) stay readable:
// - line 1: {"type":"header","version":2,"chatId","createdAt","title"?}
// - {"type":"message","id","parentId","message"}: one final message, a node of the tree.
//   `parentId: null` is a root. A record without `id` (every version 1 record) gets the id
//   `L<line number>` (stable: the file only grows); one without `parentId` continues the
//   current leaf, so a version 1 file reads as one chain, exactly as before.
// - {"type":"leaf","id","at"}: the user switched branches; node `id` is the current leaf.
//   Otherwise the current leaf is the last message saved. Switching appends one short line.
// - {"type":"model","provider","modelId","thinkingLevel"?,"at"}: the chat's model; last wins.
// - {"type":"meta","title","at"}: a rename; last wins.
// - The header may carry `origin` ({kind:"pi-session",path,sessionId}): the chat was opened from
//   a pi CLI session (src/core/pi-sessions); older builds ignore the field.
// - {"type":"version","version":2,"at"}: appended once to a version 1 file before this build
//   writes its first version 2 record to it. Nothing already on disk is rewritten.
// - A header or version record with a version newer than TRANSCRIPT_FORMAT_VERSION: the file
//   is refused (`unsupportedVersion`, with both numbers) rather than misread, and never written.
// - A message whose parent is unknown (its line was damaged) is kept, attached to the current
//   leaf, and reported; a second record with an id already used is skipped and reported.

import { ChatTree } from "./tree";
import {
  OLDEST_READABLE_VERSION,
  TRANSCRIPT_FORMAT_VERSION,
  type ChatModelChoice,
  type DamagedLine,
  type LeafRecord,
  type LoadFailureCode,
  type MessageRecord,
  type MetaRecord,
  type ModelRecord,
  type StoredMessage,
  type TranscriptHeader,
  type VersionRecord,
} from "./types";

const NEWLINE = 0x0a;
// fatal: invalid UTF-8 (binary junk, a cut inside a multi-byte char) must fail the line,
// not be silently turned into U+FFFD and then accepted as text.
const utf8 = new TextDecoder("utf-8", { fatal: true });

export function headerLine(header: TranscriptHeader): string {
  return JSON.stringify(header) + "\n";
}

export function metaLine(meta: MetaRecord): string {
  return JSON.stringify(meta) + "\n";
}

export function leafLine(leaf: LeafRecord): string {
  return JSON.stringify(leaf) + "\n";
}

export function modelLine(model: ModelRecord): string {
  return JSON.stringify(model) + "\n";
}

export function versionLine(record: VersionRecord): string {
  return JSON.stringify(record) + "\n";
}

/**
 * Throws TypeError for something that cannot be stored, before anything is written.
 * `parentId` undefined: the record continues whatever the current leaf is when it is read.
 */
export function messageLine(message: StoredMessage, id?: string, parentId?: string | null): string {
  if (!isPlainObject(message) || typeof message.role !== "string") {
    throw new TypeError("transcript message must be an object with a string role");
  }
  const record: MessageRecord = {
    type: "message",
    ...(id !== undefined ? { id } : {}),
    ...(parentId !== undefined ? { parentId } : {}),
    message,
  };
  // JSON.stringify escapes newlines inside strings, so one record is always one line.
  return JSON.stringify(record) + "\n";
}

/** Node ids: short, safe in any file or URL, and never of the `L<line>` form implicit ids take. */
const NODE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function isValidNodeId(id: unknown): id is string {
  return typeof id === "string" && NODE_ID.test(id);
}

export interface ParsedTranscript<M extends StoredMessage> {
  header: TranscriptHeader;
  /** The header line was missing or unusable and `header` was synthesized. */
  headerRecovered: boolean;
  /** Every message, as a tree, with the current leaf. */
  tree: ChatTree<M>;
  /** The path from the root to the current leaf. */
  messages: M[];
  /** The shape of the file's last records: 1 until a version 2 header or version record. */
  version: number;
  /** Last meta title (undefined: no meta line; null: cleared). */
  metaTitle: string | null | undefined;
  /** Last model record. */
  model: ChatModelChoice | undefined;
  /** Timestamp of the last message that had one. */
  lastActivity: number | undefined;
  damaged: DamagedLine[];
  endsWithNewline: boolean;
  byteLength: number;
}

export type ParseOutcome<M extends StoredMessage> = { ok: true; parsed: ParsedTranscript<M> } | { ok: false; code: LoadFailureCode; reason: string };

/** Why a version number cannot be read by this build, or undefined when it can. */
export function unsupportedVersionReason(version: unknown): string | undefined {
  if (typeof version !== "number" || !Number.isInteger(version)) {
    return `chat file has no valid format version (found ${JSON.stringify(version) ?? "nothing"})`;
  }
  if (version > TRANSCRIPT_FORMAT_VERSION) {
    return `chat file format version ${version} is newer than this build of Pi Chat reads (up to ${TRANSCRIPT_FORMAT_VERSION}); update Pi Chat to open it. The file was left as it is.`;
  }
  if (version < OLDEST_READABLE_VERSION) return `chat file format version ${version} is not a Pi Chat format`;
  return undefined;
}

/** Parses a whole chat file. `chatId` (from the file name) fills in a missing header. */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one pass over a chat file's records by type (docs/transcript-format.md); damage is handled where it is met
export function parseTranscript<M extends StoredMessage>(bytes: Uint8Array, chatId: string): ParseOutcome<M> {
  if (bytes.length === 0) return { ok: false, code: "empty", reason: `chat file ${chatId} is empty` };

  const tree = new ChatTree<M>();
  const damaged: DamagedLine[] = [];
  let header: TranscriptHeader | undefined;
  let headerRecovered = false;
  let version = OLDEST_READABLE_VERSION;
  let metaTitle: string | null | undefined;
  let model: ChatModelChoice | undefined;
  let lastActivity: number | undefined;
  let firstActivity: number | undefined;
  let sawFirstRecord = false;

  let start = 0;
  let lineNo = 0;
  // The line being read; `fail` reports it (one closure for the file, not one per line).
  let lineStart = 0;
  let end = 0;
  let tail = false;
  const fail = (reason: string): void => {
    damaged.push({ line: lineNo, byteOffset: lineStart, byteLength: end - lineStart, reason, tail });
  };
  while (start < bytes.length) {
    const nl = bytes.indexOf(NEWLINE, start);
    end = nl === -1 ? bytes.length : nl;
    lineNo++;
    tail = nl === -1;
    lineStart = start;
    const parsed = parseLine(bytes, start, end);
    start = end + 1;

    if (parsed.kind === "blank") continue;
    if (parsed.kind === "bad") {
      fail(tail ? `incomplete last line (${parsed.reason})` : parsed.reason);
      if (!sawFirstRecord) headerRecovered = true;
      sawFirstRecord = true;
      continue;
    }
    const record = parsed.value;
    const type = record["type"];

    if (!sawFirstRecord) {
      sawFirstRecord = true;
      if (type === "header") {
        const refused = unsupportedVersionReason(record["version"]);
        if (refused !== undefined) return { ok: false, code: "unsupportedVersion", reason: refused };
        version = record["version"] as number;
        header = readHeader(record, chatId, version, (reason) => fail(reason));
        continue;
      }
      // No header: keep the records (never lose a chat), report it.
      headerRecovered = true;
      fail(`missing header; this line was kept and the file read as version ${OLDEST_READABLE_VERSION} onwards`);
    }

    if (type === "message") {
      const message = record["message"];
      if (!isPlainObject(message) || typeof message["role"] !== "string") {
        fail("message record without an object message with a string role");
        continue;
      }
      const rawId = record["id"];
      if (rawId !== undefined && !isValidNodeId(rawId)) {
        fail("message record with an invalid id");
        continue;
      }
      const id = rawId ?? `L${lineNo}`;
      if (tree.has(id)) {
        fail(`message record reuses the id ${id}; skipped`);
        continue;
      }
      const rawParent = record["parentId"];
      let parentId: string | null = tree.leafId;
      if (rawParent === null) parentId = null;
      else if (typeof rawParent === "string") {
        if (tree.has(rawParent)) parentId = rawParent;
        else fail(`message record's parent ${JSON.stringify(rawParent).slice(0, 80)} is not in the file (a damaged line?); attached to the message before it`);
      } else if (rawParent !== undefined) fail("message record with an invalid parentId; attached to the message before it");
      // Trust boundary: the envelope is checked; the message is what append() was given.
      tree.add(id, parentId, message as unknown as M);
      const ts = message["timestamp"];
      if (typeof ts === "number" && Number.isFinite(ts)) {
        lastActivity = ts;
        firstActivity ??= ts;
      }
    } else if (type === "leaf") {
      const id = record["id"];
      if (typeof id === "string" && tree.has(id)) tree.leafId = id;
      else fail("leaf record names no message of this file");
    } else if (type === "model") {
      const choice = readModel(record);
      if (choice) model = choice;
      else fail("model record without provider and modelId");
    } else if (type === "meta") {
      const title = record["title"];
      if (typeof title === "string" || title === null) metaTitle = title;
      else fail("meta record with an invalid title");
      // A rename is not activity: it must not move the chat up the history list.
    } else if (type === "version") {
      const refused = unsupportedVersionReason(record["version"]);
      if (refused !== undefined) return { ok: false, code: "unsupportedVersion", reason: refused };
      version = Math.max(version, record["version"] as number);
    } else if (type === "header") {
      fail("unexpected header after the first line");
    } else {
      fail(`unknown record type ${JSON.stringify(type) ?? "(none)"}`);
    }
  }

  if (headerRecovered && tree.size === 0 && metaTitle === undefined) {
    return { ok: false, code: "noHeader", reason: `chat file ${chatId} has no header and no readable records` };
  }
  header ??= { type: "header", version, chatId, createdAt: firstActivity ?? 0 };
  return {
    ok: true,
    parsed: {
      header,
      headerRecovered,
      tree,
      messages: tree.pathMessages(),
      version,
      metaTitle,
      model,
      lastActivity,
      damaged,
      endsWithNewline: bytes[bytes.length - 1] === NEWLINE,
      byteLength: bytes.length,
    },
  };
}

function readModel(record: Record<string, unknown>): ChatModelChoice | undefined {
  const { provider, modelId, thinkingLevel } = record;
  if (typeof provider !== "string" || provider === "" || typeof modelId !== "string") return undefined;
  return { provider, modelId, ...(typeof thinkingLevel === "string" ? { thinkingLevel } : {}) };
}

type LineResult = { kind: "blank" } | { kind: "bad"; reason: string } | { kind: "record"; value: Record<string, unknown> };

function parseLine(bytes: Uint8Array, start: number, end: number): LineResult {
  let text: string;
  try {
    text = utf8.decode(bytes.subarray(start, end));
  } catch {
    return { kind: "bad", reason: "invalid UTF-8" };
  }
  // Records start with "{"; only other lines need the (copying) trim.
  if (text.charCodeAt(0) !== 0x7b && text.trim() === "") return { kind: "blank" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { kind: "bad", reason: `malformed JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!isPlainObject(value)) return { kind: "bad", reason: "line is not a JSON object" };
  return { kind: "record", value };
}

function readHeader(record: Record<string, unknown>, chatId: string, version: number, fail: (reason: string) => void): TranscriptHeader {
  const createdAt = record["createdAt"];
  const title = record["title"];
  const header: TranscriptHeader = {
    type: "header",
    version,
    chatId,
    createdAt: typeof createdAt === "number" && Number.isFinite(createdAt) ? createdAt : 0,
  };
  if (typeof title === "string") header.title = title;
  const origin = record["origin"];
  if (isPlainObject(origin) && origin["kind"] === "pi-session" && typeof origin["path"] === "string" && typeof origin["sessionId"] === "string")
    header.origin = { kind: "pi-session", path: origin["path"], sessionId: origin["sessionId"] };
  if (record["chatId"] !== chatId) fail(`header chatId ${JSON.stringify(record["chatId"]) ?? "(none)"} differs from the file name; using ${chatId}`);
  if (header.createdAt !== createdAt) fail("header has no valid createdAt");
  return header;
}

/**
 * Reads just the version of a file's first line, for the append path (which must not
 * read the whole file). `head` is the file's first bytes.
 */
export function probeHeader(head: Uint8Array): { version: number } | "none" | { unsupported: string } {
  const nl = head.indexOf(NEWLINE);
  const parsed = parseLine(head, 0, nl === -1 ? head.length : nl);
  if (parsed.kind !== "record" || parsed.value["type"] !== "header") return "none";
  const refused = unsupportedVersionReason(parsed.value["version"]);
  if (refused !== undefined) return { unsupported: `${refused}; refusing to append` };
  return { version: parsed.value["version"] as number };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
