// The stress tests: the long soaks (a minute or more of real processes) kept out of the unit run so
// it stays quick. They live beside the unit tests with "[stress]" in their titles and run only
// when PI_CHAT_STRESS=1, which this runner sets. Part of `npm test` (CI); alone: `npm run test:stress`.
import { runSuite } from "./mocha-suite.mjs";

process.env.PI_CHAT_STRESS = "1";
await runSuite({ dir: "out/test/unit", label: "STRESS-TESTS", timeout: 180_000, grep: "\\[stress\\]" });
