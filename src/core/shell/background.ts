// Long-running commands (dev servers, watchers) a chat started in the background: run_command
// with `background: true` returns once a line of output matches the readiness pattern the model
// gave, or after a few seconds, or when the command ended already; the process keeps running
// (in its terminal, or as a child process) and command_output reads its newer output or stops
// it by id, and the user by the Stop button on its card. Every one of them ends with its chat:
// when the user leaves the chat (another chat, a new one), deletes it, or VS Code closes
// (ChatService.dispose); a reopened chat has none, and its view says so. `onEnd` tells the card.
import { CommandOutput, cleanLine, type OutputRedactor } from "./output";
import { DEFAULT_BACKGROUND_WAIT_MS, stopCauseForModel, type BackgroundRunState, type BackgroundStopCause } from "../../shared/background-state";
import type { CommandExit, CommandRunner, CommandRunnerKind, RunningCommand } from "./runner";

/** At most this many background processes per chat at once. */
export const MAX_BACKGROUND_PER_CHAT = 5;
/** The most a readiness wait may take. */
export const MAX_BACKGROUND_WAIT_MS = 60_000;

export type BackgroundState =
  | { state: "running" }
  | { state: "exited"; exitCode: number | null; signal?: string }
  | { state: "stopped"; by: BackgroundStopCause };

export interface BackgroundProcess {
  /** The tool call that started it: unique across restarts, and what command_output takes. */
  readonly id: string;
  readonly command: string;
  /** Workspace-relative folder. */
  readonly cwd: string;
  readonly via: CommandRunnerKind;
  readonly startedAt: number;
  /** When it exited, or when it was stopped (not when the clean-up ended). */
  endedAt?: number;
  status: BackgroundState;
}

export interface BackgroundStart {
  id: string;
  command: string;
  cwd: string;
  absoluteCwd: string;
  runner: CommandRunner;
  /** A line matching it means "ready". */
  readyPattern?: RegExp;
  waitMs?: number;
  redact?: OutputRedactor;
  logFile?: string;
  signal?: AbortSignal;
}

export interface BackgroundStarted {
  process: BackgroundProcess;
  /** What ended the wait. */
  ready: "pattern" | "waited" | "ended" | "stopped";
  /** The line that matched the pattern. */
  readyLine?: string;
  waitedMs: number;
  output: { text: string; skipped: number };
  logFile?: string;
}

interface Entry {
  process: BackgroundProcess;
  running: RunningCommand;
  output: CommandOutput;
  ended: Promise<void>;
  /** The stop's kill, once one was asked for: settles when the whole tree is gone. */
  killed?: Promise<void>;
  /** Settles once `onEnd` was told of this process's end (after `ended`, and after `killed` when stopped). */
  told: Promise<void>;
}

export class BackgroundCommands {
  private readonly entries = new Map<string, Entry>();

  /** `onEnd` hears of every process of this chat once, when it has ended (exited, or stopped and gone). */
  constructor(private readonly options: { onEnd?: (process: BackgroundProcess) => void } = {}) {}

  /** Whether this chat started any (the ended ones included). */
  get any(): boolean {
    return this.entries.size > 0;
  }

  /** Processes still running. */
  get running(): BackgroundProcess[] {
    return [...this.entries.values()].filter((e) => e.process.status.state === "running").map((e) => e.process);
  }

