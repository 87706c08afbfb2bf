// Messages that answer an approval card (edits, commands, MCP tools) or act on a command's run.
import { findCommandLogFile } from "../shell/command-log-file";
import type { HandlerGroup } from "./context";

export const approvalHandlers = {
  "approval/decide": (message, ctx) => {
    if (ctx.commands.decide(message.toolCallId, message.decision, message.reason, message.rule)) return;
    if (ctx.mcp?.decide(message.toolCallId, message.decision, message.reason)) return;
    if (message.decision === "allowAlways") return; // only commands have rules
    return ctx.decide(message.toolCallId, message.decision, message.reason);
  },
  "editor/openDiff": async (message, ctx) => {
    const pending = ctx.pendingApproval(message.toolCallId);
    if (pending) await ctx.diffs.show(pending);
  },
  "command/stopBackground": async (message, ctx) => {
    // Only a command of the chat on screen: an id of another chat (or none) is dropped.
    if (!(await ctx.session.stopBackgroundCommand(message.id))) ctx.ignore(message);
  },
  "command/openOutput": (message, ctx) => {
    const details = findCommandLogFile(ctx.session.viewState, message.toolCallId);
    return details ? ctx.commands.openOutput(details.logFile) : ctx.ignore(message);
  },
} satisfies HandlerGroup;
