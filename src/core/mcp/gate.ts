// The approval rule for MCP calls, one pure function and the gate around it: every call asks on
// one card (server, tool, arguments, the server's own annotations), unless the user chose
// "Always allow <server>/<tool> in this workspace". Nothing else skips the card: not the approval
// mode, not "allow edits for this chat", not a server's `readOnlyHint` (a server is not trusted to
// describe itself). The allow list lives in workspace state (McpAllowStore), never in a file.
// No pi-mcp import here: this file is part of the activation bundle.
import type { AgentTool, BeforeToolCallResult } from "@earendil-works/pi-agent-core";
import type { ChatEvent } from "../../shared/protocol";
import type { ApprovalNoticeMessage } from "../messages";
import type { ApprovalMode } from "../permissions/edit-decision";
import type { McpServerWords } from "./server-words";

// The prefix and its test live in the tool-name table (every tool's name, card and gate).
export { isMcpToolName, MCP_TOOL_PREFIX } from "../../shared/tool-names";

/** The system message's section naming the MCP servers (set per request, like the project instructions). */
export const MCP_SERVERS_SECTION = "mcpServers";

/** What the gate knows about an MCP tool by its agent-tool name. */
export interface McpToolFacts {
  server: string;
  /** The server's identity (identity.ts): scope, file, name and definition. "Always allow" is kept under it. */
  identity: string;
  /** The tool's name on its server. */
  tool: string;
  /** The server's annotations (readOnlyHint, destructiveHint, …): shown, never obeyed. */
  annotations?: Readonly<Record<string, unknown>>;
  /** The user disabled this tool (it is not offered; a call naming it is refused). */
  disabled?: boolean;
}

export interface McpDecisionInput {
  /** The tool exists on a running server and is not disabled. */
  available: boolean;
  /** The user chose "Always allow <server>/<tool> in this workspace". */
  alwaysAllowed: boolean;
  /** Not consulted: in the input so the table test shows it changes nothing. */
  approvalMode: ApprovalMode;
  /** Not consulted, as approvalMode. */
  editsAllowedForChat: boolean;
  /** Not consulted, as approvalMode. */
  annotations: Readonly<Record<string, unknown>> | undefined;
}

export type McpDecision = { action: "refuse" } | { action: "ask" } | { action: "run" };

/** The whole rule. */
export function decideMcpCall(input: McpDecisionInput): McpDecision {
  if (!input.available) return { action: "refuse" };
  return input.alwaysAllowed ? { action: "run" } : { action: "ask" };
}

/** "Always allow" choices of this workspace, by server identity (never its name alone) and tool name. */
export interface McpAllowStore {
  has(facts: Pick<McpToolFacts, "identity" | "tool">): boolean;
  add(facts: Pick<McpToolFacts, "identity" | "server" | "tool">): Promise<void>;
}

export interface McpApprovalRequest {
  chatId: string;
  toolCallId: string;
  server: string;
  tool: string;
}

export type McpCallDecision = { decision: "allow" } | { decision: "deny"; reason?: string } | { decision: "allowAlways" };

/** Asks the user. Rejects (or the signal aborts) when the run is stopped before a decision. */
export type McpApprover = (request: McpApprovalRequest, signal: AbortSignal | undefined) => Promise<McpCallDecision>;

export interface McpGateDeps {
  chatId: string;
  describe: (toolName: string) => McpToolFacts | undefined;
  allowed: McpAllowStore;
  approver: McpApprover;
  approvalMode: () => ApprovalMode;
  editsAllowedForChat: () => boolean;
  emit: (event: ChatEvent) => void;
  /** Adds the decision to the transcript (it lands after the tool results of this step). */
  record: (notice: ApprovalNoticeMessage) => void;
}

/** Arguments as the card shows them: pretty JSON, each string over this folded to its start and length. */
export const MCP_CARD_VALUE_CHARS = 400;
/** The card's whole argument text is capped too: a huge argument object is not reviewable anyway. */
export const MCP_CARD_ARGUMENTS_CHARS = 20_000;

export function cardArguments(args: unknown): string {
  const folded = JSON.stringify(
    args ?? {},
    (_key, value: unknown) =>
      typeof value === "string" && value.length > MCP_CARD_VALUE_CHARS ? `${value.slice(0, MCP_CARD_VALUE_CHARS)}… (${value.length} characters)` : value,
    2,
  );
  return folded.length > MCP_CARD_ARGUMENTS_CHARS ? `${folded.slice(0, MCP_CARD_ARGUMENTS_CHARS)}\n… (${folded.length} characters in all)` : folded;
}

