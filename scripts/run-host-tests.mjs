// Runs the mocha tests of out/test/host/ inside a real VS Code extension host: code-server
// (from .test-vscode/, see scripts/setup-vscode.sh) with this repo as the development
// extension, driven by headless Chromium. Builds nothing: `npm run test:host` builds first.
//
//   node scripts/run-host-tests.mjs [--workspace-fixture DIR [--workspace-file NAME]] [--env KEY=VALUE]...
//        [--phases N [--phase-grep PATTERN]] [--artifacts NAME] [--timeout-ms N] [--verbose]
//
// --workspace-file NAME opens the fixture's NAME.code-workspace (a multi-root workspace) instead of
// the folder. --artifacts NAME prefixes this run's screenshot and logs (default "host"), so two
// runs in one `npm test` keep each other's.
//
// The whole environment of this process reaches the extension host too, so
// `PI_CHAT_TEST_X=1 npm run test:host` works as well as `--env PI_CHAT_TEST_X=1`.
// PI_CHAT_HOST_TEST_GREP=pattern runs only the matching tests (read by test/host/index.ts).
//
// --phases N (restart tests): runs VS Code N times, one after the other, over the same
// workspace, user data and browser profile, with PI_CHAT_TEST_PHASE=1..N in the environment;
// VS Code is shut down between phases. --phase-grep limits phases 2..N to matching tests.
//
// --kill-on-request (crash tests): a console line `PI-CHAT-TEST-KILL-EXTENSION-HOST <pid>` from the
// extension host makes this runner SIGKILL that process at once, then shut VS Code down: the phase
// ends there (its test asked for the kill after its own checks, and counts as passed) and the next
// phase starts VS Code again on the same state. Without the flag the line does nothing.
//
// --restricted-phase PATTERN: after the phases, one more VS Code of its own (fresh state) with
// workspace trust ON over the same fixture, which it opens untrusted (Restricted Mode), running
// only the tests matching PATTERN, with PI_CHAT_TEST_UNTRUSTED=1 in the environment.
//
// Prints the tests' output, saves out/test-artifacts/host-final.png (plus logs on failure),
// and ends with `HOST-TESTS: N passed, M failed` (summed over phases). Exit code: 0 only if
// every phase passed and at least one test ran.
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { format, parseArgs } from "node:util";
import { freePort, repoRoot, startVSCode } from "./browser.mjs";

