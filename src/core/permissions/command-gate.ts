// The permission gate for run_command: every run asks the user on one card (the exact command,
// the folder, the decision), whatever the approval mode and "allow edits for this chat" said,
// unless a rule the user made for this workspace covers every part of the command. Rules come
// from workspace state through `CommandRuleStore`, never from settings a repository could ship.
import type { BeforeToolCallResult } from "@earendil-works/pi-agent-core";
import type { ChatEvent } from "../../shared/protocol";
import type { ApprovalNoticeMessage } from "../messages";
import { asRunCommandParams, RUN_COMMAND_TOOL } from "../tools/run-command";
import { resolveCommandFolder, type CommandFolders } from "../shell/command-folders";
import type { WorkspaceFileSystem } from "../tools/workspace-fs";
import { hostCommandShell, matchAllowRules, offerRules, parseRule, splitCommand, type CommandShell } from "./command-rules";
import { pathsInWord } from "../../shared/command-policies";
import { resolveWorkspacePath } from "../tools/paths";

export interface CommandApprovalRequest {
  chatId: string;
  toolCallId: string;
  command: string;
  /** Workspace-relative folder the command runs in. */
  cwd: string;
  /** Rules the card offers for "always allow" (none when the command can never match a rule). */
  suggestedRules: string[];
  /** Why no rule is offered (the command always asks, or rules are off on Windows). */
  ruleNote?: string;
}

export type CommandDecision = { decision: "allow" } | { decision: "deny"; reason?: string } | { decision: "allowAlways"; rule: string };

/** Asks the user. Rejects (or the signal aborts) when the run is stopped before a decision. */
export type CommandApprover = (request: CommandApprovalRequest, signal: AbortSignal | undefined) => Promise<CommandDecision>;

/** The user's allow rules for this workspace. */
export interface CommandRuleStore {
  list(): readonly string[];
  add(rule: string): Promise<void>;
}

export interface CommandGateDeps {
  chatId: string;
  fs: WorkspaceFileSystem;
  /** The folders commands may run in; undefined: none on disk. */
  folders: CommandFolders | undefined;
  /** False in restricted mode (an untrusted workspace): nothing runs at all. */
  enabled: () => boolean;
  rules: CommandRuleStore;
  approver: CommandApprover;
  emit: (event: ChatEvent) => void;
  /** Adds the decision to the transcript (it lands after the tool results of this step). */
  record: (notice: ApprovalNoticeMessage) => void;
  /** The shell commands run through; default: this host's (cmd.exe on Windows, where rules are off). */
  shell?: CommandShell;
}

// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the command gate's checks in their order (Restricted Mode, protected paths, rules, ask): the order is the security argument
export async function gateCommand(
  toolCallId: string,
  args: unknown,
  deps: CommandGateDeps,
  signal: AbortSignal | undefined,
): Promise<BeforeToolCallResult | undefined> {
  if (!deps.enabled() || deps.folders === undefined) {
    return { block: true, reason: "Commands cannot run here: the workspace is not trusted (restricted mode) or no folder is open." };
  }
  const params = asRunCommandParams(args);
  if (!params) return { block: true, reason: "run_command needs a non-empty command string (and optionally cwd and timeoutSeconds)." };
  let cwd: string;
  try {
    cwd = (await resolveCommandFolder(deps.fs, deps.folders, params.cwd)).relative;
  } catch (error) {
    return { block: true, reason: error instanceof Error ? error.message : String(error) };
  }
  const base = { role: "approvalNotice" as const, toolCallId, toolName: RUN_COMMAND_TOOL, command: params.command, cwd };
  const shell = deps.shell ?? hostCommandShell();
  const matched = matchAllowRules(params.command, deps.rules.list(), shell);
  // A rule sees words; a word inside the workspace may still lead outside through a symlink.
  const through = matched.allowed ? await symlinkOutside(deps.fs, cwd, params.command) : undefined;
  const byRule = through ? { allowed: false as const, reason: through } : matched;
  if (byRule.allowed) {
    const rule = byRule.rules.join(", ");
    deps.record({ ...base, decision: "allowed", rule, timestamp: Date.now() });
    return undefined;
  }
  // Offer rules only for the parts no rule covers yet.
  const existing = deps.rules.list();
  const offer = offerRules(params.command, shell);
  const suggestedRules = "rules" in offer && !through ? offer.rules.filter((r) => !matchAllowRules(r, existing, shell).allowed) : [];
  const ruleNote = "reason" in offer ? { ruleNote: offer.reason } : through ? { ruleNote: `The command asks although a rule covers it: ${through}.` } : {};
  // A background run keeps going after the yes: the card says so, with the line Pi waits for.
  const background = params.background ? { background: params.readyPattern ? { readyPattern: params.readyPattern } : {} } : {};
  deps.emit({ type: "approval/request", toolCallId, toolName: RUN_COMMAND_TOOL, command: params.command, cwd, suggestedRules, ...ruleNote, ...background });
  let decision: CommandDecision;
  try {
    decision = await deps.approver({ chatId: deps.chatId, toolCallId, command: params.command, cwd, suggestedRules, ...ruleNote }, signal);
  } catch {
    deps.emit({ type: "approval/cancelled", toolCallId });
    return { block: true, reason: "The command was cancelled before the user decided. Nothing ran." };
  }
  let rule: string | undefined;
  if (decision.decision === "allowAlways") {
    // One rule a line. Rules that would not even cover this command are a mistake: run it this once, save nothing.
    const added = decision.rule
      .split("\n")
      .map((r) => r.trim())
      .filter((r) => r !== "");
    if (added.length > 0 && added.every((r) => parseRule(r).ok) && matchAllowRules(params.command, [...deps.rules.list(), ...added], shell).allowed) {
      for (const r of added) await deps.rules.add(r);
      rule = added.join(", ");
    }
  }
  const denied = decision.decision === "deny";
  const reason = decision.decision === "deny" ? decision.reason?.trim() : undefined;
  deps.emit({ type: "approval/decided", toolCallId, decision: denied ? "denied" : "allowed", ...(reason ? { reason } : {}), ...(rule ? { rule } : {}) });
  deps.record({ ...base, decision: denied ? "denied" : "allowed", ...(reason ? { reason } : {}), ...(rule ? { rule } : {}), timestamp: Date.now() });
  if (denied) return { block: true, reason: `The user denied this command${reason ? `: "${reason}"` : ""}. Nothing ran.` };
  return undefined;
}

/**
 * Why a command a rule covers still asks: one of its words names a path in the command's folder
 * that leads outside the workspace through a symlink (`notes -> ~`), or undefined.
 */
async function symlinkOutside(fs: WorkspaceFileSystem, cwd: string, command: string): Promise<string | undefined> {
  const split = splitCommand(command);
  if (!split.ok) return undefined;
  for (const part of split.parts) {
    for (const word of part.slice(1)) {
      for (const candidate of pathsInWord(word)) {
        const lexical = resolveWorkspacePath(undefined, cwd === "." ? candidate : `${cwd}/${candidate}`);
        // Not a path the tools would take (a URL, an option): nothing of the workspace to follow.
        if (!lexical.ok || lexical.path === ".") continue;
        const real = await fs.realPath(lexical.path);
        if (!real.inside) return `"${word}" leads outside the workspace through a symlink`;
      }
    }
  }
  return undefined;
}
