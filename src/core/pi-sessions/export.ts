// A Pi Chat chat tree as a pi session file (version 3 JSONL), for "Pi Chat: Continue in pi CLI"
// (docs/pi-sessions.md has the table, both ways). Pure: the tree in, the file's text out.
// The rule: on the chat's active branch, what pi sends its model next holds everything Pi Chat's
// model saw, in the same order, in pi's own kinds where pi has one (a `!` run, a compaction, a
// branch summary) and as an extension message (`custom_message`) where it has none; what the
// model never saw (notices) goes into `custom` entries, which pi keeps and never sends. Each
// app message also rides along whole in the entry's `details`/`data`, so opening the file in Pi
// Chat again gives back the same messages.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { AppMessage, BashExecutionMessage, CompactionSummaryMessage } from "../../shared/app-messages";
import { appMessageFact, userWordsFact } from "../context/app-message-facts";
import { isAppMessage } from "../messages";
import type { ChatModelChoice } from "../transcript";
import { PI_BRANCH_SUMMARY_PREFIX, PI_BRANCH_SUMMARY_SUFFIX, PI_CHAT_CUSTOM_TYPE } from "./import";
import { PI_SESSION_VERSION } from "./reader";

export interface ExportNode {
  id: string;
  parentId: string | null;
  message: AgentMessage;
}

export interface ExportSource {
  /** Every node of the chat, parents before children (the chat file's order). Images with their bytes. */
  nodes: Iterable<ExportNode>;
  /** The node the chat continues from. */
  leafId: string | null;
  /** The chat's title: pi's session name. */
  title: string;
  /** Written as pi's model and thinking level entries when `modelForPi` says pi knows the provider. */
  model?: ChatModelChoice;
  /** The working folder pi runs in (the header's `cwd`). */
  cwd: string;
}

export interface ExportOptions {
  /** pi's session id (a UUID; the file name ends with it). */
  sessionId: string;
  /** Unix ms: the header's time and the time of entries whose message has none. */
  now: number;
  /** An entry id (pi's are 8 hex digits); default a counter. Collisions are drawn again. */
  newEntryId?: () => string;
  /** Whether pi can use the chat's model (pi-ai's built-in providers, not an OpenAI-compatible address of Pi Chat's). */
  modelForPi?: (model: ChatModelChoice) => boolean;
}

export type ExportResult =
  | {
      ok: true;
      /** The file's text: the header and one entry a line. */
      text: string;
      /** Entries written (the header not counted), by the kind they were written as. */
      kinds: Record<string, number>;
      /** Messages left out (Pi Chat's system prompt: pi sends its own). */
      leftOut: number;
    }
  | { ok: false; reason: string };

