// Turning a path the model wrote into a safe workspace-relative path.
//
// Two steps: resolveWorkspacePath is lexical (no I/O) and refuses anything that is not plainly a
// path inside the workspace; checkRealPath then asks the file system where symlinks lead, at the
// moment of use. Error strings are written for the model: they say what was wrong and what to do.
import type { WorkspaceFileSystem, WorkspaceRealPath } from "./workspace-fs";

export type PathResult = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly error: string };

/** Longer inputs are refused outright: no real workspace path needs more. */
export const MAX_PATH_LENGTH = 4096;

const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;
// Characters that show as nothing (or move text around) make a path read differently from what it
// is: every format character (Unicode Cf: soft hyphen U+00AD, zero-width and bidi controls, word
// joiner U+2060, tags U+E0000…), the line and paragraph separators U+2028/U+2029, and the
// invisible letters and marks that are not Cf (Hangul fillers, combining grapheme joiner,
// variation selectors, Mongolian free variation selectors).
const INVISIBLE_CHARS = /\p{Cf}|\p{Zl}|\p{Zp}|\p{Variation_Selector}|\u034f|[\u115f\u1160\u3164\uffa0]/u;
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const WINDOWS_DRIVE_ABSOLUTE = /^[a-z]:\//i;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(\..*)?$/i;

function fail(input: string, reason: string): PathResult {
  const shown = input.length > 200 ? `${input.slice(0, 200)}…` : input;
  // JSON.stringify escapes control characters, so the message itself stays one clean line.
  return { ok: false, error: `Invalid path ${JSON.stringify(shown)}: ${reason}` };
}

/** A root such as "C:\\work\\app" or "\\\\server\\share\\app": the extension runs on Windows. */
function isWindowsRoot(root: string): boolean {
  return /^[a-z]:[\\/]/i.test(root) || root.startsWith("\\\\");
}

/** Segments of an absolute root, without empty ones and without a Windows drive ("C:"). */
function rootSegments(root: string, windows: boolean): string[] {
  const segments = (windows ? root.replace(/\\/g, "/") : root).split("/").filter((s) => s !== "" && s !== ".");
  if (windows && /^[a-z]:$/i.test(segments[0] ?? "")) segments.shift();
  const out: string[] = [];
  for (const segment of segments) {
    if (segment === "..") out.pop();
    else out.push(segment);
  }
  return out;
}

/**
 * Lexically resolve `input` against the workspace `root` (an absolute OS path).
 *
 * Returns the normalized workspace-relative POSIX path ("." for the root itself), or an error the
 * model can read. Refused: empty input, NUL and other control characters, invisible/bidi characters,
 * `~` (home), `..` that climbs above the root, absolute paths outside the root, URLs (`file:` and
 * others), any `:` (drive letters, drive-relative paths, NTFS streams), UNC and device paths, and
 * backslashes when the root is a POSIX path. Absolute paths inside the root are accepted and made
 * relative; with `root` undefined every absolute path is refused.
 *
 * Percent-encoding is never decoded: "%2e%2e" is a literal file name, so it cannot climb.
 * Symlinks are not looked at here: call checkRealPath before any I/O.
 */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: the path rules in their order (absolute, folder names, .., control characters): the order is the security argument
export function resolveWorkspacePath(root: string | undefined, input: string): PathResult {
  if (typeof input !== "string" || input.length === 0) return fail("", "the path is empty. Give a path relative to the workspace root, e.g. src/index.ts.");
  if (input.length > MAX_PATH_LENGTH) return fail(input, `the path is longer than ${MAX_PATH_LENGTH} characters.`);
  if (input.includes("\0")) return fail(input, "the path contains a NUL byte.");
  if (CONTROL_CHARS.test(input)) return fail(input, "the path contains control characters (such as a newline or tab).");
  if (INVISIBLE_CHARS.test(input))
    return fail(input, "the path contains invisible, formatting or text-direction characters (such as a zero-width space, soft hyphen or line separator).");

  const windows = root !== undefined && isWindowsRoot(root);
  if (!windows && input.includes("\\")) {
    return fail(input, "backslashes are not allowed; use / to separate directories.");
  }
  let path = windows ? input.replace(/\\/g, "/") : input;

  if (path.startsWith("~")) {
    return fail(
      input,
      "home directory paths (~) are not supported; use a path relative to the workspace root (if a file name really starts with ~, write ./~name).",
    );
  }
  if (URL_SCHEME.test(path) || /^file:/i.test(path)) {
    return fail(input, "URLs are not accepted; use a path relative to the workspace root.");
  }
  if (path.startsWith("//")) return fail(input, "UNC and device paths are not accepted.");

  let absolute = false;
  if (WINDOWS_DRIVE_ABSOLUTE.test(path)) {
    if (!windows) return fail(input, "Windows drive paths are not accepted; use a path relative to the workspace root.");
    absolute = true;
    path = path.slice(2);
  } else if (path.startsWith("/")) {
    // On Windows "/x" means "x at the root of the current drive": ambiguous, refuse.
    if (windows) return fail(input, "a path starting with / has no drive; use a path relative to the workspace root.");
    absolute = true;
  }
  if (path.includes(":")) {
    return fail(input, `the path contains ":" (drive letters, URLs and alternate data streams are not accepted).`);
  }

  const stack: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (stack.length === 0) {
        if (!absolute) return fail(input, "the path climbs out of the workspace with ..; use a path inside the workspace.");
        continue; // "/.." is "/" for an absolute path; the root check below decides.
      }
      stack.pop();
      continue;
    }
    if (windows && (WINDOWS_RESERVED.test(segment) || /[. ]$/.test(segment))) {
      return fail(input, `"${segment}" is a reserved or ambiguous name on Windows.`);
    }
    stack.push(segment);
  }

  let relative = stack;
  if (absolute) {
    if (root === undefined) return fail(input, "absolute paths are not accepted; use a path relative to the workspace root.");
    const rootParts = rootSegments(root, windows);
    // Windows file names are case-insensitive; POSIX ones are not (a miss there only refuses).
    const same = (a: string, b: string): boolean => (windows ? a.toLowerCase() === b.toLowerCase() : a === b);
    const drive = windows ? input.slice(0, 2) : "";
    const rootDrive = windows && /^[a-z]:/i.test(root) ? root.slice(0, 2) : "";
    const inside = same(drive, rootDrive) && stack.length >= rootParts.length && rootParts.every((part, i) => same(part, stack[i] ?? ""));
    if (!inside) return fail(input, "the path is outside the workspace; only files inside the workspace can be used.");
    relative = stack.slice(rootParts.length);
  }
  return { ok: true, path: relative.length === 0 ? "." : relative.join("/") };
}

/**
 * Ask the file system where `relPath` really leads. Returns the real workspace-relative path (the
 * one to do I/O on), or an error if a symlink leads outside the workspace. Call it right before use:
 * a symlink can change between two calls.
 */
export async function checkRealPath(fs: WorkspaceFileSystem, relPath: string): Promise<PathResult> {
  let real: WorkspaceRealPath;
  try {
    real = await fs.realPath(relPath);
  } catch {
    return fail(relPath, "the path could not be resolved (a symbolic link loop or an unreadable directory).");
  }
  if (!real.inside) return fail(relPath, "the path leads outside the workspace through a symbolic link.");
  return { ok: true, path: real.path };
}
