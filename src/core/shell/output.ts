// The output of one command, collected as it arrives: cleaned (ANSI codes, carriage-return
// progress lines, control characters, every known key), counted, kept as a bounded head and tail
// for the model and the card, and written whole to a log file the card can open. Memory stays
// bounded whatever the command prints: 10 MB of output costs the same few hundred KB as 100 KB.
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { formatBytes } from "../../shared/format";

/** What the model gets at most: the limits pi's tools use (2,000 lines / 50 KB). */
export const MODEL_OUTPUT_MAX_LINES = 2000;
export const MODEL_OUTPUT_MAX_BYTES = 50 * 1024;
/** Of those, kept from the start (the command's first words often say what it is doing). */
const HEAD_SHARE = 0.2;
/** A line longer than this is cut for the model and the card (the log keeps it whole). */
export const MAX_LINE_CHARS = 2000;
/** A "line" that never ends (a progress bar without \n) is flushed at this length. */
const MAX_PENDING_CHARS = 64 * 1024;
/** The log file stops growing here: a runaway command must not fill the disk. */
export const MAX_LOG_BYTES = 64 * 1024 * 1024;
/** Lines the card shows while the command runs. */
export const LIVE_TAIL_LINES = 20;

// CSI/OSC/other escape sequences (after the `ansi-regex` pattern, plus OSC ended by ESC \).
const ANSI =
  /[\u001B\u009B][[\]()#;?]*(?:(?:(?:(?:;[-a-zA-Z\d/#&.:=?%@~_]+)*|[a-zA-Z\d]+(?:;[-a-zA-Z\d/#&.:=?%@~_]*)*)?(?:\u0007|\u001B\\))|(?:(?:\d{1,4}(?:;\d{0,4})*)?[\dA-PR-TZcf-ntqry=><~]))/g;
const OSC = /\u001B\][^\u0007\u001B]*(?:\u0007|\u001B\\)?/g;
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;

/** One line as a person would read it on a terminal: escape codes gone, `\r` overwrites resolved. */
export function cleanLine(raw: string): string {
  let line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  line = line.replace(OSC, "").replace(ANSI, "");
  if (line.includes("\r")) {
    // A progress line rewritten with \r: what stays on screen is the last non-empty rewrite.
    const rewrites = line.split("\r").filter((s) => s !== "");
    line = rewrites[rewrites.length - 1] ?? "";
  }
  return line.replace(CONTROL, "");
}

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8") + 1; // + the newline
}

