// A tool call in words, for the card's name and the live announcements: "Edit src/config.ts",
// "waiting for your decision", "applied". No DOM here: the announcements are tested in Node.
import type { ToolItem } from "../src/shared/chat-items";

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

/** What a call does, in words: "Edit src/config.ts", "Read README.md". */
const VERBS: Record<string, string> = { edit_file: "Edit", read_file: "Read" };

export function toolTitle(item: ToolItem): string {
  const target = detailsPath(item.details) ?? item.approval?.path ?? argPath(item.args) ?? argSummary(item.args);
  return `${VERBS[item.name] ?? item.name} ${target}`.trim();
}

/** Where a call stands, in words; an edit says "applied", a denied call "denied". */
export function toolStatusText(item: ToolItem): string {
  const approval = item.approval?.state;
  if (approval === "pending") return "waiting for your decision";
  if (approval === "denied") return "denied";
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