const { values: opts } = parseArgs({
  options: {
    "workspace-fixture": { type: "string" },
    "workspace-file": { type: "string" },
    artifacts: { type: "string", default: "host" },
    env: { type: "string", multiple: true, default: [] },
    phases: { type: "string", default: "1" },
    "phase-grep": { type: "string" },
    "restricted-phase": { type: "string" },
    "kill-on-request": { type: "boolean", default: false },
    "timeout-ms": { type: "string", default: process.env.HOST_TESTS_TIMEOUT_MS ?? String(10 * 60_000) },
    verbose: { type: "boolean", default: !!process.env.HOST_TESTS_VERBOSE },
  },
});
const extraEnv = {};
for (const kv of opts.env) {
  const i = kv.indexOf("=");
  if (i <= 0) throw new Error(`--env wants KEY=VALUE, got ${kv}`);
  extraEnv[kv.slice(0, i)] = kv.slice(i + 1);
}
const phases = Math.max(1, Number(opts.phases) || 1);
// codeAutomationLog carries the workbench's own log as well as the tests' console output.
// These workbench lines say nothing about the tests (the later ones are VS Code 1.139's built-in chat
// and its agent host, and the smoke-test driver's note that dialogs are skipped, as they are in any
// extension test); --verbose prints them anyway.
const workbenchNoise =
  /^(Resolving connection token|Resolved connection token|Creating a socket|Creation of workbench contribution|Ignoring fetching additional builtin extensions|Updating additional builtin extensions cache|\[Service Worker\]|ChatSessionStore:|\[ChatModelSelection\]|\[AgentHost|\[AccountPolicyGate\]|DialogService: Dialog requested during smoke test)|getaddrinfo ENOTFOUND open-vsx\.org/;

const testsEntry = join(repoRoot, "out/test/host/index.js");
const artifacts = join(repoRoot, "out/test-artifacts");
mkdirSync(artifacts, { recursive: true });
// Only this runner's own artifacts from an earlier run (others may share the folder).
const prefix = opts.artifacts;
for (const f of [`${prefix}-final.png`, `${prefix}-code-server.log`, `${prefix}-vscode-logs`]) rmSync(join(artifacts, f), { recursive: true, force: true });
const browserConsoleLog = join(artifacts, `${prefix}-browser-console.log`);
writeFileSync(browserConsoleLog, "");

const t0 = Date.now();
const secs = () => ((Date.now() - t0) / 1000).toFixed(1);
const total = { passed: 0, failed: 0 }; // summed over finished phases
let result = null; // {passed, failed, pending} from the current phase's MOCHA-RESULT line
let vs = null; // the running VS Code, if any
let phasePort = null; // shared by the phases, like stateDir
let stateDir = null; // shared by the phases when --phases > 1
let finishing = false;
let killedPhases = 0; // phases ended by --kill-on-request

// Screenshot, logs on failure, then shut VS Code down.
async function closeVS(failed) {
  const cur = vs;
  vs = null;
  if (!cur) return;
  await cur.page
    .screenshot({ path: join(artifacts, `${prefix}-final.png`), timeout: 10_000 })
    .then(() => console.log(`[host-tests] screenshot: out/test-artifacts/${prefix}-final.png`))
    .catch((e) => console.error(`[host-tests] no screenshot: ${e.message}`));
  if (failed) {
    // Logs of the server, the workbench and the extension host, for the post-mortem.
    try {
      cpSync(cur.serverLog, join(artifacts, `${prefix}-code-server.log`));
      const logs = join(cur.userDataDir, "logs");
      if (existsSync(logs)) cpSync(logs, join(artifacts, `${prefix}-vscode-logs`), { recursive: true });
      console.error(`[host-tests] logs: out/test-artifacts/${prefix}-code-server.log, ${prefix}-vscode-logs/, ${prefix}-browser-console.log`);
    } catch (e) {
      console.error(`[host-tests] could not copy logs: ${e.message}`);
    }
  }
  await cur.close().catch((e) => console.error(`[host-tests] close: ${e.message}`));
}

// The one way out: kill everything, print the summary line last, exit.
async function finish(code, reason) {
  if (finishing) return;
  finishing = true;
  if (reason) console.error(`[host-tests] ${reason}`);
  await closeVS(code !== 0);
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  // A phase that broke off before its MOCHA-RESULT line still counts what it reported.
  if (result) {
    total.passed += result.passed;
    total.failed += result.failed;
    result = null;
  }
  if (code === 0 && total.passed === 0) {
    code = 1;
    console.error("[host-tests] no host test ran");
  }
  // A run that broke outside mocha (timeout, crash, no result) counts as one failure.
  if (code !== 0 && total.failed === 0) total.failed = 1;
  console.log(`[host-tests] done in ${secs()} s, exit ${code}`);
  console.log(`HOST-TESTS: ${total.passed} passed, ${total.failed} failed`);
  process.exit(code);
}

// Timeout or Ctrl-C: abort a start still under way (it kills what it started), then finish.
const abort = new AbortController();
let starting = null;
async function stop(reason, code = 1) {
  abort.abort();
  await Promise.race([starting?.catch(() => {}), new Promise((r) => setTimeout(r, 20_000))]);
  await finish(code, reason);
}
const timeoutMs = Number(opts["timeout-ms"]);
setTimeout(() => stop(`timed out after ${timeoutMs} ms`), timeoutMs); // not unref(): it must fire
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => stop(`got ${sig}`, 130));

if (!existsSync(testsEntry)) await finish(1, `${testsEntry} missing: run \`node scripts/build.mjs --tests\``);

