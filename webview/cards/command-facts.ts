// What a command card shows, as facts: read from the tool's arguments, details and progress
// (untrusted shapes, read defensively) and said as the card's outcome line. No DOM here, so the
// unit tests can check the words without a browser; command-card.tsx draws them.
import type { ToolItem } from "../../src/shared/chat-items";
import { stopCauseForCard, type BackgroundRunState } from "../../src/shared/background-state";
import { formatDuration } from "../../src/shared/format";
import { commandEndWords, type CommandEnd } from "./tool-text";

export interface CommandFacts {
  command?: string;
  cwd?: string;
  via?: string;
  end?: string;
  exitCode?: number | null;
  durationMs?: number;
  totalLines?: number;
  cutLines?: number;
  logFile?: boolean;
  tail?: string[];
  elapsedMs?: number;
  /** Started in the background: what ended the wait ("pattern", "waited", "ended", "stopped"). */
  background?: string;
}

export function readFacts(args: unknown, details: unknown, progress: unknown): CommandFacts {
  const out: CommandFacts = {};
  const a = record(args);
  if (typeof a.command === "string") out.command = a.command;
  if (typeof a.cwd === "string" && a.cwd !== "") out.cwd = a.cwd;
  const d = record(details);
  if (typeof d.command === "string") out.command = d.command;
  if (typeof d.cwd === "string") out.cwd = d.cwd;
  if (d.via === "terminal" || d.via === "process") out.via = d.via;
  if (typeof d.end === "string") out.end = d.end;
  if (typeof d.exitCode === "number" || d.exitCode === null) out.exitCode = d.exitCode;
  if (typeof d.durationMs === "number") out.durationMs = d.durationMs;
  if (typeof d.totalLines === "number") out.totalLines = d.totalLines;
  if (typeof d.cutLines === "number") out.cutLines = d.cutLines;
  if (typeof d.logFile === "string") out.logFile = true;
  const bg = record(d.background);
  if (typeof bg.ready === "string") out.background = bg.ready;
  const p = record(record(progress).progress);
  if (Array.isArray(p.tail)) out.tail = p.tail.filter((l): l is string => typeof l === "string").slice(-50);
  if (typeof p.elapsedMs === "number") out.elapsedMs = p.elapsedMs;
  return out;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

export type Outcome = { text: string; tone: "ok" | "bad" | "muted" };

/**
 * How a run ended, in the same words on every command card: a run_command call, a background
 * command (when it ended), and a `!cmd`. `stopped` may name who stopped it.
 */
export function endOutcome(end: CommandEnd & { durationMs?: number }): Outcome {
  const took = end.end !== "failedToStart" && end.durationMs !== undefined ? ` · ${formatDuration(end.durationMs)}` : "";
  const byExitCode = end.end !== "stopped" && end.end !== "timeout" && end.end !== "failedToStart";
  const tone = byExitCode ? (end.exitCode === 0 ? "ok" : "bad") : end.end === "stopped" && end.stoppedBy ? "muted" : "bad";
  return { text: `${commandEndWords(end)}${took}`, tone };
}

export function runningOutcome(elapsedMs: number | undefined): Outcome {
  return { text: elapsedMs !== undefined ? `Running · ${formatDuration(elapsedMs)}` : "Running", tone: "muted" };
}

/**
 * Refused before it ran (no folder named in a multi-root workspace, a folder outside it, a bad
 * ready pattern, restricted mode): an error never asked about, without the end every run reports
 * (the agent gives a refusal empty details).
 */
export function notRun(item: ToolItem, facts: CommandFacts): boolean {
  return item.status === "error" && item.approval === undefined && facts.end === undefined;
}

export function outcome(item: ToolItem, facts: CommandFacts): Outcome {
  if (item.approval?.state === "pending") return { text: "Waiting for your approval", tone: "muted" };
  if (item.approval?.state === "denied") return { text: "Denied", tone: "bad" };
  if (item.status === "running" || item.status === "pending") return runningOutcome(facts.elapsedMs);
  if (notRun(item, facts)) return { text: "Not run", tone: "bad" };
  // Left running in the background: running, then how it ended (live, or from the transcript).
  if (item.background) return backgroundOutcome(item.background, facts);
  if (facts.end === undefined) return { text: item.status === "error" ? "Failed" : "Done", tone: item.status === "error" ? "bad" : "ok" };
  return endOutcome(facts);
}

function backgroundOutcome(run: BackgroundRunState, facts: CommandFacts): Outcome {
  switch (run.state) {
    case "running":
      return {
        text: facts.background === "pattern" ? `Running in the background · ready after ${formatDuration(facts.durationMs ?? 0)}` : "Running in the background",
        tone: "muted",
      };
    case "exited":
      return endOutcome({ end: "exited", ...run });
    case "stopped":
      return endOutcome({ end: "stopped", stoppedBy: stopCauseForCard(run.by), ...(run.durationMs !== undefined ? { durationMs: run.durationMs } : {}) });
    case "gone":
      return { text: "Not running: it ended before this chat was reopened", tone: "muted" };
  }
}
