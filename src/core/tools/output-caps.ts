// One truncation helper for every discovery tool: a list of result lines is cut to a number of
// lines and of UTF-8 bytes, whichever comes first, and the tool says what was left out and how
// to get it. A result that grows with the workspace would flood the model's context.
import { utf8Length } from "./file-access";
import { formatBytes } from "../../shared/format";

export interface OutputCaps {
  readonly maxLines: number;
  readonly maxBytes: number;
}

export interface CappedLines {
  /** The lines kept, joined with "\n". */
  readonly text: string;
  /** How many of the given lines were kept. */
  readonly shown: number;
  /** Why the rest was cut, if it was. */
  readonly truncatedBy?: "lines" | "bytes";
}

/** Keeps whole lines from the start while both caps hold. */
export function capLines(lines: readonly string[], caps: OutputCaps): CappedLines {
  const kept: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    if (kept.length >= caps.maxLines) return { text: kept.join("\n"), shown: kept.length, truncatedBy: "lines" };
    const size = utf8Length(line) + (kept.length > 0 ? 1 : 0);
    if (bytes + size > caps.maxBytes) return { text: kept.join("\n"), shown: kept.length, truncatedBy: "bytes" };
    kept.push(line);
    bytes += size;
  }
  return { text: kept.join("\n"), shown: kept.length };
}

/** What a cap cut, for the note: "(limit: 500 entries)" or "(limit: 20 KB of output)". */
export function capReason(capped: CappedLines, caps: OutputCaps, unit: string): string {
  if (capped.truncatedBy === "bytes") return `the ${formatBytes(caps.maxBytes)} output limit`;
  return `the ${caps.maxLines} ${unit} limit`;
}

/** Longest line text shown in a search result; longer lines are cut around the match. */
export const MAX_RESULT_LINE_CHARS = 200;

/**
 * A line shortened to about `maxChars` around a 1-based `column`, with "…" where text was cut,
 * never splitting a surrogate pair. Leading/trailing whitespace is trimmed (indentation is noise).
 */
export function shortenAround(line: string, column: number, maxChars = MAX_RESULT_LINE_CHARS): string {
  const text = line.replace(/\r?\n$/, "");
  if (text.length <= maxChars) return text.trim();
  const at = Math.max(0, Math.min(text.length, column - 1));
  let start = Math.max(0, Math.min(at - Math.floor(maxChars / 3), text.length - maxChars));
  let end = start + maxChars;
  if (isLowSurrogate(text.charCodeAt(start))) start++;
  if (isLowSurrogate(text.charCodeAt(end))) end--;
  return `${start > 0 ? "…" : ""}${text.slice(start, end).trim()}${end < text.length ? "…" : ""}`;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
