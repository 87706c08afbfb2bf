// Mocha entry for tests that run inside the real VS Code extension host.
// The host loads this module (bundled to out/test/host/index.js) because it is the
// `extensionTestsPath`, calls run(), and reports its outcome (0 / 1) to whoever launched it:
// scripts/run-host-tests.mjs (code-server + Chromium), or @vscode/test-electron on a desktop.
// Same contract in both: `run(): Promise<void>`, rejecting when a test failed.
//
// Each test/host/**/*.test.ts is bundled on its own to out/test/host/**/*.test.js, with
// `vscode` and `mocha` left external; mocha is require()d from the repo's node_modules.
// Console output here reaches the launcher (window.codeAutomationLog), so the last line,
// `MOCHA-RESULT {"passed":N,"failed":M,"pending":K}`, is what the launcher parses.
import Mocha from "mocha";
import { readdirSync } from "node:fs";
import { join } from "node:path";

export function run(): Promise<void> {
  const mocha = new Mocha({
    ui: "bdd",
    timeout: 60_000,
    color: false, // the output goes through the workbench to a log, not a terminal
    reporter: "spec",
  });
  // Optional filter, e.g. PI_CHAT_HOST_TEST_GREP=smoke npm run test:host
  // (code-server's environment reaches the extension host).
  const grep = process.env.PI_CHAT_HOST_TEST_GREP;
  if (grep) mocha.grep(grep);

  const dir = __dirname;
  // multi-root*.test.js need a two-folder workspace: they run alone in the launch that opens one
  // (PI_CHAT_HOST_SUITE=multi-root, see scripts/test-all.mjs), and never in the one-folder launch.
  // crash-*.test.js get the extension host killed by the launcher: alone too (PI_CHAT_HOST_SUITE=crash).
  const suite = process.env.PI_CHAT_HOST_SUITE ?? "";
  const suiteOf = (f: string) => /(^|\/)(multi-root|crash-)[^/]*\.test\.js$/.exec(f)?.[2]?.replace(/-$/, "") ?? "";
  const files = readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".test.js") && suiteOf(f) === suite)
    .sort()
    // Two tests leave state in phase 1 for their phase 2, after the restart: they run after every
    // other test, so none undoes it. restart-checkpoints leaves a restore pending (a later restore
    // would clear its record); restore leaves a chat on screen, so it is last of all (no later test
    // opens another chat: terminal-nets.test.js, sorted after it, did).
    .sort((a, b) => leavesStateForPhase2(a) - leavesStateForPhase2(b));
  for (const f of files) mocha.addFile(join(dir, f));

  return new Promise((resolve, reject) => {
    let passed = 0;
    let failed = 0;
    let pending = 0;
    try {
      const runner = mocha.run((failures) => {
        // `failures` also counts failed hooks, which emit "fail" too, so both agree.
        console.log(`MOCHA-RESULT ${JSON.stringify({ passed, failed: Math.max(failed, failures), pending })}`);
        if (failures > 0) reject(new Error(`${failures} host test(s) failed`));
        else resolve();
      });
      runner.on("pass", () => passed++);
      runner.on("fail", () => failed++);
      runner.on("pending", () => pending++);
    } catch (err) {
      // e.g. a test file that throws while loading
      console.error(err);
      console.log(`MOCHA-RESULT ${JSON.stringify({ passed, failed: failed + 1, pending })}`);
      reject(err);
    }
  });
}

/** 0 for most test files; the ones that leave state for phase 2 after them, in the order they must run. */
function leavesStateForPhase2(file: string): number {
  if (/(^|\/)restore\.test\.js$/.test(file)) return 2;
  if (/(^|\/)restart-checkpoints\.test\.js$/.test(file)) return 1;
  return 0;
}
