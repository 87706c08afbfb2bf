// Problems after an edit: once an edit is written, wait briefly for the language server and
// tell the model (and the card) which errors in that file were not there before, so it fixes
// what it broke. A decorator around edit_file: the edit itself knows nothing of diagnostics.
// The host gives the watcher (VS Code's diagnostics); the wait is bounded there.
import type { AgentTool, AgentToolResult } from "@earendil-works/pi-agent-core";
import type { Schema } from "@earendil-works/pi-schema";
import { resolveWorkspacePath } from "./paths";

/** One error the language server reports. Lines and columns are 1-based. */
export interface Problem {
  line: number;
  column: number;
  message: string;
  /** "ts", "eslint", … */
  source?: string;
  code?: string;
}

/** What the card shows, in the tool result's details. */
export interface ProblemsReport {
  /** The new errors, at most MAX_REPORTED_PROBLEMS of them. */
  items: Problem[];
  /** How many new errors there were in all. */
  total: number;
}

/** Watching one file across one edit. */
export interface ProblemsWatch {
  /** The file's errors just before the edit. */
  readonly before: readonly Problem[];
  /** After the write: waits (bounded) for the language server, then returns the file's errors. */
  collect(signal?: AbortSignal): Promise<readonly Problem[]>;
  /** The edit failed: stop watching. */
  cancel(): void;
}

export interface ProblemsWatcher {
  /** Called just before the edit is written; undefined when nothing is to be watched (turned off). */
  watch(path: string): ProblemsWatch | undefined;
}

/** A model fixing its own edit needs the first few; a flood of errors would only crowd the context. */
export const MAX_REPORTED_PROBLEMS = 20;

/**
 * Errors in `after` that `before` did not have. An edit moves lines, so errors are matched by
 * what they say (source, code, message), not where: an error that was there before and only
 * moved is not new. Counted as a multiset, so a second copy of an old error is new.
 */
export function newProblems(before: readonly Problem[], after: readonly Problem[]): Problem[] {
  const remaining = new Map<string, number>();
  for (const p of before) remaining.set(problemKey(p), (remaining.get(problemKey(p)) ?? 0) + 1);
  const fresh: Problem[] = [];
  for (const p of after) {
    const key = problemKey(p);
    const left = remaining.get(key) ?? 0;
    if (left > 0) remaining.set(key, left - 1);
    else fresh.push(p);
  }
  return fresh.sort((a, b) => a.line - b.line || a.column - b.column);
}

/** The text appended to the tool result: file, line, message for each, and how many were left out. */
export function formatProblems(path: string, report: ProblemsReport): string {
  const lines = report.items.map((p) => {
    const origin = [p.source, p.code].filter(Boolean).join(" ");
    return `${path}:${p.line}:${p.column} - ${origin ? `${origin}: ` : ""}${p.message.replace(/\s*\n\s*/g, " ")}`;
  });
  const more = report.total > report.items.length ? `\n(${report.total - report.items.length} more not shown)` : "";
  const count = report.total === 1 ? "1 new error" : `${report.total} new errors`;
  return `\n\nAfter this edit the language server reports ${count} in ${path}:\n${lines.join("\n")}${more}\nFix them if this edit caused them.`;
}

/** edit_file, plus the new errors in the edited file after each successful edit. */
export function withProblemsAfterEdit<P extends Schema, D extends { path: string }>(
  tool: AgentTool<P, D>,
  watcher: ProblemsWatcher,
  options: { root?: string } = {},
): AgentTool<P, D & { problems?: ProblemsReport }> {
  return {
    ...tool,
    async execute(toolCallId, params, signal, onUpdate): Promise<AgentToolResult<D & { problems?: ProblemsReport }>> {
      const input = (params as { path?: unknown }).path;
      const lexical = typeof input === "string" ? resolveWorkspacePath(options.root, input) : undefined;
      // Started before the write, so a language server that answers at once is not missed.
      const watch = lexical?.ok ? watcher.watch(lexical.path) : undefined;
      let result: AgentToolResult<D>;
      try {
        result = await tool.execute(toolCallId, params, signal, onUpdate);
      } catch (error) {
        watch?.cancel();
        throw error;
      }
      if (!watch) return result;
      let after: readonly Problem[];
      try {
        after = await watch.collect(signal);
      } catch {
        return result; // no diagnostics (stopped, or the server failed): the edit itself stands
      }
      const fresh = newProblems(watch.before, after);
      if (fresh.length === 0) return result;
      const report: ProblemsReport = { items: fresh.slice(0, MAX_REPORTED_PROBLEMS), total: fresh.length };
      const path = result.details.path;
      return {
        ...result,
        content: [...result.content, { type: "text", text: formatProblems(path, report) }],
        details: { ...result.details, problems: report },
      };
    },
  };
}

function problemKey(p: Problem): string {
  return `${p.source ?? ""}\u0000${p.code ?? ""}\u0000${p.message}`;
}
