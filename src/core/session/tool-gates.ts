// The gates a tool call passes before it runs (the agent's beforeToolCall), as a table: one row
// per kind of gate (plan mode, edit, command, MCP), each saying how it decides and which tools it keeps out
// of a run. Which tool a gate decides on is the tool-name table's word (src/shared/tool-names.ts,
// `gated`). A new gated tool adds its name's row there and, for a new kind of gate, a row here;
// the session's tool list and its beforeToolCall both read the table.
import type { AgentTool, BeforeToolCallContext, BeforeToolCallResult } from "@earendil-works/pi-agent-core";
import type { ChatEvent } from "../../shared/protocol";

import { offeredInActMode, offeredInPlanMode, toolGateKind, toolRow, type ToolGateKind } from "../../shared/tool-names";
import { gateMcpCall } from "../mcp/gate";
import type { ApprovalNoticeMessage, ChatMode } from "../messages";
import type { EditGate } from "../permissions";
import { gateCommand } from "../permissions/command-gate";
import type { CommandFolders } from "../shell/command-folders";
import type { ChatSessionOptions } from "./types";

export type ToolGateResult = Promise<BeforeToolCallResult | undefined>;

export interface ToolGateRow {
  /** Which gate this is: it decides the tools whose name's row says `gated: kind` (MCP: by their prefix). */
  readonly kind: ToolGateKind;
  /** The tool calls this row decides on. */
  matches(toolName: string): boolean;
  gate(context: BeforeToolCallContext, signal: AbortSignal | undefined): ToolGateResult;
  /** False for a tool this row keeps out of the run's tool list (commands in Restricted Mode); absent: every tool is offered. */
  offers?(toolName: string): boolean;
}

/** The table: the first row that matches a call decides it; a call no row matches runs ungated. */
export class ToolGates {
  constructor(readonly rows: readonly ToolGateRow[]) {}

  readonly beforeToolCall = (context: BeforeToolCallContext, signal: AbortSignal | undefined): ToolGateResult => {
    const row = this.rows.find((r) => r.matches(context.toolCall.name));
    return row ? row.gate(context, signal) : Promise.resolve(undefined);
  };

  /** The tools a run is offered: those every row offers. */
  offered(tools: readonly AgentTool[]): AgentTool[] {
    return tools.filter((tool) => this.rows.every((row) => row.offers?.(tool.name) ?? true));
  }
}

/** What the gates share: the chat, the view, the transcript (a decision's notice is steered in). */
export interface GateDeps {
  chatId: string;
  options: Pick<ChatSessionOptions, "fs" | "commands" | "mcp" | "approvalMode">;
  edits: EditGate;
  /** Where run_command may run (undefined: no folder on disk). */
  commandFolders: CommandFolders | undefined;
  emit(event: ChatEvent): void;
  /** Steering lands the notice after this batch's tool results, before the next model request. */
  record(notice: ApprovalNoticeMessage): void;
  /** The chat's mode now (a switch during a run counts at once). */
  mode(): ChatMode;
}

/** edit_file: the diff is computed, decided on (settings, protected files, trust) and maybe asked about. */
export function editGateRow(deps: GateDeps): ToolGateRow {
  return { kind: "edit", matches: (name) => toolGateKind(name) === "edit", gate: (context, signal) => deps.edits.beforeToolCall(context, signal) };
}

/** run_command: asked about unless a rule allows it; the tools that need commands (run_command, command_output) offered only where commands may run. */
export function commandGateRow(deps: GateDeps): ToolGateRow {
  return {
    kind: "command",
    matches: (name) => toolGateKind(name) === "command",
    offers: (name) => toolRow(name)?.needsCommands !== true || deps.options.commands?.enabled() === true,
    gate: (context, signal) => {
      const commands = deps.options.commands;
      if (!commands) return Promise.resolve({ block: true, reason: "Commands are not available in this window." });
      return gateCommand(
        context.toolCall.id,
        context.args,
        {
          chatId: deps.chatId,
          fs: deps.options.fs,
          folders: deps.commandFolders,
          enabled: commands.enabled,
          rules: commands.rules,
          approver: commands.approver,
          emit: deps.emit,
          record: deps.record,
        },
        signal,
      );
    },
  };
}

/** An MCP server's tool: every call asks, unless allowed always or read-only in an auto mode (mcp/gate.ts). */
export function mcpGateRow(deps: GateDeps): ToolGateRow {
  return {
    kind: "mcp",
    matches: (name) => toolGateKind(name) === "mcp",
    gate: (context, signal) => {
      const mcp = deps.options.mcp;
      if (!mcp) return Promise.resolve({ block: true, reason: "MCP tools are not available in this window." });
      const gateDeps = {
        chatId: deps.chatId,
        describe: (name: string) => mcp.describe(name),
        allowed: mcp.allowed,
        approver: mcp.approver,
        approvalMode: () => deps.options.approvalMode(),
        editsAllowedForChat: () => deps.edits.allowsEditsForChat,
        emit: deps.emit,
        record: deps.record,
      };
      return gateMcpCall(context.toolCall.id, context.toolCall.name, context.args, gateDeps, signal);
    },
  };
}

/**
 * Plan mode: only the tools that read or discover are offered, and a call of any other (a model
 * that calls what it was not given) is refused before any other gate, so no card asks about it.
 * Act mode leaves out what only plan mode needs (propose_plan).
 */
export function planModeGateRow(deps: Pick<GateDeps, "mode">): ToolGateRow {
  return {
    kind: "plan",
    matches: (name) => deps.mode() === "plan" && !offeredInPlanMode(name),
    offers: (name) => (deps.mode() === "plan" ? offeredInPlanMode(name) : offeredInActMode(name)),
    gate: (context) =>
      Promise.resolve({
        block: true,
        reason: `The chat is in plan mode: ${context.toolCall.name} was not run, and nothing was changed. Read and explore only, then propose the plan; the user switches to act mode to carry it out.`,
      }),
  };
}

/** A chat's gates, in the order they are asked: plan mode first, so a refused call reaches no other gate. */
export function sessionToolGates(deps: GateDeps): ToolGates {
  return new ToolGates([planModeGateRow(deps), commandGateRow(deps), mcpGateRow(deps), editGateRow(deps)]);
}
