// A pi session's entry tree as a Pi Chat message tree (docs/pi-sessions.md has the table).
// Pure. The rule: on every branch, what Pi Chat's context policy sends the model next equals what
// pi's buildSessionContext + convertToLlm would send, apart from the differences documented
// there (Pi Chat's own system prompt and tools; the words around a compaction summary and a `!`
// command). Entries Pi Chat has no equivalent for are counted in one visible note, never dropped
// silently.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { AppMessage, BashExecutionMessage, CompactionSummaryMessage, LocalNoticeMessage } from "../../shared/app-messages";
import { estimateMessageTokens } from "../context/tokens";
import { parseTaskList } from "../../shared/task-list";
import type { ChatModelChoice } from "../transcript";
import { isObject, type PiEntry, type PiSessionFile } from "./reader";

/** The `customType` prefix of the entries Pi Chat writes into a pi file (export.ts); read back here. */
export const PI_CHAT_CUSTOM_TYPE = "pi-chat";

/** pi's own words around a branch summary (coding-agent `messages.ts`), so the model reads what pi sent. */
export const PI_BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
export const PI_BRANCH_SUMMARY_SUFFIX = "</summary>";

export interface ImportedNode {
  id: string;
  /** null: directly under the import's root (the chat's system message and the import note). */
  parentId: string | null;
  message: AgentMessage;
}

export interface ImportedPiSession {
  /** In file order: a parent before its children. */
  nodes: ImportedNode[];
  /** The node pi would continue from (its last entry, mapped); null when nothing maps to a message. */
  leafId: string | null;
  model?: ChatModelChoice;
  /** pi's session name (`session_info`), if it has one. */
  title?: string;
  /** The visible note put first in the chat: where it came from, what was not carried over. */
  notice: LocalNoticeMessage;
  /** Entries that map to no message, by kind: the numbers the notice states. */
  notShown: Record<string, number>;
}

export interface ImportOrigin {
  /** The pi session file, as a path for the user. */
  path: string;
  /** A display name (session name or first prompt). */
  name?: string;
}

const NODE_ID = /^[A-Za-z0-9_-]{1,60}$/;

export interface ImportOptions {
  /**
   * Whether Pi Chat can take over this provider's model (pi's ids: "anthropic", "openai", "google",
   * or a server of pi's models.json, whose address the pi file does not record). Default: all.
   */
  knowsProvider?: (provider: string) => boolean;
  /** The model a chat without its own uses now, in words ("local-model (Local server at …)"), for the note. */
  defaultModel?: string;
}

// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one case per pi entry kind, mapped as docs/pi-sessions.md's table says
export function importPiSession(file: PiSessionFile, origin: ImportOrigin, now: number, options: ImportOptions = {}): ImportedPiSession {
  const { entries } = file;
  const byId = new Map<string, PiEntry>();
  for (const e of entries) byId.set(e.id, e);
  const leaf = entries.length > 0 ? entries[entries.length - 1]! : undefined;
  const activePath = new Set<string>();
  for (let e = leaf; e !== undefined; e = e.parentId === null ? undefined : byId.get(e.parentId)) activePath.add(e.id);

  // Context edits on the active branch, the latest per target (pi applies them per branch).
  const edits = new Map<string, PiEntry>();
  let editsElsewhere = 0;
  for (const e of entries) {
    if (e.type !== "context_edit") continue;
    if (activePath.has(e.id) && typeof e["targetId"] === "string") edits.set(e["targetId"], e);
    else editsElsewhere++;
  }

  const nodes: ImportedNode[] = [];
  /** Our node each pi entry ends at: its own message, or its nearest ancestor's. */
  const anchor = new Map<string, string | null>();
  /** Running totals along each entry's path, so a compaction counts what it keeps in constant time. */
  const paths = new PathTotals(entries);
  const notShown: Record<string, number> = {};
  const count = (kind: string) => {
    notShown[kind] = (notShown[kind] ?? 0) + 1;
  };
  let title: string | undefined;
  let systemEntries = 0;
  let editsApplied = 0;

  for (const entry of entries) {
    const parentAnchor = entry.parentId === null ? null : (anchor.get(entry.parentId) ?? null);
    let message: AgentMessage | undefined;
    switch (entry.type) {
      case "message": {
        const raw = entry["message"];
        if (isObject(raw) && raw["role"] === "system") {
          systemEntries++;
          break;
        }
        message = messageOf(raw);
        if (message === undefined) count("unreadable message");
        break;
      }
      case "compaction": {
        const computed = compactionOf(entry, paths, now);
        // Written by Pi Chat: its own summary message back, with pi's kept entries counted again.
        const own = piChatMessage(isObject(entry["details"]) ? entry["details"]["piChat"] : undefined, "compactionSummary");
        message = own ? { ...own, keptMessageCount: computed.keptMessageCount } : computed;
        if (isObject(entry["systemMessage"])) systemEntries++;
        break;
      }
      case "branch_summary":
        if (typeof entry["summary"] === "string" && entry["summary"] !== "")
          message = {
            role: "user",
            content: [{ type: "text", text: PI_BRANCH_SUMMARY_PREFIX + entry["summary"] + PI_BRANCH_SUMMARY_SUFFIX }],
            timestamp: ms(entry.timestamp, now),
          };
        else count("empty branch summary");
        break;
      case "custom_message":
        // Pi Chat's own app message (a fact the model got), else an extension's: a user message, as pi sends it.
        message = piChatEntryMessage(entry, "details") ?? { role: "user", content: contentOf(entry["content"]), timestamp: ms(entry.timestamp, now) };
        break;
      case "session_info":
        if (typeof entry["name"] === "string" && entry["name"].trim() !== "") title = entry["name"].trim();
        count("session name");
        break;
      case "model_change":
        count("model change");
        break;
      case "thinking_level_change":
        count("thinking level change");
        break;
      case "label":
        count("label");
        break;
      case "usage":
        count("usage record");
        break;
      case "custom":
        // Pi Chat's notices (never sent) come back as notices; any other extension state is counted.
        message = piChatEntryMessage(entry, "data");
        if (message !== undefined) break;
        count(`extension state${typeof entry["customType"] === "string" ? ` (${entry["customType"].slice(0, 40)})` : ""}`);
        break;
      case "context_edit":
        count("context edit");
        break;
      default:
        count(`unknown entry "${entry.type.slice(0, 40)}"`);
    }
    if (message !== undefined) {
      const edit = edits.get(entry.id);
      if (edit) {
        message = applyEdit(message, edit);
        editsApplied++;
      }
      const id = nodeId(entry);
      nodes.push({ id, parentId: parentAnchor, message });
      anchor.set(entry.id, id);
    } else anchor.set(entry.id, parentAnchor);
    paths.add(entry, message);
  }

  const lines: string[] = [];
  lines.push(`Opened from the pi session ${origin.name ? `“${origin.name}” ` : ""}(${origin.path}). The pi file is not changed; this chat goes on in Pi Chat.`);
  if (systemEntries > 0) lines.push(`pi's system prompt and tool declarations (${systemEntries} entries) are not carried over: Pi Chat sends its own.`);
  const piModel = modelOf(entries, activePath);
  // A custom provider of pi's models.json is nothing Pi Chat can reach: the chat keeps the user's default.
  const model = piModel && (options.knowsProvider?.(piModel.provider) ?? true) ? piModel : undefined;
  if (piModel) {
    const named = `${piModel.provider}/${piModel.modelId}${piModel.thinkingLevel ? `, thinking ${piModel.thinkingLevel}` : ""}`;
    // What is true either way: the model pi used, and the one this chat now goes on with.
    const fallback = `this chat uses your default model${options.defaultModel ? `, ${options.defaultModel}` : ""}`;
    lines.push(
      model
        ? `Model of the pi session: ${named}; this chat goes on with it.`
        : `Model of the pi session: ${named}. The pi file does not say where its provider "${piModel.provider}" is, so ${fallback}.`,
    );
  }
  if (editsApplied > 0 || editsElsewhere > 0)
    lines.push(
      `pi context edits: ${editsApplied} applied to the messages they edit${editsElsewhere > 0 ? `; ${editsElsewhere} on other branches not applied` : ""}.`,
    );
  const kinds = Object.entries(notShown).filter(([k]) => k !== "context edit");
  if (kinds.length > 0) lines.push(`Not shown (no Pi Chat equivalent): ${kinds.map(([k, n]) => `${n} ${k}`).join(", ")}.`);
  if (file.notes.length > 0) lines.push(`Read around damage: ${file.notes.join("; ")}.`);

  const leafId = leaf === undefined ? null : (anchor.get(leaf.id) ?? null);
  const notice: LocalNoticeMessage = { role: "localNotice", level: "info", text: lines.join("\n"), timestamp: ms(file.header.timestamp, now) };
  return { nodes, leafId, ...(model ? { model } : {}), ...(title !== undefined ? { title } : {}), notice, notShown };
}

