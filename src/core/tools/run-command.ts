// run_command: one shell command in a workspace folder, through an injected CommandRunner
// (a VS Code terminal or a child process). The permission gate asks the user before it runs
// (src/core/permissions/command-gate.ts); this file only runs it and reports.
import { join } from "node:path";
import type { AgentTool, AgentToolResult } from "@earendil-works/pi-agent-core";
import { bool, int, obj, opt, str, type Static } from "@earendil-works/pi-schema";
import { type BackgroundCommands, compileReadyPattern, describeState } from "../shell/background";
import type { OutputRedactor } from "../shell/output";
import type { CommandRunner, CommandRunnerKind } from "../shell/runner";
import { describeEnd, resultTextForModel, runCommandOnce, type CommandEnd, type CommandProgress } from "../shell/run";
import { WorkspaceToolError } from "./tool-error";
import { resolveCommandFolder, type CommandFolders } from "../shell/command-folders";
import type { WorkspaceFileSystem } from "./workspace-fs";

export const RUN_COMMAND_TOOL = "run_command";

/** The default time-out when settings say nothing, and the most a call may ask for. */
export const DEFAULT_COMMAND_TIMEOUT_SECONDS = 120;
export const MAX_COMMAND_TIMEOUT_SECONDS = 1800;
/** A command longer than this is refused: nobody can review it on a card. */
export const MAX_COMMAND_CHARS = 10_000;

/** The parameters, with the words on `cwd` for one folder or several. */
function runCommandSchema(cwdDescription: string) {
  return obj({
    command: str({ minLength: 1, maxLength: MAX_COMMAND_CHARS, description: "The shell command line (bash), e.g. `npm test` or `git status --short`." }),
    cwd: opt(str({ description: cwdDescription })),
    timeoutSeconds: opt(
      int({
        minimum: 1,
        maximum: MAX_COMMAND_TIMEOUT_SECONDS,
        description: `Ends the command (and everything it started) after this many seconds. Default from the user's settings (${DEFAULT_COMMAND_TIMEOUT_SECONDS} s).`,
      }),
    ),
    background: opt(
      bool({
        description:
          "Start a long-running command (a dev server, a watcher) and return while it keeps running; read its newer output or stop it with command_output and the id returned. No time-out applies.",
      }),
    ),
    readyPattern: opt(
      str({
        maxLength: 200,
        description:
          "With background: a regular expression (case-insensitive) for the output line that means it is ready, e.g. `listening on|ready in`. Without it, the call returns after 5 s.",
      }),
    ),
  });
}

export const runCommandParameters = runCommandSchema("Folder to run in, relative to the workspace root. Default: the workspace root.");

export type RunCommandParams = Static<typeof runCommandParameters>;

/** For the card: everything about the run except the output text (that is the result content). */
export interface RunCommandDetails {
  command: string;
  /** Workspace-relative folder ("." for the root). */
  cwd: string;
  via: CommandRunnerKind;
  end: CommandEnd;
  exitCode: number | null;
  signal?: string;
  durationMs: number;
  totalLines: number;
  totalBytes: number;
  cutLines: number;
  cutBytes: number;
  invalidUtf8: boolean;
  /** The whole cleaned output, which the card opens. */
  logFile?: string;
  /** While it runs: the last lines, for the card. */
  progress?: CommandProgress;
  /** Started in the background: its id (for command_output) and what ended the wait. */
  background?: { id: string; ready: "pattern" | "waited" | "ended" | "stopped"; readyLine?: string };
}

export interface RunCommandToolOptions {
  /** The workspace folders a command may run in (one, or several named by their first path segment). */
  folders: CommandFolders;
  fs: WorkspaceFileSystem;
  /** Chosen per run: the terminal when shell integration is there, else a child process. */
  runner: () => CommandRunner;
  /** Default time-out in seconds (settings). */
  defaultTimeoutSeconds: () => number;
  /** Folder for the full-output log files of this chat. */
  logDir?: string;
  /** Removes the key in use (and other secrets) from output. */
  redact?: OutputRedactor;
  /** This chat's background processes (`background: true`); without it such calls are refused. */
  background?: BackgroundCommands;
}

