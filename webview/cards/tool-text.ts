// A tool call in words, for the card's name and the live announcements: "Edit src/config.ts",
// "waiting for your decision", "applied". No DOM here: the announcements are tested in Node.
import type { ToolItem } from "../../src/shared/chat-items";
import { toolRow } from "../../src/shared/tool-names";

/** The path a call is about, when its arguments name one. */
export function argPath(args: unknown): string | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  const a = args as Record<string, unknown>;
  for (const key of ["path", "file_path", "filePath", "file"]) {
    const value = a[key];
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
}

/** One line saying what a call without a path was asked to do. */
export function argSummary(args: unknown): string {
  if (typeof args !== "object" || args === null) return "";
  const a = args as Record<string, unknown>;
  for (const key of ["command", "pattern", "query", "url"]) {
    const value = a[key];
    if (typeof value === "string" && value !== "") return clip(value.split("\n")[0] ?? "", 80);
  }
  const json = JSON.stringify(args);
  return json === "{}" ? "" : clip(json, 80);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}\u2026` : text;
}

function detailsPath(details: unknown): string | undefined {
  if (typeof details !== "object" || details === null) return undefined;
  const path = (details as Record<string, unknown>).path;
  return typeof path === "string" && path !== "" ? path : undefined;
}

/**
 * What a call does, in words, for the card's head: "Read src/config.ts", "Search for "port"" (the
 * verbs are in src/shared/tool-names.ts). The tool's own name (read_file) stays in the card's
 * details; a tool without words there shows it.
 */
export function toolVerb(name: string): string {
  return toolRow(name)?.verb ?? name;
}

/** "lines 1–4", "line 3": a range in words. */
export function linesInWords(start: number, end?: number): string {
  return end !== undefined && end !== start ? `lines ${start}\u2013${end}` : `line ${start}`;
}

/** The range a call's details name (read_file's startLine/endLine), if any. */
function detailsRange(details: unknown): { start: number; end?: number } | undefined {
  if (typeof details !== "object" || details === null) return undefined;
  const { startLine, endLine } = details as Record<string, unknown>;
  if (typeof startLine !== "number" || !Number.isInteger(startLine) || startLine < 1) return undefined;
  return typeof endLine === "number" && Number.isInteger(endLine) && endLine >= startLine ? { start: startLine, end: endLine } : { start: startLine };
}

/** "Read src/config.ts, lines 1–4": the whole call in words (the card's name, the announcements). */
export function toolTitle(item: ToolItem): string {
  const target = detailsPath(item.details) ?? item.approval?.path ?? argPath(item.args) ?? argSummary(item.args);
  const range = item.name === "read_file" ? detailsRange(item.details) : undefined;
  return `${toolVerb(item.name)} ${target}${range ? `, ${linesInWords(range.start, range.end)}` : ""}`.trim();
}

/** Where a call stands, in words; an edit says "applied", a denied call "denied". */
export function toolStatusText(item: ToolItem): string {
  const approval = item.approval?.state;
  if (approval === "pending") return "waiting for your decision";
  if (approval === "denied") return "denied";
  // Applied, then put back by *Restore files to here*: it no longer holds (until the restore's Redo).
  if (item.undoneByRestore) return "undone by a restore";
  const edits = item.name === "edit_file" || approval === "allowed";
  switch (item.status) {
    case "pending":
      return "waiting";
    case "running":
      return edits ? "applying" : "running";
    case "success":
      return edits ? "applied" : "done";
    case "error":
      return "failed";
  }
}

/** How a command run ended, as its card's details say (read defensively: the tool's shape is untrusted). */
export interface CommandEnd {
  end?: string;
  exitCode?: number | null;
  signal?: string;
  /** Who stopped it, when known ("Stopped by you"). */
  stoppedBy?: string;
}

/** How a run ended, in the words every command card and announcement use: "Exit code 1", "Timed out". */
export function commandEndWords(end: CommandEnd): string {
  switch (end.end) {
    case "stopped":
      return end.stoppedBy ?? "Stopped";
    case "timeout":
      return "Timed out";
    case "failedToStart":
      return "Could not start";
    default:
      return end.exitCode === null || end.exitCode === undefined ? `Ended by ${end.signal ?? "a signal"}` : `Exit code ${end.exitCode}`;
  }
}

/** A finished run_command call in words for a listener: "exit code 1", "stopped", "timed out", "denied". */
export function commandEndText(item: ToolItem): string {
  if (item.approval?.state === "denied") return "denied";
  const d = typeof item.details === "object" && item.details !== null ? (item.details as Record<string, unknown>) : {};
  const end = typeof d.end === "string" ? d.end : undefined;
  if (end === undefined) return item.status === "error" ? (item.approval === undefined ? "not run" : "failed") : "done";
  if (typeof d.background === "object" && d.background !== null) return "running in the background";
  const exitCode = typeof d.exitCode === "number" || d.exitCode === null ? d.exitCode : undefined;
  const words = commandEndWords({ end, ...(exitCode !== undefined ? { exitCode } : {}) });
  return words.charAt(0).toLowerCase() + words.slice(1);
}
