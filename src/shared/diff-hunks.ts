// Builds the hunks an edit card draws (structured-diff.ts) once, in the host, from the diff
// library's own structures: `structuredPatch`'s hunks for a live edit, `parsePatch` over the
// unified text a saved chat holds (approvalNotice.diff, an edit result's details.diff: the
// transcript format is unchanged). `withStructuredDiff` puts them on the `message/end` event and
// drops the text, so the webview gets hunks only, live and restored alike.
import { parsePatch, type StructuredPatchHunk } from "diff";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type {} from "./app-messages"; // the app message kinds in AgentMessage
import type { ChatEvent } from "./protocol";
import type { DiffHunk, DiffLine, DiffLineKind, StructuredDiff } from "./structured-diff";

/** Typed lines from the library's hunks. A trailing "\r" is a line ending shown as text, never part of the line. */
export function hunksFromPatch(hunks: readonly StructuredPatchHunk[]): DiffHunk[] {
  const out: DiffHunk[] = [];
  for (const hunk of hunks) {
    // parsePatch reads a damaged header ("@@ nonsense") as a hunk with NaN positions: not a hunk.
    if (!counted(hunk.oldStart) || !counted(hunk.oldLines) || !counted(hunk.newStart) || !counted(hunk.newLines)) continue;
    out.push({ oldStart: hunk.oldStart, oldLines: hunk.oldLines, newStart: hunk.newStart, newLines: hunk.newLines, lines: typedLines(hunk.lines) });
  }
  return out;
}

function counted(n: number): boolean {
  return Number.isInteger(n) && n >= 0;
}

// A restore builds these for every edit of a long chat: char codes, not string compares.
const PLUS = 43;
const MINUS = 45;
const SPACE = 32;
const BACKSLASH = 92;
const CR = 13;

function typedLines(raw: readonly string[]): DiffLine[] {
  const lines: DiffLine[] = [];
  for (const line of raw) {
    const first = line.charCodeAt(0);
    if (first === BACKSLASH) {
      const last = lines[lines.length - 1];
      if (last) last.noNewline = true;
      continue;
    }
    const end = line.charCodeAt(line.length - 1) === CR ? line.length - 1 : line.length;
    const text = end > 1 ? line.slice(1, end) : "";
    // An empty line is how some tools write a context " " once trailing spaces are trimmed.
    if (first === PLUS) lines.push({ kind: "add", text });
    else if (first === MINUS) lines.push({ kind: "del", text });
    else if (first === SPACE || end === 0) lines.push({ kind: "context", text });
  }
  return lines;
}

/** Hunks of a unified diff text (one file; headers ignored), through the diff library's parser. Never throws. */
export function hunksFromUnifiedDiff(text: string): DiffHunk[] {
  try {
    return hunksFromPatch(parsePatch(text).flatMap((file) => file.hunks));
  } catch {
    // A damaged diff in an old transcript: the card shows no diff rather than failing the restore.
    return [];
  }
}

const SECRET_SUMMARY = /^secret file: (\d+) lines? changed$/;

/**
 * The structured form of a diff text as saved: the unified diff, or for a secret file the summary
 * "secret file: N lines changed" (the only thing its notice keeps). Undefined for no diff at all.
 */
export function structuredDiffFromText(text: string, secret: boolean): StructuredDiff | undefined {
  if (secret) {
    const count = SECRET_SUMMARY.exec(text.trim());
    return { kind: "secret", changedLines: count ? Number(count[1]) : 0 };
  }
  const hunks = hunksFromUnifiedDiff(text);
  return hunks.length > 0 ? { kind: "hunks", hunks } : undefined;
}

/**
 * The structured diff of a message that carries an edit: an approvalNotice's `diff`, or an
 * edit_file result's `details` (`hunks` beside `diff`, the text alone in an older chat, or for a
 * secret file `secret` with the counts).
 */
export function structuredDiffOf(message: AgentMessage): StructuredDiff | undefined {
  if (message.role === "approvalNotice") return message.diff ? structuredDiffFromText(message.diff, message.secret === true) : undefined;
  if (message.role !== "toolResult") return undefined;
  const details = message.details;
  if (typeof details !== "object" || details === null) return undefined;
  const d = details as Record<string, unknown>;
  if (d.secret === true) {
    const count = (n: unknown) => (typeof n === "number" && Number.isInteger(n) && n >= 0 ? n : 0);
    return { kind: "secret", changedLines: Math.max(count(d.additions), count(d.deletions)) };
  }
  if (typeof d.diff !== "string" || d.diff === "") return undefined;
  // edit_file saves structuredPatch's hunks beside the text: no need to parse what it already split.
  const saved = patchHunksOf(d.hunks);
  if (saved && saved.length > 0) return { kind: "hunks", hunks: hunksFromPatch(saved) };
  return structuredDiffFromText(d.diff, false);
}

