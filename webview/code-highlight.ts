// Colours the code blocks of answers once they are finished. The highlighter (webview/highlighter.ts)
// is a separate ES module beside this bundle (out/highlight.js), imported the first time a code block
// with a language appears, so the first paint and streaming never pay for it. A block still being
// streamed (inside `.md-open`) stays plain: it is redrawn on every delta. Whatever the markdown
// renderer puts in the DOM is watched with one MutationObserver, so no component has to know.
import type * as Highlighter from "./highlighter";

/** Longer blocks stay plain: highlighting runs on the main thread, ~1 ms per 2,000 characters. */
export const MAX_HIGHLIGHT_CHARS = 30_000;
/** Main-thread time one pass may spend before the rest waits for the next frame (streaming stays smooth). */
const PASS_BUDGET_MS = 8;

const CODE_SELECTOR = 'pre > code[class*="language-"]:not(.md-hl)';

// The bundle's own URL: the highlighter sits beside it, under the same origin the CSP allows.
const bundleUrl = document.currentScript instanceof HTMLScriptElement ? document.currentScript.src : "";
let highlighter: Promise<typeof Highlighter | undefined> | undefined;
let ready: typeof Highlighter | undefined;

function loadHighlighter(): Promise<typeof Highlighter | undefined> {
  highlighter ??= (import(/* @vite-ignore */ new URL("highlight.js", bundleUrl || document.baseURI).href) as Promise<typeof Highlighter>).then(
    (module) => (ready = module),
    // Not loadable (an old .vsix without it): code stays plain, as before.
    () => undefined,
  );
  return highlighter;
}

/**
 * A chat switch: the highlighter forgets its compiled grammars (highlighter.ts), and the blocks
 * still waiting belong to the chat that went.
 */
export function forgetHighlighting(): void {
  waiting.clear();
  ready?.forgetCompiledGrammars();
}

const waiting = new Set<HTMLElement>();
let scheduled = false;
/** The highlighter or a grammar being loaded for a waiting block: the block is highlighted when it arrives. */
let loading = 0;

/** Nothing waits to be highlighted, no pass is due and nothing is loading: every block that will be coloured is. (Tests' settled point.) */
export function highlightingSettled(): boolean {
  return waiting.size === 0 && !scheduled && loading === 0;
}

function whenLoaded<T>(load: Promise<T>, then: (value: T) => void): void {
  loading++;
  void load.then((value) => {
    loading--;
    then(value);
  });
}

function languageOf(code: HTMLElement): string | undefined {
  for (const cls of code.classList) if (cls.startsWith("language-")) return cls.slice("language-".length);
  return undefined;
}

/** Highlights what it can now within the pass budget; the rest after its grammar loads or next frame. */
function pass(): void {
  scheduled = false;
  const start = performance.now();
  for (const code of [...waiting]) {
    if (performance.now() - start > PASS_BUDGET_MS) {
      schedule();
      return;
    }
    waiting.delete(code);
    if (!code.isConnected || code.classList.contains("md-hl") || code.closest(".md-open")) continue;
    const text = code.textContent ?? "";
    const language = languageOf(code);
    if (!language || text.length > MAX_HIGHLIGHT_CHARS) continue;
    if (!ready) {
      whenLoaded(loadHighlighter(), (module) => module && want(code));
      continue;
    }
    const name = ready.grammarName(language);
    if (!name) continue;
    if (!ready.grammarReady(name)) {
      whenLoaded(ready.loadGrammar(name), (ok) => ok && want(code));
      continue;
    }
    const html = ready.highlightHtml(text, name);
    if (html === undefined) continue;
    // hljs escapes the text; its spans carry only hljs-* classes.
    code.innerHTML = html;
    code.classList.add("md-hl");
  }
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(pass);
}

function want(code: HTMLElement): void {
  waiting.add(code);
  schedule();
}

/**
 * Watches `root` for code blocks and highlights each once. When the grammar is already loaded the
 * block is coloured in the observer's callback, before the frame is painted (no flash of plain text).
 */
export function highlightCodeBlocks(root: HTMLElement): MutationObserver {
  const observer = new MutationObserver((records) => {
    let found = false;
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (!(node instanceof HTMLElement) || node.closest(".md-open")) continue;
        if (node.matches(CODE_SELECTOR)) waiting.add(node);
        for (const code of node.querySelectorAll<HTMLElement>(CODE_SELECTOR)) waiting.add(code);
        found = true;
      }
    }
    if (found && waiting.size > 0) {
      if (ready) pass();
      else schedule();
    }
  });
  observer.observe(root, { childList: true, subtree: true });
  return observer;
}
