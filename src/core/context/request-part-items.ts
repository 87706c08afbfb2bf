// Which chat item each part of a captured request came from, so "Show Model Context" can link a
// part back to it: a prompt, an answer or an app message's sentence to the item of its message on
// the path (`m<index>`, the reducer's id), a tool result (and an approval's sentence) to its tool's
// card (the tool call id). A part with no item of its own (the system prompt, a trim note) has none.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { appMessageFact } from "./app-message-facts";
import { isAppMessage } from "../messages";

/** The item id of each request message, by position; undefined where a part has no item. */
export function requestPartItems(request: readonly Message[], transcript: readonly AgentMessage[]): (string | undefined)[] {
  const byObject = new Map<AgentMessage, number>();
  const byText = new Map<string, string>();
  transcript.forEach((m, index) => {
    byObject.set(m, index);
    if (!isAppMessage(m)) return;
    const fact = safeFact(m);
    if (fact !== null) byText.set(fact, m.role === "approvalNotice" ? m.toolCallId : `m${index}`);
  });
  // A part the context policy copied (images it no longer sends) is found by its content.
  let byJson: Map<string, number> | undefined;
  const findCopy = (m: Message): number | undefined => {
    byJson ??= new Map(transcript.map((t, index) => [jsonOf(t), index]));
    return byJson.get(jsonOf(m));
  };
  return request.map((m) => {
    if (m.role === "system") return undefined;
    if (m.role === "toolResult") return m.toolCallId;
    const index = byObject.get(m);
    if (index !== undefined) return `m${index}`;
    if (m.role === "user" && typeof m.content === "string") {
      const fromFact = byText.get(m.content);
      if (fromFact !== undefined) return fromFact;
    }
    const copy = findCopy(m);
    return copy === undefined ? undefined : `m${copy}`;
  });
}

function jsonOf(m: unknown): string {
  try {
    return JSON.stringify(m);
  } catch {
    return "";
  }
}

/** The words before an item id in a part's heading ("· in the chat `m12`"), which the tab turns into a link. */
export const CHAT_ITEM_LINK = "in the chat";

/** An app message's fact, or null if it has none or fails (a damaged transcript). */
export function safeFact(m: Parameters<typeof appMessageFact>[0]): string | null {
  try {
    return appMessageFact(m);
  } catch {
    return null;
  }
}
