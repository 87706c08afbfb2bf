// P17 checkpoints: (a) the checkpoint work of one agent turn (the mark of the user message and
// two edit_file writes recorded: the file read before, kept as a blob, read again after, one
// journal line each) on a 10,000-file workspace ÷ on a 100-file one, and (b) a command's wall
// time through run_command with checkpoints (the stat walk before it; the walk after it runs in
// the background and is timed beside) ÷ without. Real Checkpoints over real temp folders
// (test/support/workspace-tree.ts), the real edit_file tool and run_command with a child process.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentTool } from "@earendil-works/pi-agent-core";
import { Checkpoints, createNodeCheckpointIo } from "../../src/core/checkpoints";
import { NodeCommandRunner } from "../../src/core/shell/node-runner";
import { singleFolder } from "../../src/core/shell/command-folders";
import { createEditFileTool, createNodeWorkspaceFs } from "../../src/core/tools";
import { createRunCommandTool } from "../../src/core/tools/run-command";
import { NodeChangeFeed } from "../../test/support/node-change-feed";
import { generateTree } from "../../test/support/workspace-tree";
import { summarize, type Summary } from "../lib/stats";

export interface P17Result {
  turn: { big: Summary; small: Summary; ratio: Summary };
  /** The first walk of a session (every file read and kept), in the background after the first mark. */
  warmMs: { big: number; small: number };
  /** With the change feed; `fallback`: the watcher just lost events, so the before is a walk. */
  command: CommandFigure & { fallback: CommandFigure };
  /** The same command on a 100,000-file workspace. */
  command100k?: CommandFigure & { files: number; fallback: CommandFigure };
  files: { big: number; small: number };
  blobMB: number;
  goals: { turn: number; command: number };
}

export interface CommandFigure {
  withCp: Summary;
  without: Summary;
  ratio: Summary;
  commandMs: number;
  /** The walk after the command, in the background (off the tool's path). */
  afterWalkMs: Summary;
}

interface Side {
  root: string;
  storage: string;
  checkpoints: Checkpoints;
  /** A real watcher (Node's recursive fs.watch) feeding the checkpoints, as VS Code's does in the extension. */
  feed: NodeChangeFeed;
  edits: string[];
  files: number;
}

function side(base: string, name: string, fileCount: number): Side {
  const root = join(base, name);
  const storage = join(base, `${name}-storage`);
  mkdirSync(root);
  const tree = generateTree(root, fileCount);
  const feed = new NodeChangeFeed(root);
  const checkpoints = new Checkpoints({ storageRoot: storage, io: createNodeCheckpointIo([{ name, root }]), changes: feed });
  // The two files every turn edits: the same 4 KB on both sides.
  const edits = ["src/p17-a.ts", "src/p17-b.ts"];
  mkdirSync(join(root, "src"), { recursive: true });
  for (const path of edits) writeFileSync(join(root, path), `// marker 0\n${"export const line = 1;\n".repeat(180)}`);
  return { root, storage, checkpoints, feed, edits, files: tree.allFiles.length };
}

/** One turn: mark + two recorded edits (each turn moves the files' marker line on by one). */
async function turn(s: Side, i: number): Promise<number> {
  const chat = s.checkpoints.forChat("bench");
  const tool = createEditFileTool(chat.recordingFs(createNodeWorkspaceFs(s.root)));
  const start = performance.now();
  await chat.mark(`m${i}`);
  for (const path of s.edits) await tool.execute(`e${i}${path}`, { path, oldText: `// marker ${i - 1}\n`, newText: `// marker ${i}\n` });
  return performance.now() - start;
}

