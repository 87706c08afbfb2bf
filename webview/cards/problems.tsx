// The errors an applied edit introduced (details.problems of edit_file): file, line, message,
// each line opening the file there. The same list the model got in the tool result.
import { ErrorIcon } from "../icons";
import { FileLink } from "./file-link";

interface ShownProblem {
  line: number;
  column: number;
  message: string;
  origin: string;
}

function readProblems(details: unknown): { items: ShownProblem[]; total: number } | undefined {
  if (typeof details !== "object" || details === null) return undefined;
  const report = (details as { problems?: unknown }).problems;
  if (typeof report !== "object" || report === null) return undefined;
  const { items, total } = report as { items?: unknown; total?: unknown };
  if (!Array.isArray(items) || typeof total !== "number") return undefined;
  const shown: ShownProblem[] = [];
  for (const raw of items.slice(0, 50)) {
    if (typeof raw !== "object" || raw === null) continue;
    const p = raw as Record<string, unknown>;
    if (typeof p.line !== "number" || typeof p.message !== "string") continue;
    const origin = [p.source, p.code].filter((v): v is string => typeof v === "string" && v !== "").join(" ");
    shown.push({ line: p.line, column: typeof p.column === "number" ? p.column : 1, message: p.message, origin });
  }
  return shown.length > 0 ? { items: shown, total: Math.max(total, shown.length) } : undefined;
}

export function EditProblems({ details, path }: { details: unknown; path: string | undefined }) {
  const report = readProblems(details);
  if (!report || path === undefined) return null;
  const more = report.total - report.items.length;
  return (
    // biome-ignore lint/a11y/useSemanticElements: a titled list of errors, not a form: a fieldset would be the wrong thing to announce.
    <div class="problems" role="group" aria-label={`${report.total} new error${report.total === 1 ? "" : "s"} after this edit`}>
      <div class="problems-title">
        <ErrorIcon class="bad" /> {report.total === 1 ? "1 new error" : `${report.total} new errors`} after this edit
      </div>
      <ul>
        {report.items.map((p, i) => (
          <li key={i}>
            <FileLink path={path} line={p.line} label={`${path}:${p.line}:${p.column}`} class="problem-where" />
            <span class="problem-message">
              {p.origin && <span class="problem-origin">{p.origin}: </span>}
              {p.message}
            </span>
          </li>
        ))}
      </ul>
      {more > 0 && <div class="problems-more">{more} more not shown</div>}
    </div>
  );
}
