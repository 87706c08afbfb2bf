// "Continue in pi CLI", the file part: a chat written as a new pi session file in the folder where
// pi looks for the sessions of its working folder (piSessionLocation, the import's own rule, with
// pi's environment overrides). A new file only: an existing file is never written over.
import { exportPiSession, isPiSessionId, piSessionFileName, type ExportOptions, type ExportSource } from "./export";
import { piSessionLocation, type PiEnv } from "./sessions";

export interface PiSessionWriter {
  /** Creates the folder and its parents. */
  makeDir(dir: string): Promise<void>;
  /** Writes a new file; false when `path` exists already (it is left as it is). */
  createExclusive(path: string, text: string): Promise<boolean>;
}

export interface SaveOptions extends Omit<ExportOptions, "sessionId"> {
  env: PiEnv;
  home: string;
  /** A new pi session id (a UUID); asked again when the file name is taken. */
  newSessionId: () => string;
}

export type SaveResult = { ok: true; path: string; dir: string; kinds: Record<string, number>; leftOut: number } | { ok: false; reason: string };

const ATTEMPTS = 5;

export async function savePiSession(writer: PiSessionWriter, source: ExportSource, options: SaveOptions): Promise<SaveResult> {
  const { dir } = piSessionLocation(source.cwd, options.env, options.home);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const sessionId = options.newSessionId();
    // The id ends the file name: one that is not pi's kind of id could name a path elsewhere.
    if (!isPiSessionId(sessionId)) return { ok: false, reason: `invalid pi session id ${JSON.stringify(sessionId.slice(0, 80))}` };
    const exported = exportPiSession(source, { ...options, sessionId });
    if (!exported.ok) return exported;
    const sep = dir.includes("\\") && !dir.includes("/") ? "\\" : "/";
    const path = (dir.endsWith("/") || dir.endsWith("\\") ? dir : dir + sep) + piSessionFileName(options.now, sessionId);
    try {
      await writer.makeDir(dir);
      if (await writer.createExclusive(path, exported.text)) return { ok: true, path, dir, kinds: exported.kinds, leftOut: exported.leftOut };
    } catch (err) {
      return { ok: false, reason: `cannot write ${path}: ${err instanceof Error ? err.message : String(err)}` };
    }
  }
  return { ok: false, reason: `every file name tried in ${dir} exists already; nothing was written over` };
}
