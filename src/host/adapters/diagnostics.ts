// The language server's errors for a file across one edit, from VS Code's diagnostics. After
// the write it waits for the file's diagnostics to change and then to settle (servers often
// publish twice: syntax, then semantics), never longer than piChat.problemsWaitMs.
import * as vscode from "vscode";
import type { Problem, ProblemsWatch, ProblemsWatcher } from "../../core/tools/problems-after-edit";
import { setting } from "../settings";

/** Once diagnostics changed, this long without another change counts as settled. */
const SETTLE_MS = 400;

export function createDiagnosticsWatcher(uriOf: (toolPath: string) => vscode.Uri | undefined): ProblemsWatcher {
  return {
    watch(path) {
      const waitMs = setting("problemsWaitMs");
      const uri = uriOf(path);
      if (!uri || !(waitMs > 0)) return undefined;
      return watchFile(uri, waitMs);
    },
  };
}

function watchFile(uri: vscode.Uri, waitMs: number): ProblemsWatch {
  const key = uri.toString();
  const started = Date.now();
  let lastChange: number | undefined;
  let wake: (() => void) | undefined;
  const subscription = vscode.languages.onDidChangeDiagnostics((event) => {
    if (!event.uris.some((u) => u.toString() === key)) return;
    lastChange = Date.now();
    wake?.();
  });
  const sleep = (ms: number, signal: AbortSignal | undefined) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.max(0, ms));
      function done() {
        clearTimeout(timer);
        wake = undefined;
        signal?.removeEventListener("abort", done);
        resolve();
      }
      wake = done;
      signal?.addEventListener("abort", done);
    });
  return {
    before: errorsOf(uri),
    async collect(signal) {
      try {
        const deadline = started + waitMs;
        // Until the first change (or the deadline), then until SETTLE_MS pass without one.
        while (!signal?.aborted) {
          const now = Date.now();
          if (lastChange === undefined) {
            if (now >= deadline) break;
            await sleep(deadline - now, signal);
            continue;
          }
          const quietUntil = Math.min(lastChange + SETTLE_MS, deadline + SETTLE_MS);
          if (now >= quietUntil) break;
          await sleep(quietUntil - now, signal);
        }
        return errorsOf(uri);
      } finally {
        subscription.dispose();
      }
    },
    cancel() {
      subscription.dispose();
      wake?.();
    },
  };
}

function errorsOf(uri: vscode.Uri): Problem[] {
  return vscode.languages
    .getDiagnostics(uri)
    .filter((d) => d.severity === vscode.DiagnosticSeverity.Error)
    .map((d) => {
      const problem: Problem = { line: d.range.start.line + 1, column: d.range.start.character + 1, message: d.message };
      if (d.source) problem.source = d.source;
      const code = typeof d.code === "object" ? d.code.value : d.code;
      if (code !== undefined) problem.code = String(code);
      return problem;
    });
}
