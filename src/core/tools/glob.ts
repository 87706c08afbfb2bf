// Globs the model gives (find_files' pattern, search's include), in VS Code's syntax: `*`, `**`,
// `?`, `{a,b}`, `[a-z]`. They are matched only against paths the walk produced inside the
// workspace, so a glob cannot reach outside it; patterns that try (`..`, absolute paths, drive
// letters) are refused with a reason instead of quietly matching nothing.
import picomatch from "picomatch";

export type GlobResult = { readonly ok: true; readonly test: (relPath: string) => boolean } | { readonly ok: false; readonly error: string };

/** Longer patterns are refused: none a person writes needs more. */
export const MAX_GLOB_LENGTH = 1000;

const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Compile a glob relative to the workspace (or to a folder the caller chose). A pattern without
 * "/" matches a file name at any depth (`*.ts`), as in VS Code's search; with "/" it matches the
 * whole relative path (`src/**\/*.ts`). Dot files are matched like any other.
 */
export function compileGlob(pattern: string): GlobResult {
  const shown = JSON.stringify(pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern);
  const fail = (why: string): GlobResult => ({ ok: false, error: `Invalid pattern ${shown}: ${why}` });
  if (pattern.trim().length === 0) return fail("it is empty. Give a glob such as **/*.ts or config.*.");
  if (pattern.length > MAX_GLOB_LENGTH) return fail(`it is longer than ${MAX_GLOB_LENGTH} characters.`);
  if (CONTROL_CHARS.test(pattern)) return fail("it contains control characters.");
  if (pattern.includes("\\")) return fail("backslashes are not allowed; use / between folders (and [*] for a literal *).");
  if (pattern.startsWith("/") || /^[a-z]:/i.test(pattern) || pattern.startsWith("~")) {
    return fail("patterns are relative to the workspace; absolute and home paths are not accepted.");
  }
  // ".." as a whole segment, also inside braces or alternatives: {..,x}/secret, a/{b,..}/c.
  if (/(^|[/{,(|])\.\.($|[/},)|])/.test(pattern)) return fail("patterns cannot climb out with ..; give a pattern inside the workspace.");
  let matcher: (path: string) => boolean;
  try {
    matcher = picomatch(pattern, { dot: true, basename: !pattern.includes("/"), strictBrackets: true });
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  return { ok: true, test: (relPath) => matcher(relPath) };
}