/** One VS Code session running the whole mocha suite; resolves to run()'s exit code. */
async function runPhase(phase, restricted = false) {
  let exited;
  const exitPromise = new Promise((r) => (exited = r));
  const env = { ...extraEnv };
  if (restricted) {
    env.PI_CHAT_TEST_UNTRUSTED = "1";
    env.PI_CHAT_HOST_TEST_GREP = opts["restricted-phase"];
    console.log(`[host-tests] restricted phase: workspace trust on, the folder untrusted`);
  } else if (phases > 1) {
    env.PI_CHAT_TEST_PHASE = String(phase);
    if (phase > 1 && opts["phase-grep"]) env.PI_CHAT_HOST_TEST_GREP = opts["phase-grep"];
    console.log(`[host-tests] phase ${phase} of ${phases}`);
  }
  result = null;
  starting = startVSCode({
    extensionDevelopmentPath: repoRoot,
    extensionTestsPath: testsEntry,
    // A model provider extension (scripted models through VS Code's Language Model Chat Provider
    // API) beside Pi Chat, for test/host/vscode-models.test.ts; on 1.100 it registers nothing.
    extraExtensions: [join(repoRoot, "test/fixtures/lm-provider-extension")],
    workspaceFixture: opts["workspace-fixture"],
    workspaceFile: opts["workspace-file"],
    // The restricted phase starts from nothing: a trust decision or chat of the others must not leak in.
    stateDir: restricted ? undefined : (stateDir ?? undefined),
    // Same port in every phase: the workspace's storage folder is keyed by host:port too.
    ...(phasePort && !restricted ? { port: phasePort } : {}),
    workspaceTrust: restricted,
    env,
    log: (msg) => console.log(`[host-tests] ${msg}`),
    onBrowserConsole: (line) => appendFileSync(browserConsoleLog, line + "\n"),
    exposeFunctions: {
      // The workbench forwards the extension host's console output here (printf-style args).
      codeAutomationLog: (type, args) => {
        const line = format(...(Array.isArray(args) ? args : [args]));
        const m = /^MOCHA-RESULT (\{.*\})\s*$/m.exec(line);
        if (m) result = JSON.parse(m[1]);
        const kill = /^PI-CHAT-TEST-KILL-EXTENSION-HOST (\d+)\s*$/m.exec(line);
        if (kill && opts["kill-on-request"]) {
          const pid = Number(kill[1]);
          try {
            process.kill(pid, "SIGKILL");
            console.log(`[host-tests] killed the extension host (pid ${pid}) as the test asked`);
            exited("killed");
          } catch (e) {
            console.error(`[host-tests] could not kill the extension host (pid ${pid}): ${e.message}`);
          }
        }
        if (!opts.verbose && workbenchNoise.test(line)) return; // still in host-browser-console.log
        (type === "error" ? process.stderr : process.stdout).write(line.endsWith("\n") ? line : line + "\n");
      },
      // Called once run() settles: 0 passed, 1 failed.
      codeAutomationExit: (code) => exited(Number(code)),
    },
    // The tests can start before the workbench DOM is complete; don't wait for it here.
    waitForWorkbench: false,
    signal: abort.signal,
    handleSignals: false, // stop() handles them, so the summary line is still printed
  });
  vs = await starting;
  const code = await exitPromise;
  if (code === "killed") {
    // Its test did its checks before asking; nothing more runs in that VS Code: shut it down as is.
    killedPhases += 1;
    return 0;
  }
  console.log(`[host-tests] tests finished with code ${code} (${secs()} s)`);
  if (code === 0 && !result) {
    console.error("[host-tests] the tests exited 0 without a MOCHA-RESULT line");
    return 1;
  }
  return code;
}

try {
  if (phases > 1) {
    stateDir = mkdtempSync(join(tmpdir(), "pi-chat-host-state-"));
    phasePort = await freePort();
  }
  console.log(`[host-tests] starting code-server and Chromium`);
  let code = 0;
  for (let phase = 1; phase <= phases && code === 0; phase++) {
    const killedBefore = killedPhases;
    code = await runPhase(phase);
    if (code === 0 && killedPhases > killedBefore) {
      // The killed phase: its one test counts as passed; VS Code goes at once (no graceful close).
      result = { passed: 1, failed: 0, pending: 0 };
    }
    if (code === 0 && phase < phases) {
      // Between phases: shut VS Code down (the next phase reopens the same state), keep counts.
      await new Promise((r) => setTimeout(r, 300));
      await closeVS(false);
      total.passed += result.passed;
      total.failed += result.failed;
      result = null;
    }
  }
  if (code === 0 && opts["restricted-phase"]) {
    await new Promise((r) => setTimeout(r, 300));
    await closeVS(false);
    total.passed += result.passed;
    total.failed += result.failed;
    result = null;
    code = await runPhase(phases + 1, true);
  }
  // Let the workbench paint the final state for the screenshot.
  await new Promise((r) => setTimeout(r, 500));
  await finish(code);
} catch (err) {
  // After an abort, stop() reports and finishes.
  if (!abort.signal.aborted) await finish(1, `error: ${err?.stack ?? err}`);
}