/**
 * An imported chat's title in the history: its name, where it came from and when that session
 * started ("Pelican hunt (pi session, 2026-01-02 03:04)", local time), so a chat that went to the
 * pi CLI and came back, more than once, is told apart from the original and from each other.
 */
export function importedChatTitle(name: string, startedAt: string): string {
  const when = new Date(startedAt);
  if (!Number.isFinite(when.getTime())) return `${name} (pi session)`;
  const two = (n: number) => String(n).padStart(2, "0");
  const date = `${when.getFullYear()}-${two(when.getMonth() + 1)}-${two(when.getDate())} ${two(when.getHours())}:${two(when.getMinutes())}`;
  return `${name} (pi session, ${date})`;
}

/** A message entry's message, as Pi Chat keeps it; undefined when it is no message at all. */
function messageOf(raw: unknown): AgentMessage | undefined {
  if (!isObject(raw) || typeof raw["role"] !== "string") return undefined;
  const timestamp = typeof raw["timestamp"] === "number" ? raw["timestamp"] : 0;
  switch (raw["role"]) {
    // As is (pi fills a missing content with [] too): the model gets them unchanged.
    case "user":
      return { ...raw, content: raw["content"] ?? [] } as unknown as AgentMessage;
    case "assistant":
    case "toolResult":
      return { ...raw, content: Array.isArray(raw["content"]) ? raw["content"] : [] } as unknown as AgentMessage;
    case "bashExecution": {
      const exit = raw["exitCode"];
      const bash: BashExecutionMessage = {
        role: "bashExecution",
        command: String(raw["command"] ?? ""),
        output: String(raw["output"] ?? ""),
        exitCode: typeof exit === "number" ? exit : null,
        cancelled: raw["cancelled"] === true,
        truncated: raw["truncated"] === true,
        // `!!` in pi: shown, never sent. Kept so.
        excludeFromContext: raw["excludeFromContext"] === true,
        timestamp,
      };
      // Pi Chat's own fields, when the file came from Pi Chat (pi ignores them).
      if (typeof raw["cwd"] === "string") bash.cwd = raw["cwd"];
      if (typeof raw["durationMs"] === "number") bash.durationMs = raw["durationMs"];
      if (raw["via"] === "terminal" || raw["via"] === "process") bash.via = raw["via"];
      if (typeof raw["logFile"] === "string") bash.logFile = raw["logFile"];
      return bash;
    }
    // Extension messages (`hookMessage` before version 3) reach pi's model as a user message.
    case "custom":
    case "hookMessage":
      return { role: "user", content: contentOf(raw["content"]), timestamp };
    case "branchSummary":
      return typeof raw["summary"] === "string"
        ? { role: "user", content: [{ type: "text", text: PI_BRANCH_SUMMARY_PREFIX + raw["summary"] + PI_BRANCH_SUMMARY_SUFFIX }], timestamp }
        : undefined;
    default:
      return undefined;
  }
}

