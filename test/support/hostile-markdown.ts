// Markdown that once stalled the view, shared by the browser test that holds marked's work to its
// budget (test/browser/hostile-markdown.test.ts) and bench P24, which times what a restore of each
// costs beside a realistic answer of the same size.
//
// A message of delimiters spread so that no single line looks like much (lines holding `|` that
// are no table, ordered-list numbers that start no list, indented bullets that are paragraph
// text, paragraphs each just under the per-paragraph cap, and real tables and lists full of
// emphasis) must not stall the view when a chat is restored: marked is given only what it can
// do quickly, the rest is plain text. Each is about 93 KB, the size of the message that parsed
// for 8 s on every restore.
export const HOSTILE_MARKDOWN_SIZE = 93_000;
export const fill = (line: (i: number) => string, separator = "\n") => {
  const out: string[] = [];
  for (let i = 0, length = 0; length < HOSTILE_MARKDOWN_SIZE; i++) {
    out.push(line(i));
    length += out.at(-1)!.length + separator.length;
  }
  return out.join(separator);
};
export const STALLING_MARKDOWN: Record<string, () => string> = {
  "lines with | that are no table, nested emphasis": () => fill(() => `a | ${"*a **a ".repeat(40)}`),
  "lines with | that are no table, open emphasis": () => fill(() => `|${"**a ".repeat(249)}`),
  "lines with | that are no table, *_ nesting": () => fill(() => `x | ${"_*".repeat(150)}a`),
  "lines with | that are no table, brackets": () => fill(() => `|${"[".repeat(300)}`),
  "ordered-list numbers inside a paragraph": () => `para\n${fill((i) => `${i + 2}. ${"*a **a ".repeat(40)}`)}`,
  "indented bullets that are paragraph text": () => `para\n${fill(() => `      - ${"~a".repeat(300)}`)}`,
  "paragraphs just under the per-paragraph cap": () => fill(() => "a_".repeat(499), "\n\n"),
  "paragraphs of ~ just under the cap": () => fill(() => "~a".repeat(499), "\n\n"),
  "a real table whose cells are all emphasis": () => `| a | b |\n|---|---|\n${fill(() => `| ${"*a ".repeat(60)} | ${"_b ".repeat(60)} |`)}`,
  "a list whose items are all emphasis": () => fill(() => `- ${"*a **a ".repeat(60)}`),
};

/** An ordinary answer: a heading, emphasis, code, a link, a list, a fence and a table. */
export const REALISTIC_MARKDOWN = [
  "## Changes",
  "",
  "Some **bold** text with `code`, a [link](https://example.com/docs) and _emphasis_.",
  "",
  "- one item",
  "- another item with `inline code`",
  "",
  "```ts",
  "export const port = 3000;",
  "",
  "function main(): void {}",
  "```",
  "",
  "| a | b |",
  "|---|---|",
  "| 1 | 2 |",
  "",
].join("\n");
