// The terminal path: a command runs in a visible "Pi Chat" terminal through VS Code's shell
// integration (executeCommand, execution.read(), onDidEndTerminalShellExecution), so the user
// sees it run. When shell integration does not come up within a few seconds (a shell VS Code
// cannot integrate with, or integration turned off), or a new terminal does not report the end of
// a first no-op run, the command runs as a child process instead (the fallback).
//
// The approved command is never typed. VS Code can lose the start of a typed line (seen in a new
// terminal: the shell ran the tail of the command, and a tail of `cd build && rm -rf *` is
// `rm -rf *`), so the terminal gets a short launch line, `<launcher file> <token>`: an
// owner-only file (launchers.ts) that holds the approved command, runs only with its one-time
// token, and deletes itself as it starts. Every word of that line is a path that exists only
// whole or a string of digits, so any damaged version of it can only fail (not found, or the
// wrong token); the runner then finds the file still there, deletes it (it can never start
// later) and, as nothing ran, launches the command once more with a new launcher (the card says
// so: VS Code does lose the start of a new terminal's first line now and then); if that one runs
// nothing too, the card and the model are told that the command did not run.
//
// Like the child-process path, the launcher runs `bash -c '<command>' </dev/null`: standard
// input is closed, a `cd`, `export` or `exit` in the command leaves the terminal as it was, and
// the environment says nobody is there (CI=1, no pager, GIT_TERMINAL_PROMPT=0: the terminal is
// created with it) and carries the run's tag. Stop and the time-out end everything below the
// terminal's shell, group by group, and every process with the run's tag wherever it moved;
// the shell stays, ready for the next command.
import * as vscode from "vscode";
import { defaultShell, LEFTOVER_GRACE_MS } from "../../core/shell/node-runner";
import { descendantsOf, endProcesses, hasChildren } from "../../core/shell/process-tree";
import { terminalEnvironment, type CommandExit, type CommandRunner, type CommandStart, type KillOptions, type RunningCommand } from "../../core/shell/runner";
import { carriesLine, claimLauncher, NOT_STARTED_NOTE, relaunchNote, writeLauncher, type Launcher } from "./launchers";

/** How long a new terminal may take to report shell integration before the child process is used. */
export const SHELL_INTEGRATION_WAIT_MS = 4000;
/** After shell integration did not come up, how long commands go straight to the child process. */
const RETRY_TERMINAL_AFTER_MS = 5 * 60_000;
/** How long a new terminal may take to report the end of its first (no-op) run. */
const FIRST_RUN_REPORT_WAIT_MS = 8000;
/** How long VS Code may take to report that a typed command started before it is given up. */
const START_REPORT_WAIT_MS = 15_000;
/** After Stop, how long to wait for VS Code to report the end of the execution. */
const END_REPORT_WAIT_MS = 3000;
/**
 * After a run's start was reported, how long nothing may run below the shell without its end
 * being reported before the run is taken as over (VS Code lost track of it: seen under load).
 */
const END_LOST_AFTER_MS = 2000;
/** How often a followed run looks whether anything still runs below the shell. */
const END_WATCH_POLL_MS = 500;
/** After a give-up, a line the shell had not read yet may still start: it is ended this much later too. */
const LATE_START_CHECK_MS = 2000;

interface PiTerminal {
  terminal: vscode.Terminal;
  cwd: string;
  busy: boolean;
}

export interface TerminalRunnerOptions {
  /** Runs a command the terminal cannot take (and everything, when integration is missing). */
  fallback: CommandRunner;
  log: (line: string) => void;
  /** Where the launcher files go (the extension's storage; owner-only). */
  launcherDir: string;
  waitForIntegrationMs?: number;
  /** The terminal's name. */
  name?: string;
  /** Variables the terminal (and so every command in it) must not get: the API key variables Pi Chat reads. */
  removeEnv?: readonly string[];
  // Seams for the host tests (terminal-nets.test.ts), which make VS Code lose track of a run the
  // way it does under load; the defaults are VS Code's own events and call, and the times above.
  /** Where the shell-execution events come from (default vscode.window). */
  events?: ShellExecutionEvents;
  /** Types a line in the terminal (default shellIntegration.executeCommand). */
  execute?: (integration: vscode.TerminalShellIntegration, line: string) => vscode.TerminalShellExecution;
  firstRunReportWaitMs?: number;
  startReportWaitMs?: number;
  retryTerminalAfterMs?: number;
  /** The clock of the child-process while after a lost run (default Date.now): a test moves it past the while. */
  retryClock?: () => number;
  endLostAfterMs?: number;
}

