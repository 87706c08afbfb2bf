// Command allow rules: may a shell command run without asking the user?
//
// A rule is a command the user approved ("npm test", "git push origin main"), compared word by
// word after shell unquoting, and it allows exactly that command: no added argument, option or
// path. A rule is wider only where the user writes it so: a word `*` stands for any words there
// ("npm test *", "git log * -- src"); the card shows, before saving, commands such a rule would
// and would not allow. Whatever the rule, a command asks when it holds something that changes
// which code runs, which configuration is read or which folder is used (command-policies.ts:
// env assignments, wrappers and shells, per-program options such as npm --node-options, git -c,
// python -m), a path outside the workspace (`~`, an absolute path, `..`), a git remote given by
// URL or a refspec with `:` or `+`, or a word that expands ($, globs, braces). A command is
// allowed only when EVERY part of it (split on `&&`, `||`, `;`, `|`, `&` and newlines) is.
// Anything this splitter does not fully understand asks: command substitution, process
// substitution, redirection to or from a file, heredocs, subshells and groups, comments,
// unterminated quotes. Rules apply only where commands run through a POSIX shell: on Windows
// they run through cmd.exe, whose quoting (`^`, `%…%`, `!`, no `'`) this matcher does not read,
// so there every command asks. Pure (no Node, no DOM): the host's gate decides with it and the
// webview's card previews a rule with the same code. Tested with tables in
// test/unit/permissions/command-rules.test.ts and everyday-commands.test.ts; the user's version
// is docs/security-commands.md.
import { alwaysAsks, isPlainArgument, programName, ruleNeeds } from "./command-policies";

/** One simple command of a command line: its words after unquoting. */
export type CommandPart = readonly string[];

/**
 * `parts`: the simple commands; `literal`: per word of each part, whether its text is what runs
 * (false when it holds `$`, an unquoted glob `* ? [` or a brace `{`, which the shell expands).
 */
export type SplitResult = { ok: true; parts: CommandPart[]; literal: boolean[][] } | { ok: false; reason: string };

/** The shell commands run through: "posix" (bash or sh) or Windows' cmd.exe. */
export type CommandShell = "posix" | "cmd";

/** Why rules do not apply on Windows: the card says it. */
export const NO_RULES_ON_WINDOWS =
  "Allow rules are off on Windows: commands run through cmd.exe, where quotes, ^, %…% and ! work differently, so every command asks.";

export type RuleDecision = { allowed: true; rules: string[] } | { allowed: false; reason: string };

const OPERATOR_CHARS = new Set([";", "&", "|", "\n"]);
/** Output redirections that write no file: to another descriptor or to /dev/null. */
const HARMLESS_REDIRECTION = /^(?:[0-9]?>&[0-9-]|(?:[0-9]?|&)>>?\/dev\/null)$/;

/**
 * Splits a command line into simple commands and their unquoted words, or says what it cannot
 * judge. Quoting is honoured (`echo "a;b"` is one part), so a quoted operator hides nothing.
 */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: a shell tokenizer: quoting, escapes and operators are one state machine