/** The library's hunks as edit_file saved them, or undefined for anything else (a transcript is read defensively). */
function patchHunksOf(value: unknown): StructuredPatchHunk[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const isNumber = (n: unknown) => typeof n === "number";
  for (const h of value as unknown[]) {
    if (typeof h !== "object" || h === null) return undefined;
    const hunk = h as Record<string, unknown>;
    if (!isNumber(hunk.oldStart) || !isNumber(hunk.oldLines) || !isNumber(hunk.newStart) || !isNumber(hunk.newLines)) return undefined;
    if (!Array.isArray(hunk.lines) || !hunk.lines.every((l) => typeof l === "string")) return undefined;
  }
  return value as StructuredPatchHunk[];
}

/**
 * The message without the diff text its structured form replaces: an approvalNotice without
 * `diff`, an edit result's details without `diff` and the library's `hunks`. Saved messages keep
 * theirs: this is only what the view is given.
 */
export function withoutDiffText(message: AgentMessage): AgentMessage {
  if (message.role === "approvalNotice" && message.diff !== undefined) {
    const { diff: _text, ...rest } = message;
    return rest;
  }
  if (message.role === "toolResult" && typeof message.details === "object" && message.details !== null && "diff" in message.details) {
    const { diff: _text, hunks: _hunks, ...details } = message.details as Record<string, unknown>;
    return { ...message, details: details as typeof message.details };
  }
  return message;
}

/**
 * A `message/end` event with the structured diff of its message (and the message without its diff
 * text); any other event as it is. Pure: the session applies it to every event it emits, the
 * restore to every saved message, so a restored card gets the hunks the live one got.
 */
export function withStructuredDiff(event: ChatEvent): ChatEvent {
  if (event.type === "message/start") {
    // A whole message starts and ends at once (all but the assistant's): its end brings the hunks.
    if (structuredDiffOf(event.message) === undefined) return event;
    return { ...event, message: withoutDiffText(event.message) };
  }
  if (event.type !== "message/end" || event.diff !== undefined) return event;
  const diff = structuredDiffOf(event.message);
  return diff ? { ...event, message: withoutDiffText(event.message), diff } : event;
}

/**
 * The diffs of a saved chat, for a restore. An applied edit's notice holds the same text as its
 * result, and the result also holds structuredPatch's hunks: the notice takes those instead of
 * parsing the text again (parsePatch was a third of a 10,000-message restore's item building).
 */
export class SavedDiffs {
  /** Per applied edit: its result's diff text and the hunks built from the result's saved ones (once, on first use). */
  private readonly results = new Map<string, { text: string; hunks: StructuredPatchHunk[]; built?: StructuredDiff }>();

  constructor(messages: readonly AgentMessage[]) {
    for (const message of messages) {
      if (message.role !== "toolResult" || typeof message.details !== "object" || message.details === null) continue;
      const d = message.details as Record<string, unknown>;
      if (typeof d.diff !== "string" || d.diff === "" || d.secret === true) continue;
      const hunks = patchHunksOf(d.hunks);
      if (hunks && hunks.length > 0) this.results.set(message.toolCallId, { text: d.diff, hunks });
    }
  }

  /** What `structuredDiffOf` gives for this message; an edit's notice and result share one (immutable) value. */
  of(message: AgentMessage): StructuredDiff | undefined {
    const sameEdit =
      (message.role === "approvalNotice" && message.secret !== true && typeof message.diff === "string") || message.role === "toolResult"
        ? this.results.get(message.toolCallId)
        : undefined;
    if (sameEdit !== undefined && (message.role === "toolResult" || sameEdit.text === (message as { diff?: string }).diff)) {
      sameEdit.built ??= { kind: "hunks", hunks: hunksFromPatch(sameEdit.hunks) };
      return sameEdit.built;
    }
    return structuredDiffOf(message);
  }

  /** The event a saved message replays as (the message without the diff text, the hunks beside it). */
  event(message: AgentMessage): Extract<ChatEvent, { type: "message/end" }> {
    const diff = this.of(message);
    return diff ? { type: "message/end", message: withoutDiffText(message), diff } : { type: "message/end", message };
  }
}
