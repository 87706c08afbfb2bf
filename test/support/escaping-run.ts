// A command whose processes try to outlive their run, for the unit tests (child-process path) and
// the host tests (terminal path): each kind of stop must leave none of them, checked by pid and tag.
import { isRunning, taggedProcesses } from "../../src/core/shell/process-tree";

const node = JSON.stringify(process.execPath);
/** An HTTP server that leaves its pid in server.pid once it listens. */
const SERVER = `require("http").createServer().listen(0, "127.0.0.1", () => require("fs").writeFileSync("server.pid", String(process.pid)))`;
/**
 * Each prints `name=<pid>`, then leaves its pid in `<name>.pid`; the shell waits for all four files
 * (so every line is in the output before it), prints its tag, then waits for its direct child.
 * (The tag once came before a double-forked child's line on a loaded machine.)
 */
export const ESCAPING_RUN = [
  // setsid plus a double fork: another session, its parent gone (re-parented to init)
  `( setsid sh -c 'echo orphan=$$; echo $$ > orphan.pid; exec sleep 300' & )`,
  // a child that ignores SIGTERM (ignored signals stay ignored across exec)
  `sh -c 'trap "" TERM; echo stubborn=$$; echo $$ > stubborn.pid; exec sleep 301' &`,
  // both: out of the group and the tree, and deaf to SIGTERM
  `( setsid sh -c 'trap "" TERM; echo ghost=$$; echo $$ > ghost.pid; exec sleep 302' & )`,
  // a server, double-forked into its own session
  `( setsid ${node} -e '${SERVER}' & )`,
  // the tag last, once all four are there and the server listens
  `until [ -s orphan.pid ] && [ -s stubborn.pid ] && [ -s ghost.pid ] && [ -s server.pid ]; do sleep 0.05; done; echo "server=$(cat server.pid)"`,
  `echo "tag=$PI_CHAT_RUN_TAG"`,
  "wait",
].join("\n");
const NAMES = ["orphan", "stubborn", "ghost", "server"];

/** The pids and tag the run printed, once all are there. */
export function escapees(text: string): { pids: number[]; tag: string } | undefined {
  const pids = NAMES.map((name) => Number(new RegExp(`${name}=(\\d+)`).exec(text)?.[1]));
  // (Empty where runs are not tagged: the pids are checked all the same.)
  const tag = /tag=([0-9a-f]*)/.exec(text)?.[1];
  return pids.every((pid) => pid > 0) && tag !== undefined ? { pids, tag } : undefined;
}

/** Processes of the run still running: by pid and by tag (0 is the goal). */
export function leftOf(run: { pids: number[]; tag: string }): number[] {
  return [...new Set([...run.pids, ...(run.tag ? taggedProcesses(run.tag) : [])])].filter(isRunning);
}
