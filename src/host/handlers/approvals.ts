// Messages that answer an approval card (edits, commands, MCP tools) or act on a command's run.
import { findCommandLogFile } from "../shell/command-log-file";
import type { HandlerGroup } from "./deps";

export const approvalHandlers = {
  "approval/decide": (message, deps) => {
    const { commands, mcp, approvals } = deps;
    // Hunks are an edit's only: a decision naming some is for the edit waiting under that id, or for nothing.
    if (message.rejectedHunks !== undefined || message.editedHunks !== undefined) {
      const { toolCallId, decision, reason, rejectedHunks, editedHunks } = message;
      if (decision === "allowAlways" || !approvals.decide(toolCallId, decision, reason, rejectedHunks, editedHunks)) deps.ignore(message);
      return;
    }
    if (commands.decide(message.toolCallId, message.decision, message.reason, message.rule)) return;
    if (mcp?.decide(message.toolCallId, message.decision, message.reason)) return;
    if (message.decision === "allowAlways") return; // only commands have rules
    approvals.decide(message.toolCallId, message.decision, message.reason);
  },
  "approval/editHunk": (message, deps) => {
    if (!deps.approvals.editHunk(message.toolCallId, message.hunk, message.text)) deps.ignore(message);
  },
  "approval/hunk": (message, deps) => {
    if (!deps.approvals.chooseHunk(message.toolCallId, message.hunk, message.accept)) deps.ignore(message);
  },
  "editor/openDiff": (message, { approvals }) => approvals.openDiff(message.toolCallId),
  "command/stopBackground": async (message, deps) => {
    // Only a command of the chat on screen: an id of another chat (or none) is dropped.
    if (!(await deps.screen.currentSession.stopBackgroundCommand(message.id))) deps.ignore(message);
  },
  "command/openOutput": (message, deps) => {
    const details = findCommandLogFile(deps.screen.currentSession.viewState, message.toolCallId);
    return details ? deps.commands.openOutput(details.logFile) : deps.ignore(message);
  },
} satisfies HandlerGroup;
