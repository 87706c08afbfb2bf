// Titles and previews from messages. Messages are opaque here, so text is read
// defensively from the standard shapes: `content` as a string or as text parts.

import type { StoredMessage } from "./types";

export const TITLE_MAX_CHARS = 60;
export const PREVIEW_MAX_CHARS = 100;
export const DEFAULT_TITLE = "New chat";

/** The visible text of a user or assistant message ("" for other roles or no text). */
export function messageText(message: StoredMessage): string {
  if (message.role !== "user" && message.role !== "assistant") return "";
  const content: unknown = (message as StoredMessage & { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const part of content as unknown[]) {
    if (typeof part === "object" && part !== null && (part as { type?: unknown }).type === "text") {
      const text = (part as { text?: unknown }).text;
      if (typeof text === "string") parts.push(text);
    }
  }
  return parts.join(" ");
}

/** Collapses whitespace and cuts at a word boundary when one is near, adding "…". */
export function truncateText(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  // Count code points so a cut never splits a surrogate pair.
  const chars = Array.from(flat);
  if (chars.length <= max) return flat;
  let cut = chars.slice(0, max - 1).join("");
  const space = cut.lastIndexOf(" ");
  if (space >= max * 0.6) cut = cut.slice(0, space);
  return cut.trimEnd() + "…";
}

/** Title from the first user message that has text; undefined when there is none yet. */
export function titleFromMessage(message: StoredMessage): string | undefined {
  if (message.role !== "user") return undefined;
  const title = truncateText(messageText(message), TITLE_MAX_CHARS);
  return title === "" ? undefined : title;
}

export function deriveTitle(messages: readonly StoredMessage[]): string | undefined {
  for (const message of messages) {
    const title = titleFromMessage(message);
    if (title !== undefined) return title;
  }
  return undefined;
}

export function previewFromMessage(message: StoredMessage): string | undefined {
  const preview = truncateText(messageText(message), PREVIEW_MAX_CHARS);
  return preview === "" ? undefined : preview;
}
