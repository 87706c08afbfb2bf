// Model output is untrusted. It is rendered in two steps, each enough on its own:
//  1. marked, with raw HTML escaped (a `<script>` in an answer is shown as text), images turned
//     into placeholders (nothing remote is loaded) and task-list checkboxes drawn as characters;
//  2. DOMPurify over the result: HTML profile only (no SVG/MathML), no forms, frames, media or
//     `style`/`id`/`name`/`data-*`; links are rewritten by one hook (see `classifyHref`).
// The resulting string is safe to assign to innerHTML under the webview's strict CSP without
// any inline script or style for the CSP to block.
import DOMPurify from "dompurify";
import { Lexer, Marked, type Token, type Tokens } from "marked";
import { checkInlineWork, checkMarkdownBudget, inlineWorkOf, MAX_MARKDOWN_CHARS } from "./markdown-budget";

const marked = new Marked({ gfm: true, breaks: false, async: false });

marked.use({
  renderer: {
    html({ text, block }: Tokens.HTML | Tokens.Tag): string {
      return block ? `<p class="md-raw">${escapeHtml(text.trim())}</p>` : escapeHtml(text);
    },
    image({ href, text }: Tokens.Image): string {
      const label = `\u{1F5BC} ${escapeHtml(text || "image")}`;
      return /^https?:/i.test(href) ? `<a href="${escapeHtml(href)}" class="md-image">${label}</a>` : `<span class="md-image">${label}</span>`;
    },
    checkbox({ checked }: Tokens.Checkbox): string {
      return checked ? "\u2611 " : "\u2610 ";
    },
    code({ text, lang, escaped }: Tokens.Code): string {
      const language = (lang ?? "").match(/^[\w+#-]{1,30}/)?.[0] ?? "";
      const path = codeBlockPath(lang ?? "");
      const body = escaped ? text : escapeHtml(text);
      const cls = language ? ` class="language-${escapeHtml(language)}"` : "";
      // A shell block is a command to run, not code for a file: it never offers the editor actions.
      const actions = isShellLanguage(language)
        ? codeAction("md-run", "Run in terminal", "Run in terminal: asks first, then runs it in a terminal you can see") + codeAction("md-copy", "Copy", "Copy")
        : codeAction("md-insert", "Insert at cursor", "Insert at cursor") +
          codeAction(
            "md-apply",
            "Apply to file",
            path
              ? `Apply to ${path}: shows the diff, then asks`
              : "Apply to the file open in the editor (its selection, or the whole file): shows the diff, then asks",
          ) +
          codeAction("md-copy", "Copy", "Copy");
      return (
        `<div class="md-code"><div class="md-code-head"><span class="md-code-lang">${escapeHtml(language)}</span>` +
        (path ? `<span class="md-code-path" title="${escapeHtml(path)}">${escapeHtml(path)}</span>` : "") +
        `<span class="md-code-actions">${actions}</span></div>` +
        `<pre><code${cls}>${body}</code></pre></div>`
      );
    },
  },
});

/**
 * One code-block button: its codicon (drawn by CSS from its class) and its words. In a narrow
 * block (a 300 px sidebar) the words are hidden visually but stay its accessible name, and the
 * tooltip says them.
 */
function codeAction(cls: string, label: string, tooltip: string): string {
  return `<button type="button" class="${cls}" title="${escapeHtml(tooltip)}"><span class="md-label">${escapeHtml(label)}</span></button>`;
}

const purify = DOMPurify(window);

/** purify.sanitize, leaving DOMPurify nothing of the text: its `removed` list keeps the last call's removed nodes. */
function sanitize(html: string): string {
  const clean = purify.sanitize(html);
  purify.removed.length = 0;
  return clean;
}

// Set once: passing a config per call makes DOMPurify rebuild its tables on every message.
purify.setConfig({
  USE_PROFILES: { html: true },
  FORBID_TAGS: [
    "style",
    "form",
    "input",
    "textarea",
    "select",
    "option",
    "img",
    "picture",
    "source",
    "video",
    "audio",
    "iframe",
    "frame",
    "object",
    "embed",
    "link",
    "meta",
    "base",
    "dialog",
  ],
  FORBID_ATTR: ["style", "id", "name", "target", "srcset", "action", "formaction", "form", "autofocus", "tabindex", "accesskey"],
  ALLOW_DATA_ATTR: false,
});

/**
 * The file a code block names after its language: ```ts src/config.ts, ```ts:src/config.ts or
 * ```ts title="src/config.ts". Only a hint for "Apply to file": the host checks it like any path.
 */
export function codeBlockPath(info: string): string | undefined {
  // A quoted value is one candidate, spaces and all (and then refused: paths here have none).
  const quoted = /\b(?:title|path|file|filename)=(["'])(.*?)\1/i.exec(info);
  const tokens = info.trim().split(/\s+/);
  const first = tokens[0] ?? "";
  const candidates = quoted ? [quoted[2] ?? ""] : [first.includes(":") ? first.slice(first.indexOf(":") + 1) : "", ...tokens.slice(1)];
  for (const raw of candidates) {
    const token = raw.replace(/^(title|path|file|filename)=/i, "");
    if (token.length > 0 && token.length <= 300 && /[./]/.test(token) && /^[\w@~.+-][\w@~.+\-/\\]*$/.test(token)) return token;
  }
  return undefined;
}

export type HrefKind = { kind: "external"; href: string } | { kind: "file"; path: string; line?: number } | { kind: "blocked" };

/** What a link in model output may do: open an http(s)/mailto URL (VS Code asks), open a workspace file, or nothing. */
export function classifyHref(raw: string): HrefKind {
  // Browsers ignore tabs, newlines and leading control characters in URLs ("java\nscript:").
  // eslint-disable-next-line no-control-regex
  const href = raw.replace(/[\u0000-\u0020\u007f-\u009f]/g, "");
  if (/^(https?:\/\/|mailto:)/i.test(href)) return { kind: "external", href: raw.trim() };
  const isWindowsPath = /^[a-z]:[\\/]/i.test(href);
  if (!isWindowsPath && /^[a-z][a-z0-9+.-]*:/i.test(href)) return { kind: "blocked" };
  if (href === "" || href.startsWith("#") || href.startsWith("//") || href.startsWith("\\\\") || href.startsWith("?")) return { kind: "blocked" };
  let path = raw.trim();
  try {
    path = decodeURIComponent(path);
  } catch {
    // not percent-encoded: use it as written
  }
  let line: number | undefined;
  const anchor = path.match(/#L(\d+)(?:-L?\d+)?$/i) ?? path.match(/:(\d+)(?::\d+)?$/);
  if (anchor) {
    line = Number(anchor[1]);
    path = path.slice(0, anchor.index);
  }
  path = path.replace(/^\.\//, "");
  if (path === "") return { kind: "blocked" };
  return line !== undefined && line >= 1 ? { kind: "file", path, line } : { kind: "file", path };
}

purify.addHook("afterSanitizeAttributes", (node) => {
  if (!(node instanceof Element)) return;
  const cls = node.getAttribute("class");
  if (cls !== null) {
    // Only the classes this module's renderer writes; model output cannot dress up as UI.
    const kept = cls.split(/\s+/).filter((c) => /^(md-[a-z-]+|language-[\w+#.-]+)$/.test(c));
    if (kept.length > 0) node.setAttribute("class", kept.join(" "));
    else node.removeAttribute("class");
  }
  if (node.tagName !== "A") return;
  const href = node.getAttribute("href");
  const target = href === null ? ({ kind: "blocked" } as const) : classifyHref(href);
  node.removeAttribute("href");
  switch (target.kind) {
    case "external":
      node.setAttribute("href", target.href);
      node.setAttribute("rel", "noopener noreferrer");
      node.setAttribute("title", target.href);
      return;
    case "file":
      // Added after the data-* filter ran: model output cannot set these itself.
      node.setAttribute("href", "#");
      node.setAttribute("data-path", target.path);
      if (target.line !== undefined) node.setAttribute("data-line", String(target.line));
      node.setAttribute("title", target.line !== undefined ? `${target.path}:${target.line}` : target.path);
      node.classList.add("md-file-link");
      return;
    case "blocked":
      node.setAttribute("title", "Link removed");
      node.classList.add("md-link-blocked");
      return;
  }
});

/**
 * Characters given to marked since the page loaded (lexed or parsed), the inline lexer's work on the
 * pieces it really lexed (MAX_INLINE_WORK's units), and the milliseconds spent turning messages into
 * HTML: the browser tests check that streaming stays linear and that no message is given more work
 * than the budget allows (counts, not the clock, which a busy machine stretches).
 */
export const markdownWork = { chars: 0, inline: 0, ms: 0 };

function timed<T>(work: () => T): T {
  const start = performance.now();
  try {
    return work();
  } finally {
    markdownWork.ms += performance.now() - start;
  }
}

/** Plain text in place of markdown, with a note saying why: what a message over the budget, or one marked fails on, shows. */
export function plainTextHtml(text: string, note: string): string {
  return `<div class="md-plain">${escapeHtml(text)}</div><div class="md-note">${escapeHtml(note)}</div>`;
}

/**
 * marked's tokens for `text`, or why it is not lexed. What `Lexer.lex` does, in its two steps, with
 * the budget between them: the block lexer queues the pieces the inline lexer will see, and
 * those are checked before any is lexed (markdown-budget.ts). Throws what marked throws.
 */
function lexWithinBudget(text: string): { ok: true; tokens: Token[] } | { ok: false; reason: string } {
  const lines = checkMarkdownBudget(text);
  if (!lines.ok) return lines;
  markdownWork.chars += text.length;
  const lexer = new Lexer(marked.defaults);
  const tokens = lexer.blockTokens(text.replace(/\r\n|\r/g, "\n"), lexer.tokens);
  const inline = checkInlineWork(lexer.inlineQueue.map((piece) => piece.src));
  if (!inline.ok) return inline;
  for (const piece of lexer.inlineQueue) {
    markdownWork.inline += inlineWorkOf(piece.src);
    lexer.state.inRawBlock = false;
    lexer.inlineTokens(piece.src, piece.tokens);
  }
  lexer.inlineQueue = [];
  // marked's tokenizer, one for every lexer, keeps a pointer to the last lexer: leave that lexer
  // none of this text (else the last message lexed outlived its chat).
  lexer.tokens = Object.assign([], { links: Object.create(null) });
  return { ok: true, tokens };
}

/** Sanitized HTML of a markdown document; plain text (with a note) when it is over the parse budget or marked fails. */
export function renderMarkdown(text: string): string {
  return timed(() => {
    try {
      const lexed = lexWithinBudget(text);
      if (!lexed.ok) return plainTextHtml(text, `Shown as plain text: ${lexed.reason}.`);
      return sanitize(marked.parser(lexed.tokens));
    } catch {
      return plainTextHtml(text, "Shown as plain text: it could not be formatted.");
    }
  });
}

/** Blocks of the still-open end of a streamed message longer than this are shown as text until the block ends. */
export const OPEN_BLOCK_BUDGET = 8_000;

/** What a streamed message shows: blocks parsed once, then its open end (markdown, or plain text while too long). */
export interface StreamedMarkdown {
  readonly settled: readonly string[];
  readonly open: { readonly html: string } | { readonly plain: string } | undefined;
}

/**
 * Renders a message that grows, at a cost linear in its final length. Blocks before the last one
 * cannot change any more: each is lexed and parsed once and kept. Each update lexes only the text
 * from the start of the last block on; when that open block is long (a big code fence, one huge
 * paragraph) it is lexed again only after it doubled, and shown as plain text in between, so
 * the total work stays within a few times the length whatever the block sizes. Text over the
 * parse budget is shown as plain text from there on. The final message is rendered once more as
 * a whole (`renderMarkdown`), so reference links and loose lists end up exactly right.
 */
export class MarkdownStream {
  private settledHtml: string[] = [];
  private settledLength = 0;
  private lexedTail = 0;
  private plain = false;

  update(text: string): StreamedMarkdown {
    return timed(() => this.next(text));
  }

  private next(text: string): StreamedMarkdown {
    if (text.length < this.settledLength) {
      // Not a continuation of what was rendered: start over.
      this.settledHtml = [];
      this.settledLength = 0;
      this.lexedTail = 0;
      this.plain = false;
    }
    const tail = text.slice(this.settledLength);
    if (!this.plain && text.length > MAX_MARKDOWN_CHARS) this.plain = true;
    if (this.plain) return this.show({ plain: tail });
    if (tail.length > OPEN_BLOCK_BUDGET && tail.length < 2 * this.lexedTail) return this.show({ plain: tail });
    let tokens: Token[];
    try {
      const lexed = lexWithinBudget(tail);
      if (!lexed.ok) {
        this.plain = true;
        return this.show({ plain: tail });
      }
      tokens = lexed.tokens;
    } catch {
      this.plain = true;
      return this.show({ plain: tail });
    }
    let last = tokens.length - 1;
    while (last >= 0 && tokens[last]!.type === "space") last--;
    // Every block before the last non-space one is complete: parse it once, keep it.
    for (let i = 0; i < last; i++) {
      const token = tokens[i]!;
      this.settledLength += token.raw.length;
      if (token.type === "space") continue;
      this.settledHtml = [...this.settledHtml, this.parseBlock(token)];
    }
    const open = last >= 0 ? tokens[last] : undefined;
    this.lexedTail = text.length - this.settledLength;
    if (!open) return this.show(undefined);
    if (open.raw.length > OPEN_BLOCK_BUDGET) return this.show({ plain: text.slice(this.settledLength) });
    return this.show({ html: this.parseBlock(open) });
  }

  private parseBlock(token: Token): string {
    markdownWork.chars += token.raw.length;
    try {
      return sanitize(marked.parser([token]));
    } catch {
      return plainTextHtml(token.raw, "Shown as plain text: it could not be formatted.");
    }
  }

  private show(open: StreamedMarkdown["open"]): StreamedMarkdown {
    // The settled array keeps its identity while nothing settles, so its blocks skip rendering.
    return { settled: this.settledHtml, open };
  }
}

/** The shells whose blocks are commands: they get Run in terminal and Copy, never the editor actions. */
const SHELL_LANGUAGES = new Set(["bash", "sh", "zsh", "shell", "console", "shellsession", "powershell", "pwsh", "ps1"]);

export function isShellLanguage(language: string): boolean {
  return SHELL_LANGUAGES.has(language.toLowerCase());
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
