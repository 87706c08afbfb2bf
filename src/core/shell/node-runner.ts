// The child-process path: `bash -c` (or `sh -c`) in its own process group, standard input
// closed, output of stdout and stderr interleaved as it arrives. Used where VS Code's terminal
// shell integration is not there, and by the unit tests and benchmarks.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { endProcesses, newRunTag, RUN_TAG_ENV } from "./process-tree";
import { commandEnvironment, type CommandExit, type CommandRunner, type CommandStart, type KillOptions, type RunningCommand } from "./runner";

/** After the shell exits, how long to wait for its pipes to drain before closing them. */
const DRAIN_MS = 250;
/** What a finished command left running gets this long after SIGTERM before SIGKILL. */
export const LEFTOVER_GRACE_MS = 500;

export interface NodeCommandRunnerOptions {
  /** Extra environment (tests); the non-interactive variables always win. */
  env?: Record<string, string | undefined>;
  /** The shell; default bash where it exists, else /bin/sh. */
  shell?: string;
  /** Variables the command must not get (the API key variables Pi Chat reads). */
  removeEnv?: readonly string[];
  /** SIGTERM → SIGKILL grace of a stop (default KILL_GRACE_MS). Tests make it longer than they run, to show a path takes none. */
  killGraceMs?: number;
}

export function defaultShell(): string {
  if (process.platform === "win32") return process.env.ComSpec ?? "cmd.exe";
  return ["/bin/bash", "/usr/bin/bash"].find((p) => existsSync(p)) ?? "/bin/sh";
}

/** bash reads no profile or rc file for a command (BASH_ENV is cleared as well); sh takes no such flags. */
export function shellStartupFlags(shell: string): string[] {
  return /(^|[/\\])bash(\.exe)?$/.test(shell) ? ["--noprofile", "--norc"] : [];
}

export class NodeCommandRunner implements CommandRunner {
  private readonly running = new Set<RunningCommand>();
  /** Tags of finished runs whose leftovers are still being ended: dispose ends them at once. */
  private readonly cleaning = new Set<string>();

  constructor(private readonly options: NodeCommandRunnerOptions = {}) {}

  async start(spec: CommandStart): Promise<RunningCommand> {
    const shell = this.options.shell ?? defaultShell();
    const args = process.platform === "win32" ? ["/d", "/s", "/c", spec.command] : [...shellStartupFlags(shell), "-c", spec.command];
    // Every process of this run inherits the tag: Stop finds it even after it left the group and its parent.
    const tag = newRunTag();
    const child = spawn(shell, args, {
      cwd: spec.cwd,
      env: { ...commandEnvironment(process.env, this.options.env, this.options.removeEnv), [RUN_TAG_ENV]: tag },
      // stdin is /dev/null: a command that reads it gets end-of-file at once.
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group, so Stop reaches everything it starts.
      detached: process.platform !== "win32",
      windowsHide: true,
    });
    const pid = child.pid;
    child.stdout?.on("data", (chunk: Buffer) => spec.onOutput(chunk));
    child.stderr?.on("data", (chunk: Buffer) => spec.onOutput(chunk));

    let killing: Promise<void> | undefined;
    const exited = new Promise<CommandExit>((resolve) => {
      let settled = false;
      const finish = (exit: CommandExit) => {
        if (settled) return;
        settled = true;
        resolve(exit);
      };
      child.on("error", (error) => {
        spec.onOutput(`Could not start the shell ${shell}: ${error.message}\n`);
        finish({ exitCode: null });
      });
      child.on("close", (code, signal) => finish({ exitCode: code, ...(signal ? { signal } : {}) }));
      child.on("exit", (code, signal) => {
        // A background child (`server &`) may hold the pipes open long after the shell is gone:
        // read what is there, then stop waiting for it — and end whatever it left running.
        setTimeout(() => {
          if (settled) return;
          child.stdout?.destroy();
          child.stderr?.destroy();
          finish({ exitCode: code, ...(signal ? { signal } : {}) });
        }, DRAIN_MS);
      });
    });
    const handle: RunningCommand = {
      pid,
      via: "process",
      exited: exited.then(async (exit) => {
        // Whatever the command left behind (a `&` child, a daemon that left the group) ends with it.
        if (pid !== undefined && !killing) {
          this.cleaning.add(tag);
          void endProcesses({ groups: [pid], tag }, LEFTOVER_GRACE_MS).finally(() => this.cleaning.delete(tag));
        }
        this.running.delete(handle);
        return exit;
      }),
      kill: (options: KillOptions = {}) => {
        if (pid === undefined) return Promise.resolve();
        const end = () => endProcesses({ roots: [pid], groups: [pid], tag }, options.now ? 0 : this.options.killGraceMs);
        // At once even when a stop with a grace is under way (VS Code closing during a Stop).
        killing = killing && !options.now ? killing : end();
        return killing.then(() => exited).then(() => undefined);
      },
    };
    this.running.add(handle);
    return handle;
  }

  async dispose(): Promise<void> {
    await Promise.all([...[...this.running].map((r) => r.kill({ now: true })), ...[...this.cleaning].map((tag) => endProcesses({ tag }, 0))]);
  }
}
