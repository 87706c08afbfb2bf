// The one way the host loads an on-demand bundle (out/providers.js, out/composer.js,
// out/pi-sessions.js, out/mcp.js, out/vscode-models.js): required at its first use, never at activation (bench P5).
// Each bundle's entry is a `*-bundle.ts` file (scripts/build.mjs); elsewhere only its types are
// imported. A value import of a bundle's code would inline it into extension.js:
// test/unit/host/lazy-bundles.test.ts fails then.
import * as path from "node:path";

/** The on-demand bundles, by their file in out/ (scripts/build.mjs builds each from its `*-bundle.ts`). */
export const LAZY_BUNDLE_FILES = ["providers.js", "composer.js", "pi-sessions.js", "mcp.js", "vscode-models.js"] as const;
export type LazyBundleFile = (typeof LAZY_BUNDLE_FILES)[number];

export interface LazyBundle<T> {
  /** Requires the bundle (once) and returns its exports; throws when the file cannot load. */
  load(): T;
  /** The exports if something already loaded the bundle (a view's status must not load it). */
  ifLoaded(): T | undefined;
}

/** `dir`: where the bundle is (out/, beside extension.js, unless a test says otherwise). */
export function lazyBundle<T>(file: LazyBundleFile, dir: string = __dirname): LazyBundle<T> {
  let loaded: T | undefined;
  return {
    load() {
      // A computed path keeps esbuild from inlining the bundle into extension.js.
      loaded ??= require(path.join(dir, file)) as T;
      return loaded;
    },
    ifLoaded: () => loaded,
  };
}
