// Temp-dir sandboxes for the tool tests: a workspace, and outside it files holding a secret.
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentToolResult } from "@earendil-works/pi-agent-core";

export const SECRET = "TOP-SECRET-7f3a9c-do-not-leak";

export interface Sandbox {
  /** Temp dir holding everything below. */
  base: string;
  /** The workspace root. */
  ws: string;
  /** A sibling of the workspace with secret.txt in it. */
  outside: string;
  /** A sibling whose name starts with the workspace's ("ws-evil"), to catch string-prefix checks. */
  evil: string;
  write(rel: string, content: string | Uint8Array): string;
  read(rel: string): Buffer;
  link(rel: string, target: string): void;
  cleanup(): void;
}

export function makeSandbox(): Sandbox {
  const base = mkdtempSync(join(tmpdir(), "pi-chat-tools-"));
  const ws = join(base, "ws");
  const outside = join(base, "outside");
  const evil = join(base, "ws-evil");
  for (const dir of [ws, outside, evil]) mkdirSync(dir);
  writeFileSync(join(outside, "secret.txt"), `${SECRET}\n`);
  writeFileSync(join(evil, "secret.txt"), `${SECRET}\n`);
  writeFileSync(join(base, "secret.txt"), `${SECRET}\n`);
  const sandbox: Sandbox = {
    base,
    ws,
    outside,
    evil,
    write(rel, content) {
      const full = join(ws, rel);
      mkdirSync(join(full, ".."), { recursive: true });
      writeFileSync(full, content);
      return full;
    },
    read: (rel) => readFileSync(join(ws, rel)),
    link(rel, target) {
      const full = join(ws, rel);
      mkdirSync(join(full, ".."), { recursive: true });
      symlinkSync(target, full);
    },
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
  return sandbox;
}

/** Every entry under `dir` with what it holds (file hash, link target), to prove nothing changed. */
export function snapshotTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(dir, rel))) {
      const relPath = rel === "" ? name : `${rel}/${name}`;
      const full = join(dir, relPath);
      const info = lstatSync(full);
      if (info.isSymbolicLink()) out.set(relPath, `link:${readlinkSync(full)}`);
      else if (info.isDirectory()) {
        out.set(relPath, "dir");
        walk(relPath);
      } else out.set(relPath, `file:${createHash("sha256").update(readFileSync(full)).digest("hex")}`);
    }
  };
  walk("");
  return out;
}

export function textOf(result: AgentToolResult<unknown>): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

/** Runs `fn` and returns the error it throws; fails the test if it does not throw an Error. */
export async function rejection(fn: () => Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await fn();
  } catch (error) {
    if (error instanceof Error) return error;
    throw new Error(`threw a non-Error: ${String(error)}`);
  }
  throw new Error("expected a rejection, but it resolved");
}
