// P5 activation: bytes of JavaScript loaded at activation (before any prompt), and whether a
// provider SDK was loaded. Runs bench/activation-probe.ts in a fresh Node process (a stub vscode
// module, every require recorded), 5 times (the byte count is deterministic; activation time is not).
// Also scans the loaded bundles for code inlined from provider SDK packages (esbuild's
// `// node_modules/<pkg>/…` markers, present in non-minified builds like the one `npm run bench` makes).
// Beside it: what an eager design would load (extension.js + providers.js).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { summarize, type Summary } from "../lib/stats";

export const P5_GOAL_BYTES = 500_000;
const SDK_PACKAGES = ["openai", "@anthropic-ai/sdk", "@google/genai"];

export interface P5Result {
  status: "ok" | "not built" | "failed";
  reason?: string;
  totalBytes?: number;
  files?: { file: string; bytes: number }[];
  builtins?: string[];
  providerLoaded?: boolean;
  providerEvidence?: string[];
  /** Bytes of extension.js by inlined package (from esbuild's module markers). */
  inlinedPackages?: { pkg: string; bytes: number }[];
  activated?: boolean;
  activateMs?: Summary;
  genericStubUses?: string[];
  eagerBytes?: number;
  /** The same files minified, as `npm run package` ships them (esbuild's minifier over each). */
  shippedBytes?: number;
  goalBytes: number;
}

/** Per-package byte counts of an esbuild bundle, from its `// node_modules/...` / `// src/...` module comments. */
export function packagesOf(source: string): Map<string, number> {
  const sizes = new Map<string, number>();
  const marker = /^\/\/ ([^\n]+\.(?:m?js|cjs|ts|tsx|json))\n/gm;
  let last: { pkg: string; at: number } | undefined;
  let m: RegExpExecArray | null;
  while ((m = marker.exec(source))) {
    const path = m[1]!;
    if (last) sizes.set(last.pkg, (sizes.get(last.pkg) ?? 0) + (m.index - last.at));
    const nm = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
    last = { pkg: nm ? nm[1]! : path.startsWith("src/") ? "(Pi Chat src)" : path.split("/")[0]!, at: m.index };
  }
  if (last) sizes.set(last.pkg, (sizes.get(last.pkg) ?? 0) + (source.length - last.at));
  return sizes;
}

export function runP5(repoRoot: string, probe: string, log: (line: string) => void, runs = 5): P5Result {
  const extensionFile = join(repoRoot, "out", "extension.js");
  if (!existsSync(extensionFile)) return { status: "not built", reason: "out/extension.js does not exist", goalBytes: P5_GOAL_BYTES };
  const results: Record<string, unknown>[] = [];
  for (let i = 0; i < runs; i++) {
    try {
      const out = execFileSync(process.execPath, [probe, extensionFile], {
        cwd: repoRoot,
        encoding: "utf8",
        timeout: 60_000,
        stdio: ["ignore", "pipe", "pipe"],
      });
      results.push(JSON.parse(out.trim().split("\n").pop() ?? "{}") as Record<string, unknown>);
    } catch (error) {
      return { status: "failed", reason: `probe failed: ${error instanceof Error ? error.message : String(error)}`, goalBytes: P5_GOAL_BYTES };
    }
  }
  const r = results[0]!;
  const files = r["files"] as { file: string; bytes: number }[];
  const evidence = [...(r["providerSdkFiles"] as string[])];
  if (r["providersBundleLoaded"]) evidence.push("out/providers.js");
  const inlined = new Map<string, number>();
  for (const f of files) {
    if (!f.file.endsWith(".js") && !f.file.endsWith(".cjs")) continue;
    for (const [pkg, bytes] of packagesOf(readFileSync(f.file, "utf8"))) {
      inlined.set(pkg, (inlined.get(pkg) ?? 0) + bytes);
      if (SDK_PACKAGES.includes(pkg)) evidence.push(`${pkg} inlined in ${f.file.slice(repoRoot.length + 1)} (${bytes} B)`);
    }
  }
  const providersFile = join(repoRoot, "out", "providers.js");
  const totalBytes = r["totalBytes"] as number;
  for (const other of results) {
    if (other["totalBytes"] !== totalBytes) log(`  P5: warning: loaded bytes differ between runs (${String(other["totalBytes"])} vs ${totalBytes})`);
  }
  log(`  P5: ${files.length} file(s), ${totalBytes} B; activated: ${String(r["activated"])}${r["error"] ? ` (${String(r["error"]).split("\n")[0]})` : ""}`);
  // What ships: `npm run package` minifies. The bytes a user's extension host parses at activation.
  // (esbuild's CLI, not its JavaScript API: that one refuses to be bundled into this benchmark.)
  const esbuild = join(repoRoot, "node_modules", ".bin", "esbuild");
  // out/extension.js is measured as `npm run package` builds it: bundled and minified in one step
  // (scripts/build.mjs --production), which drops more than minifying the development bundle after
  // the fact (530 against 478 KB once). Any other file loaded at activation is minified on its own.
  const productionEntry = [
    "src/host/extension.ts",
    "--bundle",
    "--platform=node",
    "--format=cjs",
    "--target=node20",
    "--minify",
    "--external:vscode",
    "--define:import.meta.url=__pi_import_meta_url",
    "--banner:js=const __pi_import_meta_url = require('url').pathToFileURL(__filename).href;",
    "--log-level=error",
  ];
  const shippedBytes = files.reduce(
    (sum, f) =>
      sum +
      (f.file === extensionFile
        ? execFileSync(esbuild, productionEntry, { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 }).length
        : execFileSync(esbuild, ["--minify", "--loader=js", "--log-level=error"], { input: readFileSync(f.file), maxBuffer: 64 * 1024 * 1024 }).length),
    0,
  );
  return {
    status: "ok",
    totalBytes,
    shippedBytes,
    files: files.map((f) => ({ file: f.file.startsWith(repoRoot) ? f.file.slice(repoRoot.length + 1) : f.file, bytes: f.bytes })),
    builtins: r["builtins"] as string[],
    providerLoaded: evidence.length > 0,
    providerEvidence: evidence,
    inlinedPackages: [...inlined].map(([pkg, bytes]) => ({ pkg, bytes })).sort((a, b) => b.bytes - a.bytes),
    activated: r["activated"] as boolean,
    ...(r["error"] ? { reason: String(r["error"]).split("\n")[0] } : {}),
    activateMs: summarize(results.map((x) => x["activateMs"] as number)),
    genericStubUses: r["genericStubUses"] as string[],
    ...(existsSync(providersFile) ? { eagerBytes: statSync(extensionFile).size + statSync(providersFile).size } : {}),
    goalBytes: P5_GOAL_BYTES,
  };
}
