// Command allow rules: may a shell command run without asking the user?
//
// A rule is a command prefix the user allowed ("npm test", "git status"), compared word by word
// after shell unquoting. A command is allowed only when EVERY part of it (split on `&&`, `||`,
// `;`, `|`, `&` and newlines) starts with the words of some rule. Anything this splitter does not
// fully understand asks: command substitution (`$(…)`, backticks), process substitution (`<(`,
// `>(`), redirection to or from a file, heredocs, subshells and groups, comments, unterminated
// quotes. Pure: no I/O, tested with tables in test/unit/permissions/command-rules.test.ts.

/** One simple command of a command line: its words after unquoting. */
export type CommandPart = readonly string[];

export type SplitResult = { ok: true; parts: CommandPart[] } | { ok: false; reason: string };

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
  let words: string[] = [];
  let word = "";
  let inWord = false;
  /** The current word holds unquoted text that looked like a redirection operator. */
  let wordIsRedirection = false;
  const endWord = (): string | null => {
    if (!inWord) return null;
    if (wordIsRedirection && !HARMLESS_REDIRECTION.test(word)) return "it redirects output to a file";
    words.push(word);
    word = "";
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
    words = [];
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
    word += c;
    inWord = true;
    i += 1;
  }
  const problem = endPart("end");
  if (problem) return { ok: false, reason: problem };
  if (parts.length === 0) return { ok: false, reason: "it is empty" };
  return { ok: true, parts };
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

/** The words of a rule, or why it is not a rule (it must be one simple command). */
export function parseRule(rule: string): { ok: true; words: CommandPart } | { ok: false; reason: string } {
  const split = splitCommand(rule.trim());
  if (!split.ok) return { ok: false, reason: `This rule cannot be used: ${split.reason}.` };
  if (split.parts.length !== 1) return { ok: false, reason: "A rule is one command prefix, without ;, &&, || or |." };
  return { ok: true, words: split.parts[0]! };
}

function startsWithWords(part: CommandPart, prefix: CommandPart): boolean {
  if (prefix.length === 0 || prefix.length > part.length) return false;
  return prefix.every((w, i) => part[i] === w);
}

/** Whether every part of `command` is covered by one of `rules`; the rules used, or why not. */
export function matchAllowRules(command: string, rules: readonly string[]): RuleDecision {
  const split = splitCommand(command);
  if (!split.ok) return { allowed: false, reason: `The command needs approval because ${split.reason}.` };
  const parsed = rules.flatMap((rule) => {
    const r = parseRule(rule);
    return r.ok ? [{ rule, words: r.words }] : [];
  });
  const used: string[] = [];
  for (const part of split.parts) {
    const match = parsed.find((r) => startsWithWords(part, r.words));
    if (!match) return { allowed: false, reason: `No allow rule covers "${part.join(" ")}".` };
    if (!used.includes(match.rule)) used.push(match.rule);
  }
  return { allowed: true, rules: used };
}

/**
 * The rules to offer for "always allow": for each part its command and first argument
 * (`npm test`, `git status`), or the whole part when it is shorter. Undefined when the command
 * cannot be judged at all (then no rule could ever allow it).
 */
export function suggestRules(command: string): string[] | undefined {
  const split = splitCommand(command);
  if (!split.ok) return undefined;
  const out: string[] = [];
  for (const part of split.parts) {
    const words = part.slice(0, part[1] !== undefined && !part[1].startsWith("-") ? 2 : 1);
    const rule = words.map(quoteWord).join(" ");
    if (!out.includes(rule)) out.push(rule);
  }
  return out;
}

/** A word as the shell would need it written to read back the same. */
export function quoteWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
