// Runs one bundled mocha suite in this process and ends with the plain line CI reads,
// `<LABEL>: N passed, M failed` (mocha's own "N passing" is not read there).
import Mocha from "mocha";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

export const repoRoot = new URL("..", import.meta.url).pathname;

/**
 * @param {{ dir: string, label: string, timeout?: number, slow?: number, grep?: string,
 *           afterRun?: () => Promise<void> }} o  dir relative to the repo root
 * @returns {Promise<never>} exits the process: 0 when all passed and at least one ran
 */
export async function runSuite(o) {
  const dir = join(repoRoot, o.dir);
  const files = existsSync(dir)
    ? readdirSync(dir, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith(".test.cjs"))
        .sort()
        .map((f) => join(dir, f))
    : [];
  const started = Date.now();
  let passed = 0;
  let failed = 0;
  if (files.length === 0) {
    console.error(`no tests found in ${dir} (run node scripts/build.mjs --tests first)`);
    failed = 1;
  } else {
    const mocha = new Mocha({ ui: "bdd", timeout: o.timeout ?? 20_000, slow: o.slow ?? 1_000, reporter: "spec" });
    if (o.grep) mocha.grep(o.grep);
    for (const file of files) mocha.addFile(file);
    try {
      await mocha.loadFilesAsync();
      const stats = await new Promise((resolve) => {
        const runner = mocha.run(() => resolve(runner.stats));
      });
      passed = stats?.passes ?? 0;
      failed = stats?.failures ?? 0;
    } catch (error) {
      console.error(error);
      failed += 1;
    } finally {
      await o.afterRun?.().catch((error) => console.error("cleaning up after the tests failed:", error));
    }
  }
  console.log(`${o.label} took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`${o.label}: ${passed} passed, ${failed} failed`);
  process.exit(failed > 0 || passed === 0 ? 1 : 0);
}