export async function runP17(log: (line: string) => void, runs: number, hugeFiles = 100_000): Promise<P17Result> {
  const base = mkdtempSync(join(tmpdir(), "pi-chat-p17-"));
  try {
    const big = side(base, "big", 10_000);
    const small = side(base, "small", 100);
    log(`P17: ${big.files} / ${small.files} files written`);
    // The first mark starts the first walk (every file read and kept): timed on its own.
    const warmMs = { big: 0, small: 0 };
    for (const [name, s] of [
      ["big", big],
      ["small", small],
    ] as const) {
      await s.feed.settled(); // the watcher is up before the first walk
      const t = performance.now();
      await s.checkpoints.warm();
      warmMs[name] = performance.now() - t;
    }
    const bigTurns: number[] = [];
    const smallTurns: number[] = [];
    const ratios: number[] = [];
    for (let i = 1; i <= runs * 4; i++) {
      // Alternating which side goes first.
      const a = i % 2 === 0 ? await turn(big, i) : 0;
      const b = await turn(small, i);
      const c = i % 2 === 1 ? await turn(big, i) : a;
      if (i <= 2) continue; // warm-up
      bigTurns.push(c);
      smallTurns.push(b);
      ratios.push(c / b);
    }

    // (b) A command on the 10,000-file side, then on a 100,000-file one (generated and warmed
    // before anything is timed).
    const command = await commandFigure(big, runs);
    let command100k: P17Result["command100k"];
    if (hugeFiles > 0) {
      const huge = side(base, "huge", hugeFiles);
      log(`P17: ${huge.files} files written for the command figure`);
      await huge.feed.settled();
      const t = performance.now();
      await huge.checkpoints.warm();
      log(`P17: the first walk of ${huge.files} files took ${Math.round(performance.now() - t)} ms`);
      command100k = { ...(await commandFigure(huge, runs)), files: huge.files, fallback: await commandFigure(huge, runs, true) };
      huge.feed.close();
    }
    const commandFallback = await commandFigure(big, runs, true);
    big.feed.close();
    small.feed.close();
    return {
      turn: { big: summarize(bigTurns), small: summarize(smallTurns), ratio: summarize(ratios) },
      warmMs,
      command: { ...command, fallback: commandFallback },
      ...(command100k ? { command100k } : {}),
      files: { big: big.files, small: small.files },
      blobMB: (await big.checkpoints.storage.blobBytes()) / 1e6,
      goals: { turn: 1.5, command: 1.1 },
    };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/**
 * A command's wall time through run_command with the recording wrapper ÷ the bare tool,
 * alternating. `fallback`: the watcher is told it lost events before each recorded run, so the
 * before is the walk (what a user gets when the watcher cannot be trusted).
 */
async function commandFigure(s: Side, runs: number, fallback = false): Promise<CommandFigure> {
  const runner = new NodeCommandRunner();
  const bare = createRunCommandTool({
    folders: singleFolder(s.root),
    fs: createNodeWorkspaceFs(s.root),
    runner: () => runner,
    defaultTimeoutSeconds: () => 120,
  }) as AgentTool;
  const chat = s.checkpoints.forChat("bench-cmd");
  const recorded = chat.recordingCommandTool(bare);
  // A short test run: about a second, writing a snapshot file and a report.
  const command = "sleep 1 && date +%s%N > p17-snapshot.txt && echo ok > p17-report.txt";
  const withCp: number[] = [];
  const without: number[] = [];
  const afterWalk: number[] = [];
  for (let i = 0; i < runs + 1; i++) {
    for (const useCp of i % 2 === 0 ? [true, false] : [false, true]) {
      if (useCp && fallback) s.feed.lose("the benchmark's fallback figure");
      // The watcher has reported the last run's files (a user's next command comes seconds later).
      await s.feed.settled();
      await s.checkpoints.idle();
      const t = performance.now();
      await (useCp ? recorded : bare).execute(`c${i}${useCp}`, { command });
      const ms = performance.now() - t;
      if (useCp) {
        const w = performance.now();
        await s.checkpoints.idle(); // the walk after, in the background
        if (i > 0) afterWalk.push(performance.now() - w);
      }
      if (i === 0) continue;
      (useCp ? withCp : without).push(ms);
    }
  }
  const ratios = withCp.map((w, i) => w / without[i]!);
  return { withCp: summarize(withCp), without: summarize(without), ratio: summarize(ratios), commandMs: 1000, afterWalkMs: summarize(afterWalk) };
}