  async start(spec: BackgroundStart): Promise<BackgroundStarted> {
    if (this.running.length >= MAX_BACKGROUND_PER_CHAT) {
      throw new Error(
        `This chat already runs ${MAX_BACKGROUND_PER_CHAT} background commands (${this.running.map((p) => p.id).join(", ")}); stop one with command_output {id, stop: true} first.`,
      );
    }
    const output = new CommandOutput({ keepUnread: true, ...(spec.redact ? { redact: spec.redact } : {}), ...(spec.logFile ? { logFile: spec.logFile } : {}) });
    const started = Date.now();
    let markReady: (line: string) => void = () => undefined;
    const readyLine = new Promise<string>((resolve) => (markReady = resolve));
    // Lines as they arrive, only to look for the readiness pattern (the output keeps its own).
    const decoder = new TextDecoder("utf-8", { fatal: false });
    let partial = "";
    const pattern = spec.readyPattern;
    const onOutput = (chunk: Uint8Array | string) => {
      output.push(chunk);
      if (!pattern) return;
      partial += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
      const lines = partial.split("\n");
      partial = (lines.pop() ?? "").slice(-4000);
      for (const raw of lines) {
        // Long lines are looked at only in part: a model's pattern must not spin on a huge line.
        const line = cleanLine(raw).slice(0, 2000);
        if (pattern.test(line)) markReady(spec.redact ? spec.redact.text(line) : line);
      }
    };
    const running = await spec.runner.start({ command: spec.command, cwd: spec.absoluteCwd, onOutput, title: "Pi Chat" });
    const process: BackgroundProcess = {
      id: spec.id,
      command: spec.command,
      cwd: spec.cwd,
      via: running.via,
      startedAt: started,
      status: { state: "running" },
    };
    const ended = running.exited.then((exit: CommandExit) => {
      output.finish();
      if (process.status.state === "running") {
        process.status = { state: "exited", exitCode: exit.exitCode, ...(exit.signal ? { signal: exit.signal } : {}) };
        process.endedAt = Date.now();
      }
    });
    // Told once the whole tree is gone (a stop waits for that too), so "stopped" on the card is true.
    const told = ended.then(() => this.entries.get(spec.id)?.killed).then(() => this.options.onEnd?.(process));
    this.entries.set(spec.id, { process, running, output, ended, told });

    const waitMs = Math.min(spec.waitMs ?? DEFAULT_BACKGROUND_WAIT_MS, MAX_BACKGROUND_WAIT_MS);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const outcome = await Promise.race<{ ready: BackgroundStarted["ready"]; line?: string }>([
      readyLine.then((line) => ({ ready: "pattern", line })),
      ended.then(() => ({ ready: "ended" })),
      new Promise((resolve) => (timer = setTimeout(() => resolve({ ready: "waited" }), waitMs))),
      new Promise((resolve) => {
        onAbort = () => resolve({ ready: "stopped" });
        if (spec.signal?.aborted) onAbort();
        else spec.signal?.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) spec.signal?.removeEventListener("abort", onAbort);
    // Stop during the wait: the user did not want it to go on.
    if (outcome.ready === "stopped") await this.stop(spec.id, "user");
    // Let output printed together with the ready line or the exit arrive.
    await new Promise((r) => setTimeout(r, 50));
    const summary = output.summary();
    return {
      process,
      ready: outcome.ready,
      ...(outcome.line !== undefined ? { readyLine: outcome.line } : {}),
      waitedMs: Date.now() - started,
      output: output.takeNew(),
      ...(summary.logFile ? { logFile: summary.logFile } : {}),
    };
  }

  /** Output since the last read (capped), and the state; undefined for an id this chat never started. */
  read(id: string): { process: BackgroundProcess; text: string; skipped: number } | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    return { process: entry.process, ...entry.output.takeNew() };
  }

  /** Whether this chat started a background command with this id (running or not). */
  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** Ends the process and everything it started; resolves when it is gone and `onEnd` was told. */
  async stop(id: string, by: BackgroundStopCause): Promise<BackgroundProcess | undefined> {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.process.status.state === "running") {
      entry.process.status = { state: "stopped", by };
      entry.process.endedAt = Date.now();
      entry.killed = entry.running.kill();
    }
    await entry.killed;
    await entry.ended;
    await entry.told;
    return entry.process;
  }

  /** The chat is closing (left, deleted, VS Code exits): every process of it ends. */
  async stopAll(by: BackgroundStopCause): Promise<void> {
    await Promise.all([...this.entries.keys()].map((id) => this.stop(id, by)));
  }
}

/** A readiness pattern from the model: a regex, or refused with the reason. */
export function compileReadyPattern(source: string | undefined): RegExp | undefined {
  if (source === undefined || source === "") return undefined;
  try {
    return new RegExp(source, "i");
  } catch (error) {
    throw new Error(`readyPattern is not a valid regular expression: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export function describeState(process: BackgroundProcess): string {
  const s = process.status;
  if (s.state === "running") return `still running (started ${Math.round((Date.now() - process.startedAt) / 1000)} s ago)`;
  if (s.state === "stopped") return stopCauseForModel(s.by);
  return `exited with code ${s.exitCode ?? "unknown"}${s.signal ? ` (${s.signal})` : ""}`;
}

/** What the card shows of it (the live event's payload). */
export function backgroundRunState(process: BackgroundProcess): BackgroundRunState {
  const s = process.status;
  const durationMs = process.endedAt !== undefined ? { durationMs: Math.max(0, process.endedAt - process.startedAt) } : {};
  if (s.state === "running") return { state: "running" };
  if (s.state === "stopped") return { state: "stopped", by: s.by, ...durationMs };
  return { state: "exited", exitCode: s.exitCode, ...(s.signal ? { signal: s.signal } : {}), ...durationMs };
}

/** The words a notice starts with: how a later restore knows this end was already told. */
export function backgroundEndedNoticeText(id: string, command: string): string {
  return `Background command ${id} (${command}) is not running any more: background commands end when you leave their chat, delete it, or VS Code closes. Ask Pi to start it again if you need it.`;
}

/**
 * Background starts in a restored transcript that nothing recorded the end of (a command_output
 * that saw it end, or an earlier notice): their processes ended with the window that ran them.
 */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one pass over the transcript pairing background starts with their ends across message kinds
export function unendedBackgroundStarts(messages: readonly unknown[]): { id: string; command: string }[] {
  const started = new Map<string, string>();
  for (const m of messages) {
    if (typeof m !== "object" || m === null) continue;
    const message = m as { role?: unknown; toolName?: unknown; details?: unknown; text?: unknown; backgroundId?: unknown };
    const details = (typeof message.details === "object" && message.details !== null ? message.details : {}) as Record<string, unknown>;
    if (message.role === "toolResult" && message.toolName === "run_command") {
      const bg = details.background as { id?: unknown; ready?: unknown } | undefined;
      if (bg && typeof bg.id === "string" && bg.ready !== "ended" && bg.ready !== "stopped" && typeof details.command === "string")
        started.set(bg.id, details.command);
    } else if (message.role === "toolResult" && message.toolName === "command_output") {
      if (typeof details.id === "string" && details.state !== "running") started.delete(details.id);
    } else if (message.role === "localNotice" && typeof message.backgroundId === "string") {
      started.delete(message.backgroundId);
    } else if (message.role === "localNotice" && typeof message.text === "string") {
      // Notices saved before they named their command by id.
      for (const id of [...started.keys()]) if (message.text.startsWith(`Background command ${id} `)) started.delete(id);
    }
  }
  return [...started].map(([id, command]) => ({ id, command }));
}
