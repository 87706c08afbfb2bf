// Reading a pi coding-agent session file (session format version 3: a JSONL tree of entries,
// docs/pi-sessions.md). Pure: bytes in, entries and notes out; never throws, never writes.
// Damage is read around, as pi itself does (it skips malformed lines), but every skip is said.

/** The newest pi session format this build reads. */
export const PI_SESSION_VERSION = 3;
/** Larger files are refused before they are read: one chat of this size is not a chat to reopen whole. */
export const MAX_PI_SESSION_BYTES = 50 * 1024 * 1024;
/**
 * One entry (one line: a message with its images) larger than this refuses the file: Pi Chat's
 * store, view and context handle a message of a few MB (a prompt's image is at most 8 MB), and a
 * 40 MB message held the extension host for tens of seconds and took hundreds of MB.
 */
export const MAX_PI_ENTRY_BYTES = 10 * 1024 * 1024;
/** More entries than this refuse the file: Pi Chat's figures are measured on chats of 10,000 messages. */
export const MAX_PI_ENTRIES = 100_000;
/** Lines read between two yields of the sliced reader (parsePiSessionInSlices). */
const LINES_PER_SLICE = 2_000;

export interface PiSessionHeader {
  version: number;
  /** pi's session id (a UUID). */
  id: string;
  /** ISO time. */
  timestamp: string;
  cwd: string;
}

/** One entry of the tree, as stored; fields beyond these are read by the mapper per `type`. */
export interface PiEntry {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: string;
  /** 1-based line of the file. */
  line: number;
  [field: string]: unknown;
}

export interface PiSessionFile {
  header: PiSessionHeader;
  /** Entries in file order; a parent always comes before its children (others were re-rooted, with a note). */
  entries: PiEntry[];
  /** What was read around: damaged lines, re-rooted entries. Shown to the user with the chat. */
  notes: string[];
}

export type PiReadResult = { ok: true; session: PiSessionFile } | { ok: false; reason: string };

const utf8 = new TextDecoder("utf-8", { fatal: true });

const mb = (n: number) => `${Math.round(n / (1024 * 1024))} MB`;

/** Why a file of `size` bytes is not read, or undefined. */
export function sizeRefusal(size: number): string | undefined {
  if (size <= MAX_PI_SESSION_BYTES) return undefined;
  return `the pi session is ${mb(size)}, larger than the ${mb(MAX_PI_SESSION_BYTES)} Pi Chat opens; it was not read`;
}

/** Reads the whole file at once (tests, small files); the command reads in slices. */
export function parsePiSession(bytes: Uint8Array): PiReadResult {
  const steps = parseSteps(bytes);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** How far the sliced reader got, for a progress bar. */
export interface ParseProgress {
  readonly bytesRead: number;
  readonly totalBytes: number;
}

/**
 * The same reading, a slice of lines at a time with `between` awaited after each slice (it yields
 * the event loop and reports progress); `cancelled` is asked there, and a cancelled read stops.
 */
export async function parsePiSessionInSlices(
  bytes: Uint8Array,
  between: (progress: ParseProgress) => Promise<void>,
  cancelled: () => boolean = () => false,
): Promise<PiReadResult> {
  const steps = parseSteps(bytes);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await between({ bytesRead: step.value, totalBytes: bytes.length });
    if (cancelled()) return { ok: false, reason: "cancelled" };
  }
}

