// The gates a tool call passes before it runs (the agent's beforeToolCall), as a table: one row
// per kind of gated tool (edit, command, MCP), each saying which tools it gates, how it decides,
// and which tools it offers only when it can gate them. A new gated tool adds a row here; the
// session's tool list and its beforeToolCall both read the table.
import type { AgentTool, BeforeToolCallContext, BeforeToolCallResult } from "@earendil-works/pi-agent-core";
import type { ChatEvent } from "../../shared/protocol";
import { gateMcpCall, isMcpToolName } from "../mcp/gate";
import type { ApprovalNoticeMessage } from "../messages";
import type { EditGate } from "../permissions";
import { gateCommand } from "../permissions/command-gate";
import type { CommandFolders } from "../shell/command-folders";
import { COMMAND_OUTPUT_TOOL } from "../tools/command-output";
import { RUN_COMMAND_TOOL } from "../tools/run-command";
import type { ChatSessionOptions } from "./types";

export type ToolGateResult = Promise<BeforeToolCallResult | undefined>;

export interface ToolGateRow {
  /** Which gate this is, for a reader and a test. */
  readonly kind: "edit" | "command" | "mcp";
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
}

/** edit_file: the diff is computed, decided on (settings, protected files, trust) and maybe asked about. */
export function editGateRow(deps: GateDeps): ToolGateRow {
  return { kind: "edit", matches: (name) => name === "edit_file", gate: (context, signal) => deps.edits.beforeToolCall(context, signal) };
}

/** run_command: asked about unless a rule allows it; run_command and command_output offered only where commands may run. */
export function commandGateRow(deps: GateDeps): ToolGateRow {
  return {
    kind: "command",
    matches: (name) => name === RUN_COMMAND_TOOL,
    offers: (name) => (name !== RUN_COMMAND_TOOL && name !== COMMAND_OUTPUT_TOOL) || deps.options.commands?.enabled() === true,
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
    matches: isMcpToolName,
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

/** A chat's gates, in the order they are asked. */
export function sessionToolGates(deps: GateDeps): ToolGates {
  return new ToolGates([commandGateRow(deps), mcpGateRow(deps), editGateRow(deps)]);
}
