// Syntax highlighting of code blocks, a bundle of its own (out/highlight.js, ES module) that the
// webview imports on the first code block it shows, so the first paint never waits for it. Each
// language's grammar is a further chunk (out/hl-*.js), loaded the first time a block names it.
// highlight.js: a well-kept library, no eval (the webview's CSP forbids it), and its output is
// escaped text in <span class="hljs-…"> only, coloured by webview/styles/markdown.css from the theme.
import hljs from "highlight.js/lib/core";
import type { LanguageFn } from "highlight.js";

type Grammar = () => Promise<{ default: LanguageFn }>;

/** The grammars a code block can ask for: the languages answers use most (others stay plain). */
const GRAMMARS: Record<string, Grammar> = {
  bash: () => import("highlight.js/lib/languages/bash"),
  c: () => import("highlight.js/lib/languages/c"),
  cpp: () => import("highlight.js/lib/languages/cpp"),
  csharp: () => import("highlight.js/lib/languages/csharp"),
  css: () => import("highlight.js/lib/languages/css"),
  diff: () => import("highlight.js/lib/languages/diff"),
  dockerfile: () => import("highlight.js/lib/languages/dockerfile"),
  go: () => import("highlight.js/lib/languages/go"),
  graphql: () => import("highlight.js/lib/languages/graphql"),
  ini: () => import("highlight.js/lib/languages/ini"),
  java: () => import("highlight.js/lib/languages/java"),
  javascript: () => import("highlight.js/lib/languages/javascript"),
  json: () => import("highlight.js/lib/languages/json"),
  kotlin: () => import("highlight.js/lib/languages/kotlin"),
  lua: () => import("highlight.js/lib/languages/lua"),
  makefile: () => import("highlight.js/lib/languages/makefile"),
  markdown: () => import("highlight.js/lib/languages/markdown"),
  php: () => import("highlight.js/lib/languages/php"),
  powershell: () => import("highlight.js/lib/languages/powershell"),
  python: () => import("highlight.js/lib/languages/python"),
  ruby: () => import("highlight.js/lib/languages/ruby"),
  rust: () => import("highlight.js/lib/languages/rust"),
  scss: () => import("highlight.js/lib/languages/scss"),
  shell: () => import("highlight.js/lib/languages/shell"),
  sql: () => import("highlight.js/lib/languages/sql"),
  swift: () => import("highlight.js/lib/languages/swift"),
  typescript: () => import("highlight.js/lib/languages/typescript"),
  xml: () => import("highlight.js/lib/languages/xml"),
  yaml: () => import("highlight.js/lib/languages/yaml"),
};

/** The names answers write after ``` for those grammars. */
const ALIASES: Record<string, string> = {
  ts: "typescript",
  tsx: "typescript",
  mts: "typescript",
  cts: "typescript",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsonc: "json",
  json5: "json",
  sh: "bash",
  zsh: "bash",
  console: "shell",
  shellsession: "shell",
  ps1: "powershell",
  pwsh: "powershell",
  py: "python",
  python3: "python",
  rb: "ruby",
  rs: "rust",
  golang: "go",
  "c++": "cpp",
  cc: "cpp",
  hpp: "cpp",
  h: "c",
  cs: "csharp",
  "c#": "csharp",
  kt: "kotlin",
  html: "xml",
  svg: "xml",
  vue: "xml",
  yml: "yaml",
  toml: "ini",
  patch: "diff",
  docker: "dockerfile",
  make: "makefile",
  md: "markdown",
  gql: "graphql",
  sass: "scss",
};

const loading = new Map<string, Promise<boolean>>();
/** The grammars registered, to register again (uncompiled) in forgetCompiledGrammars. */
const registered = new Map<string, LanguageFn>();

/** highlight.js's name for a block's language, or undefined when no grammar is bundled for it. */
export function grammarName(language: string): string | undefined {
  const name = language.toLowerCase();
  const resolved = ALIASES[name] ?? name;
  return Object.hasOwn(GRAMMARS, resolved) ? resolved : undefined;
}

/** True once `name` (from grammarName) can highlight; loads its chunk the first time. */
export function loadGrammar(name: string): Promise<boolean> {
  let pending = loading.get(name);
  if (!pending) {
    const grammar = GRAMMARS[name];
    pending = grammar
      ? grammar().then(
          (module) => {
            hljs.registerLanguage(name, module.default);
            registered.set(name, module.default);
            return true;
          },
          () => false,
        )
      : Promise.resolve(false);
    loading.set(name, pending);
  }
  return pending;
}

/** Whether loadGrammar(name) has finished (then highlightHtml can run at once, with no flash of plain text). */
export function grammarReady(name: string): boolean {
  return hljs.getLanguage(name) !== undefined;
}

/** The block's text as highlighted HTML (escaped text in hljs spans), or undefined if its grammar is not loaded. */
export function highlightHtml(code: string, name: string): string | undefined {
  if (!grammarReady(name)) return undefined;
  return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
}

/**
 * Drops what highlighting compiled: highlight.js compiles a grammar on its first block and keeps
 * the result (its modes' combined regexes, and V8's machine code for them), ~0.2 MB a language and
 * 6.6 MB for all of them, for as long as the page lives. A chat switch calls this: each grammar is
 * registered again as it was loaded, uncompiled, and compiled again on its next block (1–10 ms,
 * in the same frame, so the block is never drawn plain). The grammar chunks stay loaded.
 */
export function forgetCompiledGrammars(): void {
  for (const [name, grammar] of registered) {
    hljs.unregisterLanguage(name);
    hljs.registerLanguage(name, grammar);
  }
}
