// Loads out/composer.js (composer-library.ts) the first time the composer's `@` or `/` lists, a
// mention or a request need it: activation loads none of it (P5).
import * as path from "node:path";
import type * as ComposerLibrary from "./composer-library";

export type ComposerModule = typeof ComposerLibrary;

let loaded: ComposerModule | undefined;

export function loadComposer(): ComposerModule {
  // A computed path keeps esbuild from inlining the bundle into extension.js.
  loaded ??= require(path.join(__dirname, "composer.js")) as ComposerModule;
  return loaded;
}
