// `npm test`: type-check (each layer on its own, then everything), lint, build once, then every suite — unit (Node), browser (Chromium),
// extension host (code-server, two phases for the restart test, then one with the folder untrusted), end to end (the real
// workbench UI) — and last the .vsix a user installs (`npm run package`, its size and contents). A failing suite does not stop the others; each prints `LABEL: N passed,
// M failed`. Each step's wall time (typecheck, lint and build too) is printed after it and again in a table at the end, with
// the total; the last line is still the sum, `N passed, M failed` (CI reads it, .ci/run).
// The host and end-to-end suites run on both VS Codes of scripts/vscode.mjs, the oldest we support and the newest, each
// step named after its VS Code (`host (1.100)`, `host (1.139)`).
//   node scripts/test-all.mjs --only host     build, then just that suite (npm run test:host), on both VS Codes
//   node scripts/test-all.mjs --vscode 1.139  the VS Code suites on that one only (also PI_CHAT_VSCODE=latest)
import { spawn } from "node:child_process";
import { repoRoot } from "./mocha-suite.mjs";
import { selectedVSCode, testVSCodes } from "./vscode.mjs";

/**
 * The suites that run in a real VS Code, once per VS Code of scripts/vscode.mjs (the oldest we support
 * first), each step named after its VS Code, e.g. `host (1.100)`, `host (1.139)`.
 */
function vscodeSteps() {
  const suites = [
    {
      name: "host",
      cmd: [
        "node",
        "scripts/run-host-tests.mjs",
        "--workspace-fixture",
        "test/fixtures/workspace",
        "--phases",
        "2",
        "--phase-grep",
        "phase 2",
        "--restricted-phase",
        "restricted mode",
      ],
    },
    {
      // The same extension in a two-folder workspace: only test/host/multi-root*.test.ts runs there.
      name: "host-multi-root",
      cmd: [
        "node",
        "scripts/run-host-tests.mjs",
        "--workspace-fixture",
        "test/fixtures/multi-root",
        "--workspace-file",
        "multi.code-workspace",
        "--env",
        "PI_CHAT_HOST_SUITE=multi-root",
        "--artifacts",
        "host-multi-root",
      ],
    },
    {
      // test/host/crash-*.test.ts: phase 1 asks the launcher to SIGKILL the extension host mid-restore;
      // phase 2 starts VS Code again on the same state and checks what activation did.
      name: "host-crash",
      cmd: [
        "node",
        "scripts/run-host-tests.mjs",
        "--workspace-fixture",
        "test/fixtures/workspace",
        "--env",
        "PI_CHAT_HOST_SUITE=crash",
        "--phases",
        "2",
        "--kill-on-request",
        "--artifacts",
        "host-crash",
      ],
    },
    { name: "e2e", cmd: ["node", "scripts/run-e2e-tests.mjs"] },
  ];
  return Object.values(testVSCodes).flatMap((vscode) =>
    suites.map((suite) => ({ ...suite, suite: suite.name, name: `${suite.name} (${vscode.id})`, env: { PI_CHAT_VSCODE: vscode.id } })),
  );
}

const steps = [
  { name: "typecheck", cmd: ["npm", "run", "--silent", "typecheck"] },
  // Lint and formatting (Biome, `npm run lint`): a warning or a file not formatted as biome.jsonc says fails here.
  { name: "lint", cmd: ["npm", "run", "--silent", "lint"] },
  { name: "build", cmd: ["node", "scripts/build.mjs", "--tests"] },
  { name: "unit", cmd: ["node", "scripts/run-unit-tests.mjs"] },
  // The minute-long soaks (two windows appending to one chat), apart so the unit run stays quick.
  { name: "stress", cmd: ["node", "scripts/run-stress-tests.mjs"] },
  { name: "browser", cmd: ["node", "scripts/run-browser-tests.mjs"] },
  // The host and end-to-end suites, once on each VS Code (scripts/vscode.mjs): see vscodeSteps below.
  ...vscodeSteps(),
  // Last, since it builds the production bundles into out/ (and then the development ones again):
  // `npm run package` as a user would run it, and the .vsix checked (scripts/check-package.mjs).
  { name: "package", cmd: ["node", "scripts/check-package.mjs"] },
];

