// Builds every bundle with esbuild. The pi packages are ESM-only, so everything that
// runs in Node (extension host, unit tests, host tests, benchmarks) is bundled to CommonJS.
//   node scripts/build.mjs            extension + webview
//   node scripts/build.mjs --tests    also the unit and host test bundles
//   node scripts/build.mjs --bench    also the benchmark bundle
//   --production                      minify, no source maps (used by `npm run package`)
import { build } from "esbuild";
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
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

// The webview's bundles (Chromium in VS Code's webview).
const browserCommon = {
  bundle: true,
  platform: "browser",
  target: "es2022",
  sourcemap: production ? false : "linked",
  minify: production,
  logLevel: "warning",
  absWorkingDir: root,
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

// extension.js is what activation loads; the bundles after it are required on their first
// use through src/host/lazy-bundle.ts, each from its `*-bundle.ts` entry, so activation loads none
// of them (P5). Their inputs go to out/bundle-inputs.json for test/unit/host/lazy-bundles.test.ts.
const lazyEntries = {
  // The provider layer (pi-ai providers and their SDKs): on the first prompt.
  "providers.js": "src/host/providers/provider-bundle.ts",
  // MCP (pi-mcp, server lifecycle, tool wrapping): when a chat first needs tools or the user opens "MCP Servers".
  "mcp.js": "src/host/mcp/mcp-bundle.ts",
  // The pi CLI commands (open a pi session, continue a chat in pi): on their first use.
  "pi-sessions.js": "src/host/palette/pi-sessions-bundle.ts",
  // The composer's @ list, mentions, prompt templates and skills: at the first `@`, `/` or request.
  "composer.js": "src/host/composer/composer-bundle.ts",
  // VS Code's own language models as a pi stream function: on the first request to one.
  "vscode-models.js": "src/host/vscode-models/vscode-models-bundle.ts",
};
const inputJobs = [];
if (existsSync(join(root, "src/host/extension.ts"))) {
  const job = build({ ...nodeCommon, entryPoints: ["src/host/extension.ts"], outfile: "out/extension.js", metafile: true });
  jobs.push(job);
  inputJobs.push(job.then((r) => ["extension.js", r]));
}
for (const [file, entry] of Object.entries(lazyEntries)) {
  if (!existsSync(join(root, entry))) continue;
  const job = build({ ...nodeCommon, entryPoints: [entry], outfile: join("out", file), metafile: true });
  jobs.push(job);
  inputJobs.push(job.then((r) => [file, r]));
}
// read_file's image scaler: photon (WebAssembly) in a worker thread, started only when a large
// image is read. Its .wasm sits beside the bundle, where photon's loader looks (__dirname).
if (existsSync(join(root, "src/core/images/scale-worker.ts"))) {
  jobs.push(build({ ...nodeCommon, entryPoints: ["src/core/images/scale-worker.ts"], outfile: "out/image-scale.js" }));
  mkdirSync(join(root, "out"), { recursive: true });
  copyFileSync(join(root, "node_modules/@silvia-odwyer/photon-node/photon_rs_bg.wasm"), join(root, "out/photon_rs_bg.wasm"));
}
if (existsSync(join(root, "webview/main.tsx"))) {
  jobs.push(
    build({
      ...browserCommon,
      format: "iife",
      entryPoints: { webview: "webview/main.tsx" },
      outdir: "out",
      jsx: "automatic",
      jsxImportSource: "preact",
      loader: { ".ttf": "file" },
      // out/codicon.ttf, a stable name the .vsix (.vscodeignore) and the test server can list.
      assetNames: "[name]",
    }),
  );
  // Chunk names carry a hash: drop the last build's, so out/ (and the .vsix) holds only current ones.
  for (const name of existsSync(join(root, "out")) ? readdirSync(join(root, "out")) : []) {
    if (/^hl-.*\.js(\.map)?$/.test(name)) rmSync(join(root, "out", name));
  }
  // The code highlighter (webview/highlighter.ts), an ES module the webview imports on its first
  // code block (out/highlight.js), and one chunk per language grammar (out/hl-*.js), each loaded
  // when a block first names it: the first paint and streaming never wait for them. Flat names in
  // out/, beside webview.js, where the webview's resource root and the test servers serve files.
  jobs.push(
    build({
      ...browserCommon,
      format: "esm",
      splitting: true,
      entryPoints: { highlight: "webview/highlighter.ts" },
      outdir: "out",
      chunkNames: "hl-[name]-[hash]",
    }),
  );
}

// One CommonJS bundle per *.test.ts under `dir`, as out/<dir>/.../*.test.cjs, for mocha in Node.
function nodeTestSuite(dir, external) {
  const entries = testEntries(dir);
  if (entries.length === 0) return;
  jobs.push(build({ ...nodeCommon, entryPoints: entries, outdir: join("out", dir), outbase: dir, outExtension: { ".js": ".cjs" }, external }));
}

if (args.has("--tests")) {
  rmSync(join(root, "out/test"), { recursive: true, force: true });
  // The pi coding agent SDK (the oracle of the pi session tests) is ESM, loaded at run time.
  nodeTestSuite("test/unit", ["vscode", "@earendil-works/pi-coding-agent"]);
  // Extension-host tests (scripts/run-host-tests.mjs): the mocha entry plus one bundle per test
  // file, as .js (the host's loader). mocha stays external: index.js require()s it at run time.
  if (existsSync(join(root, "test/host/index.ts"))) {
    const host = ["test/host/index.ts", ...testEntries("test/host")];
    jobs.push(build({ ...nodeCommon, entryPoints: host, outdir: "out/test/host", outbase: "test/host", external: ["vscode", "mocha"] }));
  }
  // Browser tests (scripts/run-browser-tests.mjs) drive Chromium over the real out/webview.js;
  // end-to-end tests (scripts/run-e2e-tests.mjs) start the real workbench (scripts/browser.mjs,
  // imported at run time). playwright-core stays external: it finds and spawns its driver itself.
  nodeTestSuite("test/browser", ["vscode", "mocha", "playwright-core"]);
  nodeTestSuite("test/e2e", ["vscode", "mocha", "playwright-core"]);
}

if (args.has("--bench")) {
  // Benchmarks (npm run bench): each bench/*.ts is an entry, bundled to out/bench/<name>.cjs;
  // bench/lib/ and bench/baselines/ are bundled into them. playwright-core stays external.
  rmSync(join(root, "out/bench"), { recursive: true, force: true });
  const bench = existsSync(join(root, "bench"))
    ? readdirSync(join(root, "bench"))
        .filter((f) => f.endsWith(".ts"))
        .map((f) => join("bench", f))
    : [];
  // P1's in-page host (bench/page/p1-driver.ts), served beside out/webview.js on the bench page.
  if (existsSync(join(root, "bench/page/p1-driver.ts"))) {
    jobs.push(
      build({
        bundle: true,
        platform: "browser",
        format: "iife",
        target: "es2022",
        logLevel: "warning",
        absWorkingDir: root,
        entryPoints: ["bench/page/p1-driver.ts"],
        outfile: "out/bench-p1-driver.js",
      }),
    );
  }
  if (bench.length) {
    jobs.push(
      build({
        ...nodeCommon,
        entryPoints: bench,
        outdir: "out/bench",
        outbase: "bench",
        outExtension: { ".js": ".cjs" },
        external: ["vscode", "playwright-core"],
      }),
    );
  }
}

const results = await Promise.all(jobs);
{
  const inputs = Object.fromEntries(
    (await Promise.all(inputJobs)).map(([file, r]) => [
      file,
      { entry: lazyEntries[file] ?? "src/host/extension.ts", inputs: Object.keys(r.metafile?.inputs ?? {}) },
    ]),
  );
  writeFileSync(join(root, "out/bundle-inputs.json"), JSON.stringify(inputs));
}
if (args.has("--meta")) {
  writeFileSync(join(root, "out/meta.json"), JSON.stringify(results[0]?.metafile ?? {}));
}
