// Builds the hunks an edit card draws (structured-diff.ts) once, in the host, from the diff
// library's own structures: `structuredPatch`'s hunks for a live edit, `parsePatch` over the
// unified text a saved chat holds (approvalNotice.diff, an edit result's details.diff: the
// transcript format is unchanged). `withStructuredDiff` puts them on the `message/end` event and
// drops the text, so the webview gets hunks only, live and restored alike.
import { parsePatch, type StructuredPatchHunk } from "diff";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type {} from "./app-messages"; // the app message kinds in AgentMessage
import type { ChatEvent } from "./protocol";
import type { DiffHunk, StructuredDiff } from "./structured-diff";

/**
 * The hunks to draw from the library's hunks: the same objects when every one is whole (a saved
 * edit's are, and a restore reuses them as read), else the whole ones, each with only the fields
 * drawn. Lines that are not strings make a hunk not whole.
 */
export function hunksFromPatch(hunks: readonly StructuredPatchHunk[]): DiffHunk[] {
  if (hunks.every(isWhole)) return hunks.slice();
  return hunks.filter(isWhole).map((h) => ({ oldStart: h.oldStart, oldLines: h.oldLines, newStart: h.newStart, newLines: h.newLines, lines: h.lines }));
}

/** Only the fields a DiffHunk has, so nothing else of a hunk read from a file reaches the view. */
function isWhole(hunk: StructuredPatchHunk): boolean {
  // parsePatch reads a damaged header ("@@ nonsense") as a hunk with NaN positions: not a hunk.
  if (!counted(hunk.oldStart) || !counted(hunk.oldLines) || !counted(hunk.newStart) || !counted(hunk.newLines)) return false;
  const keys = Object.keys(hunk);
  return keys.length === 5 && Array.isArray(hunk.lines) && hunk.lines.every((l) => typeof l === "string");
}

function counted(n: unknown): boolean {
  return Number.isInteger(n) && (n as number) >= 0;
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
  const saved = savedHunksOf(d.hunks);
  if (saved && saved.length > 0) return { kind: "hunks", hunks: saved };
  return structuredDiffFromText(d.diff, false);
}

/**
 * The library's hunks as edit_file saved them, as they are (no copy of a line), or undefined for
 * anything else: a transcript is read defensively, and one damaged hunk sends the caller back to the text.
 */
function savedHunksOf(value: unknown): DiffHunk[] | undefined {
  if (!Array.isArray(value)) return undefined;
  for (const h of value as unknown[]) if (typeof h !== "object" || h === null || !isWhole(h as StructuredPatchHunk)) return undefined;
  return (value as DiffHunk[]).slice();
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
 * result, and the result also holds structuredPatch's hunks: both cards take those, as read from the
 * file, instead of parsing the text again (parsePatch was a third of a 10,000-message restore's
 * item building) or copying each line into an object of its own.
 */
export class SavedDiffs {
  /** Per applied edit: its result's diff text and saved hunks, and the diff both cards share (made on first use). */
  private readonly results = new Map<string, { text: string; hunks: DiffHunk[]; built?: StructuredDiff }>();

  constructor(messages: readonly AgentMessage[]) {
    for (const message of messages) {
      if (message.role !== "toolResult" || typeof message.details !== "object" || message.details === null) continue;
      const d = message.details as Record<string, unknown>;
      if (typeof d.diff !== "string" || d.diff === "" || d.secret === true) continue;
      const hunks = savedHunksOf(d.hunks);
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
      sameEdit.built ??= { kind: "hunks", hunks: sameEdit.hunks };
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
