// What the live regions say: meaning, not motion. One announcement per change of meaning —
// "Pi is answering" once per run, an approval request naming the file, the outcome of an edit
// that was asked about, a failure (assertive), and the finished answer (its first sentence and
// its length) — never a token, never "working" ↔ "responding". Pure: the Announcer compares
// each chat state with the one before; tested in Node (test/unit/webview/announce.test.ts).
import type { AssistantItem, ChatItem, ToolItem } from "../src/shared/chat-items";
import type { ChatState } from "../src/shared/reducer";
import { toolStatusText, toolTitle } from "./tool-text";
import { stopCauseForCard } from "../src/shared/background-state";

export interface Announcement {
  text: string;
  /** Failures interrupt; everything else waits its turn. */
  assertive: boolean;
}

/** Outcomes of an edit that was asked about, worth saying once. */
const OUTCOMES = new Set(["applied", "denied", "failed"]);

export class Announcer {
  private previous: ChatState | null = null;
  private failedThisRun = false;

  /** The announcements for the step from the last state seen to `next` (none for the first state: a chat opened is not news). */
  next(next: ChatState): Announcement[] {
    const prev = this.previous;
    this.previous = next;
    if (prev === null || prev === next) return [];
    const out: Announcement[] = [];
    if (!prev.running && next.running) {
      this.failedThisRun = false;
      out.push({ text: "Pi is answering", assertive: false });
    }
    const before = new Map<string, ChatItem>(prev.live.map((i) => [i.id, i]));
    for (const item of next.live) {
      const old = before.get(item.id);
      if (old === item) continue;
      if (item.kind === "tool") out.push(...this.toolNews(old?.kind === "tool" ? old : undefined, item));
      else if (item.kind === "notice" && old === undefined && item.level === "error") out.push(this.failure(item.text));
      else if (item.kind === "assistant" && item.stopReason === "error" && !(old?.kind === "assistant" && old.stopReason === "error")) {
        out.push(this.failure(item.errorMessage ? `The request failed: ${item.errorMessage}` : "The request failed"));
      }
    }
    out.push(...backgroundEnds(prev, next));
    if (prev.running && !next.running && !this.failedThisRun) out.push({ text: finishedText(next), assertive: false });
    return out;
  }

  private toolNews(old: ToolItem | undefined, item: ToolItem): Announcement[] {
    const was = old ? toolStatusText(old) : "";
    const now = toolStatusText(item);
    if (now === was) return [];
    if (now === "waiting for your decision") return [{ text: `Approval needed: ${toolTitle(item)}. Alt+Shift+A goes to it.`, assertive: false }];
    if (item.approval !== undefined && OUTCOMES.has(now)) return [{ text: `${toolTitle(item)}: ${now}`, assertive: false }];
    return [];
  }

  private failure(text: string): Announcement {
    this.failedThisRun = true;
    return { text, assertive: true };
  }
}

/**
 * A background command that was running ended (exited, or was stopped): its card changes long
 * after its turn, usually in a settled chunk. Only changed chunks (copied by the reducer) are looked at.
 */
function backgroundEnds(prev: ChatState, next: ChatState): Announcement[] {
  const out: Announcement[] = [];
  const compare = (before: readonly ChatItem[] | undefined, after: readonly ChatItem[]) => {
    if (before === after) return;
    const old = new Map<string, ChatItem>((before ?? []).map((i) => [i.id, i]));
    for (const item of after) {
      const was = old.get(item.id);
      if (item.kind !== "tool" || was === item || was?.kind !== "tool" || was.background?.state !== "running") continue;
      const now = item.background;
      if (now === undefined || now.state === "running" || now.state === "gone") continue;
      const args = item.args as { command?: unknown } | undefined;
      const command = typeof args?.command === "string" ? args.command : "";
      const how =
        now.state === "stopped" ? stopCauseForCard(now.by).toLowerCase() : now.exitCode === null ? "ended by a signal" : `exited with code ${now.exitCode}`;
      out.push({ text: `Background command ${command} ${how}`, assertive: false });
    }
  };
  next.settled.forEach((chunk, c) => compare(prev.settled[c], chunk));
  compare(prev.live, next.live);
  return out;
}

/** "Pi answered: <first sentence> (<n> words)", "Stopped", or "Pi finished" when the run ended without words. */
function finishedText(state: ChatState): string {
  const last = [...state.live].reverse().find((i): i is AssistantItem => i.kind === "assistant");
  if (last?.stopReason === "aborted") return "Stopped";
  const text =
    last?.blocks
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .join("\n")
      .trim() ?? "";
  if (text === "") return "Pi finished";
  const words = plain(text).split(/\s+/).filter(Boolean).length;
  return `Pi answered: ${firstSentence(text)} (${words} ${words === 1 ? "word" : "words"})`;
}

/** Markdown to the words a listener needs: no code fences, emphasis marks, link targets or headings' #. */
function plain(markdown: string): string {
  return markdown
    .replace(/```[^\n]*\n[\s\S]*?(```|$)/g, " code block. ")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[*_`~#>]+/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

const MAX_SENTENCE = 160;

export function firstSentence(markdown: string): string {
  const text = plain(markdown);
  const match = text.match(/^.*?[.!?:](?=\s|$)/);
  const sentence = (match ? match[0] : text).trim();
  return sentence.length > MAX_SENTENCE ? `${sentence.slice(0, MAX_SENTENCE - 1)}\u2026` : sentence;
}