export type ShellExecutionEvents = Pick<typeof vscode.window, "onDidStartTerminalShellExecution" | "onDidEndTerminalShellExecution">;

export class TerminalCommandRunner implements CommandRunner, vscode.Disposable {
  private readonly terminals = new Set<PiTerminal>();
  private readonly running = new Set<RunningCommand>();
  /** Tags of finished runs whose leftovers are still being ended: dispose ends them at once. */
  private readonly cleaning = new Set<string>();
  private integrationMissingSince: number | undefined;
  private disposed = false;
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly events: ShellExecutionEvents;
  private readonly execute: NonNullable<TerminalRunnerOptions["execute"]>;
  private readonly retryTerminalAfterMs: number;
  private readonly retryClock: () => number;
  private readonly startReportWaitMs: number;
  private readonly endLostAfterMs: number;

  constructor(private readonly options: TerminalRunnerOptions) {
    this.events = options.events ?? vscode.window;
    this.execute = options.execute ?? ((integration, line) => integration.executeCommand(line));
    this.retryTerminalAfterMs = options.retryTerminalAfterMs ?? RETRY_TERMINAL_AFTER_MS;
    this.retryClock = options.retryClock ?? Date.now;
    this.startReportWaitMs = options.startReportWaitMs ?? START_REPORT_WAIT_MS;
    this.endLostAfterMs = options.endLostAfterMs ?? END_LOST_AFTER_MS;
    this.subscriptions.push(
      vscode.window.onDidCloseTerminal((closed) => {
        for (const t of this.terminals) if (t.terminal === closed) this.terminals.delete(t);
      }),
    );
  }

  async start(spec: CommandStart): Promise<RunningCommand> {
    const first = await this.startOnce(spec, true);
    return first.via === "terminal" ? this.relaunchedIfNotStarted(first, spec) : first;
  }

  /**
   * A launch line the terminal did not get whole ran nothing (launchers.ts), so running the
   * command once more cannot run it twice: it is launched again, once, and the card says so.
   * VS Code loses the start of the first line typed in a new terminal now and then (the host
   * tests see it), and the user should not have to ask again for that.
   */
  private relaunchedIfNotStarted(first: RunningCommand, spec: CommandStart): RunningCommand {
    let current = first;
    let stopping: KillOptions | undefined;
    const exited = first.exited.then(async (exit): Promise<CommandExit> => {
      if (!exit.notStarted || stopping || this.disposed) return exit;
      try {
        current = await this.startOnce(spec, false);
      } catch (error) {
        this.options.log(`the command could not be launched again: ${error instanceof Error ? error.message : String(error)}`);
        spec.onOutput(`\n${NOT_STARTED_NOTE}\n`);
        return exit;
      }
      this.options.log(
        `launched ${JSON.stringify(spec.command)} again${current.via === "process" ? " as a child process" : ""}: its first launch line ran nothing`,
      );
      spec.onOutput(`\n${relaunchNote(current.via)}\n`);
      if (stopping) void current.kill(stopping);
      return current.exited;
    });
    return {
      get pid() {
        return current.pid;
      },
      get via() {
        return current.via;
      },
      exited,
      kill: (options: KillOptions = {}) => {
        stopping = options;
        return current
          .kill(options)
          .then(() => exited)
          .then(() => undefined);
      },
    };
  }

