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

/**
 * A sandbox whose workspace holds links leading out (to the secret, to "/", to ".."), loops and
 * dangling links, for the hostile-path suites of every tool.
 */
export function makeHostileSandbox(): Sandbox {
  const s = makeSandbox();
  s.write("inside.txt", "inside\n");
  s.write("sub/ok.txt", "ok\n");
  s.link("link-file", join(s.outside, "secret.txt"));
  s.link("rel-link", "../outside/secret.txt");
  s.link("link-dir", s.outside);
  s.link("sub/deep", "../../outside");
  s.link("link-root", "/");
  s.link("link-up", "..");
  s.link("chain2", join(s.outside, "secret.txt"));
  s.link("chain1", "chain2");
  s.link("sub/via-link", "../link-dir/secret.txt");
  s.link("dangling", join(s.outside, "created-by-attack.txt"));
  s.link("dangling-dir", join(s.outside, "new-dir"));
  s.link("loop1", "loop2");
  s.link("loop2", "loop1");
  return s;
}

/** Paths a model (or a prompt injection) might use to reach outside the workspace of makeHostileSandbox. */
export function hostilePaths(s: Sandbox): string[] {
  return [
    "../outside/secret.txt",
    "../../etc/passwd",
    "/etc/passwd",
    join(s.outside, "secret.txt"),
    join(s.evil, "secret.txt"), // shares the workspace's name as a string prefix
    `${s.ws}-evil/secret.txt`,
    `${s.ws}/../outside/secret.txt`, // starts inside, climbs out
    join(s.base, "secret.txt"),
    s.base,
    "/",
    "~/x",
    "~",
    "~root/.ssh/id_rsa",
    "secret.txt\0",
    "inside.txt\0../../outside/secret.txt",
    "C:\\x",
    "C:/Windows/win.ini",
    "c:secret.txt",
    "\\\\server\\share\\x",
    "//server/share/x",
    "\\\\?\\C:\\x",
    "..\\outside\\secret.txt",
    "sub\\..\\..\\outside\\secret.txt",
    "a/../../outside/secret.txt",
    "./../outside/secret.txt",
    "sub/./../../outside/secret.txt",
    "..",
    "../",
    "file:///etc/passwd",
    `file://${join(s.outside, "secret.txt")}`,
    "file:../outside/secret.txt",
    "https://example.com/secret.txt",
    "vscode-remote://ssh-remote+host/etc/passwd",
    "link-file", // symlink to the outside file
    "rel-link", // relative symlink ../outside/secret.txt
    "link-dir/secret.txt", // symlinked directory
    "link-dir",
    "sub/deep/secret.txt", // symlinked directory component deeper down
    "link-root/etc/passwd",
    "link-up/outside/secret.txt",
    "chain1", // link -> link -> outside
    "sub/via-link", // link whose target goes through another link
    "dangling", // dangling link to a file outside (a write would create it)
    "dangling-dir/new.txt",
    "loop1", // symlink loop
    "../".repeat(60) + "etc/passwd",
    "a/" + "../".repeat(300) + "outside/secret.txt",
    "x/".repeat(3000) + "secret.txt", // over the length limit
    "%2e%2e/outside/secret.txt", // percent-encoding is literal: a missing "%2e%2e" directory
    "%2e%2e%2foutside%2fsecret.txt",
    "..%2foutside%2fsecret.txt",
    "inside.txt\n../outside/secret.txt",
    "\t../outside/secret.txt",
    "\u202e../outside/secret.txt",
    "inside.txt:stream",
    "",
  ];
}