export function asRunCommandParams(args: unknown): RunCommandParams | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  const a = args as Record<string, unknown>;
  if (typeof a.command !== "string" || a.command.trim() === "" || a.command.length > MAX_COMMAND_CHARS) return undefined;
  if (a.cwd !== undefined && typeof a.cwd !== "string") return undefined;
  if (a.timeoutSeconds !== undefined && (typeof a.timeoutSeconds !== "number" || !Number.isInteger(a.timeoutSeconds))) return undefined;
  if (a.background !== undefined && typeof a.background !== "boolean") return undefined;
  if (a.readyPattern !== undefined && typeof a.readyPattern !== "string") return undefined;
  return {
    command: a.command,
    ...(a.cwd !== undefined ? { cwd: a.cwd as string } : {}),
    ...(a.timeoutSeconds !== undefined ? { timeoutSeconds: a.timeoutSeconds as number } : {}),
    ...(a.background !== undefined ? { background: a.background as boolean } : {}),
    ...(a.readyPattern !== undefined ? { readyPattern: a.readyPattern as string } : {}),
  };
}

export function commandTimeoutSeconds(requested: number | undefined, defaultSeconds: number): number {
  const base = requested ?? defaultSeconds;
  return Math.max(1, Math.min(MAX_COMMAND_TIMEOUT_SECONDS, Math.floor(base)));
}

export function createRunCommandTool(options: RunCommandToolOptions): AgentTool<typeof runCommandParameters, RunCommandDetails> {
  const folders = options.folders;
  // With several folders the model must name one: the parameter says how (the file tools' path form).
  const example = folders.names[0] ?? "app";
  const parameters = folders.multiRoot
    ? runCommandSchema(
        `Folder to run in, starting with the workspace folder's name (${folders.names.join(", ")}), e.g. "${example}" or "${example}/packages/web". Required: this workspace has several folders.`,
      )
    : runCommandParameters;
  return {
    name: RUN_COMMAND_TOOL,
    label: "Run command",
    description: [
      "Run one shell command (bash) in a folder of the workspace and get its exit code and output.",
      "Use it to run the project's tests, builds, linters, type checkers and git commands, instead of guessing their results.",
      "The user sees the exact command and must allow each run (unless they made a rule for it); a denied run is not to be retried unless asked.",
      "Standard input is closed and nothing is interactive (CI=1, no pager): pass flags such as --yes or --no-watch instead of waiting for input.",
      `Output is cleaned of colour codes and capped to the first and last lines (2,000 lines / 50 KB in all); the run ends after ${DEFAULT_COMMAND_TIMEOUT_SECONDS} s unless timeoutSeconds says otherwise.`,
      "For a dev server or a watcher, set background: true (and readyPattern for its ready line): the call returns with the first output and an id while it keeps running; use command_output with that id to read more or stop it.",
    ].join(" "),
    parameters,
    executionMode: "sequential",
    async execute(toolCallId, params, signal, onUpdate): Promise<AgentToolResult<RunCommandDetails>> {
      const folder = await resolveCommandFolder(options.fs, options.folders, params.cwd);
      const timeoutSeconds = commandTimeoutSeconds(params.timeoutSeconds, options.defaultTimeoutSeconds());
      const base = { command: params.command, cwd: folder.relative };
      if (params.background) return startInBackground(toolCallId, params, folder, options, signal);
      const result = await runCommandOnce({
        runner: options.runner(),
        command: params.command,
        cwd: folder.absolute,
        timeoutMs: timeoutSeconds * 1000,
        ...(signal ? { signal } : {}),
        ...(options.redact ? { redact: options.redact } : {}),
        ...(options.logDir ? { logFile: join(options.logDir, `${safeFileName(toolCallId)}.log`) } : {}),
        onProgress: (progress) =>
          onUpdate?.({
            content: [{ type: "text", text: progress.tail.join("\n") }],
            details: {
              ...base,
              via: progress.via ?? "process",
              end: "exited",
              exitCode: null,
              durationMs: progress.elapsedMs,
              totalLines: progress.lines,
              totalBytes: 0,
              cutLines: 0,
              cutBytes: 0,
              invalidUtf8: false,
              progress,
            },
          }),
      });
      const o = result.output;
      const details: RunCommandDetails = {
        ...base,
        via: result.via,
        end: result.end,
        exitCode: result.exitCode,
        durationMs: result.durationMs,
        totalLines: o.totalLines,
        totalBytes: o.totalBytes,
        cutLines: o.cutLines,
        cutBytes: o.cutBytes,
        invalidUtf8: o.invalidUtf8,
        ...(result.signal ? { signal: result.signal } : {}),
        ...(o.logFile ? { logFile: o.logFile } : {}),
      };
      const text = resultTextForModel(params.command, result);
      // A failing command is a normal result the model reads; a stop, a time-out or a shell that
      // would not start are errors of the call itself.
      const isError = result.end !== "exited";
      return { content: [{ type: "text", text }], details, ...(isError ? { isError: true } : {}) };
    },
  };
}

