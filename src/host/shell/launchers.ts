// Launcher files for the terminal path (terminal-runner.ts): the terminal is never typed the
// approved command, only `<file> <token>`, where <file> is an owner-only script in the extension's
// storage that holds the command. The script runs the command only when given its one-time token
// and only after deleting itself, so:
// - a damaged launch line runs nothing: every fragment of it is a path that does not exist
//   (its name is random digits), a string of digits (no such command), a folder, or the file
//   with a wrong or missing token (refused);
// - it runs at most once, and the runner knows whether it started: the file is gone;
// - the runner can make sure it never starts (claimLauncher deletes it first: the script's own
//   delete then fails, and it stops). One delete wins, so the two cannot both think they ran it.
import { randomInt } from "node:crypto";
import { chmodSync, mkdirSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { newRunTag, RUN_TAG_ENV } from "../../core/shell/process-tree";

export interface Launcher {
  /** The script. */
  readonly file: string;
  /** What the terminal is typed. */
  readonly line: string;
  /** The run's tag: every process of the run carries it in its environment. */
  readonly tag: string;
  /** Known once claimed: true when the runner deleted it first (the command never ran). */
  notStarted?: boolean;
}

/**
 * A launch line is typed unquoted, so the folder may hold only these characters: a quote in the
 * line could be cut in half, and a shell waiting for the closing quote takes the next line as its rest.
 */
const TYPABLE_PATH = /^\/[A-Za-z0-9_./-]+$/;
/** The script's exit status when its token is wrong or the runner took it back. */
const REFUSED_EXIT = 125;

/** What the card and the model read when the launch line did not run. */
export const NOT_STARTED_NOTE =
  '[Pi Chat: the "Pi Chat" terminal did not receive the launch line of this command whole, so the command did not run, and nothing else ran in its place. Run it again.]';

/** What the card and the model read when a launch line ran nothing and the command was launched once more. */
export function relaunchNote(via: "terminal" | "process"): string {
  return `[Pi Chat: the "Pi Chat" terminal did not receive the launch line of this command whole, so nothing ran; Pi Chat launched the command again${via === "process" ? ", as a child process" : ""}. What follows is that run.]`;
}

/** Writes the launcher of `command` in `dir`; a string says why it could not (the command then runs as a child process). */
export function writeLauncher(dir: string, shell: string, command: string): Launcher | string {
  if (!TYPABLE_PATH.test(dir) || !TYPABLE_PATH.test(shell)) return `the launcher folder ${JSON.stringify(dir)} cannot be typed unquoted`;
  // Digits only, both: no fragment of either is a command name.
  const file = join(dir, digits(18));
  const token = digits(24);
  const tag = newRunTag();
  const script = [
    `#!${shell}`,
    "# Pi Chat: one approved command, run once (src/host/shell/launchers.ts).",
    `[ "$1" = ${token} ] || { printf '%s\\n' ${singleQuoted(NOT_STARTED_NOTE)} >&2; exit ${REFUSED_EXIT}; }`,
    // Deleted before anything runs: once only, and not at all if the runner took it back first.
    `rm -- "$0" 2>/dev/null || exit ${REFUSED_EXIT}`,
    `export ${RUN_TAG_ENV}=${tag}`,
    `exec ${shell} -c ${singleQuoted(command)} </dev/null`,
    "",
  ].join("\n");
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    // Only its owner can read, change or run it; `wx`: never an existing file.
    writeFileSync(file, script, { mode: 0o700, flag: "wx" });
  } catch (error) {
    return `the launcher could not be written in ${dir} (${error instanceof Error ? error.message : String(error)})`;
  }
  return { file, line: `${file} ${token}`, tag };
}

/**
 * Whether the command line VS Code reported for an execution is the line we typed: the whole of
 * it, or its end (under load VS Code has reported only `</dev/null`, the rest taken for the
 * prompt). Line breaks in the report are the terminal's wrapping, not ours (a launch line has
 * none): VS Code 1.139 under load reported a line wrapped at a narrow new terminal's width.
 */
export function carriesLine(reported: string, line: string): boolean {
  const value = reported.replace(/[\r\n]+/g, "").trim();
  return value !== "" && (value.includes(line) || line.endsWith(value));
}

/**
 * Makes sure the launcher never starts, if it has not: true when it had not (the runner deleted
 * it), false when it had (it deleted itself). The first answer stays.
 */
export function claimLauncher(launcher: Launcher): boolean {
  if (launcher.notStarted !== undefined) return launcher.notStarted;
  try {
    unlinkSync(launcher.file);
    launcher.notStarted = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return false;
    launcher.notStarted = false;
  }
  return launcher.notStarted;
}

/** The text as one single-quoted shell word: nothing inside is expanded. */
export function singleQuoted(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

function digits(count: number): string {
  let out = String(randomInt(1, 10));
  while (out.length < count) out += String(randomInt(0, 10));
  return out;
}
