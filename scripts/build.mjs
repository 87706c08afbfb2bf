// Builds every bundle with esbuild. The pi packages are ESM-only, so everything that
// runs in Node (extension host, unit tests, host tests, benchmarks) is bundled to CommonJS.
//   node scripts/build.mjs            extension + webview
//   node scripts/build.mjs --tests    also the unit and host test bundles
//   node scripts/build.mjs --bench    also the benchmark bundle
//   --production                      minify, no source maps (used by `npm run package`)
import { build } from "esbuild";
import { readdirSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";

const args = new Set(process.argv.slice(2));
const production = args.has("--production");
const root = new URL("..", import.meta.url).pathname;

const nodeCommon = {
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  sourcemap: production ? false : "linked",
  minify: production,
  external: ["vscode"],
  logLevel: "warning",
  absWorkingDir: root,
  // Some pi-ai code paths use import.meta.url; give CommonJS bundles a working value.
  define: { "import.meta.url": "__pi_import_meta_url" },
  banner: { js: "const __pi_import_meta_url = require('url').pathToFileURL(__filename).href;" },
};

function testEntries(dir) {
  const full = join(root, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".test.ts") || f.endsWith(".test.tsx"))
    .map((f) => join(dir, f));
}

const jobs = [];

if (existsSync(join(root, "src/host/extension.ts"))) {
  jobs.push(build({ ...nodeCommon, entryPoints: ["src/host/extension.ts"], outfile: "out/extension.js", metafile: true }));
}
if (existsSync(join(root, "webview/main.tsx"))) {
  jobs.push(
    build({
      bundle: true,
      platform: "browser",
      format: "iife",
      target: "es2022",
      sourcemap: production ? false : "linked",
      minify: production,
      logLevel: "warning",
      absWorkingDir: root,
      entryPoints: { webview: "webview/main.tsx" },
      outdir: "out",
      jsx: "automatic",
      jsxImportSource: "preact",
      loader: { ".ttf": "file" },
    }),
  );
}

if (args.has("--tests")) {
  rmSync(join(root, "out/test"), { recursive: true, force: true });
  const unit = testEntries("test/unit");
  if (unit.length) {
    jobs.push(build({ ...nodeCommon, entryPoints: unit, outdir: "out/test/unit", outbase: "test/unit", outExtension: { ".js": ".cjs" } }));
  }
}

const results = await Promise.all(jobs);
if (args.has("--meta")) {
  const { writeFileSync } = await import("node:fs");
  writeFileSync(join(root, "out/meta.json"), JSON.stringify(results[0]?.metafile ?? {}));
}
