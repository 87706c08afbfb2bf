// `!cmd` and `!!cmd` from the composer: the user runs a command in the workspace folder
// themselves (so nothing asks), sees it on its own card, and the transcript gets a
// bashExecution message — which the model reads with the next request (`!`) or never (`!!`).
import type { BashExecutionMessage } from "../messages";
import { runCommandOnce, type CommandProgress } from "./run";
import type { OutputRedactor } from "./output";
import type { CommandRunner } from "./runner";

export interface UserCommandText {
  command: string;
  excludeFromContext: boolean;
}

/** `!cmd` / `!!cmd`, or undefined for an ordinary prompt (a lone `!` included). */
export function parseUserCommand(text: string): UserCommandText | undefined {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith("!")) return undefined;
  const exclude = trimmed.startsWith("!!");
  const command = trimmed.slice(exclude ? 2 : 1).trim();
  return command === "" ? undefined : { command, excludeFromContext: exclude };
}

export interface UserCommandRun {
  runner: CommandRunner;
  /** Absolute workspace root: the command runs there. */
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  logFile?: string;
  redact?: OutputRedactor;
  onProgress: (progress: CommandProgress) => void;
}

/** Runs it to the end (or Stop / time-out) and returns the message to save. */
export async function runUserCommand(text: UserCommandText, run: UserCommandRun): Promise<BashExecutionMessage> {
  const result = await runCommandOnce({
    runner: run.runner,
    command: text.command,
    cwd: run.cwd,
    timeoutMs: run.timeoutMs,
    signal: run.signal,
    onProgress: run.onProgress,
    ...(run.logFile ? { logFile: run.logFile } : {}),
    ...(run.redact ? { redact: run.redact } : {}),
  });
  const o = result.output;
  let output = o.text;
  if (result.end === "timeout") output += `${output === "" ? "" : "\n"}[timed out after ${Math.round(result.durationMs / 1000)} s]`;
  if (result.end === "failedToStart") output += `${output === "" ? "" : "\n"}[the command could not be started]`;
  return {
    role: "bashExecution",
    command: text.command,
    output,
    exitCode: result.exitCode,
    cancelled: result.end === "stopped" || result.end === "timeout",
    truncated: o.cutLines > 0,
    excludeFromContext: text.excludeFromContext,
    durationMs: result.durationMs,
    via: result.via,
    ...(o.logFile ? { logFile: o.logFile } : {}),
    timestamp: Date.now(),
  };
}