const flag = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const only = flag("--only");
const suiteOf = (step) => step.suite ?? step.name;
if (only && !steps.some((s) => suiteOf(s) === only || suiteOf(s).startsWith(`${only}-`))) {
  console.error(`unknown suite ${only}; one of: ${[...new Set(steps.map(suiteOf))].join(", ")}`);
  process.exit(2);
}
// `--vscode 1.139` (or PI_CHAT_VSCODE=latest in the environment): the VS Code suites on that one only.
const vscodeName = flag("--vscode") ?? process.env.PI_CHAT_VSCODE;
const onlyVSCode = vscodeName ? selectedVSCode(vscodeName).id : undefined;
// `--only host` runs host-multi-root too.
const selected = steps.filter(
  (s) =>
    (!only || s.name === "build" || suiteOf(s) === only || suiteOf(s).startsWith(`${only}-`)) &&
    (!onlyVSCode || !s.env?.PI_CHAT_VSCODE || s.env.PI_CHAT_VSCODE === onlyVSCode),
);

const SUMMARY = /^([A-Z0-9-]+): (\d+) passed, (\d+) failed\s*$/;
let passed = 0;
let failed = 0;
const broken = [];
// Mocha's failure reports, repeated at the end: CI shows only the tail of a long log, and a
// failing test's title and error must be in it.
const FAILING = /^\s+\d+ failing\s*$/;
const REPORT_LINES = 40;
const failureReports = [];

function run(step) {
  return new Promise((resolve) => {
    const child = spawn(step.cmd[0], step.cmd.slice(1), {
      cwd: repoRoot,
      env: { ...process.env, ...step.env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let counted = false;
    let buffer = "";
    let report;
    child.stdout.on("data", (chunk) => {
      process.stdout.write(chunk);
      buffer += chunk.toString();
      const lines = buffer.split("\n");
      buffer = lines.pop() ?? "";
      for (const line of lines) {
        if (FAILING.test(line)) {
          report = { step: step.name, lines: [] };
          failureReports.push(report);
        } else if (report && report.lines.length < REPORT_LINES) report.lines.push(line);
        const m = SUMMARY.exec(line);
        if (m) {
          passed += Number(m[2]);
          failed += Number(m[3]);
          counted = true;
        }
      }
    });
    child.on("close", (code) => resolve({ code: code ?? 1, counted }));
  });
}

/** Seconds with one decimal, or minutes and seconds past a minute: "41.3 s", "6 min 12 s". */
function formatDuration(ms) {
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, "0")} s`;
}

const timings = [];
const suiteStart = performance.now();
for (const step of selected) {
  console.log(`\n=== ${step.name} ===`);
  const stepStart = performance.now();
  const { code, counted } = await run(step);
  const ms = performance.now() - stepStart;
  timings.push({ name: step.name, ms, ok: code === 0 });
  console.log(`=== ${step.name}: ${formatDuration(ms)}${code === 0 ? "" : " (failed)"} ===`);
  if (code !== 0) {
    broken.push(step.name);
    // A step without its own count (typecheck, build, a crashed runner) counts as one failure.
    if (!counted) failed += 1;
    // Without a build there is nothing to test.
    if (step.name === "build") break;
  }
}

// The step times, slowest work visible at a glance (docs/testing.md gives the quiet and loaded figures).
const nameWidth = Math.max(...timings.map((t) => t.name.length), "total".length);
console.log("\nstep times:");
for (const t of timings) console.log(`  ${t.name.padEnd(nameWidth)}  ${formatDuration(t.ms).padStart(10)}${t.ok ? "" : "  failed"}`);
console.log(`  ${"total".padEnd(nameWidth)}  ${formatDuration(performance.now() - suiteStart).padStart(10)}`);
for (const r of failureReports) {
  console.log(`\nfailures in ${r.step}:`);
  for (const line of r.lines) console.log(line);
}
if (broken.length > 0) console.log(`\nfailed: ${broken.join(", ")}`);
// Last, and in exactly this form: CI reads it.
console.log(`${passed} passed, ${failed} failed`);
process.exit(broken.length > 0 ? 1 : 0);
