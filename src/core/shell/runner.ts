// How a command is run, whatever runs it: a child process in its own process group (Node,
// node-runner.ts) or a VS Code terminal with shell integration (src/host/shell/terminal-runner.ts).
// The run-command tool and the `!cmd` composer commands only see this interface.

export interface CommandStart {
  command: string;
  /** Absolute folder, already checked to be inside the workspace. */
  cwd: string;
  /** Receives output as it arrives: bytes from a process, text from a terminal. */
  onOutput: (chunk: Uint8Array | string) => void;
  /** A label for where it runs (the terminal's name). */
  title?: string;
}

export interface CommandExit {
  /** null when a signal ended it or the runner could not tell. */
  exitCode: number | null;
  signal?: string;
  /** The command did not run at all (the terminal did not get its launch line whole): nothing ran. */
  notStarted?: true;
}

export interface RunningCommand {
  /** The process id of the shell that runs the command, when known. */
  readonly pid: number | undefined;
  /** "terminal" or "process": which path ran it (the card and the tests say so). */
  readonly via: CommandRunnerKind;
  /** Settles when the command has ended and its output is read. Never rejects. */
  readonly exited: Promise<CommandExit>;
  /**
   * Ends the command and everything it started (its process tree, and every process carrying its
   * run tag: process-tree.ts); resolves when it is gone. `now`: SIGKILL without the grace (VS Code closing).
   */
  kill(options?: KillOptions): Promise<void>;
}

export interface KillOptions {
  now?: boolean;
}

export type CommandRunnerKind = "terminal" | "process";

export interface CommandRunner {
  start(spec: CommandStart): Promise<RunningCommand>;
  /** Ends every command still running and whatever finished runs left, at once (VS Code closing); resolves when they are gone. */
  dispose?(): Promise<void>;
}

/**
 * The environment of every command: nothing waits for a person. Standard input is closed as
 * well (by each runner), so a command that reads it ends instead of hanging.
 */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = {
  CI: "1",
  PAGER: "cat",
  GIT_PAGER: "cat",
  MANPAGER: "cat",
  GIT_TERMINAL_PROMPT: "0",
  GIT_EDITOR: "true",
  EDITOR: "true",
  VISUAL: "true",
  DEBIAN_FRONTEND: "noninteractive",
};

/**
 * Variables no command gets: BASH_ENV and ENV name a file that every non-interactive bash (or
 * sh) reads before the command, and they may come from the host's environment or from
 * `terminal.integrated.env.*`.
 */
export const CLEARED_ENV: readonly string[] = ["BASH_ENV", "ENV"];

/**
 * The environment of a command run as a child process: `base` (the host's) and `extra`, without
 * the cleared variables and `removed` (the API key variables Pi Chat reads), then the
 * non-interactive variables.
 */
export function commandEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string | undefined>> = {},
  removed: readonly string[] = [],
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...base, ...extra };
  for (const name of [...CLEARED_ENV, ...removed]) delete env[name];
  return { ...env, ...NON_INTERACTIVE_ENV };
}

/** The same for a terminal VS Code creates: `null` removes a variable (after terminal.integrated.env.* is applied). */
export function terminalEnvironment(removed: readonly string[] = []): Record<string, string | null> {
  return { ...Object.fromEntries([...CLEARED_ENV, ...removed].map((name) => [name, null])), ...NON_INTERACTIVE_ENV };
}
