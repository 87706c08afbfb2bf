// The lint rules that hold the layers apart and keep warnings from piling up, each proved to
// fire: the repository's biome.jsonc runs, as `npm run lint` runs it (--error-on-warnings), over
// probe files laid out in a temp folder like the repository, and every probe must be refused by
// its rule while the allowed forms pass.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const repoRoot = join(__dirname, "../../../..");

interface Probe {
  path: string;
  source: string;
  /** The rule that must refuse it, or null for a file that must pass. */
  rule: string | null;
}

const PROBES: readonly Probe[] = [
  { path: "src/core/probe-require.ts", source: 'const vscode = require("vscode");\nexport const w = vscode;\n', rule: "lint/style/noRestrictedImports" },
  { path: "src/core/probe-import.ts", source: 'import "vscode";\n', rule: "lint/style/noRestrictedImports" },
  { path: "src/core/probe-named.ts", source: 'import * as vscode from "vscode";\nexport const w = vscode.window;\n', rule: "lint/style/noRestrictedImports" },
  { path: "src/shared/probe-vscode.ts", source: 'import type { Uri } from "vscode";\nexport type U = Uri;\n', rule: "lint/style/noRestrictedImports" },
  { path: "webview/probe-vscode.ts", source: 'import * as vscode from "vscode";\nexport const w = vscode;\n', rule: "lint/style/noRestrictedImports" },
  { path: "src/shared/probe-fs.ts", source: 'import { readFileSync } from "fs";\nexport const r = readFileSync;\n', rule: "lint/correctness/noNodejsModules" },
  {
    path: "src/shared/probe-node-fs.ts",
    source: 'import { readFileSync } from "node:fs";\nexport const r = readFileSync;\n',
    rule: "lint/correctness/noNodejsModules",
  },
  { path: "webview/probe-path.ts", source: 'import * as path from "path";\nexport const p = path;\n', rule: "lint/correctness/noNodejsModules" },
  {
    path: "webview/probe-node-crypto.ts",
    source: 'import { createHash } from "node:crypto";\nexport const h = createHash;\n',
    rule: "lint/correctness/noNodejsModules",
  },
  { path: "src/core/cycle-a.ts", source: 'import { b } from "./cycle-b";\nexport const a = () => b;\n', rule: "lint/suspicious/noImportCycles" },
  { path: "src/core/cycle-b.ts", source: 'import { a } from "./cycle-a";\nexport const b = () => a;\n', rule: "lint/suspicious/noImportCycles" },
  {
    path: "src/shared/type-cycle-a.ts",
    source: 'import type { B } from "./type-cycle-b";\nexport interface A {\n  b?: B;\n}\n',
    rule: "lint/suspicious/noImportCycles",
  },
  {
    path: "src/shared/type-cycle-b.ts",
    source: 'import type { A } from "./type-cycle-a";\nexport interface B {\n  a?: A;\n}\n',
    rule: "lint/suspicious/noImportCycles",
  },
  {
    path: "src/core/probe-floating.ts",
    source: "async function work(): Promise<void> {}\nexport function start(): void {\n  work();\n}\n",
    rule: "lint/nursery/noFloatingPromises",
  },
  {
    path: "src/core/probe-misused.ts",
    source: "export async function check(ready: Promise<void>): Promise<number> {\n  if (ready) return 1;\n  return 0;\n}\n",
    rule: "lint/nursery/noMisusedPromises",
  },
  {
    // Eight nested ifs: cognitive complexity 1 + 2 + … + 8 = 36, over the bar of 30.
    path: "src/core/probe-tangled.ts",
    source: `export function depth(x: number): number {\n${Array.from({ length: 8 }, (_, i) => `${"  ".repeat(i + 1)}if (x > ${i}) {`).join("\n")}\n${"  ".repeat(9)}return x;\n${Array.from({ length: 8 }, (_, i) => `${"  ".repeat(8 - i)}}`).join("\n")}\n  return 0;\n}\n`,
    rule: "lint/complexity/noExcessiveCognitiveComplexity",
  },
  // A warning by Biome's own default: it fails only because the lint runs with --error-on-warnings.
  { path: "src/core/probe-unused.ts", source: 'import { join } from "node:path";\nexport const x = 1;\n', rule: "lint/correctness/noUnusedImports" },
  // What each layer may use.
  {
    path: "src/host/allowed.ts",
    source: 'import { join } from "node:path";\nimport * as vscode from "vscode";\nexport const w = [vscode.window, join];\n',
    rule: null,
  },
  { path: "src/core/allowed.ts", source: 'import { readFile } from "node:fs/promises";\nexport const r = readFile;\n', rule: null },
  {
    path: "src/core/awaited.ts",
    source: "async function work(): Promise<void> {}\nexport async function start(): Promise<void> {\n  await work();\n  void work();\n}\n",
    rule: null,
  },
  { path: "webview/allowed.ts", source: 'import { h } from "preact";\nexport const make = h;\n', rule: null },
];

interface BiomeReport {
  diagnostics: { category?: string; severity: string; location?: { path?: string | { file?: string } } }[];
}

function lintProbes(): Map<string, string[]> {
  const dir = mkdtempSync(join(tmpdir(), "pi-chat-lint-"));
  try {
    // The repository's own configuration; the schema reference points into node_modules, not here.
    const config = readFileSync(join(repoRoot, "biome.jsonc"), "utf8").replace(/"\$schema": "[^"]*",/, "");
    writeFileSync(join(dir, "biome.jsonc"), config);
    for (const probe of PROBES) {
      mkdirSync(dirname(join(dir, probe.path)), { recursive: true });
      writeFileSync(join(dir, probe.path), probe.source);
    }
    const biome = join(repoRoot, "node_modules/@biomejs/biome/bin/biome");
    let output: string;
    try {
      output = execFileSync(process.execPath, [biome, "lint", "--error-on-warnings", "--vcs-enabled=false", "--reporter=json", "--max-diagnostics=none", "."], {
        cwd: dir,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      // Exit code 1 is the expected outcome: the probes are refused.
      output = (error as { stdout?: string }).stdout ?? "";
    }
    const report = JSON.parse(output) as BiomeReport;
    const byFile = new Map<string, string[]>();
    for (const d of report.diagnostics) {
      if (d.severity === "information" || d.severity === "hint") continue;
      const where = d.location?.path;
      const file = typeof where === "string" ? where : where?.file;
      if (file === undefined || d.category === undefined) continue;
      byFile.set(file, [...(byFile.get(file) ?? []), d.category]);
    }
    return byFile;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("lint: layer rules and warnings as errors (biome.jsonc)", function () {
  this.timeout(60_000);
  let found: Map<string, string[]>;
  before(() => {
    found = lintProbes();
  });

  for (const probe of PROBES) {
    if (probe.rule === null) {
      it(`allows ${probe.path}`, () => {
        assert.deepEqual(found.get(probe.path) ?? [], []);
      });
    } else {
      it(`refuses ${probe.path} (${probe.rule})`, () => {
        assert.ok(found.get(probe.path)?.includes(probe.rule as string), `${probe.path}: ${JSON.stringify(found.get(probe.path) ?? [])}`);
      });
    }
  }
});
