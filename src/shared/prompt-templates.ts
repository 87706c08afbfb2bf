// Prompt templates and skills as the pi CLI reads them, so one folder of prompts serves both.
// A template is a Markdown file whose name (without `.md`, or `.prompt.md` for VS Code's
// `.github/prompts`) is the command: `/name args`. An optional front matter gives its
// `description` (else its first non-empty line) and `argument-hint`; the body's `$1`…`$9`,
// `$@` / `$ARGUMENTS` (all arguments), `${N:-default}`, `${@:-default}` and `${@:N}` /
// `${@:N:L}` (a slice) take the arguments, split by pi's rules (parseArguments); arguments are not
// expanded again. A skill is a folder with `SKILL.md` whose front matter has `name` and
// `description`. Pure text functions: the host reads the files (bounded), this decides what they say.

/** A template or SKILL.md longer than this is refused: prompts are a page, not a book. */
export const MAX_PROMPT_FILE_BYTES = 256 * 1024;
/** A description or argument hint is one line in a list. */
export const MAX_DESCRIPTION_CHARS = 200;
/** The front matter is a few lines; a file whose closing `---` is further is read as having none. */
const MAX_FRONT_MATTER_CHARS = 8 * 1024;

export interface ParsedMarkdown {
  /** `key: value` pairs of the front matter (only simple scalars; anything else is ignored). */
  readonly fields: Readonly<Record<string, string>>;
  /** The text after the front matter. */
  readonly body: string;
  /** Why the front matter was not read, when it was there but broken. */
  readonly problem?: string;
}

/** Splits the front matter (`---` lines) from the body. Never throws; a broken one is said, and the whole text is the body. */
export function parseFrontMatter(text: string): ParsedMarkdown {
  const src = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  if (!src.startsWith("---\n") && src !== "---") return { fields: {}, body: src };
  const close = src.indexOf("\n---", 3);
  if (close === -1 || close > MAX_FRONT_MATTER_CHARS) return { fields: {}, body: src, problem: "the front matter has no closing ---" };
  const afterClose = src.indexOf("\n", close + 4);
  const closingLine = src.slice(close + 1, afterClose === -1 ? undefined : afterClose);
  if (closingLine.trim() !== "---") return { fields: {}, body: src, problem: "the front matter has no closing ---" };
  const fields: Record<string, string> = {};
  for (const line of src.slice(4, close).split("\n")) {
    const match = /^([A-Za-z][\w-]*):[ \t]*(.*)$/.exec(line);
    if (!match) continue;
    let value = match[2]!.trim();
    if (value.length >= 2 && ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'")))) value = value.slice(1, -1);
    // Own keys only: a key such as `__proto__` must not reach the object's prototype.
    Object.defineProperty(fields, match[1]!, { value, enumerable: true, writable: true, configurable: true });
  }
  return { fields, body: afterClose === -1 ? "" : src.slice(afterClose + 1).replace(/^\n+/, "") };
}

/** One line for a list: control characters out, whitespace folded, cut at MAX_DESCRIPTION_CHARS. */
export function oneLine(text: string): string {
  const folded = text
    .replace(/[\u0000-\u001f\u007f]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return folded.length > MAX_DESCRIPTION_CHARS ? `${folded.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : folded;
}

export interface PromptTemplate {
  /** The command, without the slash. */
  readonly name: string;
  readonly description: string;
  readonly argumentHint?: string;
  readonly body: string;
  /** Where it came from, for the list: "workspace" or "user". */
  readonly source: "workspace" | "user";
  /** Its file, as the user knows it (`.pi/prompts/review.md`, `~/.pi/agent/prompts/x.md`). */
  readonly file: string;
  /** A front matter that could not be read (the template still works, from its body). */
  readonly problem?: string;
}

/** The command a template file names, or undefined when the file is not a template. */
export function templateName(fileName: string, githubStyle: boolean): string | undefined {
  const suffix = githubStyle ? ".prompt.md" : ".md";
  if (!fileName.endsWith(suffix)) return undefined;
  const name = fileName.slice(0, -suffix.length);
  // A name is typed after "/": no spaces, no control characters, no second slash.
  return /^[\w.-]{1,64}$/.test(name) ? name : undefined;
}

/** A template from its file's text. */
export function parseTemplate(name: string, text: string, source: PromptTemplate["source"], file: string): PromptTemplate {
  const parsed = parseFrontMatter(text);
  const firstLine = parsed.body.split("\n").find((line) => line.trim() !== "") ?? "";
  const description = oneLine(parsed.fields.description ?? "") || oneLine(firstLine);
  const hint = oneLine(parsed.fields["argument-hint"] ?? parsed.fields.arguments ?? "");
  return {
    name,
    description,
    ...(hint ? { argumentHint: hint } : {}),
    body: parsed.body,
    source,
    file,
    ...(parsed.problem ? { problem: parsed.problem } : {}),
  };
}

/**
 * The arguments after the command, split as pi splits them: spaces separate; a quote groups words
 * only at the start of an argument (an apostrophe inside `doesn't` is text); inside quotes, a
 * backslash before that quote keeps it as text; a quote never closed is text, and the rest is
 * split again from just after it.
 */
export function parseArguments(text: string): string[] {
  const args: string[] = [];
  let current = "";
  let started = false;
  let quote: string | undefined;
  let quoteAt = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === "\\" && text[i + 1] === quote) {
        current += quote;
        i++;
      } else if (ch === quote) quote = undefined;
      else current += ch;
    } else if ((ch === '"' || ch === "'") && !started) {
      quote = ch;
      quoteAt = i;
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) args.push(current);
      current = "";
      started = false;
    } else {
      current += ch;
      started = true;
    }
    if (quote && i === text.length - 1) {
      // Never closed: the quote is text, and what followed it is read again as plain words.
      quote = undefined;
      current = text[quoteAt]!;
      i = quoteAt;
    }
  }
  if (started) args.push(current);
  return args;
}