/** `background: true`: started, waited for (the ready line, a few seconds, or its end), and left running. */
async function startInBackground(
  toolCallId: string,
  params: RunCommandParams,
  folder: { relative: string; absolute: string },
  options: RunCommandToolOptions,
  signal: AbortSignal | undefined,
): Promise<AgentToolResult<RunCommandDetails>> {
  if (!options.background) throw new WorkspaceToolError("invalid_edit", "Background commands are not available here; run the command without background.");
  let readyPattern: RegExp | undefined;
  try {
    readyPattern = compileReadyPattern(params.readyPattern);
  } catch (error) {
    throw new WorkspaceToolError("invalid_query", error instanceof Error ? error.message : String(error));
  }
  const started = await options.background.start({
    id: toolCallId,
    command: params.command,
    cwd: folder.relative,
    absoluteCwd: folder.absolute,
    runner: options.runner(),
    ...(readyPattern ? { readyPattern } : {}),
    ...(options.redact ? { redact: options.redact } : {}),
    ...(options.logDir ? { logFile: join(options.logDir, `${safeFileName(toolCallId)}.log`) } : {}),
    ...(signal ? { signal } : {}),
  });
  const p = started.process;
  const seconds = `${(started.waitedMs / 1000).toFixed(1)} s`;
  const why =
    started.ready === "pattern"
      ? `It printed a line matching /${params.readyPattern}/ after ${seconds}: ${started.readyLine ?? ""}`
      : started.ready === "waited"
        ? readyPattern
          ? `No line matched /${params.readyPattern}/ within ${seconds}; it is ${describeState(p)}.`
          : `After ${seconds} it is ${describeState(p)}.`
        : started.ready === "ended"
          ? `It ended already: ${describeState(p)}.`
          : "It was stopped by the user.";
  const running = p.status.state === "running";
  const text = [
    `Started in the background with id ${p.id}: ${params.command} (in ${folder.relative}).`,
    why,
    started.output.text === ""
      ? "No output yet."
      : `Output so far${started.output.skipped ? ` (${started.output.skipped} earlier lines left out)` : ""}:\n${started.output.text}`,
    running
      ? `Read its newer output with command_output {"id": "${p.id}"}; stop it with command_output {"id": "${p.id}", "stop": true}. It also stops when the user stops it on its card, leaves this chat, deletes it, or VS Code closes.`
      : "",
  ]
    .filter((l) => l !== "")
    .join("\n");
  const details: RunCommandDetails = {
    command: params.command,
    cwd: folder.relative,
    via: p.via,
    end: p.status.state === "stopped" ? "stopped" : "exited",
    exitCode: p.status.state === "exited" ? p.status.exitCode : null,
    durationMs: started.waitedMs,
    totalLines: 0,
    totalBytes: 0,
    cutLines: 0,
    cutBytes: 0,
    invalidUtf8: false,
    background: { id: p.id, ready: started.ready, ...(started.readyLine !== undefined ? { readyLine: started.readyLine } : {}) },
    ...(started.logFile ? { logFile: started.logFile } : {}),
  };
  return { content: [{ type: "text", text }], details, ...(started.ready === "stopped" ? { isError: true } : {}) };
}

function safeFileName(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 120) || "command";
}

export { describeEnd };
