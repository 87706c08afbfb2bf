// run_command: one shell command in a workspace folder, through an injected CommandRunner
// (a VS Code terminal or a child process). The permission gate asks the user before it runs
// (src/core/permissions/command-gate.ts); this file only runs it and reports.
import { join } from "node:path";
import type { AgentTool, AgentToolResult } from "@earendil-works/pi-agent-core";
import { int, obj, opt, str, type Static } from "@earendil-works/pi-schema";
import type { CommandRunner, CommandRunnerKind } from "../commands/runner";
import { describeEnd, resultTextForModel, runCommandOnce, type CommandEnd, type CommandProgress } from "../commands/run";
import { resolveToolPath, WorkspaceToolError } from "./shared";
import type { WorkspaceFileSystem } from "./workspace-fs";

export const RUN_COMMAND_TOOL = "run_command";

/** The default time-out when settings say nothing, and the most a call may ask for. */
export const DEFAULT_COMMAND_TIMEOUT_SECONDS = 120;
export const MAX_COMMAND_TIMEOUT_SECONDS = 1800;
/** A command longer than this is refused: nobody can review it on a card. */
export const MAX_COMMAND_CHARS = 10_000;

export const runCommandParameters = obj({
  command: str({ minLength: 1, maxLength: MAX_COMMAND_CHARS, description: "The shell command line (bash), e.g. `npm test` or `git status --short`." }),
  cwd: opt(str({ description: "Folder to run in, relative to the workspace root. Default: the workspace root." })),
  timeoutSeconds: opt(
    int({ minimum: 1, maximum: MAX_COMMAND_TIMEOUT_SECONDS, description: `Ends the command (and everything it started) after this many seconds. Default from the user's settings (${DEFAULT_COMMAND_TIMEOUT_SECONDS} s).` }),
  ),
});

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
}

export interface RunCommandToolOptions {
  /** Absolute workspace root: the command's folder must be inside it. */
  root: string;
  fs: WorkspaceFileSystem;
  /** Chosen per run: the terminal when shell integration is there, else a child process. */
  runner: () => CommandRunner;
  /** Default time-out in seconds (settings). */
  defaultTimeoutSeconds: () => number;
  /** Folder for the full-output log files of this chat. */
  logDir?: string;
  /** Removes the key in use (and other secrets) from output. */
  redact?: (text: string) => string;
}

export function asRunCommandParams(args: unknown): RunCommandParams | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  const a = args as Record<string, unknown>;
  if (typeof a.command !== "string" || a.command.trim() === "" || a.command.length > MAX_COMMAND_CHARS) return undefined;
  if (a.cwd !== undefined && typeof a.cwd !== "string") return undefined;
  if (a.timeoutSeconds !== undefined && (typeof a.timeoutSeconds !== "number" || !Number.isInteger(a.timeoutSeconds))) return undefined;
  return {
    command: a.command,
    ...(a.cwd !== undefined ? { cwd: a.cwd as string } : {}),
    ...(a.timeoutSeconds !== undefined ? { timeoutSeconds: a.timeoutSeconds as number } : {}),
  };
}

/** The command's folder: workspace-relative (for the card) and absolute (to run in). */
export async function resolveCommandFolder(fs: WorkspaceFileSystem, root: string, cwd: string | undefined): Promise<{ relative: string; absolute: string }> {
  const { realPath } = await resolveToolPath(fs, root, cwd === undefined || cwd.trim() === "" ? "." : cwd);
  const info = await fs.stat(realPath);
  if (info === undefined) throw new WorkspaceToolError("not_found", `Folder not found: ${cwd}`);
  if (info.type !== "directory") throw new WorkspaceToolError("not_a_file", `${cwd} is not a folder; give the folder to run the command in.`);
  return { relative: realPath, absolute: realPath === "." ? root : join(root, ...realPath.split("/")) };
}

export function commandTimeoutSeconds(requested: number | undefined, defaultSeconds: number): number {
  const base = requested ?? defaultSeconds;
  return Math.max(1, Math.min(MAX_COMMAND_TIMEOUT_SECONDS, Math.floor(base)));
}

export function createRunCommandTool(options: RunCommandToolOptions): AgentTool<typeof runCommandParameters, RunCommandDetails> {
  return {
    name: RUN_COMMAND_TOOL,
    label: "Run command",
    description: [
      "Run one shell command (bash) in a folder of the workspace and get its exit code and output.",
      "Use it to run the project's tests, builds, linters, type checkers and git commands, instead of guessing their results.",
      "The user sees the exact command and must allow each run (unless they made a rule for it); a denied run is not to be retried unless asked.",
      "Standard input is closed and nothing is interactive (CI=1, no pager): pass flags such as --yes or --no-watch instead of waiting for input.",
      `Output is cleaned of colour codes and capped to the first and last lines (2,000 lines / 50 KB in all); the run ends after ${DEFAULT_COMMAND_TIMEOUT_SECONDS} s unless timeoutSeconds says otherwise.`,
    ].join(" "),
    parameters: runCommandParameters,
    executionMode: "sequential",
    async execute(toolCallId, params, signal, onUpdate): Promise<AgentToolResult<RunCommandDetails>> {
      const folder = await resolveCommandFolder(options.fs, options.root, params.cwd);
      const timeoutSeconds = commandTimeoutSeconds(params.timeoutSeconds, options.defaultTimeoutSeconds());
      const base = { command: params.command, cwd: folder.relative };
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
            details: { ...base, via: progress.via ?? "process", end: "exited", exitCode: null, durationMs: progress.elapsedMs, totalLines: progress.lines, totalBytes: 0, cutLines: 0, cutBytes: 0, invalidUtf8: false, progress },
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

function safeFileName(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 120) || "command";
}

export { describeEnd };