  /** Starts the command once; `relaunch`: a launch line that runs nothing is left for start() to launch again (no note). */
  private async startOnce(spec: CommandStart, relaunch: boolean): Promise<RunningCommand> {
    const shell = defaultShell();
    if (
      !shell.endsWith("bash") ||
      (this.integrationMissingSince !== undefined && this.retryClock() - this.integrationMissingSince < this.retryTerminalAfterMs)
    ) {
      return this.options.fallback.start(spec);
    }
    if (spec.command.trim() === "") return this.options.fallback.start(spec);
    const launcher = writeLauncher(this.options.launcherDir, shell, spec.command);
    if (typeof launcher === "string") {
      this.options.log(`${launcher}: the command runs as a child process`);
      return this.options.fallback.start(spec);
    }
    const entry = await this.terminalFor(spec.cwd, shell);
    if (!entry) {
      claimLauncher(launcher);
      this.useChildProcessesForAWhile(
        `shell integration did not start in the "Pi Chat" terminal within ${Math.round((this.options.waitForIntegrationMs ?? SHELL_INTEGRATION_WAIT_MS) / 1000)} s, or did not report its first run`,
      );
      return this.options.fallback.start(spec);
    }
    return this.run(entry, launcher, spec, relaunch);
  }

  private async run(entry: PiTerminal, launcher: Launcher, spec: CommandStart, relaunch: boolean): Promise<RunningCommand> {
    const { line, tag } = launcher;
    const { terminal } = entry;
    const integration = terminal.shellIntegration;
    if (!integration) throw new Error("the terminal lost its shell integration");
    entry.busy = true;
    terminal.show(true);
    const shellPid = await terminal.processId;

    let settle: (exit: CommandExit) => void = () => undefined;
    const ended = new Promise<CommandExit>((resolve) => (settle = resolve));
    const readOutput = async (from: vscode.TerminalShellExecution) => {
      try {
        for await (const data of from.read()) spec.onOutput(data);
      } catch (error) {
        spec.onOutput(`\n[Pi Chat could not read the terminal's output: ${error instanceof Error ? error.message : String(error)}]\n`);
      }
    };
    const execution = this.execute(integration, line);
    // The execution that runs our line. VS Code pairs the command line the shell reports with the
    // one we sent; when they differ (seen when a line is typed while the shell is still drawing its
    // prompt), the run gets another execution object and ours never starts nor ends. This terminal
    // runs nothing else while it is busy, so an execution that starts in it with our line is ours.
    let followed: vscode.TerminalShellExecution | undefined;
    let startWatch: ReturnType<typeof setTimeout> | undefined;
    let endWatch: ReturnType<typeof setInterval> | undefined;
    let killing: Promise<void> | undefined;
    // Once it started, the run is over when nothing runs below the shell any more. VS Code reports
    // the end then; when it does not (it lost track), the run ends here instead of at its time-out.
    const watchForLostEnd = () => {
      if (shellPid === undefined) return;
      let idleSince: number | undefined;
      endWatch = setInterval(() => {
        if (killing !== undefined || hasChildren(shellPid)) {
          idleSince = undefined;
          return;
        }
        idleSince ??= Date.now();
        if (Date.now() - idleSince < this.endLostAfterMs) return;
        clearInterval(endWatch);
        this.useChildProcessesForAWhile(
          `the "Pi Chat" terminal did not report the end of ${JSON.stringify(spec.command)}, which no longer runs: taken as ended`,
        );
        spec.onOutput(
          `\n[VS Code did not report how this command ended in the "Pi Chat" terminal: it no longer runs, and its exit code is unknown. The next runs use a child process.]\n`,
        );
        settle({ exitCode: null, signal: "end not reported" });
      }, END_WATCH_POLL_MS);
    };
    // read() right away, so no output is missed; it ends when the execution does.
    let reading = readOutput(execution);
    const listeners = [
      this.events.onDidStartTerminalShellExecution((event) => {
        if (event.terminal !== terminal || followed) return;
        if (event.execution !== execution && !carriesLine(event.execution.commandLine.value, line)) {
          this.options.log(`the "Pi Chat" terminal reported another command, ${JSON.stringify(event.execution.commandLine.value)}: not followed`);
          return;
        }
        followed = event.execution;
        clearTimeout(startWatch);
        watchForLostEnd();
        if (followed === execution) return;
        this.options.log(`the "Pi Chat" terminal reported the command as ${JSON.stringify(followed.commandLine.value)}: following that execution`);
        reading = readOutput(followed);
      }),
      this.events.onDidEndTerminalShellExecution((event) => {
        if (event.execution === execution || (followed !== undefined && event.execution === followed)) settle({ exitCode: event.exitCode ?? null });
      }),
      vscode.window.onDidCloseTerminal((closed) => {
        if (closed === terminal) settle({ exitCode: null, signal: "terminal closed" });
      }),
    ];
    // A run VS Code never reports as started cannot be followed (no output, no end): rather than
    // wait for the time-out, stop what runs below the shell, say so, and use child processes for a while.
    startWatch = setTimeout(() => {
      if (followed) return;
      // The launch line was lost or damaged: it can no longer start, and the end says it did not run.
      if (claimLauncher(launcher)) {
        this.useChildProcessesForAWhile(
          `the "Pi Chat" terminal did not run the launch line of ${JSON.stringify(spec.command)} within ${this.startReportWaitMs / 1000} s`,
        );
        return settle({ exitCode: null });
      }
      this.useChildProcessesForAWhile(
        `the "Pi Chat" terminal did not report the start of ${JSON.stringify(spec.command)} within ${this.startReportWaitMs / 1000} s: stopped`,
      );
      spec.onOutput(
        `\n[Pi Chat could not follow this command in the "Pi Chat" terminal (VS Code did not report its start within ${this.startReportWaitMs / 1000} s), so it was stopped. Run it again: the next runs use a child process.]\n`,
      );
      if (shellPid === undefined) return settle({ exitCode: null, signal: "not followed" });
      // A line the shell had not read yet would start after this, unwatched: end that too.
      void endBelow(shellPid, tag)
        .then(() => settle({ exitCode: null, signal: "not followed" }))
        .then(() => new Promise((r) => setTimeout(r, LATE_START_CHECK_MS)))
        .then(() => endBelow(shellPid, tag));
    }, this.startReportWaitMs);
    void ended.then(() => {
      clearTimeout(startWatch);
      clearInterval(endWatch);
    });

    const exited = ended.then(async (exit): Promise<CommandExit> => {
      // The end can be reported before the last output is read: wait for the stream, not forever.
      await Promise.race([reading, new Promise((r) => setTimeout(r, 1000))]);
      for (const l of listeners) l.dispose();
      // Whatever the command left running (`server &`, a daemon) ends with it, as on the child path.
      if (shellPid !== undefined && killing === undefined) {
        this.cleaning.add(tag);
        void endBelow(shellPid, tag, LEFTOVER_GRACE_MS).finally(() => this.cleaning.delete(tag));
      }
      entry.busy = false;
      this.running.delete(handle);
      // The launcher deletes itself as it starts: still there, it never ran, and now it never will.
      if (!claimLauncher(launcher)) return exit;
      const notStarted: CommandExit = { exitCode: null, signal: "not started", notStarted: true };
      // Stopped before the shell read the line: nothing ran, and that is what Stop asked for.
      if (killing !== undefined) return notStarted;
      this.options.log(
        `the "Pi Chat" terminal did not run the launch line of ${JSON.stringify(spec.command)} whole: not started${relaunch ? ", launching it again" : ""}`,
      );
      if (!relaunch) spec.onOutput(`\n${NOT_STARTED_NOTE}\n`);
      return notStarted;
    });
    const handle: RunningCommand = {
      pid: shellPid,
      via: "terminal",
      exited,
      kill: (options: KillOptions = {}) => {
        // At once even when a stop with a grace is under way (VS Code closing during a Stop).
        if (killing === undefined || options.now)
          killing = (async () => {
            // A launch line the shell has not read yet can no longer start; one that started ends below.
            claimLauncher(launcher);
            if (shellPid !== undefined) await endBelow(shellPid, tag, options.now ? 0 : undefined);
            else await endProcesses({ tag }, options.now ? 0 : undefined);
            // Shell integration reports the end once the shell is back at its prompt; if it does not, stop waiting.
            setTimeout(() => settle({ exitCode: null }), options.now ? 0 : END_REPORT_WAIT_MS);
          })();
        return killing.then(() => exited).then(() => undefined);
      },
    };
    this.running.add(handle);
    return handle;
  }

