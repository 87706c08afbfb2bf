// Command allow rules: may a shell command run without asking the user?
//
// A rule names a command ("npm test", "git log --oneline"), compared word by word after shell
// unquoting. It allows exactly the words it names plus extra plain arguments (not starting with
// `-` or `+`, not `NAME=value`); a rule that wants options says so with a last word `*`
// ("npm test *"). Whatever the rule, a command asks when it holds something that changes which
// code runs, which configuration is read or which folder is used (command-policies.ts: env
// assignments, wrappers and shells, per-program options such as npm --node-options, git -c,
// python -m), or a word that expands ($, globs, braces). A command is allowed only when EVERY
// part of it (split on `&&`, `||`, `;`, `|`, `&` and newlines) is. Anything this splitter does
// not fully understand asks: command substitution, process substitution, redirection to or
// from a file, heredocs, subshells and groups, comments, unterminated quotes. Rules apply only
// where commands run through a POSIX shell: on Windows they run through cmd.exe, whose quoting
// (`^`, `%…%`, `!`, no `'`) this matcher does not read, so there every command asks.
// Pure: no I/O, tested with tables in test/unit/permissions/command-rules.test.ts; the user's
// version is docs/security-commands.md.
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

/** Where this extension host runs commands (node-runner.ts and the terminal use ComSpec on Windows). */
export function hostCommandShell(platform: string = process.platform): CommandShell {
  return platform === "win32" ? "cmd" : "posix";
}

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
    words.push(word);
    literals.push(wordLiteral);
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

/** A parsed rule: the words it names, and whether it ends in `*` (any further arguments, options too). */
export interface ParsedRule {
  words: CommandPart;
  wildcard: boolean;
}

/** The words of a rule, or why it cannot be a rule. */
export function parseRule(rule: string): ({ ok: true } & ParsedRule) | { ok: false; reason: string } {
  const split = splitCommand(rule.trim());
  if (!split.ok) return { ok: false, reason: `This rule cannot be used: ${split.reason}.` };
  if (split.parts.length !== 1) return { ok: false, reason: "A rule is one command, without ;, &&, || or |." };
  let words = split.parts[0]!;
  let literal = split.literal[0]!;
  const wildcard = words.length > 1 && words[words.length - 1] === "*" && !literal[literal.length - 1];
  if (wildcard) {
    words = words.slice(0, -1);
    literal = literal.slice(0, -1);
  }
  const never = alwaysAsks(words, literal);
  if (never) return { ok: false, reason: `No rule can allow this: ${never}.` };
  const needs = ruleNeeds(words);
  if (words.length < needs.minWords)
    return { ok: false, reason: `A rule for ${programName(words[0]!)} must name what it runs too (for example "${programName(words[0]!)} test").` };
  return { ok: true, words, wildcard };
}

/** Whether `rule` covers one simple command (already checked to hold nothing that always asks). */
function ruleCovers(rule: ParsedRule, part: CommandPart): boolean {
  if (rule.words.length > part.length || !rule.words.every((w, i) => part[i] === w)) return false;
  if (rule.wildcard) return true;
  const extra = part.slice(rule.words.length);
  if (extra.length === 0) return true;
  return ruleNeeds(part).plainMayFollow && extra.every(isPlainArgument);
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
 * What "Always allow" may offer for a command: per part the narrowest rule that covers it (its
 * program, what the program runs, and each option it uses, named), or why no rule can allow it.
 */
export function offerRules(command: string, shell: CommandShell = "posix"): { rules: string[] } | { reason: string } {
  if (shell !== "posix") return { reason: NO_RULES_ON_WINDOWS };
  const split = splitCommand(command);
  if (!split.ok) return { reason: `No rule can allow this command: ${split.reason}.` };
  const out: string[] = [];
  for (const [index, part] of split.parts.entries()) {
    const never = alwaysAsks(part, split.literal[index]!);
    if (never) return { reason: `No rule can allow this command: ${never}.` };
    const needs = ruleNeeds(part);
    // The program and its first plain argument (`git status`, `cat file`), or what the program runs.
    let length = Math.min(part.length, Math.max(needs.minWords, part[1] !== undefined && isPlainArgument(part[1]) ? 2 : 1));
    // Every option it uses is named (rules allow no option they do not name), and where nothing
    // plain may follow, the whole command is.
    let lastOption = part.length - 1;
    while (lastOption >= 0 && isPlainArgument(part[lastOption]!)) lastOption -= 1;
    length = needs.plainMayFollow ? Math.max(length, lastOption + 1) : part.length;
    const rule = part.slice(0, length).map(quoteWord).join(" ");
    const valid = parseRule(rule);
    if (!valid.ok) return { reason: valid.reason };
    if (!out.includes(rule)) out.push(rule);
  }
  return { rules: out };
}

/** A word as the shell would need it written to read back the same. */
export function quoteWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
