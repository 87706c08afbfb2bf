// Ending a whole process tree. A command's shell leads its own process group, so one signal to
// the group reaches everything it started; a descendant that left the group (setsid) is found by
// walking parent links in /proc, or `ps` where there is no /proc; and one that also lost its
// parent (setsid plus a double fork: re-parented to init) by the run's tag, an environment
// variable every process of the run inherits, read from /proc/<pid>/environ (`ps eww` on macOS).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";

/** Grace between SIGTERM and SIGKILL: long enough to flush and clean up, short enough for Stop. */
export const KILL_GRACE_MS = 1500;
/** After SIGKILL, how long to wait for the processes to be gone (bounded: a process stuck in the kernel may never go). */
const KILL_WAIT_MS = 2000;

/** The environment variable that tags every process of one run (its value is the run's tag). */
export const RUN_TAG_ENV = "PI_CHAT_RUN_TAG";

/** A new run's tag: random, so no other process carries it. */
export function newRunTag(): string {
  return randomBytes(12).toString("hex");
}

/** Every live process (not this one) whose environment carries the run's tag. */
export function taggedProcesses(tag: string): number[] {
  const entry = `${RUN_TAG_ENV}=${tag}`;
  const found: number[] = [];
  try {
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
      try {
        if (readFileSync(`/proc/${name}/environ`, "latin1").split("\0").includes(entry)) found.push(Number(name));
      } catch {
        // ended while we looked, or another user's process
      }
    }
    return found;
  } catch {
    // no /proc (macOS): `ps eww` prints each process's environment after its command
  }
  if (process.platform === "win32") return found;
  try {
    const out = execFileSync("ps", ["-A", "-ww", "-E", "-o", "pid=,command="], { encoding: "utf8", timeout: 5000, maxBuffer: 64 * 1024 * 1024 });
    for (const line of out.split("\n")) {
      const match = /^\s*(\d+)\s(.*)$/.exec(line);
      if (match && Number(match[1]) !== process.pid && ` ${match[2]} `.includes(` ${entry} `)) found.push(Number(match[1]));
    }
  } catch {
    // no ps: the process group and parent links still reach most of a run
  }
  return found;
}

/**
 * Whether anything runs below `pid` now: one read of its children list where Linux has it, else
 * a walk of the whole process table. Cheap enough to ask every half second while a command runs.
 */
export function hasChildren(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim() !== "";
  } catch {
    return descendantsOf(pid).length > 0;
  }
}

/** Every live descendant of `root` (not `root` itself), found through parent pids. */
export function descendantsOf(root: number): number[] {
  return descendantsOfAll([root]);
}

/** Every live descendant of any of `roots` (not the roots themselves), from one read of the process table. */
function descendantsOfAll(roots: readonly number[]): number[] {
  const parents = parentTable();
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parents) {
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  const out: number[] = [];
  const queue = [...roots];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    for (const child of children.get(pid) ?? []) {
      if (out.includes(child)) continue;
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

function parentTable(): Map<number, number> {
  const table = new Map<number, number>();
  try {
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, "utf8");
        // pid (comm) state ppid …; comm may hold spaces and parentheses: read after the last ')'.
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        table.set(Number(name), Number(fields[1]));
      } catch {
        // the process ended while we looked
      }
    }
    if (table.size > 0) return table;
  } catch {
    // no /proc (macOS): ask ps
  }
  try {
    const out = execFileSync("ps", ["-A", "-o", "pid=,ppid="], { encoding: "utf8", timeout: 5000 });
    for (const line of out.split("\n")) {
      const [pid, ppid] = line.trim().split(/\s+/).map(Number);
      if (pid !== undefined && ppid !== undefined && Number.isInteger(pid) && Number.isInteger(ppid)) table.set(pid, ppid);
    }
  } catch {
    // no ps either: the process group signal still reaches most of the tree
  }
  return table;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/**
 * Ends `root`, its process group (when it leads one) and every descendant: SIGTERM, then
 * SIGKILL to whatever is left after the grace. Resolves when none of them is alive.
 */
export function killTree(root: number, options: { group?: boolean; graceMs?: number; tag?: string } = {}): Promise<void> {
  return endProcesses({ roots: [root], ...(options.group ? { groups: [root] } : {}), ...(options.tag ? { tag: options.tag } : {}) }, options.graceMs);
}

export interface ProcessesToEnd {
  /** Processes to end with all their descendants. */
  roots?: readonly number[];
  /** Process groups to signal as a whole (their leaders' pids). */
  groups?: readonly number[];
  /** A run's tag: every process carrying it ends too, wherever it moved. */
  tag?: string;
}

/**
 * Ends the roots, their groups, their descendants and every process tagged with the run's tag:
 * SIGTERM, then SIGKILL after the grace (0: at once) to whatever is left, found again each time
 * (a process forked meanwhile is caught too). Resolves when none is alive, or after a bounded wait.
 */
export async function endProcesses(what: ProcessesToEnd, graceMs = KILL_GRACE_MS): Promise<void> {
  const roots = what.roots ?? [];
  const groups = process.platform === "win32" ? [] : (what.groups ?? []);
  const targets = new Set<number>();
  const look = () => {
    const tagged = what.tag ? taggedProcesses(what.tag) : [];
    for (const pid of [...roots, ...tagged, ...descendantsOfAll([...roots, ...tagged])]) targets.add(pid);
  };
  const send = (sig: NodeJS.Signals) => {
    look();
    for (const pgid of groups) signal(-pgid, sig);
    for (const pid of targets) signal(pid, sig);
  };
  const allGone = () => [...targets].every((pid) => !isRunning(pid));
  send("SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    look();
    if (allGone()) return;
  }
  send("SIGKILL");
  const hardDeadline = Date.now() + KILL_WAIT_MS;
  while (Date.now() < hardDeadline) {
    if (allGone()) {
      // One more look: something forked between the SIGKILL and now carries the tag too.
      const before = targets.size;
      look();
      if (targets.size === before) return;
      send("SIGKILL");
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Alive and not a zombie: still doing something. (A zombie has ended; where pid 1 does not reap, it stays listed.) */
export function isRunning(pid: number): boolean {
  return isAlive(pid) && !isZombie(pid);
}

/** A zombie has ended; it only waits for its parent to read its status. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}
