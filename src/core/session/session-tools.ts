// A chat's toolbox: the tools its agent can be given — the workspace tools (edit_file writing
// through the checkpoints' recording file system, the problems after an edit) and, where commands
// may run, run_command and command_output — with the gates that decide their calls (tool-gates.ts),
// the chat's background commands and the redactor of command output. Built once per session.
import type { AgentMessage, AgentTool } from "@earendil-works/pi-agent-core";
import type { ChatEvent } from "../../shared/protocol";
import type { ApprovalNoticeMessage, ChatMode } from "../messages";
import { EditGate } from "../permissions";
import type { EditProposal } from "../tools";
import { SecretRedactor } from "../redaction";
import { BackgroundCommands, backgroundRunState } from "../shell/background";
import { singleFolder, type CommandFolders } from "../shell/command-folders";
import { createCommandOutputTool } from "../tools/command-output";
import { withProblemsAfterEdit } from "../tools/problems-after-edit";
import { createRunCommandTool } from "../tools/run-command";
import { createWorkspaceTools } from "../tools/toolset";
import { createTodoTool } from "../tasks/todo-tool";
import { createProposePlanTool } from "../plans/propose-plan-tool";
import { sessionToolGates, type ToolGates } from "./tool-gates";
import type { ChatSessionOptions, Redactor } from "./types";

export interface ToolboxDeps {
  id: string;
  options: ChatSessionOptions;
  /** Whether the model of the run that calls read_file sees images. */
  acceptsImages: () => boolean | undefined;
  emit(event: ChatEvent): void;
  /** Steers a gate's decision notice into the transcript, after this batch's tool results. */
  record(notice: ApprovalNoticeMessage): void;
  /** The chat's path: the todo tool keeps its items' ids from the current list. */
  transcript(): readonly AgentMessage[];
  /** The chat's mode now: plan mode's gate follows it. */
  mode(): ChatMode;
}

export interface Toolbox {
  tools: AgentTool[];
  gates: ToolGates;
  edits: EditGate;
  /** Commands run_command started in the background; they end with the chat. Their cards follow their end. */
  background: BackgroundCommands;
  /** Where run_command and `!cmd` may run (undefined: no folder on disk). */
  commandFolders: CommandFolders | undefined;
  /**
   * The one redactor of command output (run_command and `!cmd`: the model, the log, the card):
   * the extension's, which knows every stored and environment key, plus the key in use.
   */
  keys: Redactor;
}

export function createToolbox(deps: ToolboxDeps): Toolbox {
  const { options } = deps;
  const keys = options.redactor ?? new SecretRedactor();
  const background = new BackgroundCommands({
    onEnd: (p) => {
      deps.emit({ type: "command/backgroundState", id: p.id, state: backgroundRunState(p) });
      // What it wrote after its tool call returned goes to this chat's checkpoints.
      void options.checkpoints?.backgroundEnded(p.id).catch((e: unknown) => options.log?.(`checkpoint of a background command not saved: ${String(e)}`));
    },
  });
  const proposals = new Map<string, EditProposal>();
  const commandFolders = options.commands?.folders ?? (options.workspaceRoot !== undefined ? singleFolder(options.workspaceRoot) : undefined);
  const tools = createSessionTools({ options, proposals, acceptsImages: deps.acceptsImages, commandFolders, keys, background });
  // The task list only writes the chat's own list: no gate, in Restricted Mode too.
  tools.push(createTodoTool(deps.transcript) as AgentTool, createProposePlanTool() as AgentTool);
  const edits = new EditGate({
    chatId: deps.id,
    fs: options.fs,
    ...(options.workspaceRoot !== undefined ? { workspaceRoot: options.workspaceRoot } : {}),
    approver: options.approver,
    approvalMode: options.approvalMode,
    ...(options.protectedFiles ? { protectedFiles: options.protectedFiles } : {}),
    ...(options.workspaceTrusted ? { workspaceTrusted: options.workspaceTrusted } : {}),
    proposals,
    emit: deps.emit,
    record: deps.record,
  });
  const gates = sessionToolGates({ chatId: deps.id, options, edits, commandFolders, emit: deps.emit, record: deps.record, mode: deps.mode });
  return { tools, gates, edits, background, commandFolders, keys };
}

export interface SessionToolDeps {
  options: ChatSessionOptions;
  /** Where the edit gate leaves approved proposals; edit_file writes only those. */
  proposals: Map<string, EditProposal>;
  /** Whether the model of the run that calls read_file sees images. */
  acceptsImages: () => boolean | undefined;
  commandFolders: CommandFolders | undefined;
  /** The one redactor of command output (the model, the log, the card). */
  keys: Redactor;
  background: BackgroundCommands;
}

function createSessionTools(deps: SessionToolDeps): AgentTool[] {
  const { options } = deps;
  const root = options.workspaceRoot !== undefined ? { root: options.workspaceRoot } : {};
  const problems = options.problems;
  const tools = createWorkspaceTools({
    // edit_file writes through the recording file system: each write is kept for a restore.
    fs: options.checkpoints ? options.checkpoints.recordingFs(options.fs) : options.fs,
    ...root,
    proposals: deps.proposals,
    ...options.discovery,
    // Whether the model sees images is the model of the run that calls the tool.
    readImages: { acceptsImages: deps.acceptsImages, ...(options.imageScaler ? { scale: options.imageScaler } : {}) },
    ...(problems ? { wrapEditFile: (editFile) => withProblemsAfterEdit(editFile, problems, root) } : {}),
  });
  const commands = options.commands;
  if (commands && deps.commandFolders) {
    const runCommand = createRunCommandTool({
      folders: deps.commandFolders,
      fs: options.fs,
      runner: commands.runner,
      defaultTimeoutSeconds: commands.defaultTimeoutSeconds,
      redact: deps.keys,
      ...(commands.logDir ? { logDir: commands.logDir } : {}),
      background: deps.background,
    }) as AgentTool;
    tools.push(
      // A walk before and after each run records what the command changed.
      options.checkpoints ? options.checkpoints.recordingCommandTool(runCommand) : runCommand,
      createCommandOutputTool(deps.background),
    );
  }
  return tools;
}