/** Roles Pi Chat writes into `custom_message` (`details.piChat`) and `custom` (`data.piChat`) entries. */
const PI_CHAT_ENTRY_ROLES: Record<string, { field: "details" | "data"; role: AppMessage["role"] }> = {
  [`${PI_CHAT_CUSTOM_TYPE}:approvalNotice`]: { field: "details", role: "approvalNotice" },
  [`${PI_CHAT_CUSTOM_TYPE}:fileAttachment`]: { field: "details", role: "fileAttachment" },
  [`${PI_CHAT_CUSTOM_TYPE}:filesRestored`]: { field: "details", role: "filesRestored" },
  [`${PI_CHAT_CUSTOM_TYPE}:answerContinued`]: { field: "details", role: "answerContinued" },
  [`${PI_CHAT_CUSTOM_TYPE}:taskListEdited`]: { field: "details", role: "taskListEdited" },
  [`${PI_CHAT_CUSTOM_TYPE}:modeChanged`]: { field: "details", role: "modeChanged" },
  [`${PI_CHAT_CUSTOM_TYPE}:planApproved`]: { field: "details", role: "planApproved" },
  [`${PI_CHAT_CUSTOM_TYPE}:planComments`]: { field: "details", role: "planComments" },
  [`${PI_CHAT_CUSTOM_TYPE}:localNotice`]: { field: "data", role: "localNotice" },
};

function piChatEntryMessage(entry: PiEntry, field: "details" | "data"): AgentMessage | undefined {
  const kind = typeof entry["customType"] === "string" ? PI_CHAT_ENTRY_ROLES[entry["customType"]] : undefined;
  if (kind === undefined || kind.field !== field) return undefined;
  const holder = entry[field];
  return piChatMessage(isObject(holder) ? holder["piChat"] : undefined, kind.role);
}

/** An app message Pi Chat wrote into a pi file, if it still has the shape of `role` (the file may have been edited). */
function piChatMessage<R extends AppMessage["role"]>(value: unknown, role: R): Extract<AppMessage, { role: R }> | undefined {
  if (!isObject(value) || value["role"] !== role || typeof value["timestamp"] !== "number") return undefined;
  const str = (k: string) => typeof value[k] === "string";
  const ok: Record<AppMessage["role"], () => boolean> = {
    approvalNotice: () => str("toolCallId") && str("toolName") && (value["decision"] === "allowed" || value["decision"] === "denied"),
    fileAttachment: () => str("path"),
    filesRestored: () =>
      typeof value["messageNumber"] === "number" &&
      str("messageText") &&
      Array.isArray(value["restored"]) &&
      Array.isArray(value["deleted"]) &&
      Array.isArray(value["skipped"]),
    localNotice: () => str("text") && (value["level"] === "info" || value["level"] === "error"),
    compactionSummary: () => str("summary") && typeof value["keptMessageCount"] === "number" && typeof value["tokensBefore"] === "number",
    bashExecution: () => str("command") && str("output"),
    answerContinued: () => value["reason"] === "length",
    planApproved: () => str("toolCallId") && str("plan") && typeof value["edited"] === "boolean",
    planComments: () =>
      str("toolCallId") &&
      Array.isArray(value["comments"]) &&
      value["comments"].every((c) => isObject(c) && typeof c["line"] === "number" && typeof c["lineText"] === "string" && typeof c["comment"] === "string"),
    modeChanged: () => value["mode"] === "plan" || value["mode"] === "act",
    taskListEdited: () =>
      parseTaskList(value["items"]) !== undefined && Array.isArray(value["changes"]) && value["changes"].every((c) => typeof c === "string"),
  };
  return ok[role]() ? (value as unknown as Extract<AppMessage, { role: R }>) : undefined;
}