export function splitCommand(command: string): SplitResult {
  const parts: string[][] = [];
  const literal: boolean[][] = [];
  let words: string[] = [];
  let literals: boolean[] = [];
  let word = "";
  let wordLiteral = true;
  let inWord = false;
  /** The current word holds unquoted text that looked like a redirection operator. */
  let wordIsRedirection = false;
  const endWord = (): string | null => {
    if (!inWord) return null;
    if (wordIsRedirection && !HARMLESS_REDIRECTION.test(word)) return "it redirects output to a file";
    // `2>&1` and `>/dev/null` change where output goes, not what runs: no word of the command.
    if (!wordIsRedirection) {
      words.push(word);
      literals.push(wordLiteral);
    }
    word = "";
    wordLiteral = true;
    inWord = false;
    wordIsRedirection = false;
    return null;
  };
  const endPart = (operator: string): string | null => {
    const problem = endWord();
    if (problem) return problem;
    if (words.length === 0) {
      // A trailing `;`, `&` or newline ends the command; an empty part anywhere else is syntax we do not read.
      if (operator === "\n" || operator === "end") return null;
      return `it has an empty command before "${operator}"`;
    }
    parts.push(words);
    literal.push(literals);
    words = [];
    literals = [];
    return null;
  };

  let i = 0;
  while (i < command.length) {
    const c = command[i]!;
    const next = command[i + 1];
    if (c === "\\") {
      if (next === undefined) return { ok: false, reason: "it ends with a backslash" };
      if (next !== "\n") {
        word += next;
        inWord = true;
      }
      i += 2;
      continue;
    }
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end === -1) return { ok: false, reason: "it has an unterminated quote" };
      word += command.slice(i + 1, end);
      inWord = true;
      i = end + 1;
      continue;
    }
    if (c === '"') {
      const read = readDoubleQuoted(command, i + 1);
      if (!read.ok) return read;
      word += read.text;
      if (read.text.includes("$")) wordLiteral = false;
      inWord = true;
      i = read.end;
      continue;
    }
    if (c === "`") return { ok: false, reason: "it uses command substitution (backticks)" };
    if (c === "$" && next === "(") return { ok: false, reason: "it uses command substitution ($(…))" };
    if ((c === "<" || c === ">") && next === "(") return { ok: false, reason: "it uses process substitution" };
    if (c === "<") return { ok: false, reason: command.startsWith("<<", i) ? "it has a heredoc" : "it reads input from a file" };
    if (c === "(" || c === ")") return { ok: false, reason: "it uses a subshell" };
    if (c === "#" && !inWord) return { ok: false, reason: "it has a comment" };
    if (c === ">") {
      // Collect the whole redirection (e.g. `2>&1`, `>/dev/null`) as one word, judged when it ends.
      wordIsRedirection = true;
      word += c;
      inWord = true;
      i += 1;
      if (command[i] === ">") {
        word += ">";
        i += 1;
      }
      if (command[i] === "&" || command[i] === "|") {
        word += command[i];
        i += 1;
      }
      // A target after spaces (`> out.txt`) belongs to the redirection.
      while (command[i] === " " || command[i] === "\t") i += 1;
      continue;
    }
    if (c === "&" && next === ">") {
      wordIsRedirection = true;
      word += "&";
      inWord = true;
      i += 1;
      continue;
    }
    if (OPERATOR_CHARS.has(c)) {
      let operator = c;
      if ((c === "&" && next === "&") || (c === "|" && (next === "|" || next === "&"))) operator = c + next;
      if (c === ";" && next === ";") return { ok: false, reason: "it uses case syntax (;;)" };
      const problem = endPart(operator);
      if (problem) return { ok: false, reason: problem };
      i += operator.length;
      continue;
    }
    if (c === " " || c === "\t" || c === "\r") {
      const problem = endWord();
      if (problem) return { ok: false, reason: problem };
      i += 1;
      continue;
    }
    if (!inWord && (c === "{" || c === "}") && (next === undefined || /\s|;/.test(next))) {
      return { ok: false, reason: "it uses a command group ({ … })" };
    }
    if (c === "$" && words.length === 0) return { ok: false, reason: "the command name comes from a variable" };
    if ("$*?[{".includes(c)) wordLiteral = false;
    word += c;
    inWord = true;
    i += 1;
  }
  const problem = endPart("end");
  if (problem) return { ok: false, reason: problem };
  if (parts.length === 0) return { ok: false, reason: "it is empty" };
  return { ok: true, parts, literal };
}

/** Reads a "…" string from `start` (just after the opening quote). */
function readDoubleQuoted(command: string, start: number): { ok: true; text: string; end: number } | { ok: false; reason: string } {
  let text = "";
  let i = start;
  while (i < command.length) {
    const c = command[i]!;
    if (c === '"') return { ok: true, text, end: i + 1 };
    if (c === "`") return { ok: false, reason: "it uses command substitution (backticks)" };
    if (c === "$" && command[i + 1] === "(") return { ok: false, reason: "it uses command substitution ($(…))" };
    if (c === "\\" && i + 1 < command.length && '"\\$`\n'.includes(command[i + 1]!)) {
      if (command[i + 1] !== "\n") text += command[i + 1];
      i += 2;
      continue;
    }
    text += c;
    i += 1;
  }
  return { ok: false, reason: "it has an unterminated quote" };
}

