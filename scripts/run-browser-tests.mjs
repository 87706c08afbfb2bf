// Runs the browser tests: mocha over the bundled out/test/browser/**/*.test.cjs (built by
// `node scripts/build.mjs --tests`) in this process. The tests share one Chromium and one local
// HTTP server (test/browser/harness.ts), closed here when mocha is done. The last line printed
// is `BROWSER-TESTS: N passed, M failed`; the exit code is non-zero when anything failed.
//   PI_CHAT_BROWSER_TEST_GREP=approval npm run test:browser    run only matching tests
//   PI_CHAT_CHROMIUM=/path/to/chrome                            another Chromium binary
import { runSuite } from "./mocha-suite.mjs";

await runSuite({
  dir: "out/test/browser",
  label: "BROWSER-TESTS",
  timeout: 30_000,
  slow: 2_000,
  grep: process.env.PI_CHAT_BROWSER_TEST_GREP,
  afterRun: async () => {
    const harness = globalThis.__piChatBrowserHarness;
    if (harness) await (await harness).close();
  },
});