  /** The terminal lost track (or never had it): commands go to the child process for a while, and the log says why. */
  private useChildProcessesForAWhile(why: string): void {
    this.integrationMissingSince = this.retryClock();
    const seconds = Math.round(this.retryTerminalAfterMs / 1000);
    const span = seconds % 60 === 0 ? `${seconds / 60} minutes` : `${seconds} s`;
    this.options.log(`${why}: commands run as child processes for the next ${span}`);
  }

  /** An idle "Pi Chat" terminal in `cwd` with shell integration, or a new one; undefined when integration did not come up. */
  private async terminalFor(cwd: string, shell: string): Promise<PiTerminal | undefined> {
    for (const t of this.terminals) {
      // Someone may have typed `cd` in it: reuse it only where it still is.
      if (!t.busy && t.cwd === cwd && t.terminal.exitStatus === undefined && t.terminal.shellIntegration?.cwd?.fsPath === cwd) return t;
    }
    const terminal = vscode.window.createTerminal({
      name: this.options.name ?? "Pi Chat",
      cwd,
      shellPath: shell,
      env: terminalEnvironment(this.options.removeEnv),
      iconPath: new vscode.ThemeIcon("terminal"),
      // Not brought back after a reload: what ran there belongs to a run that is over.
      isTransient: true,
    });
    const integration = await waitForIntegration(terminal, this.options.waitForIntegrationMs ?? SHELL_INTEGRATION_WAIT_MS);
    if (!integration || !(await this.reportsRuns(terminal, integration))) {
      terminal.dispose();
      return undefined;
    }
    const entry: PiTerminal = { terminal, cwd, busy: false };
    this.terminals.add(entry);
    return entry;
  }