/** The annotations a server gave, as short words for the card ("readOnlyHint: true"). */
export function annotationNotes(annotations: Readonly<Record<string, unknown>> | undefined): string[] {
  if (!annotations) return [];
  return Object.entries(annotations)
    .filter(([k, v]) => k.endsWith("Hint") && typeof v === "boolean")
    .map(([k, v]) => `${k}: ${String(v)}`);
}

export async function gateMcpCall(
  toolCallId: string,
  toolName: string,
  args: unknown,
  deps: McpGateDeps,
  signal: AbortSignal | undefined,
): Promise<BeforeToolCallResult | undefined> {
  const facts = deps.describe(toolName);
  const decision = decideMcpCall({
    available: facts !== undefined && facts.disabled !== true,
    alwaysAllowed: facts !== undefined && deps.allowed.has(facts),
    approvalMode: deps.approvalMode(),
    editsAllowedForChat: deps.editsAllowedForChat(),
    annotations: facts?.annotations,
  });
  if (decision.action === "refuse" || facts === undefined)
    return { block: true, reason: `The MCP tool ${toolName} is not available (its server is not running, or the user disabled it). Nothing ran.` };
  const mcp = { server: facts.server, tool: facts.tool };
  const base = { role: "approvalNotice" as const, toolCallId, toolName, mcp };
  if (decision.action === "run") {
    deps.record({ ...base, decision: "allowed", rule: `${facts.server}/${facts.tool}`, timestamp: Date.now() });
    return undefined;
  }
  deps.emit({
    type: "approval/request",
    toolCallId,
    toolName,
    mcp: { ...mcp, arguments: cardArguments(args), annotations: annotationNotes(facts.annotations) },
  });
  let answer: McpCallDecision;
  try {
    answer = await deps.approver({ chatId: deps.chatId, toolCallId, ...mcp }, signal);
  } catch {
    deps.emit({ type: "approval/cancelled", toolCallId });
    return { block: true, reason: "The MCP call was cancelled before the user decided. Nothing ran." };
  }
  let rule: string | undefined;
  if (answer.decision === "allowAlways") {
    await deps.allowed.add(facts);
    rule = `${facts.server}/${facts.tool}`;
  }
  const denied = answer.decision === "deny";
  const reason = answer.decision === "deny" ? answer.reason?.trim() : undefined;
  deps.emit({ type: "approval/decided", toolCallId, decision: denied ? "denied" : "allowed", ...(reason ? { reason } : {}), ...(rule ? { rule } : {}) });
  deps.record({ ...base, decision: denied ? "denied" : "allowed", ...(reason ? { reason } : {}), ...(rule ? { rule } : {}), timestamp: Date.now() });
  if (denied) return { block: true, reason: `The user denied this MCP call${reason ? `: "${reason}"` : ""}. Nothing ran.` };
  return undefined;
}

/** A server that waits for the user to sign in (OAuth), and the authorization server's origin. */
export interface McpSignInNeeded {
  server: string;
  at: string;
}

/** The chat's note about it, once per server and chat session, with a Sign In button. */
export function signInNoteText(needed: McpSignInNeeded): string {
  return `The MCP server "${needed.server}" needs you to sign in (at ${needed.at}); its tools come with the first request after you have.`;
}

/** The MCP servers' part of one run. */
export interface McpRunTools {
  tools: AgentTool[];
  servers: McpServerWords[];
  notes: string[];
  signIn?: McpSignInNeeded[];
}

/** What a chat gets from the window's MCP servers (the host adapter implements it over out/mcp.js). */
export interface McpChatTools {
  /**
   * The MCP tools for this run (servers started on first need, waited for a few seconds), what
   * each ready server says of itself and the notes for the system prompt's paragraph (still
   * starting, left out); the session words the paragraph (server-words.ts). `chatId`: the chat of
   * the run (a cut result's whole text is kept in its log folder, deleted with it).
   */
  forRun(run: { acceptsImages: boolean; chatId?: string }): Promise<McpRunTools>;
  describe(toolName: string): McpToolFacts | undefined;
  allowed: McpAllowStore;
  approver: McpApprover;
}
