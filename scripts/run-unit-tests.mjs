// The unit tests (core, shared, tools, transcript, providers) in plain Node, no VS Code:
// mocha over out/test/unit/**/*.test.cjs, built by `node scripts/build.mjs --tests`.
//   PI_CHAT_UNIT_TEST_GREP=reducer npm run test:unit    run only matching tests
import { runSuite } from "./mocha-suite.mjs";

await runSuite({ dir: "out/test/unit", label: "UNIT-TESTS", timeout: 30_000, grep: process.env.PI_CHAT_UNIT_TEST_GREP });