/** pi's file name for a session: `<ISO time, ':' and '.' as '-'>_<session id>.jsonl`. */
export function piSessionFileName(now: number, sessionId: string): string {
  return `${new Date(now).toISOString().replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
}

/** pi's rule for a session id (`assertValidSessionId`): it ends the file name, so nothing else gets in. */
export function isPiSessionId(id: string): boolean {
  return /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?$/.test(id) && !id.includes("..");
}

export function exportPiSession(source: ExportSource, options: ExportOptions): ExportResult {
  if (!isPiSessionId(options.sessionId)) return { ok: false, reason: `invalid pi session id ${JSON.stringify(options.sessionId)}` };
  const used = new Set<string>();
  let counter = 0;
  const draw = options.newEntryId ?? (() => (++counter).toString(16).padStart(8, "0"));
  const newId = (): string => {
    for (let i = 0; i < 100; i++) {
      const id = draw();
      if (!used.has(id) && /^[A-Za-z0-9_-]{1,64}$/.test(id)) {
        used.add(id);
        return id;
      }
    }
    const id = `e${used.size.toString(16)}x${(++counter).toString(16)}`;
    used.add(id);
    return id;
  };
  const iso = (ms: unknown) => new Date(typeof ms === "number" && Number.isFinite(ms) && ms > 0 ? ms : options.now).toISOString();

  const lines: string[] = [
    JSON.stringify({ type: "session", version: PI_SESSION_VERSION, id: options.sessionId, timestamp: iso(options.now), cwd: source.cwd }),
  ];
  /** The pi entry each of our nodes ends at: its own, or its nearest ancestor's (null: the root). */
  const anchor = new Map<string, string | null>();
  /** Our node id → its parent node id, for counting a compaction's kept messages back. */
  const parentOf = new Map<string, string | null>();
  /** Our node id → its own pi entry (nodes written as an entry). */
  const own = new Map<string, string>();
  const kinds: Record<string, number> = {};
  let leftOut = 0;

  for (const node of source.nodes) {
    parentOf.set(node.id, node.parentId);
    const parent = node.parentId === null ? null : (anchor.get(node.parentId) ?? null);
    const fields = entryFields(node, parentOf, own, anchor);
    if (fields === undefined) {
      anchor.set(node.id, parent);
      leftOut++;
      continue;
    }
    const id = newId();
    const kind = fields["type"] === "message" ? `message:${(fields["message"] as { role: string }).role}` : String(fields["type"]);
    kinds[kind] = (kinds[kind] ?? 0) + 1;
    // A retain-none compaction names itself (pi's rule), known only now.
    if (fields["type"] === "compaction" && fields["firstKeptEntryId"] === SELF) fields["firstKeptEntryId"] = id;
    lines.push(JSON.stringify({ type: fields["type"], id, parentId: parent, timestamp: iso(node.message.timestamp), ...withoutType(fields) }));
    anchor.set(node.id, id);
    own.set(node.id, id);
  }

  const leaf = source.leafId === null ? null : (anchor.get(source.leafId) ?? null);
  if (leaf === null) return { ok: false, reason: "the chat has no messages to continue from" };
  // pi continues from the file's last entry: these close the file on the chat's leaf, whatever
  // order the branches were written in.
  let tail: string = leaf;
  const append = (type: string, fields: Record<string, unknown>) => {
    const id = newId();
    lines.push(JSON.stringify({ type, id, parentId: tail, timestamp: iso(options.now), ...fields }));
    kinds[type] = (kinds[type] ?? 0) + 1;
    tail = id;
  };
  const model = source.model;
  if (model && (options.modelForPi?.(model) ?? true)) {
    append("model_change", { provider: model.provider, modelId: model.modelId });
    if (model.thinkingLevel) append("thinking_level_change", { thinkingLevel: model.thinkingLevel });
  }
  // A name is one line of pi's session list: newlines and control characters become spaces.
  const name =
    source.title
      .replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " ")
      .trim()
      .slice(0, 200) || "Pi Chat chat";
  append("session_info", { name });
  return { ok: true, text: `${lines.join("\n")}\n`, kinds, leftOut };
}

/** Placeholder for a compaction that keeps nothing: pi then names the compaction itself. */
const SELF = "\u0000self";

function withoutType(fields: Record<string, unknown>): Record<string, unknown> {
  const { type: _type, ...rest } = fields;
  return rest;
}

/** The entry a node becomes (its type and own fields), or undefined when it is left out. */
function entryFields(
  node: ExportNode,
  parentOf: ReadonlyMap<string, string | null>,
  own: ReadonlyMap<string, string>,
  anchor: ReadonlyMap<string, string | null>,
): Record<string, unknown> | undefined {
  const message = node.message;
  if (!isAppMessage(message)) {
    switch (message.role) {
      // pi sends its own system prompt and tools; Pi Chat's would only be replaced.
      case "system":
        return undefined;
      case "user": {
        const summary = branchSummaryOf(message.content);
        if (summary !== undefined) return { type: "branch_summary", fromId: anchor.get(node.parentId ?? "") ?? "root", summary };
        return { type: "message", message: withoutBlobs(message) };
      }
      case "assistant":
      case "toolResult":
        return { type: "message", message: withoutBlobs(message) };
      default:
        // A kind this build does not know (a newer chat file): kept, not sent.
        return { type: "custom", customType: `${PI_CHAT_CUSTOM_TYPE}:unknown`, data: { piChat: message } };
    }
  }
  switch (message.role) {
    case "bashExecution":
      return { type: "message", message: bashOf(message) };
    case "compactionSummary":
      return compactionOf(node, message, parentOf, own);
    case "localNotice":
      // Shown to the user, never to the model: pi keeps a `custom` entry and sends nothing.
      return { type: "custom", customType: `${PI_CHAT_CUSTOM_TYPE}:${message.role}`, data: { piChat: message } };
    case "approvalNotice":
    case "fileAttachment":
    case "filesRestored":
    case "answerContinued":
    case "taskListEdited":
    case "modeChanged":
    case "planApproved":
    case "planComments":
      return customMessageOf(message);
  }
}

/** An app message the model gets, as pi's extension message: pi sends `content` as a user message, as Pi Chat did. */
function customMessageOf(message: AppMessage): Record<string, unknown> {
  return {
    type: "custom_message",
    customType: `${PI_CHAT_CUSTOM_TYPE}:${message.role}`,
    content: appMessageFact(message) ?? "",
    display: true,
    details: { piChat: message },
  };
}

/** pi's `bashExecution`: the same fields; Pi Chat's own (folder, duration, log) ride along, pi ignores them. */
function bashOf(message: BashExecutionMessage): Record<string, unknown> {
  const { exitCode, ...rest } = message;
  // pi reads a missing exit code as "ended by a signal"; JSON has no undefined.
  return { ...rest, ...(exitCode === null ? {} : { exitCode }) };
}

/**
 * pi's `compaction`: the kept messages are the entries from `firstKeptEntryId` to the compaction,
 * Pi Chat's are the `keptMessageCount` messages before it on its path. The summary text pi sends
 * holds what Pi Chat's did: the user's kept words, the summary, the file lists (as pi writes them).
 */
function compactionOf(
  node: ExportNode,
  message: CompactionSummaryMessage,
  parentOf: ReadonlyMap<string, string | null>,
  own: ReadonlyMap<string, string>,
): Record<string, unknown> {
  const kept = Number.isInteger(message.keptMessageCount) && message.keptMessageCount > 0 ? message.keptMessageCount : 0;
  // The `kept` nodes right before it on its path, oldest first (the messages Pi Chat counts).
  const keptNodes: string[] = [];
  for (let at = node.parentId; at !== null && keptNodes.length < kept; at = parentOf.get(at) ?? null) keptNodes.push(at);
  keptNodes.reverse();
  // The first of them written as an entry of its own (a system message is written as none).
  const firstKept = keptNodes.map((n) => own.get(n)).find((id) => id !== undefined);
  const words = userWordsFact(message.userMessages);
  const files: string[] = [];
  if (message.readFiles?.length) files.push(`<read-files>\n${message.readFiles.join("\n")}\n</read-files>`);
  if (message.modifiedFiles?.length) files.push(`<modified-files>\n${message.modifiedFiles.join("\n")}\n</modified-files>`);
  const summary = [...(words === undefined ? [] : [words]), message.summary].join("\n\n") + (files.length > 0 ? `\n\n${files.join("\n\n")}` : "");
  return {
    type: "compaction",
    summary,
    firstKeptEntryId: firstKept ?? SELF,
    tokensBefore: message.tokensBefore,
    details: { readFiles: message.readFiles ?? [], modifiedFiles: message.modifiedFiles ?? [], piChat: message },
    fromHook: false,
  };
}

/** The summary inside a user message that is pi's branch summary (how the import keeps one), else undefined. */
function branchSummaryOf(content: unknown): string | undefined {
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content) && content.length === 1 && (content[0] as { type?: unknown }).type === "text"
        ? (content[0] as { text?: unknown }).text
        : undefined;
  if (typeof text !== "string" || !text.startsWith(PI_BRANCH_SUMMARY_PREFIX) || !text.endsWith(PI_BRANCH_SUMMARY_SUFFIX)) return undefined;
  const summary = text.slice(PI_BRANCH_SUMMARY_PREFIX.length, text.length - PI_BRANCH_SUMMARY_SUFFIX.length);
  return summary === "" ? undefined : summary;
}

/** Images keep their bytes and lose the hash of Pi Chat's blob store (it names a file of this chat only). */
function withoutBlobs<M extends AgentMessage>(message: M): M {
  const content = (message as { content?: unknown }).content;
  if (!Array.isArray(content) || !content.some((c) => (c as { type?: unknown }).type === "image")) return message;
  return {
    ...message,
    content: content.map((c) => {
      if ((c as { type?: unknown }).type !== "image") return c;
      const { blob: _blob, ...rest } = c as { blob?: unknown };
      return rest;
    }),
  };
}
