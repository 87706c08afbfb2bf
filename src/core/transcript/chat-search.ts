// Full-text search of one chat file: the text of its prompts and answers, every branch included.
// A file whose raw bytes cannot contain the words is passed over without parsing it (most of
// them, in a search), so a search costs one read per chat and a parse only per hit.
import { parseTranscript } from "./format";
import { messageText, truncateText } from "./title";
import type { StoredMessage } from "./types";

export interface ChatTextHit {
  chatId: string;
  /** The words around the first match, for the list. */
  snippet: string;
  /** Messages that contain the query. */
  matches: number;
}

const SNIPPET_CHARS = 120;
const decoder = new TextDecoder();

/** Case-insensitive search of `query` in the chat's message text; undefined when it is not there. */
export function searchChatText(bytes: Uint8Array, chatId: string, query: string): ChatTextHit | undefined {
  const needle = query.trim().toLowerCase();
  if (needle === "") return undefined;
  // JSON escapes quotes, backslashes and control characters: only a query without them can be
  // ruled out on the raw text.
  if (!/["\\\u0000-\u001f]/.test(needle) && !decoder.decode(bytes).toLowerCase().includes(needle)) return undefined;
  const parsed = parseTranscript<StoredMessage>(bytes, chatId);
  if (!parsed.ok) return undefined;
  let snippet: string | undefined;
  let matches = 0;
  for (const node of parsed.parsed.tree.nodes()) {
    const text = messageText(node.message);
    const at = text.toLowerCase().indexOf(needle);
    if (at === -1) continue;
    matches++;
    snippet ??= (at > 40 ? "…" : "") + truncateText(text.slice(Math.max(0, at - 40)), SNIPPET_CHARS);
  }
  return snippet === undefined ? undefined : { chatId, snippet, matches };
}
