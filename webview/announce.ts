// What the live regions say: meaning, not motion. One announcement per change of meaning —
// "Pi is answering" once per run, an approval request naming the file or the command, the
// outcome of an edit that was asked about and of every command (its exit code), a `!command`'s
// start and end, queued messages added, removed and sent, a branch switch, a compaction, a
// failure (assertive), and the finished answer (its first sentence and its length) — never a
// token, never "working" ↔ "responding". Pure: the Announcer compares each chat state with the
// one before; the browser suite asserts the sequences (test/browser/announcements.test.ts).
import type { AssistantItem, ChatItem, NoticeItem, ToolItem, UserCommandItem } from "../src/shared/chat-items";
import type { ForkMark, QueuedInput } from "../src/shared/protocol";
import { COMPACTING_ITEM_ID, type ChatState } from "../src/shared/reducer";
import { commandEndText, toolStatusText, toolTitle } from "./cards/tool-text";
import { stopCauseForCard } from "../src/shared/background-state";

export interface Announcement {
  text: string;
  /** Failures interrupt; everything else waits its turn. */
  assertive: boolean;
}

/** Queued messages the user removed (Remove on a chip, Clear): the queue chips add, the Announcer takes. */
export const queueRemovedByUser = new Set<string>();

/** Outcomes of an edit that was asked about, worth saying once. */
const OUTCOMES = new Set(["applied", "denied", "failed"]);

export class Announcer {
  private previous: ChatState | null = null;
  private failedThisRun = false;
  /** A run started: "Pi is answering" waits one step, for a run that is a `!command` or a compaction says so itself. */
  private answeringPending = false;
  /** The run's last news was a `!command`'s or a compaction's end, which says how the run ended. */
  private endSaid = false;
  /**
   * The run's answer as last seen: a compaction after it (the context filled) settles it out of
   * the live items before the run ends, and the answer is still the news.
   */
  private answer: AssistantItem | undefined;

  /** `removedByUser`: ids of queued messages the user removed (the rest that leave the queue were sent). */
  constructor(private readonly removedByUser: Set<string> = new Set()) {}

  /** The announcements for the step from the last state seen to `next` (none for the first state: a chat opened is not news). */
  // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one rule per announced change, in the order they are spoken
  next(next: ChatState): Announcement[] {
    const prev = this.previous;
    this.previous = next;
    if (prev === null || prev === next) return [];
    const out: Announcement[] = [];
    const started = !prev.running && next.running;
    if (started) {
      this.failedThisRun = false;
      this.endSaid = false;
      this.answer = undefined;
    }
    if (this.answeringPending && !started) {
      this.answeringPending = false;
      if (next.running && !next.live.some(speaksForItsRun)) out.push({ text: "Pi is answering", assertive: false });
    }
    if (started) this.answeringPending = !next.live.some(speaksForItsRun);
    const before = new Map<string, ChatItem>(prev.live.map((i) => [i.id, i]));
    for (const item of next.live) {
      const old = before.get(item.id);
      if (old === item) continue;
      if (item.kind === "assistant" && next.running) this.answer = item;
      if (item.kind === "tool") out.push(...this.toolNews(old?.kind === "tool" ? old : undefined, item));
      else if (item.kind === "userCommand") out.push(...this.userCommandNews(old?.kind === "userCommand" ? old : undefined, item));
      else if (item.kind === "summary" && item.state === "done" && old === undefined) out.push(this.ending("Earlier messages summarized"));
      else if (item.kind === "summary" && item.id === COMPACTING_ITEM_ID && old === undefined)
        out.push({ text: "Compacting earlier messages", assertive: false });
      else if (item.kind === "notice" && old === undefined && item.level === "error")
        out.push(this.failure(`${item.text}${offersRetry(item) ? " Retry is on the card." : ""}`));
      // A restore (or its Redo) is done outside the chat (a picker, a button): its note says what changed, and that Redo is there.
      else if (item.kind === "notice" && old === undefined && item.redo !== undefined)
        out.push({ text: `${item.text}${item.redo.state === "offered" ? " Redo changes is on the note." : ""}`, assertive: false });
      else if (item.kind === "notice" && old === undefined && /^Redid the changes/.test(item.text)) out.push({ text: item.text, assertive: false });
      else if (item.kind === "assistant" && item.stopReason === "error" && !(old?.kind === "assistant" && old.stopReason === "error")) {
        out.push(this.failure(item.errorMessage ? `The request failed: ${item.errorMessage}` : "The request failed"));
      }
    }
    if (before.has(COMPACTING_ITEM_ID) && !next.live.some((i) => i.id === COMPACTING_ITEM_ID || (i.kind === "summary" && i.state === "done"))) {
      out.push(this.ending("Compaction cancelled"));
    }
    out.push(...backgroundEnds(prev, next));
    out.push(...this.queueNews(prev.queue ?? [], next.queue ?? []));
    out.push(...forkNews(prev, next));
    if (prev.running && !next.running) {
      this.answeringPending = false;
      // A `!command` or a compaction said how it ended (unless Pi answered in that run too); a failure was said already.
      if (!this.failedThisRun && (this.answer !== undefined || !this.endSaid)) out.push({ text: finishedText(next, this.answer), assertive: false });
      this.answer = undefined;
    }
    return out;
  }

