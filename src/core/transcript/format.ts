// The JSONL line format: serializing records and parsing a whole file. Pure functions,
// no I/O. Parsing never throws: every bad line becomes a DamagedLine.

import {
  TRANSCRIPT_FORMAT_VERSION,
  type DamagedLine,
  type LoadFailureCode,
  type MessageRecord,
  type MetaRecord,
  type StoredMessage,
  type TranscriptHeader,
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

/** Throws TypeError for something that cannot be stored, before anything is written. */
export function messageLine(message: StoredMessage): string {
  if (!isPlainObject(message) || typeof message.role !== "string") {
    throw new TypeError("transcript message must be an object with a string role");
  }
  const record: MessageRecord = { type: "message", message };
  // JSON.stringify escapes newlines inside strings, so one record is always one line.
  return JSON.stringify(record) + "\n";
}

export interface ParsedTranscript<M extends StoredMessage> {
  header: TranscriptHeader;
  /** The header line was missing or unusable and `header` was synthesized. */
  headerRecovered: boolean;
  messages: M[];
  /** Last meta title (undefined: no meta line; null: cleared). */
  metaTitle: string | null | undefined;
  /** Timestamp of the last message that had one. */
  lastActivity: number | undefined;
  damaged: DamagedLine[];
  endsWithNewline: boolean;
  byteLength: number;
}

export type ParseOutcome<M extends StoredMessage> =
  | { ok: true; parsed: ParsedTranscript<M> }
  | { ok: false; code: LoadFailureCode; reason: string };

/** Parses a whole chat file. `chatId` (from the file name) fills in a missing header. */
export function parseTranscript<M extends StoredMessage>(bytes: Uint8Array, chatId: string): ParseOutcome<M> {
  if (bytes.length === 0) return { ok: false, code: "empty", reason: `chat file ${chatId} is empty` };

  const messages: M[] = [];
  const damaged: DamagedLine[] = [];
  let header: TranscriptHeader | undefined;
  let headerRecovered = false;
  let metaTitle: string | null | undefined;
  let lastActivity: number | undefined;
  let firstActivity: number | undefined;
  let sawFirstRecord = false;

  let start = 0;
  let lineNo = 0;
  while (start < bytes.length) {
    const nl = bytes.indexOf(NEWLINE, start);
    const end = nl === -1 ? bytes.length : nl;
    lineNo++;
    const tail = nl === -1;
    const lineStart = start;
    const fail = (reason: string): void => {
      damaged.push({ line: lineNo, byteOffset: lineStart, byteLength: end - lineStart, reason, tail });
    };
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
        const version = record["version"];
        if (version !== TRANSCRIPT_FORMAT_VERSION) {
          return {
            ok: false,
            code: "unsupportedVersion",
            reason:
              typeof version === "number"
                ? `chat file format version ${version} is not supported by this build (it reads version ${TRANSCRIPT_FORMAT_VERSION}); it may come from a newer Pi Chat`
                : `chat file header has no valid version (found ${JSON.stringify(version) ?? "nothing"})`,
          };
        }
        header = readHeader(record, chatId, (reason) => fail(reason));
        continue;
      }
      // No header: keep the records (never lose a chat), report it.
      headerRecovered = true;
      fail(`missing header; this line was kept and the file read as version ${TRANSCRIPT_FORMAT_VERSION}`);
    }

    if (type === "message") {
      const message = record["message"];
      if (isPlainObject(message) && typeof message["role"] === "string") {
        // Trust boundary: the envelope is checked; the message is what append() was given.
        messages.push(message as unknown as M);
        const ts = message["timestamp"];
        if (typeof ts === "number" && Number.isFinite(ts)) {
          lastActivity = ts;
          firstActivity ??= ts;
        }
      } else {
        fail("message record without an object message with a string role");
      }
    } else if (type === "meta") {
      const title = record["title"];
      if (typeof title === "string" || title === null) metaTitle = title;
      else fail("meta record with an invalid title");
      // A rename is not activity: it must not move the chat up the history list.
    } else if (type === "header") {
      fail("unexpected header after the first line");
    } else {
      fail(`unknown record type ${JSON.stringify(type) ?? "(none)"}`);
    }
  }

  if (headerRecovered && messages.length === 0 && metaTitle === undefined) {
    return { ok: false, code: "noHeader", reason: `chat file ${chatId} has no header and no readable records` };
  }
  header ??= { type: "header", version: TRANSCRIPT_FORMAT_VERSION, chatId, createdAt: firstActivity ?? 0 };
  return {
    ok: true,
    parsed: {
      header,
      headerRecovered,
      messages,
      metaTitle,
      lastActivity,
      damaged,
      endsWithNewline: bytes[bytes.length - 1] === NEWLINE,
      byteLength: bytes.length,
    },
  };
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

function readHeader(record: Record<string, unknown>, chatId: string, fail: (reason: string) => void): TranscriptHeader {
  const createdAt = record["createdAt"];
  const title = record["title"];
  const header: TranscriptHeader = {
    type: "header",
    version: TRANSCRIPT_FORMAT_VERSION,
    chatId,
    createdAt: typeof createdAt === "number" && Number.isFinite(createdAt) ? createdAt : 0,
  };
  if (typeof title === "string") header.title = title;
  if (record["chatId"] !== chatId) fail(`header chatId ${JSON.stringify(record["chatId"]) ?? "(none)"} differs from the file name; using ${chatId}`);
  if (header.createdAt !== createdAt) fail("header has no valid createdAt");
  return header;
}

/**
 * Reads just the version of a file's first line, for the append path (which must not
 * read the whole file). `head` is the file's first bytes.
 */
export function probeHeader(head: Uint8Array): "v1" | "none" | { unsupported: string } {
  const nl = head.indexOf(NEWLINE);
  const parsed = parseLine(head, 0, nl === -1 ? head.length : nl);
  if (parsed.kind !== "record" || parsed.value["type"] !== "header") return "none";
  const version = parsed.value["version"];
  if (version === TRANSCRIPT_FORMAT_VERSION) return "v1";
  return { unsupported: `chat file format version ${JSON.stringify(version) ?? "(none)"} is not supported; refusing to append` };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
