import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(prefix: string): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), `pi-chat-${prefix}-`));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** Every regular file under `dir`, at any depth (none when it does not exist): where a test looks for what must not be written. */
export function filesUnder(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true }) as string[];
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    const file = join(dir, name);
    try {
      if (statSync(file).isFile()) out.push(file);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Every file and folder under `dir`, at any depth, with its permission bits: where a test checks who may read what. */
export function modesUnder(dir: string): { path: string; dir: boolean; mode: number }[] {
  return (readdirSync(dir, { recursive: true }) as string[]).map((name) => {
    const st = statSync(join(dir, name));
    return { path: join(dir, name), dir: st.isDirectory(), mode: st.mode & 0o777 };
  });
}

/** The files of `files` that hold any of `secrets` (read as latin1; unreadable ones skipped): where a test finds a secret written where it must not be. */
export function filesHolding(files: readonly string[], secrets: readonly string[]): string[] {
  return files.filter((file) => {
    let text: string;
    try {
      text = readFileSync(file, "latin1");
    } catch {
      return false;
    }
    return secrets.some((s) => text.includes(s));
  });
}