function clipLine(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${line.length.toLocaleString("en-US")} characters]` : line;
}

export interface OutputSummary {
  /** The cleaned, capped text: head, a note of what was cut, tail. */
  text: string;
  totalLines: number;
  totalBytes: number;
  /** Lines left out between head and tail (0 when nothing was cut). */
  cutLines: number;
  cutBytes: number;
  /** Some bytes were not valid UTF-8 (shown as U+FFFD). */
  invalidUtf8: boolean;
  /** The whole cleaned output, when it was written to a file. */
  logFile?: string;
  logTruncated: boolean;
}

/** What command output is redacted with (SecretRedactor: every known key, and key shapes). */
export interface OutputRedactor {
  text(text: string): string;
  /** Where a line that never ends can be cut without splitting a key across the two pieces. */
  cutPoint(text: string, hold: number): number;
}

/** Of a line flushed before its end, this much stays pending, so a key being written is not cut. */
const PENDING_HOLD_CHARS = 1024;

export interface CommandOutputOptions {
  /** Replaces secrets (every known key, key shapes) in every line before it is kept anywhere. */
  redact?: OutputRedactor;
  /** Where to write the whole cleaned output. */
  logFile?: string;
  maxLines?: number;
  maxBytes?: number;
  /** Keep lines for `takeNew()` (a background process whose newer output the model reads). */
  keepUnread?: boolean;
}

export class CommandOutput {
  private readonly decoder = new TextDecoder("utf-8", { fatal: false });
  private readonly strictDecoder = new TextDecoder("utf-8", { fatal: true });
  private pending = "";
  private readonly head: string[] = [];
  private headBytes = 0;
  private headFull = false;
  private tail: string[] = [];
  private tailStart = 0;
  private tailBytes = 0;
  private totalLines = 0;
  private totalBytes = 0;
  private invalidUtf8 = false;
  private logFd: number | undefined;
  private logBytes = 0;
  private logOpened: string | undefined;
  /** Log text not written yet: one write per 64 KB, not one per line. */
  private logBuffer = "";
  private logTruncated = false;
  private readonly headMaxLines: number;
  private readonly headMaxBytes: number;
  private readonly tailMaxLines: number;
  private readonly tailMaxBytes: number;
  /** Lines read by the last `takeNew()` (background processes). */
  private readCursor = 0;
  private readonly recent: { index: number; line: string }[] = [];
  private finished = false;

  constructor(private readonly options: CommandOutputOptions = {}) {
    const maxLines = options.maxLines ?? MODEL_OUTPUT_MAX_LINES;
    const maxBytes = options.maxBytes ?? MODEL_OUTPUT_MAX_BYTES;
    this.headMaxLines = Math.floor(maxLines * HEAD_SHARE);
    this.headMaxBytes = Math.floor(maxBytes * HEAD_SHARE);
    this.tailMaxLines = maxLines - this.headMaxLines;
    this.tailMaxBytes = maxBytes - this.headMaxBytes;
    if (options.logFile) {
      try {
        mkdirSync(dirname(options.logFile), { recursive: true });
        this.logFd = openSync(options.logFile, "w");
        this.logOpened = options.logFile;
      } catch {
        this.logFd = undefined; // no log file: the capped output is still complete as a summary
      }
    }
  }

  /** Bytes from a process, or text from a terminal. */
  push(chunk: Uint8Array | string): void {
    if (this.finished) return;
    let text: string;
    if (typeof chunk === "string") text = chunk;
    else {
      text = this.decoder.decode(chunk, { stream: true });
      if (!this.invalidUtf8 && text.includes("\uFFFD")) this.checkUtf8(chunk);
    }
    this.pending += text;
    let newline = this.pending.indexOf("\n");
    let start = 0;
    while (newline !== -1) {
      this.addLine(this.pending.slice(start, newline));
      start = newline + 1;
      newline = this.pending.indexOf("\n", start);
    }
    this.pending = this.pending.slice(start);
    if (this.pending.includes("\r")) {
      // Keep only the current rewrite of a progress line that has no \n yet.
      const parts = this.pending.split("\r");
      const lastNonEmpty = parts.filter((p) => p !== "").pop() ?? "";
      this.pending = parts[parts.length - 1] === "" ? `${lastNonEmpty}\r` : parts[parts.length - 1]!;
    }
    if (this.pending.length > MAX_PENDING_CHARS) {
      // Flushed before its end: cut where no key (nor half of one still arriving) is split.
      const cut = this.options.redact?.cutPoint(this.pending, PENDING_HOLD_CHARS) || this.pending.length;
      this.addLine(this.pending.slice(0, cut));
      this.pending = this.pending.slice(cut);
    }
  }

  /** The process ended: the last line without a newline counts too. */
  finish(): void {
    if (this.finished) return;
    const rest = this.decoder.decode();
    if (rest) this.pending += rest;
    if (this.pending !== "") this.addLine(this.pending);
    this.pending = "";
    this.finished = true;
    this.flushLog();
    if (this.logFd !== undefined) {
      try {
        closeSync(this.logFd);
      } catch {
        // already closed
      }
      this.logFd = undefined;
    }
  }

  /** The last lines, for the card while the command runs. */
  liveTail(lines = LIVE_TAIL_LINES): string[] {
    const fromTail = this.tail.slice(Math.max(this.tailStart, this.tail.length - lines));
    if (fromTail.length >= lines || this.tailStart > 0) return fromTail;
    return [...this.head, ...fromTail].slice(-lines);
  }

  get lineCount(): number {
    return this.totalLines;
  }

  /** Lines not read yet by `takeNew` (capped like everything else), for a background process. */
  takeNew(): { text: string; skipped: number } {
    let fresh = this.recent.filter((r) => r.index >= this.readCursor);
    let bytes = 0;
    let keepFrom = fresh.length;
    while (keepFrom > 0 && fresh.length - keepFrom < this.tailMaxLines && bytes + utf8Bytes(fresh[keepFrom - 1]!.line) <= this.tailMaxBytes) {
      keepFrom -= 1;
      bytes += utf8Bytes(fresh[keepFrom]!.line);
    }
    fresh = fresh.slice(keepFrom);
    const firstIndex = fresh[0]?.index ?? this.totalLines;
    const skipped = Math.max(0, firstIndex - this.readCursor);
    this.readCursor = this.totalLines;
    this.recent.length = 0;
    return { text: fresh.map((r) => r.line).join("\n"), skipped };
  }

  summary(): OutputSummary {
    const tail = this.tail.slice(this.tailStart);
    const cutLines = this.totalLines - this.head.length - tail.length;
    const keptBytes = this.headBytes + this.tailBytes;
    const cutBytes = Math.max(0, this.totalBytes - keptBytes);
    const pieces = [...this.head];
    if (cutLines > 0)
      pieces.push(
        `[… ${cutLines.toLocaleString("en-US")} lines (${formatBytes(cutBytes)}) cut here; the first ${this.head.length} and the last ${tail.length} lines are shown …]`,
      );
    pieces.push(...tail);
    const summary: OutputSummary = {
      text: pieces.join("\n"),
      totalLines: this.totalLines,
      totalBytes: this.totalBytes,
      cutLines: Math.max(0, cutLines),
      cutBytes: cutLines > 0 ? cutBytes : 0,
      invalidUtf8: this.invalidUtf8,
      logTruncated: this.logTruncated,
    };
    if (this.logOpened) summary.logFile = this.logOpened;
    return summary;
  }

  private checkUtf8(chunk: Uint8Array): void {
    try {
      this.strictDecoder.decode(chunk, { stream: true });
    } catch {
      this.invalidUtf8 = true;
    }
  }

  private addLine(raw: string): void {
    const redact = this.options.redact;
    const cleaned = cleanLine(raw);
    const line = redact ? redact.text(cleaned) : cleaned;
    this.writeLog(line);
    const bytes = utf8Bytes(line);
    this.totalLines += 1;
    this.totalBytes += bytes;
    const shown = clipLine(line);
    const shownBytes = utf8Bytes(shown);
    if (this.options.keepUnread) {
      this.recent.push({ index: this.totalLines - 1, line: shown });
      // Bounded like the tail: an unread flood keeps only its newest lines.
      if (this.recent.length > 2 * this.tailMaxLines) this.recent.splice(0, this.recent.length - this.tailMaxLines);
    }
    if (!this.headFull && this.head.length < this.headMaxLines && this.headBytes + shownBytes <= this.headMaxBytes) {
      this.head.push(shown);
      this.headBytes += shownBytes;
      return;
    }
    this.headFull = true;
    this.tail.push(shown);
    this.tailBytes += shownBytes;
    while (this.tail.length - this.tailStart > this.tailMaxLines || this.tailBytes > this.tailMaxBytes) {
      this.tailBytes -= utf8Bytes(this.tail[this.tailStart]!);
      this.tailStart += 1;
    }
    // Compact now and then, so dropping from the front stays cheap.
    if (this.tailStart > 4096 && this.tailStart > this.tail.length / 2) {
      this.tail = this.tail.slice(this.tailStart);
      this.tailStart = 0;
    }
  }

  private writeLog(line: string): void {
    if (this.logFd === undefined || this.logTruncated) return;
    const size = Buffer.byteLength(line, "utf8") + 1;
    if (this.logBytes + size > MAX_LOG_BYTES) {
      this.logBuffer += `[the log stops here: it reached ${formatBytes(MAX_LOG_BYTES)}]\n`;
      this.logTruncated = true;
      this.flushLog();
      return;
    }
    this.logBuffer += `${line}\n`;
    this.logBytes += size;
    if (this.logBuffer.length >= 64 * 1024) this.flushLog();
  }

  private flushLog(): void {
    if (this.logFd === undefined || this.logBuffer === "") return;
    try {
      writeSync(this.logFd, this.logBuffer);
    } catch {
      this.logTruncated = true;
    }
    this.logBuffer = "";
  }
}