/** One word of a rule: a word the command must have there, or `*` (any words, none included). */
export type RuleWord = { word: string } | { any: true };

/** A parsed rule: its words; without a `*` it allows exactly the command it names. */
export interface ParsedRule {
  words: readonly RuleWord[];
}

/** The literal words before the rule's first `*` (all of them in a rule without one). */
function fixedPrefix(words: readonly RuleWord[]): string[] {
  const out: string[] = [];
  for (const w of words) {
    if (!("word" in w)) break;
    out.push(w.word);
  }
  return out;
}

/** The words of a rule, or why it cannot be a rule. */
export function parseRule(rule: string): ({ ok: true } & ParsedRule) | { ok: false; reason: string } {
  const split = splitCommand(rule.trim());
  if (!split.ok) return { ok: false, reason: `This rule cannot be used: ${split.reason}.` };
  if (split.parts.length !== 1) return { ok: false, reason: "A rule is one command, without ;, &&, || or |." };
  const part = split.parts[0]!;
  const literal = split.literal[0]!;
  // An unquoted word `*` is the user's "any words here"; a quoted '*' is the character itself.
  const words: RuleWord[] = part.map((word, i) => (word === "*" && !literal[i] ? { any: true } : { word }));
  const fixed = words.flatMap((w) => ("word" in w ? [w.word] : []));
  const fixedLiteral = part.flatMap((_w, i) => ("word" in words[i]! ? [literal[i]!] : []));
  if (!("word" in words[0]!)) return { ok: false, reason: "A rule starts with the program it runs, not with *." };
  const never = alwaysAsks(fixed, fixedLiteral);
  if (never) return { ok: false, reason: `No rule can allow this: ${never}.` };
  const program = programName(fixed[0]!);
  const needs = ruleNeeds(fixed);
  if (fixed.length < needs.minWords) return { ok: false, reason: `A rule for ${program} names what it runs too, not ${program} alone.` };
  if (fixed.length < words.length) {
    // Before a `*`, a rule names the code it runs: "npm run build *", not "npm run *" (every script).
    const prefix = fixedPrefix(words);
    if (needs.nameBeforeWildcard > 0 && !prefix.slice(needs.nameBeforeWildcard).some(isPlainArgument))
      return { ok: false, reason: `Before a *, a rule for ${program} names what it runs ("${[...prefix, "<name>"].join(" ")} *").` };
  }
  return { ok: true, words };
}

/** Whether `rule` covers one simple command (already checked to hold nothing that always asks). */
function ruleCovers(rule: ParsedRule, part: CommandPart): boolean {
  const words = rule.words;
  // Word-by-word match where `*` takes any run of words (none included): exact when the rule has no `*`.
  const from = (r: number, p: number): boolean => {
    if (r === words.length) return p === part.length;
    const w = words[r]!;
    if (!("word" in w)) {
      for (let q = p; q <= part.length; q++) if (from(r + 1, q)) return true;
      return false;
    }
    return p < part.length && part[p] === w.word && from(r + 1, p + 1);
  };
  return from(0, 0);
}

/** Whether every part of `command` is covered by one of `rules`; the rules used, or why not. */
export function matchAllowRules(command: string, rules: readonly string[], shell: CommandShell = "posix"): RuleDecision {
  if (shell !== "posix") return { allowed: false, reason: NO_RULES_ON_WINDOWS };
  const split = splitCommand(command);
  if (!split.ok) return { allowed: false, reason: `The command needs approval because ${split.reason}.` };
  const parsed = rules.flatMap((rule) => {
    const r = parseRule(rule);
    return r.ok ? [{ rule, parsed: r }] : [];
  });
  const used: string[] = [];
  for (const [index, part] of split.parts.entries()) {
    const never = alwaysAsks(part, split.literal[index]!);
    if (never) return { allowed: false, reason: `The command needs approval because ${never}.` };
    const match = parsed.find((r) => ruleCovers(r.parsed, part));
    if (!match) return { allowed: false, reason: `No allow rule covers "${part.join(" ")}".` };
    if (!used.includes(match.rule)) used.push(match.rule);
  }
  return { allowed: true, rules: used };
}