/**
 * The template's body with its placeholders replaced, as pi does, in one pass (an argument holding
 * `$1` stays as typed): `$1`…, `$@` / `$ARGUMENTS` (all, joined by spaces), `${N:-default}` and
 * `${@:-default}` (the default when missing or empty), `${@:N}` and `${@:N:L}` (a slice).
 */
export function expandTemplate(body: string, args: readonly string[]): string {
  const all = args.join(" ");
  return body.replace(
    /\$\{(\d+|ARGUMENTS|@):-([^}]*)\}|\$\{@:(\d+)(?::(\d+))?\}|\$(ARGUMENTS|@|\d+)/g,
    (_match, defaultOf: string | undefined, fallback: string | undefined, from: string | undefined, count: string | undefined, simple: string | undefined) => {
      if (defaultOf !== undefined) {
        const value = defaultOf === "@" || defaultOf === "ARGUMENTS" ? all : args[Number(defaultOf) - 1];
        return value ? value : (fallback ?? "");
      }
      if (from !== undefined) {
        const start = Math.max(0, Number(from) - 1);
        return args.slice(start, count !== undefined ? start + Number(count) : undefined).join(" ");
      }
      if (simple === "@" || simple === "ARGUMENTS") return all;
      return args[Number(simple) - 1] ?? "";
    },
  );
}

/** `/name rest` split, or undefined when the text is not a slash command. */
export function splitSlashCommand(text: string): { name: string; rest: string } | undefined {
  const match = /^\/([\w.:-]+)(?:[ \t]+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  return { name: match[1]!, rest: (match[2] ?? "").trim() };
}

export interface Skill {
  readonly name: string;
  readonly description: string;
  /** SKILL.md as the model can read it: a workspace path, or (a user skill) undefined. */
  readonly path?: string;
  /** Where it is, as the user knows it. */
  readonly file: string;
  readonly source: "workspace" | "user";
}

/** A skill from its SKILL.md, or why it is not one (pi requires a name and a description). */
export function parseSkill(
  folderName: string,
  text: string,
  where: { source: Skill["source"]; file: string; path?: string },
): { ok: true; skill: Skill } | { ok: false; reason: string } {
  const parsed = parseFrontMatter(text);
  if (parsed.problem) return { ok: false, reason: parsed.problem };
  const name = oneLine(parsed.fields.name ?? folderName);
  const description = oneLine(parsed.fields.description ?? "");
  if (!/^[\w.-]{1,64}$/.test(name)) return { ok: false, reason: `the name ${JSON.stringify(name.slice(0, 80))} is not a command name` };
  if (description === "") return { ok: false, reason: "it has no description" };
  return { ok: true, skill: { name, description, file: where.file, source: where.source, ...(where.path !== undefined ? { path: where.path } : {}) } };
}
