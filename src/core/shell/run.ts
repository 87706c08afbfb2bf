// One command run from start to end, for the run_command tool and the composer's `!cmd`:
// start it, feed its output to a CommandOutput, end the whole tree on Stop or time-out, and say
// how it ended. The live tail goes to `onProgress`, at most every PROGRESS_INTERVAL_MS.
import { CommandOutput, type CommandOutputOptions, type OutputSummary } from "./output";
import type { CommandRunner, CommandRunnerKind, RunningCommand } from "./runner";
import { formatDuration } from "../../shared/format";

/** The card's live tail is refreshed at most this often: a flood costs the view no more than a trickle. */
export const PROGRESS_INTERVAL_MS = 250;

export type CommandEnd = "exited" | "timeout" | "stopped" | "failedToStart";

export interface CommandRunResult {
  end: CommandEnd;
  exitCode: number | null;
  signal?: string;
  durationMs: number;
  via: CommandRunnerKind;
  output: OutputSummary;
}

export interface CommandProgress {
  tail: string[];
  lines: number;
  elapsedMs: number;
  /** Which path runs it, once the runner said. */
  via?: CommandRunnerKind;
}

export interface RunCommandOnceOptions extends CommandOutputOptions {
  runner: CommandRunner;
  command: string;
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  onProgress?: (progress: CommandProgress) => void;
  title?: string;
}

export async function runCommandOnce(options: RunCommandOnceOptions): Promise<CommandRunResult> {
  const output = new CommandOutput(options);
  const started = Date.now();
  let lastProgress = 0;
  let progressTimer: ReturnType<typeof setTimeout> | undefined;
  let via: CommandRunnerKind | undefined;
  const sendProgress = () => {
    progressTimer = undefined;
    lastProgress = Date.now();
    options.onProgress?.({ tail: output.liveTail(), lines: output.lineCount, elapsedMs: lastProgress - started, ...(via ? { via } : {}) });
  };
  const onOutput = (chunk: Uint8Array | string) => {
    output.push(chunk);
    if (!options.onProgress || progressTimer) return;
    const wait = PROGRESS_INTERVAL_MS - (Date.now() - lastProgress);
    progressTimer = setTimeout(sendProgress, Math.max(0, wait));
  };
  if (options.signal?.aborted) {
    output.finish();
    return { end: "stopped", exitCode: null, durationMs: 0, via: "process", output: output.summary() };
  }
  let running: RunningCommand;
  try {
    running = await options.runner.start({ command: options.command, cwd: options.cwd, onOutput, ...(options.title ? { title: options.title } : {}) });
    via = running.via;
  } catch (error) {
    output.push(`${error instanceof Error ? error.message : String(error)}\n`);
    output.finish();
    return { end: "failedToStart", exitCode: null, durationMs: Date.now() - started, via: "process", output: output.summary() };
  }
  let end: CommandEnd = "exited";
  let stoppedAt: number | undefined;
  let killing: Promise<void> | undefined;
  const stop = (why: CommandEnd) => {
    if (end !== "exited") return;
    end = why;
    stoppedAt = Date.now();
    killing = running.kill();
  };
  const timer = setTimeout(() => stop("timeout"), options.timeoutMs);
  const onAbort = () => stop("stopped");
  options.signal?.addEventListener("abort", onAbort);
  if (options.signal?.aborted) onAbort();
  try {
    const exit = await running.exited;
    // The shell can be gone (and its pipes drained) before a grandchild has died: the result of
    // a stop or a time-out comes only once the whole tree is.
    if (killing !== undefined) await killing;
    output.finish();
    const result: CommandRunResult = {
      // Nothing ran (the terminal did not get its launch line whole): the output says why.
      end: exit.notStarted && end === "exited" ? "failedToStart" : end,
      exitCode: exit.exitCode,
      // "Stopped after 12 s" counts to the moment of the stop, not to the end of the clean-up.
      durationMs: (stoppedAt ?? Date.now()) - started,
      via: running.via,
      output: output.summary(),
    };
    if (exit.signal) result.signal = exit.signal;
    return result;
  } finally {
    clearTimeout(timer);
    if (progressTimer) clearTimeout(progressTimer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/** The first line of a result, as the model and the card read it. */
export function describeEnd(result: Pick<CommandRunResult, "end" | "exitCode" | "signal" | "durationMs">): string {
  const after = formatDuration(result.durationMs);
  switch (result.end) {
    case "stopped":
      return `Stopped by the user after ${after}.`;
    case "timeout":
      return `Timed out after ${after}; the command and everything it started were ended.`;
    case "failedToStart":
      return "The command could not be started.";
    case "exited":
      if (result.exitCode === null) return `Ended by signal ${result.signal ?? "(unknown)"} after ${after}.`;
      return `Exit code ${result.exitCode} after ${after}.`;
  }
}

/** What the model reads: how it ended, then the cleaned, capped output (and what was cut). */
export function resultTextForModel(command: string, result: CommandRunResult): string {
  const lines = [`$ ${command}`, describeEnd(result)];
  const o = result.output;
  if (o.invalidUtf8) lines.push("(Some output was not valid UTF-8; those bytes are shown as \uFFFD.)");
  if (o.cutLines > 0)
    lines.push(`(Output: ${o.totalLines.toLocaleString("en-US")} lines; ${o.cutLines.toLocaleString("en-US")} lines in the middle were cut.)`);
  lines.push(o.text === "" ? "(no output)" : o.text);
  return lines.join("\n");
}