/**
 * What "Always allow" may offer for a command: per part, that part exactly as it runs (a rule
 * allows exactly what the user approved), or why no rule can allow it.
 */
export function offerRules(command: string, shell: CommandShell = "posix"): { rules: string[] } | { reason: string } {
  if (shell !== "posix") return { reason: NO_RULES_ON_WINDOWS };
  const split = splitCommand(command);
  if (!split.ok) return { reason: `No rule can allow this command: ${split.reason}.` };
  const out: string[] = [];
  for (const [index, part] of split.parts.entries()) {
    const never = alwaysAsks(part, split.literal[index]!);
    if (never) return { reason: `No rule can allow this command: ${never}.` };
    const rule = part.map(quoteWord).join(" ");
    const valid = parseRule(rule);
    if (!valid.ok) return { reason: valid.reason };
    if (!out.includes(rule)) out.push(rule);
  }
  return { rules: out };
}

/** What the card shows for rules the user wrote, before saving: commands they would and would not allow. */
export type RulePreview =
  | { ok: true; exact: boolean; covers: boolean; allows: string[]; asks: { command: string; reason: string }[] }
  | { ok: false; reason: string };

/** Examples put in place of a `*`: everyday words and the ones that must still ask (home, outside paths, remotes, code). */
const PREVIEW_SAMPLES: readonly (readonly string[])[] = [
  [],
  ["src/app.ts"],
  ["--verbose"],
  ["."],
  ["--force"],
  ["~/.ssh/id_rsa"],
  ["/etc/passwd"],
  ["../outside.txt"],
  ["https://elsewhere.example/repo.git"],
  ["origin", ":main"],
  ["--require=./x.js"],
  ["--config=../x.json"],
];

/** How many examples of each kind the card lists. */
const PREVIEW_EXAMPLES = 6;

/**
 * The rules typed on a card (one a line) in examples: for each `*`, commands made by putting
 * sample words there, sorted by what the same matcher decides. `command` is the one on the card.
 */
export function previewRules(text: string, command: string): RulePreview {
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  if (lines.length === 0) return { ok: false, reason: "Write a rule: the command, with * where its arguments may vary." };
  const parsed: ParsedRule[] = [];
  for (const line of lines) {
    const rule = parseRule(line);
    if (!rule.ok) return { ok: false, reason: `"${line}": ${rule.reason}` };
    parsed.push(rule);
  }
  const covers = matchAllowRules(command, lines).allowed;
  const exact = parsed.every((r) => r.words.every((w) => "word" in w));
  const allows: string[] = [];
  const asks: { command: string; reason: string }[] = [];
  for (const rule of parsed) {
    const wild = rule.words.flatMap((w, i) => ("word" in w ? [] : [i]));
    for (const at of wild) {
      for (const sample of PREVIEW_SAMPLES) {
        // The `*` at `at` takes the sample; every other `*` takes nothing.
        const words = rule.words.flatMap((w, i) => ("word" in w ? [w.word] : i === at ? [...sample] : []));
        const example = words.map(quoteWord).join(" ");
        const decision = matchAllowRules(example, lines);
        if (decision.allowed) {
          if (!allows.includes(example) && allows.length < PREVIEW_EXAMPLES) allows.push(example);
        } else if (!asks.some((a) => a.command === example) && asks.length < PREVIEW_EXAMPLES) {
          asks.push({ command: example, reason: decision.reason.replace(/^The command needs approval because /, "") });
        }
      }
    }
  }
  return { ok: true, exact, covers, allows, asks };
}

/** A word as the shell would need it written to read back the same. */
export function quoteWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
