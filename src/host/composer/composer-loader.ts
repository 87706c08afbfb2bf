// out/composer.js (composer-bundle.ts), loaded the first time the composer's `@` or `/` lists, a
// mention or a request need it: activation loads none of it (P5).
import { lazyBundle } from "../lazy-bundle";
import type * as ComposerBundle from "./composer-bundle";

export type ComposerModule = typeof ComposerBundle;

const bundle = lazyBundle<ComposerModule>("composer.js");

export function loadComposer(): ComposerModule {
  return bundle.load();
}