  /**
   * Runs a no-op (`:`) in a new terminal and waits for VS Code to report its end. A line typed
   * while a new terminal still draws its first prompt can escape VS Code's command tracking (the
   * two-folder host tests saw it under load: the command ran and its end was never reported), so
   * the first line typed is one that does nothing; a terminal that does not report it is not used,
   * and the command runs as a child process instead.
   */
  private reportsRuns(terminal: vscode.Terminal, integration: vscode.TerminalShellIntegration): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        listener.dispose();
        resolve(ok);
      };
      const listener = this.events.onDidEndTerminalShellExecution((event) => {
        if (event.terminal === terminal) done(true);
      });
      const timer = setTimeout(() => done(false), this.options.firstRunReportWaitMs ?? FIRST_RUN_REPORT_WAIT_MS);
      this.execute(integration, ": Pi Chat runs commands here");
    });
  }

  /** VS Code closing: every run and what finished runs left are killed at once; resolves when they are gone. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all([...[...this.running].map((r) => r.kill({ now: true })), ...[...this.cleaning].map((tag) => endProcesses({ tag }, 0))]);
    for (const t of this.terminals) t.terminal.dispose();
    this.terminals.clear();
    for (const s of this.subscriptions) s.dispose();
  }
}

/**
 * The terminal's shell integration once its prompt has reported the folder (a command sent
 * before that may be taken for part of the prompt), or undefined after `timeoutMs`.
 */
function waitForIntegration(terminal: vscode.Terminal, timeoutMs: number): Promise<vscode.TerminalShellIntegration | undefined> {
  return new Promise((resolve) => {
    const ready = () => (terminal.shellIntegration?.cwd ? terminal.shellIntegration : undefined);
    if (ready()) return resolve(ready());
    const done = (value: vscode.TerminalShellIntegration | undefined) => {
      clearTimeout(timer);
      listener.dispose();
      resolve(value);
    };
    const listener = vscode.window.onDidChangeTerminalShellIntegration((event) => {
      if (event.terminal === terminal && ready()) done(ready());
    });
    const timer = setTimeout(() => done(ready()), timeoutMs);
  });
}

/** Ends every process below the terminal's shell (each with its tree and process group) and every one with the run's tag; the shell stays. */
function endBelow(shellPid: number, tag: string, graceMs?: number): Promise<void> {
  const below = descendantsOf(shellPid);
  return endProcesses({ roots: below, groups: below, tag }, graceMs);
}
