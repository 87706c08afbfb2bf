// Ending a whole process tree. A command's shell leads its own process group, so one signal to
// the group reaches everything it started; a descendant that left the group (setsid, a daemon)
// is found by walking parent links in /proc, or `ps` where there is no /proc.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** Grace between SIGTERM and SIGKILL: long enough to flush and clean up, short enough for Stop. */
export const KILL_GRACE_MS = 1500;

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
  const parents = parentTable();
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parents) {
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  const out: number[] = [];
  const queue = [root];
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
export async function killTree(root: number, options: { group?: boolean; graceMs?: number } = {}): Promise<void> {
  const targets = new Set([root, ...descendantsOf(root)]);
  if (options.group && process.platform !== "win32") signal(-root, "SIGTERM");
  for (const pid of targets) signal(pid, "SIGTERM");
  const deadline = Date.now() + (options.graceMs ?? KILL_GRACE_MS);
  while (Date.now() < deadline) {
    // Children started during the grace are caught too.
    for (const pid of descendantsOf(root)) targets.add(pid);
    if ([...targets].every((pid) => !isAlive(pid) || isZombie(pid))) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  for (const pid of descendantsOf(root)) targets.add(pid);
  if (options.group && process.platform !== "win32") signal(-root, "SIGKILL");
  for (const pid of targets) signal(pid, "SIGKILL");
  const hardDeadline = Date.now() + 2000;
  while (Date.now() < hardDeadline && [...targets].some((pid) => isAlive(pid) && !isZombie(pid))) {
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
