// End-to-end tests: mocha over out/test/e2e/**/*.test.cjs (built by `node scripts/build.mjs
// --tests`); each starts code-server + Chromium itself. Ends with `E2E-TESTS: N passed, M failed`.
import { runSuite } from "./mocha-suite.mjs";

await runSuite({ dir: "out/test/e2e", label: "E2E-TESTS", timeout: 240_000, slow: 30_000, grep: process.env.PI_CHAT_E2E_TEST_GREP });