  private toolNews(old: ToolItem | undefined, item: ToolItem): Announcement[] {
    if (item.name === "run_command") return commandNews(old, item);
    const was = old ? toolStatusText(old) : "";
    const now = toolStatusText(item);
    if (now === was) return [];
    if (now === "waiting for your decision") return [{ text: `Approval needed: ${toolTitle(item)}. Alt+Shift+A goes to it.`, assertive: false }];
    if (item.approval !== undefined && OUTCOMES.has(now)) return [{ text: `${toolTitle(item)}: ${now}`, assertive: false }];
    return [];
  }

  /** Chips added ("Queued follow-up: …"), removed by the user, or sent (they leave the queue as Pi takes them). */
  private queueNews(before: readonly QueuedInput[], after: readonly QueuedInput[]): Announcement[] {
    if (before === after) return [];
    const out: Announcement[] = [];
    const now = new Set(after.map((q) => q.id));
    const was = new Set(before.map((q) => q.id));
    for (const q of before) {
      if (now.has(q.id)) continue;
      const removed = this.removedByUser.delete(q.id);
      out.push({ text: `${removed ? "Removed from the queue" : "Sent"}: ${queuedText(q)}`, assertive: false });
    }
    for (const q of after) if (!was.has(q.id)) out.push({ text: `Queued ${q.kind === "steer" ? "steer" : "follow-up"}: ${queuedText(q)}`, assertive: false });
    return out;
  }

  /** News that says how the run ended (no "Pi finished" after it, unless Pi answers afterwards). */
  private ending(text: string): Announcement {
    this.endSaid = true;
    return { text, assertive: false };
  }

  /** A `!command`: when it starts and how it ended. */
  private userCommandNews(old: UserCommandItem | undefined, item: UserCommandItem): Announcement[] {
    if (item.running) return old === undefined ? [{ text: `Running your command ${item.command}`, assertive: false }] : [];
    if (old !== undefined && !old.running) return [];
    const how = item.cancelled ? "stopped" : item.exitCode === null ? "ended by a signal" : `exit code ${item.exitCode}`;
    return [this.ending(`Your command ${item.command}: ${how}`)];
  }

  private failure(text: string): Announcement {
    this.failedThisRun = true;
    return { text, assertive: true };
  }
}

/** Items that announce their run themselves: a `!command` running, a compaction. */
function speaksForItsRun(item: ChatItem): boolean {
  return (item.kind === "userCommand" && item.running) || item.id === COMPACTING_ITEM_ID;
}

function queuedText(q: QueuedInput): string {
  return q.text === "" ? `${q.imageCount} image${q.imageCount === 1 ? "" : "s"}` : q.text;
}

function commandOf(item: ToolItem): string {
  const args = item.args as { command?: unknown } | undefined;
  return item.approval?.command ?? (typeof args?.command === "string" ? args.command : "");
}

/** A run_command call: its question ("Approval needed: run npm test in server"), then how it ended ("Command npm test: exit code 1"). */
function commandNews(old: ToolItem | undefined, item: ToolItem): Announcement[] {
  const command = commandOf(item);
  const asking = item.approval?.state === "pending";
  if (asking && old?.approval?.state !== "pending") {
    const cwd = item.approval?.cwd;
    const where = cwd !== undefined && cwd !== "." ? ` in ${cwd}` : "";
    return [{ text: `Approval needed: run ${command}${where}. Alt+Shift+A goes to it.`, assertive: false }];
  }
  // The end is known once its result (with the exit code) is in: the tool's end event comes just before it.
  const ended = (i: ToolItem | undefined) =>
    i !== undefined && (i.approval?.state === "denied" || ((i.status === "success" || i.status === "error") && i.resultText !== undefined));
  if (!ended(item) || ended(old)) return [];
  return [{ text: `Command ${command}: ${commandEndText(item)}`, assertive: false }];
}

/** A fork whose position changed or that appeared (a switch, an edit, a retry): "Showing answer 2 of 3". */
function forkNews(prev: ChatState, next: ChatState): Announcement[] {
  if (prev.forks === next.forks) return [];
  const old = new Map<number, ForkMark>((prev.forks ?? []).map((f) => [f.messageIndex, f]));
  const out: Announcement[] = [];
  for (const fork of next.forks ?? []) {
    const was = old.get(fork.messageIndex);
    if (was && was.index === fork.index && was.count === fork.count) continue;
    const shownBy = next.live.find((i) => i.id === `m${fork.showAt}`) ?? next.settled.flat().find((i) => i.id === `m${fork.showAt}`);
    const what = shownBy?.kind === "user" ? "version" : "answer";
    out.push({ text: `Showing ${what} ${fork.index + 1} of ${fork.count}${what === "version" ? " of this message" : ""}`, assertive: false });
  }
  return out;
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
/** `answer`: the run's answer as last seen, for when it has left the live items (a compaction settled it). */
function finishedText(state: ChatState, answer: AssistantItem | undefined): string {
  const last = [...state.live].reverse().find((i): i is AssistantItem => i.kind === "assistant") ?? answer;
  if (last?.stopReason === "aborted") return "Stopped";
  const cut = last?.stopReason === "length" ? "; cut off at the token limit, Continue is on the answer" : "";
  const text =
    last?.blocks
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .join("\n")
      .trim() ?? "";
  if (text === "") return cut ? `Pi stopped${cut}` : "Pi finished";
  const words = plain(text).split(/\s+/).filter(Boolean).length;
  return `Pi answered: ${firstSentence(text)} (${words} ${words === 1 ? "word" : "words"}${cut})`;
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

/** An error card with Retry among its buttons. */
function offersRetry(item: NoticeItem): boolean {
  return item.fixCommand === "retry" || (item.moreFixCommands ?? []).includes("retry");
}
