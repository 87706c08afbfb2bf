// "What the model sees": the last request of a chat as a read-only Markdown document. Built
// from the capture of the request that was actually sent (the stream function's context and the
// provider's body), never rebuilt from the transcript by a second code path: the transcript is
// only read to say what was left out and why.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { getCurrentTools, type Message } from "@earendil-works/pi-ai";
import { isAppMessage, type AppMessageRole } from "../messages";
import type { RequestCapture } from "./chat-context";
import { estimateLlmMessageTokens } from "./tokens";
import { CHAT_ITEM_LINK, requestPartItems, safeFact } from "./request-part-items";

const KIND_LABEL: Record<AppMessageRole, string> = {
  approvalNotice: "the user's approval decision",
  fileAttachment: "a file the user attached",
  localNotice: "a notice",
  compactionSummary: "the compaction summary",
  bashExecution: "a command the user ran (!cmd)",
  filesRestored: "the files restored to a checkpoint",
  answerContinued: "the user's request to continue a cut answer",
  taskListEdited: "the user's change to the task list",
  modeChanged: "the user's switch of plan or act mode",
  planApproved: "the plan the user approved",
  planComments: "the user's comments on the plan",
};

/** A fence longer than any run of backticks in `text`, so model output cannot close it early. */
function fence(text: string, lang = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = "`".repeat(longest + 1);
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

function textOf(content: string | readonly { type: string; text?: string }[]): string {
  if (typeof content === "string") return content;
  return content.map((c) => (c.type === "text" ? (c.text ?? "") : `[${c.type}]`)).join("\n");
}

export function renderNoRequestYet(title: string, restored: boolean): string {
  return [
    `# What the model sees — ${title}`,
    "",
    restored
      ? "No request was made since this chat was restored. The next request will show here, exactly as it is sent."
      : "No request was made in this chat yet. The next request will show here, exactly as it is sent.",
    "",
  ].join("\n");
}

/** The document for one captured request. `transcript` is the chat's message path (to say what was left out). */
export function renderModelContext(capture: RequestCapture, transcript: readonly AgentMessage[], title: string): string {
  const facts = new Map<string, AppMessageRole>();
  const sentPart = transcript.slice(0, capture.view.transcriptMessages);
  for (const m of sentPart) {
    if (!isAppMessage(m)) continue;
    const fact = safeFact(m);
    if (fact !== null) facts.set(fact, m.role);
  }
  const total = capture.messages.reduce((n, m) => n + estimateLlmMessageTokens(m), 0);
  const out: string[] = [];
  out.push(`# What the model sees — ${title}`, "");
  out.push(
    `Last request: ${new Date(capture.sentAt).toISOString()} · ${capture.model.provider} / ${capture.model.id} · window ${capture.model.contextWindow.toLocaleString("en-US")} tokens` +
      (capture.maxOutputTokens !== undefined ? ` · answer limit ${capture.maxOutputTokens.toLocaleString("en-US")} tokens` : ""),
  );
  out.push(
    `About ${total.toLocaleString("en-US")} tokens in ${capture.messages.length} messages, from a transcript of ${capture.view.transcriptMessages} messages. Read-only; it follows the chat: the next request replaces it.`,
    "",
    // The three figures a user compares, each with what it counts, so they reconcile at a glance.
    "How this figure compares: it is Pi Chat's estimate of this request's input, counted here message by message (system prompt and tools included). " +
      "The header's figure is the provider's own count of the last request, plus its answer and anything added since. " +
      "The meter's “Last turn” adds up every request since your last message: a turn with tool calls sends the context once per request, so it is larger.",
    "",
  );

  out.push(...toolsOfRequest(capture), "");
  // Each part names the chat item it came from; the link opens it in the chat (model-context-view.ts).
  const items = requestPartItems(capture.messages, transcript);
  capture.messages.forEach((m, i) => {
    out.push(...(m.role === "system" ? renderSystem(m, i === 0) : withItemLink(renderMessage(m, i + 1, facts), items[i])));
  });
  out.push("## Left out of this request, and why", "", ...leftOut(capture, sentPart), "");

  out.push(`## Request body as sent to ${capture.model.provider}`, "");
  if (capture.payload === undefined) out.push("Not available: the provider adapter had not built the body yet, or does not report it.", "");
  else out.push(fence(JSON.stringify(capture.payload, null, 2), "json"), "");
  return out.join("\n");
}

/** The part's heading (its first line) ends with the chat item it came from, which the tab links to the chat. */
function withItemLink(lines: string[], itemId: string | undefined): string[] {
  if (itemId === undefined || oneLineName(itemId) !== itemId || lines.length === 0) return lines;
  return [`${lines[0]} · ${CHAT_ITEM_LINK} \`${itemId}\``, ...lines.slice(1)];
}

/** A name the provider chose (a tool call id) on one line, quoted unless plain: it cannot start a heading of its own. */
function oneLineName(name: string): string {
  return /^[\w.:-]+$/.test(name) ? name : JSON.stringify(name);
}

/** A user message (with the app message it states, if any), an answer or a tool result. */
function renderMessage(m: Exclude<Message, { role: "system" }>, index: number, facts: ReadonlyMap<string, AppMessageRole>): string[] {
  const tokens = estimateLlmMessageTokens(m).toLocaleString("en-US");
  if (m.role === "user") {
    const kind = typeof m.content === "string" ? facts.get(m.content) : undefined;
    return [`## ${index}. user · ~${tokens} tokens${kind ? ` · the sentence for ${KIND_LABEL[kind]}` : ""}`, "", fence(textOf(m.content), "text"), ""];
  }
  if (m.role === "toolResult") {
    return [
      `## ${index}. tool result · ${oneLineName(m.toolName)} (${oneLineName(m.toolCallId)})${m.isError ? " · error" : ""} · ~${tokens} tokens`,
      "",
      fence(textOf(m.content), "text"),
      "",
    ];
  }
  const out = [`## ${index}. assistant · ~${tokens} tokens · ${m.model}`, ""];
  for (const c of m.content) {
    if (c.type === "text") out.push(fence(c.text, "text"), "");
    else if (c.type === "thinking")
      out.push(`Thinking${c.redacted ? " (redacted by the provider)" : ""}:`, "", fence(c.redacted ? "[redacted]" : c.thinking, "text"), "");
    else out.push(`Tool call \`${oneLineName(c.name)}\` (${oneLineName(c.id)}):`, "", fence(JSON.stringify(c.arguments, null, 2), "json"), "");
  }
  return out;
}

/** What of the transcript this request left out, and why: a line each. */
function leftOut(capture: RequestCapture, sentPart: readonly AgentMessage[]): string[] {
  const left: string[] = [];
  if (capture.view.summarized > 0) {
    left.push(
      `- ${capture.view.summarized} messages are summarized by compaction${capture.view.compactionAt !== undefined ? ` (transcript message ${capture.view.compactionAt + 1})` : ""}: the model got the summary instead.`,
    );
  }
  if (capture.view.trimmed > 0) left.push(`- ${capture.view.trimmed} messages were trimmed to fit the window (no summary could be made).`);
  const notices = sentPart.filter((m) => isAppMessage(m) && m.role === "localNotice").length;
  if (notices > 0) left.push(`- ${notices} notices are shown only to you (errors explained, interruptions): never sent.`);
  const failed = sentPart.filter((m) => m.role === "assistant" && (m.stopReason === "error" || m.stopReason === "aborted")).length;
  if (failed > 0) left.push(`- ${failed} failed or stopped answers: the provider adapter does not send them back.`);
  return left.length > 0 ? left : ["- Nothing: the whole transcript was sent."];
}

/** Which tools the request declared, and which it only listed by name (MCP tools on demand). */
function toolsOfRequest(capture: RequestCapture): string[] {
  const tools = getCurrentTools(capture.messages);
  const declared = tools.map((t) => t.name);
  const out = ["## Tools in this request", ""];
  if (capture.lean) out.push("Lean mode: a short system prompt and the essential tools only (piChat.leanMode).", "");
  out.push(`Declared (${declared.length}): ${declared.length > 0 ? declared.map((n) => `\`${n}\``).join(", ") : "none"}.`);
  const listed = capture.listedTools ?? [];
  if (listed.length > 0)
    out.push("", `Only listed by name, loaded with \`tool_search\` when needed (${listed.length}): ${listed.map((n) => `\`${n}\``).join(", ")}.`);
  // An MCP tool's declaration over the per-tool cap says so at the end of its description (mcp/tools.ts, boundedDeclaration).
  const cut = tools.flatMap((t) => {
    const note = /\[Pi Chat: ([^\]]*)\]$/.exec(t.description)?.[1];
    return note ? [`- \`${t.name}\`: ${note}`] : [];
  });
  if (cut.length > 0) out.push("", "Declarations cut to the per-tool cap:", ...cut);
  return out;
}

function renderSystem(m: Extract<Message, { role: "system" }>, leading: boolean): string[] {
  const out: string[] = [];
  const prompt = textOf(m.content);
  out.push(leading ? `## System prompt · ~${estimateLlmMessageTokens(m).toLocaleString("en-US")} tokens (with the tools)` : "## System update", "");
  if (prompt.trim()) out.push(fence(prompt, "text"), "");
  for (const [name, section] of Object.entries(m.sections ?? {})) {
    out.push(`Section \`${name}\`:`, "", section === null ? "(removed)" : fence(section, "text"), "");
  }
  const tools = m.toolsAdded ?? [];
  if (tools.length > 0) {
    out.push(`### Tools (${tools.length})`, "");
    for (const tool of tools) {
      out.push(`#### ${tool.name}`, "", tool.description, "", fence(JSON.stringify(tool.parameters, null, 2), "json"), "");
    }
  }
  for (const removed of m.toolsRemoved ?? []) out.push(`Tool removed: \`${removed.name}\``, "");
  return out;
}