function contentOf(content: unknown): Extract<AgentMessage, { role: "user" }>["content"] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? (content as Extract<AgentMessage, { role: "user" }>["content"]) : [];
}

/**
 * Per entry, the number of messages and their estimated tokens on its path from the root (itself
 * included), and its place in a depth-first walk of the tree: "is F an ancestor of C" and "how
 * many messages between F and C" are then a subtraction, so mapping stays linear in the entries
 * (walking every compaction's ancestors was quadratic: 15,000 compactions took a minute).
 */
class PathTotals {
  private readonly messages = new Map<string, number>();
  private readonly tokens = new Map<string, number>();
  private readonly enter = new Map<string, number>();
  private readonly leave = new Map<string, number>();
  private readonly parentOf = new Map<string, string | null>();

  constructor(entries: readonly PiEntry[]) {
    const children = new Map<string | null, string[]>();
    for (const e of entries) {
      this.parentOf.set(e.id, e.parentId);
      const list = children.get(e.parentId);
      if (list) list.push(e.id);
      else children.set(e.parentId, [e.id]);
    }
    // Iterative (a chain of 100,000 entries must not overflow the stack); the reader ensures a tree.
    let clock = 0;
    const stack: { id: string | null; next: number }[] = [{ id: null, next: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const kids = children.get(top.id) ?? [];
      if (top.next < kids.length) {
        const child = kids[top.next++]!;
        this.enter.set(child, clock++);
        stack.push({ id: child, next: 0 });
      } else {
        stack.pop();
        if (top.id !== null) this.leave.set(top.id, clock++);
      }
    }
  }

  /** Records what `entry` became (called in file order: its parent is already recorded). */
  add(entry: PiEntry, message: AgentMessage | undefined): void {
    const parent = entry.parentId;
    this.messages.set(entry.id, (parent === null ? 0 : (this.messages.get(parent) ?? 0)) + (message ? 1 : 0));
    this.tokens.set(entry.id, (parent === null ? 0 : (this.tokens.get(parent) ?? 0)) + (message ? estimateMessageTokens(message) : 0));
  }

  /** True when `ancestor` is `id` or on its path to the root. */
  isAncestor(ancestor: string, id: string): boolean {
    const a = this.enter.get(ancestor);
    const b = this.enter.get(id);
    if (a === undefined || b === undefined) return false;
    return a <= b && (this.leave.get(id) ?? 0) <= (this.leave.get(ancestor) ?? 0);
  }

  /** Messages (and their tokens) on the path from the root to `id`, `id` included; none for null. */
  totals(id: string | null): { messages: number; tokens: number } {
    if (id === null) return { messages: 0, tokens: 0 };
    return { messages: this.messages.get(id) ?? 0, tokens: this.tokens.get(id) ?? 0 };
  }

  parent(id: string): string | null {
    return this.parentOf.get(id) ?? null;
  }
}

/**
 * pi keeps the entries from `firstKeptEntryId` up to the compaction; Pi Chat counts kept messages
 * back from the summary. Counted on the compaction's own path, so it holds on every branch.
 */
function compactionOf(entry: PiEntry, paths: PathTotals, now: number): CompactionSummaryMessage {
  const upToParent = paths.totals(entry.parentId);
  const firstKept = entry["firstKeptEntryId"];
  // The first kept entry must be an ancestor of the compaction (not itself); otherwise everything before it was summarized.
  const keeps = typeof firstKept === "string" && firstKept !== entry.id && entry.parentId !== null && paths.isAncestor(firstKept, entry.parentId);
  const beforeKept = keeps ? paths.totals(paths.parent(firstKept)) : upToParent;
  const keptMessageCount = upToParent.messages - beforeKept.messages;
  const keptTokens = upToParent.tokens - beforeKept.tokens;
  const summarized = beforeKept.messages;
  const details = isObject(entry["details"]) ? entry["details"] : {};
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : []);
  const tokensBefore = typeof entry["tokensBefore"] === "number" ? entry["tokensBefore"] : 0;
  const message: CompactionSummaryMessage = {
    role: "compactionSummary",
    summary: typeof entry["summary"] === "string" ? entry["summary"] : "",
    keptMessageCount,
    summarizedMessageCount: summarized,
    tokensBefore,
    tokensAfter: 0,
    readFiles: strings(details["readFiles"]),
    modifiedFiles: strings(details["modifiedFiles"]),
    // pi does not say whether it compacted on its own or by hand; on its own is the common case.
    trigger: "threshold",
    timestamp: ms(entry.timestamp, now),
  };
  // pi does not record it: Pi Chat's estimate of the summary and the kept messages (the card shows it).
  message.tokensAfter = estimateMessageTokens(message) + keptTokens;
  return message;
}