/** The reader: yields the bytes read so far every LINES_PER_SLICE lines, returns the result. */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: a line reader that yields between slices; its checks are the session format's, in file order
function* parseSteps(bytes: Uint8Array): Generator<number, PiReadResult> {
  const refused = sizeRefusal(bytes.length);
  if (refused) return { ok: false, reason: refused };
  if (bytes.length === 0) return { ok: false, reason: "the pi session file is empty" };

  const notes: string[] = [];
  const entries: PiEntry[] = [];
  const seen = new Set<string>();
  let header: PiSessionHeader | undefined;
  let lineNo = 0;
  let start = 0;
  let skipped = 0;
  const skip = (reason: string) => {
    skipped++;
    // A few lines are named; a file with thousands of bad lines gets a count, not a wall of text.
    if (skipped <= 5) notes.push(`line ${lineNo}: ${reason}; skipped`);
  };
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    const tail = end === -1;
    if (tail) end = bytes.length;
    lineNo++;
    if (lineNo % LINES_PER_SLICE === 0) yield start;
    if (end - start > MAX_PI_ENTRY_BYTES) {
      return {
        ok: false,
        reason: `line ${lineNo} of the pi session is ${mb(end - start)}, larger than the ${mb(MAX_PI_ENTRY_BYTES)} one entry may be in a chat Pi Chat opens (its store, view and context would stall on it); it was not opened`,
      };
    }
    const slice = bytes.subarray(start, end);
    start = end + 1;
    let text: string;
    try {
      text = utf8.decode(slice);
    } catch {
      skip("invalid UTF-8");
      continue;
    }
    if (text.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      skip(tail ? "the last line is cut off (pi was stopped while writing?)" : "not valid JSON");
      continue;
    }
    if (!isObject(value) || typeof value["type"] !== "string") {
      skip("not an entry (no type)");
      continue;
    }
    if (header === undefined) {
      if (value["type"] !== "session") return { ok: false, reason: "not a pi session file: its first line is not a session header" };
      const version = value["version"] ?? 1;
      if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
        return { ok: false, reason: `the pi session has no valid version (found ${JSON.stringify(version)})` };
      }
      if (version > PI_SESSION_VERSION) {
        return {
          ok: false,
          reason: `the pi session is format version ${version}, newer than Pi Chat reads (up to ${PI_SESSION_VERSION}); update Pi Chat to open it. The file was left as it is.`,
        };
      }
      if (version < 2) return { ok: false, reason: `the pi session is format version ${version} (linear); open it once in pi, which migrates it to version 3` };
      header = {
        version,
        id: typeof value["id"] === "string" ? value["id"] : "",
        timestamp: typeof value["timestamp"] === "string" ? value["timestamp"] : "",
        cwd: typeof value["cwd"] === "string" ? value["cwd"] : "",
      };
      continue;
    }
    const { id, parentId } = value;
    if (typeof id !== "string" || id === "") {
      skip(`a ${String(value["type"]).slice(0, 40)} entry without an id`);
      continue;
    }
    if (seen.has(id)) {
      skip(`entry id ${id.slice(0, 40)} is used twice`);
      continue;
    }
    let parent: string | null = null;
    if (typeof parentId === "string") {
      // pi appends a child after its parent: a parent not yet seen is a loop or damage. Rooting the
      // entry there breaks any loop, so walking the tree always ends.
      if (seen.has(parentId)) parent = parentId;
      else
        notes.push(
          `line ${lineNo}: entry ${id.slice(0, 40)} names a parent that is not before it in the file (a loop or a damaged line); it starts a new root`,
        );
    } else if (parentId !== null && parentId !== undefined) {
      notes.push(`line ${lineNo}: entry ${id.slice(0, 40)} has an invalid parentId; it starts a new root`);
    }
    if (entries.length >= MAX_PI_ENTRIES) {
      return {
        ok: false,
        reason: `the pi session has more than ${MAX_PI_ENTRIES.toLocaleString("en-US")} entries, more than a chat Pi Chat opens stays responsive with; it was not opened`,
      };
    }
    seen.add(id);
    entries.push({
      ...value,
      type: value["type"] as string,
      id,
      parentId: parent,
      timestamp: typeof value["timestamp"] === "string" ? value["timestamp"] : "",
      line: lineNo,
    });
  }
  if (header === undefined) return { ok: false, reason: "not a pi session file: no session header could be read" };
  if (skipped > 5) notes.push(`${skipped - 5} more damaged lines skipped`);
  return { ok: true, session: { header, entries, notes } };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
