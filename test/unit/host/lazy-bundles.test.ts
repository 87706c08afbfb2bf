// Activation loads out/extension.js only; the on-demand bundles (src/host/lazy-bundle.ts) load at
// their first use (bench P5). A value import of a bundle's code anywhere on the activation path
// would inline it into extension.js silently: this reads the inputs esbuild recorded for each
// bundle (out/bundle-inputs.json, written by scripts/build.mjs) and fails on any such import.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { LAZY_BUNDLE_FILES, type LazyBundleFile } from "../../../src/host/lazy-bundle";

const built = JSON.parse(readFileSync(join(__dirname, "../../../../out/bundle-inputs.json"), "utf8")) as Record<string, { entry: string; inputs: string[] }>;

/** What makes each bundle worth loading late: its entry, and the code and packages only it needs. */
const OWN_CODE: Record<LazyBundleFile, readonly string[]> = {
  "providers.js": ["node_modules/openai/", "node_modules/@anthropic-ai/sdk/", "node_modules/@google/genai/", "src/host/providers/errors.ts"],
  "mcp.js": ["node_modules/@earendil-works/pi-mcp/", "src/core/mcp/servers.ts", "src/core/mcp/tools.ts", "src/core/mcp/oauth.ts", "src/core/mcp/config.ts"],
  "pi-sessions.js": ["src/core/pi-sessions/"],
  // Its pi-ai parts (event stream, transcript) are shared with the core: the adapter is its own code.
  "vscode-models.js": [],
  "composer.js": ["src/host/composer/mentions.ts", "src/host/composer/prompt-library.ts", "src/core/mention-index.ts", "src/shared/fuzzy.ts"],
};

describe("lazy bundles: activation loads none of them", () => {
  const extension = built["extension.js"]?.inputs ?? [];

  it("scripts/build.mjs builds every bundle lazy-bundle.ts can load, each from a *-bundle.ts entry", () => {
    assert.ok(extension.length > 0, "out/extension.js was built");
    for (const file of LAZY_BUNDLE_FILES) {
      const bundle = built[file];
      assert.ok(bundle, `scripts/build.mjs builds out/${file}`);
      assert.match(bundle.entry, /-bundle\.ts$/, `out/${file}'s entry is named *-bundle.ts`);
      assert.ok(bundle.inputs.includes(bundle.entry), `out/${file} is built from ${bundle.entry}`);
    }
  });

  for (const file of LAZY_BUNDLE_FILES) {
    it(`extension.js holds nothing of ${file} but what it shares`, () => {
      const bundle = built[file];
      assert.ok(bundle);
      const own = [bundle.entry, ...OWN_CODE[file]];
      for (const marker of own)
        assert.ok(
          bundle.inputs.some((i) => i.includes(marker)),
          `${marker} is still in out/${file} (update OWN_CODE)`,
        );
      const inlined = extension.filter((input) => own.some((marker) => input.includes(marker)));
      assert.deepEqual(inlined, [], `a static import pulled ${file}'s code into extension.js; import its types only and load it with lazyBundle()`);
    });
  }
});
