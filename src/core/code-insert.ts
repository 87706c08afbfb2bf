// "Insert at cursor" decides two things before it touches an editor: whether the code block's
// language fits the file (a JSON block does not belong in a TypeScript file without a word from
// the user), and how the block sits on its own lines at the cursor (never glued to the text
// around it). Pure: the host asks and writes.

/** Fence languages (and VS Code language ids) by family: members of one family fit each other. */
const FAMILIES: readonly (readonly string[])[] = [
  ["ts", "typescript", "tsx", "typescriptreact", "mts", "cts"],
  ["js", "javascript", "jsx", "javascriptreact", "mjs", "cjs", "node"],
  ["json", "jsonc", "json5", "jsonl"],
  ["py", "python", "python3"],
  ["sh", "bash", "shell", "shellscript", "zsh", "console", "shell-session"],
  ["yml", "yaml"],
  ["md", "markdown"],
  ["html", "htm", "xhtml"],
  ["css"],
  ["scss"],
  ["less"],
  ["go", "golang"],
  ["rs", "rust"],
  ["java"],
  ["kt", "kotlin"],
  ["c", "h"],
  ["cpp", "c++", "cc", "cxx", "hpp"],
  ["cs", "csharp", "c#"],
  ["rb", "ruby"],
  ["php"],
  ["sql"],
  ["swift"],
  ["toml"],
  ["xml", "svg"],
  ["diff", "patch"],
  ["dockerfile", "docker"],
  ["makefile", "make"],
  ["ps1", "powershell", "pwsh"],
];

function family(name: string): number {
  const lower = name.trim().toLowerCase();
  return FAMILIES.findIndex((members) => members.includes(lower));
}

/**
 * Whether a block fenced as `fence` fits an editor of VS Code language `languageId`. A block with
 * no language (or plain text) fits nothing: the user is asked.
 */
export function languageFits(fence: string | undefined, languageId: string): boolean {
  if (!fence || /^(text|plain|plaintext|txt)$/i.test(fence.trim())) return false;
  const lower = fence.trim().toLowerCase();
  if (lower === languageId.toLowerCase()) return true;
  const at = family(lower);
  return at !== -1 && at === family(languageId);
}

/**
 * The text to put at a cursor so the block stands on lines of its own: a line break before it
 * when text precedes the cursor on its line, and after it when text follows.
 */
export function onOwnLines(code: string, before: string, after: string): string {
  const lead = before.trim() !== "" && !code.startsWith("\n") ? "\n" : "";
  const tail = after.trim() !== "" && !code.endsWith("\n") ? "\n" : "";
  return `${lead}${code}${tail}`;
}