/** pi's `context_edit`: null leaves the message out of the model's context; otherwise its content is replaced. */
function applyEdit(message: AgentMessage, edit: PiEntry): AgentMessage {
  const replacement = edit["replacement"];
  if (replacement === null) {
    const notice: LocalNoticeMessage = {
      role: "localNotice",
      level: "info",
      text: `A ${message.role} message left out of the model's context by a pi context edit: ${preview(message)}`,
      timestamp: message.timestamp,
    };
    return notice;
  }
  if (!isObject(replacement) || (message.role !== "user" && message.role !== "assistant" && message.role !== "toolResult")) return message;
  const content = replacement["content"];
  if (message.role === "user") return { ...message, content: typeof content === "string" ? content : contentOf(content) };
  const blocks = typeof content === "string" ? [{ type: "text" as const, text: content }] : Array.isArray(content) ? content : message.content;
  return { ...message, content: blocks } as AgentMessage;
}

function preview(message: AgentMessage): string {
  const content = (message as { content?: unknown }).content;
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content.map((c: unknown) => (isObject(c) && typeof c["text"] === "string" ? c["text"] : "")).join(" ")
        : "";
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** As pi: the last model change or answering model on the branch, and the last thinking level. */
function modelOf(entries: readonly PiEntry[], activePath: ReadonlySet<string>): ChatModelChoice | undefined {
  let provider: string | undefined;
  let modelId: string | undefined;
  let thinkingLevel: string | undefined;
  for (const e of entries) {
    if (!activePath.has(e.id)) continue;
    if (e.type === "thinking_level_change" && typeof e["thinkingLevel"] === "string") thinkingLevel = e["thinkingLevel"];
    else if (e.type === "model_change" && typeof e["provider"] === "string" && typeof e["modelId"] === "string") {
      provider = e["provider"];
      modelId = e["modelId"];
    } else if (e.type === "message" && isObject(e["message"]) && e["message"]["role"] === "assistant") {
      const m = e["message"];
      if (typeof m["provider"] === "string" && typeof m["model"] === "string") {
        provider = m["provider"];
        modelId = m["model"];
      }
    }
  }
  if (provider === undefined || modelId === undefined) return undefined;
  return { provider, modelId, ...(thinkingLevel !== undefined ? { thinkingLevel } : {}) };
}

/**
 * The chat's id of an entry: `pi-<id>` (pi's ids are unique in a file: the reader skips a second
 * use), else `pl-<line>` for an id the store cannot take. The two prefixes never meet, so an entry
 * whose id is `line5` and an unusable id on line 5 cannot share one node.
 */
function nodeId(entry: PiEntry): string {
  return NODE_ID.test(entry.id) ? `pi-${entry.id}` : `pl-${entry.line}`;
}

function ms(iso: string, fallback: number): number {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : fallback;
}
