// What no allow rule may cover, per program: the words of a command that change which code
// runs, which configuration is read or which folder is used, that name a place outside the
// workspace (`~`, an absolute path, `..`) or a git remote by URL or a refspec with `:` or `+`.
// A command holding one always asks, whatever rule the user made; a rule naming one cannot be saved. The table is tested by class in
// test/unit/permissions/command-rules.test.ts and listed for users in docs/security-commands.md.

/**
 * Programs that run another command given in their arguments (wrappers, shells, interpreters of
 * a command string) and shell words that change the rest of the line: a rule can never name them,
 * because a rule for them would allow every command.
 */
const RUNS_ANOTHER_COMMAND = new Set([
  // wrappers and privilege changers
  "env",
  "sudo",
  "doas",
  "su",
  "runuser",
  "sg",
  "xargs",
  "nohup",
  "time",
  "timeout",
  "nice",
  "ionice",
  "chrt",
  "taskset",
  "setsid",
  "stdbuf",
  "unbuffer",
  "flock",
  "chroot",
  "unshare",
  "nsenter",
  "parallel",
  "watch",
  "entr",
  "strace",
  "ltrace",
  "gdb",
  "lldb",
  "valgrind",
  "script",
  "busybox",
  "ssh",
  "systemd-run",
  "start-stop-daemon",
  "expect",
  // shells
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "mksh",
  "fish",
  "csh",
  "tcsh",
  "pwsh",
  "powershell",
  "cmd",
  "wsl",
  // shell builtins and keywords that run text as code or change what the rest of the line does
  "exec",
  "eval",
  "source",
  ".",
  "command",
  "builtin",
  "trap",
  "alias",
  "export",
  "declare",
  "typeset",
  "readonly",
  "local",
  "set",
  "unset",
  "shopt",
  "enable",
  "hash",
  "cd",
  "pushd",
  "popd",
  "umask",
  "ulimit",
  "coproc",
  "function",
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "for",
  "while",
  "until",
  "do",
  "done",
  "case",
  "esac",
  "select",
  "!",
  "[[",
]);

/**
 * Programs whose first plain argument is the code they run (a script, a package, a program text):
 * a rule must name it, so `node` alone, `npx` alone or `awk` alone is not a rule.
 */
const ARGUMENT_IS_CODE = new Set([
  "node",
  "nodejs",
  "deno",
  "bun",
  "tsx",
  "ts-node",
  "python",
  "python3",
  "python2",
  "py",
  "pypy",
  "pypy3",
  "ruby",
  "perl",
  "php",
  "lua",
  "luajit",
  "Rscript",
  "java",
  "dotnet",
  "osascript",
  "npx",
  "pnpx",
  "bunx",
  "uvx",
  "pipx",
  "awk",
  "gawk",
  "mawk",
  "nawk",
  "sed",
  "gsed",
  "make",
  "gmake",
  "just",
  "rake",
  "cargo",
  "go",
  "uv",
  "poetry",
  "pipenv",
  "docker",
  "podman",
  "kubectl",
  "git",
  "npm",
  "pnpm",
  "yarn",
  "corepack",
  "pip",
  "pip3",
  "gem",
  "bundle",
  "composer",
]);

/** Subcommands whose plain arguments name code to fetch or run: the rule must name them, and nothing plain may be added. */
const SUBCOMMAND_NAMES_CODE: Readonly<Record<string, readonly string[]>> = {
  npm: ["install", "i", "add", "ci", "exec", "x", "run", "run-script", "explore", "init", "create", "rebuild", "link", "update", "up"],
  pnpm: ["install", "i", "add", "exec", "dlx", "run", "create", "rebuild", "link", "update", "up"],
  yarn: ["install", "add", "exec", "dlx", "run", "create", "link", "up", "upgrade"],
  bun: ["install", "i", "add", "x", "run", "create", "link", "update"],
  pip: ["install", "download"],
  pip3: ["install", "download"],
  pipx: ["run", "install"],
  uv: ["run", "pip", "tool", "add"],
  cargo: ["install", "run", "add"],
  go: ["run", "install", "get", "generate"],
  gem: ["install"],
  git: ["bisect", "submodule", "filter-branch", "filter-repo", "config"],
  docker: ["run", "exec", "build", "compose"],
  podman: ["run", "exec", "build"],
  kubectl: ["exec", "run", "apply", "debug"],
};

/** Long options that always ask, for every program: code loaded, configuration read, folder used. */
const ALWAYS_ASK_LONG = [
  "require",
  "import",
  "loader",
  "experimental-loader",
  "preload",
  "eval",
  "print",
  "exec",
  "execdir",
  "exec-path",
  "node-options",
  "script-shell",
  "shell",
  "call",
  "prefix",
  "userconfig",
  "globalconfig",
  "config",
  "config-file",
  "configfile",
  "config-env",
  "rc",
  "rcfile",
  "init-file",
  "env-file",
  "env-file-if-exists",
  "cwd",
  "dir",
  "directory",
  "chdir",
  "root",
  "rootdir",
  "git-dir",
  "work-tree",
  "upload-pack",
  "receive-pack",
  "extcmd",
  "open-files-in-pager",
  "workspace",
  "workspaces",
  "registry",
  "package",
  "manifest-path",
  "project",
  "setup-files",
  "setupfiles",
  "file",
  "makefile",
  "include-dir",
  "to-command",
  "checkpoint-action",
  "use-compress-program",
  "rsh",
  "rsh-command",
  "rsync-path",
  "info-script",
  "new-volume-script",
  "toolexec",
  "modfile",
  "overlay",
  "inspect",
  "inspect-brk",
  "inspect-wait",
  "expression",
  "source",
  "plugin",
  "plugins",
  "rulesdir",
  "resolve-plugins-relative-to",
  "ignore-path",
];

/** npm -C/-w/-g (folder), -c (a command), -p (a package), and the test runners' -r/-c/-e after them. */
const PACKAGE_RUNNER_LETTERS = "Cwcpgre";

/** Short options that always ask, per program (also glued: `-cCODE`, and inside a group: `-Bc`). */
const ALWAYS_ASK_SHORT: Readonly<Record<string, string>> = {
  node: "eprC",
  nodejs: "eprC",
  deno: "",
  bun: PACKAGE_RUNNER_LETTERS,
  tsx: "epr",
  "ts-node": "eprP",
  // Package managers pass the rest to a script's runner (mocha -r, jest -c, vitest -r): its letters count too.
  npm: PACKAGE_RUNNER_LETTERS,
  pnpm: PACKAGE_RUNNER_LETTERS,
  yarn: PACKAGE_RUNNER_LETTERS,
  npx: PACKAGE_RUNNER_LETTERS,
  pnpx: PACKAGE_RUNNER_LETTERS,
  bunx: PACKAGE_RUNNER_LETTERS,
  corepack: PACKAGE_RUNNER_LETTERS,
  git: "cCxO",
  python: "cmWX",
  python3: "cmWX",
  python2: "cmWX",
  py: "cmWX",
  pypy: "cm",
  pypy3: "cm",
  ruby: "erICx",
  perl: "eEMmIx",
  php: "rdcB",
  lua: "el",
  make: "CfIE",
  gmake: "CfIE",
  cargo: "CZ",
  go: "C",
  tar: "CIFT",
  rsync: "e",
  sed: "efi",
  gsed: "efi",
  awk: "fe",
  gawk: "fe",
  mawk: "f",
  nawk: "f",
  mocha: "rc",
  jest: "c",
  vitest: "cr",
  eslint: "c",
  tsc: "p",
  webpack: "c",
  vite: "c",
  rollup: "c",
  esbuild: "",
  pytest: "cpo",
  tox: "c",
  find: "",
  zip: "T",
  curl: "KoO",
  wget: "eO",
};

/** Words that always ask wherever they stand (single-dash long options and actions). */
const ALWAYS_ASK_WORDS: Readonly<Record<string, readonly string[]>> = {
  find: ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"],
  zip: ["-TT", "--unzip-command"],
};

/** `node`, `./node_modules/.bin/mocha`, `npm.cmd` → the program's name for the tables. */
export function programName(word: string): string {
  const base = word.slice(Math.max(word.lastIndexOf("/"), word.lastIndexOf("\\")) + 1);
  const name = base.replace(/\.(exe|cmd|bat|ps1)$/i, "");
  // python3.12, pip3.11: their version does not change what they are.
  return /^(python|pip|pypy)[0-9.]+$/.test(name) ? name.replace(/[0-9.]+$/, (v) => (v.startsWith("3") ? "3" : "")) : name;
}

/** `NAME=value`: a variable assignment (before a command it sets the command's environment). */
export function isAssignment(word: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(word);
}

/** Why this option word always asks for `program`, or undefined. */
function optionAlwaysAsks(program: string, word: string): string | undefined {
  if (ALWAYS_ASK_WORDS[program]?.includes(word)) return `${program} ${word} runs a program or changes files`;
  if (word.startsWith("--") && word.length > 2) {
    // Normalised as the parsers read it: npm, git and getopt accept `_` for `-`, any case for npm, and unambiguous abbreviations.
    const name = word.slice(2).split("=")[0]!.toLowerCase().replace(/_/g, "-");
    if (name.startsWith("no-")) return undefined;
    const hit = ALWAYS_ASK_LONG.find((long) => long === name || (name.length >= 2 && long.startsWith(name)));
    return hit === undefined ? undefined : `--${hit} changes which code runs, which configuration is read or which folder is used`;
  }
  if (word.startsWith("-") && !word.startsWith("--") && word.length > 1) {
    const letters = ALWAYS_ASK_SHORT[program];
    if (!letters) return undefined;
    const cluster = word.slice(1);
    const hit = [...cluster].find((c) => letters.includes(c));
    return hit === undefined ? undefined : `${program} -${hit} changes which code runs, which configuration is read or which folder is used`;
  }
  return undefined;
}

/**
 * Why no rule may allow this simple command (its words after unquoting), or undefined. `literal`
 * says per word whether its text is what runs (no `$`, glob or brace expansion in it).
 */
export function alwaysAsks(words: readonly string[], literal: readonly boolean[]): string | undefined {
  const first = words[0];
  if (first === undefined) return "it is empty";
  if (isAssignment(first)) return `it sets ${first.split("=")[0]} for the command (environment assignments always ask)`;
  const program = programName(first);
  if (RUNS_ANOTHER_COMMAND.has(program)) return `${program} runs another command or changes the rest of the line`;
  for (let i = 0; i < words.length; i++) {
    if (!literal[i]) return `"${words[i]}" expands ($, *, ?, [ or {) to words no rule can see`;
    const why = optionAlwaysAsks(program, words[i]!);
    if (why) return why;
  }
  for (const word of words) {
    const outside = outsideWorkspace(word);
    if (outside) return outside;
  }
  if (program === "git") return gitAlwaysAsks(words);
  return undefined;
}

/** Absolute paths that name no file of anyone's: an argument may name them. */
const HARMLESS_ABSOLUTE = new Set(["/dev/null"]);

/**
 * What a word may name as a path: the word itself, an option's value (`--out=x`, `-Ix`), the
 * value of `NAME=value`, and each of those after `@` (curl's `@file`).
 */
export function pathsInWord(word: string): string[] {
  const candidates = [word];
  const eq = word.indexOf("=");
  if (eq >= 0) candidates.push(word.slice(eq + 1));
  if (/^-[A-Za-z][^=]/.test(word)) candidates.push(word.slice(2));
  for (const c of [...candidates]) if (c.startsWith("@")) candidates.push(c.slice(1));
  return candidates;
}

/**
 * Why a word names a place outside the workspace, or undefined: a home folder (`~`), an
 * absolute path, a way up (`..`) or a `file:` URL; as the word, as an option's value
 * (`--out=/tmp/x`, `-I/usr`), as the value of `NAME=value`, or after `@` (curl's `@file`). A rule cannot know where a
 * path like that leads when it runs, so it always asks (absolute paths inside the workspace too).
 */
export function outsideWorkspace(word: string): string | undefined {
  for (const c of pathsInWord(word)) {
    if (c.startsWith("~")) return `"${word}" names a file in a home folder (~)`;
    if (c.startsWith("/") && !HARMLESS_ABSOLUTE.has(c)) return `"${word}" is an absolute path: it may be outside the workspace`;
    if (/(^|\/)\.\.(\/|$)/.test(c)) return `"${word}" goes up a folder (..): it may be outside the workspace`;
    if (/^file:/i.test(c)) return `"${word}" is a file: URL`;
  }
  return undefined;
}

/** git subcommands that name a remote or send to one: a URL there, a `host:path`, or a refspec with `:` or `+` always asks. */
const GIT_REMOTE_SUBCOMMANDS = new Set(["push", "fetch", "pull", "ls-remote", "clone", "remote", "archive", "request-pull", "send-email"]);

/** What always asks in a git command beyond its options: commands it runs, other remotes, refspecs with `:` or `+`. */
function gitAlwaysAsks(words: readonly string[]): string | undefined {
  const at = words.findIndex((w, i) => i > 0 && !w.startsWith("-"));
  const sub = at === -1 ? undefined : words[at];
  if (sub === "submodule" && words.includes("foreach")) return "git submodule foreach runs a command";
  if (sub === "bisect" && words[at + 1] === "run") return "git bisect run runs a command";
  if (sub === undefined || !GIT_REMOTE_SUBCOMMANDS.has(sub)) return undefined;
  for (const word of words.slice(at + 1)) {
    if (word.includes(":")) return `git ${sub} "${word}": a remote given by URL or host, or a refspec with ":", always asks`;
    if (word.startsWith("+")) return `git ${sub} "${word}": a forced refspec (+) always asks`;
  }
  return undefined;
}

/** A plain argument: a name, not an option, not `+force`, not an assignment (what a rule names before a `*`). */
export function isPlainArgument(word: string): boolean {
  return !word.startsWith("-") && !word.startsWith("+") && !isAssignment(word);
}

/**
 * What a rule for `words` must name: `minWords` leading words (the program, and what it runs
 * when its first argument is code: `node build.mjs`, `git status`, `npm test`); and, when the
 * rule has a `*`, from which word on a plain word must come before it (`npm run build *`, not
 * `npm run *`; `git log *`, not `git *`), 0 when the program alone will do (`pytest *`).
 */
export function ruleNeeds(words: readonly string[]): { minWords: number; nameBeforeWildcard: number } {
  const program = programName(words[0] ?? "");
  const sub = words[1];
  if (sub !== undefined && SUBCOMMAND_NAMES_CODE[program]?.includes(sub)) return { minWords: 2, nameBeforeWildcard: 2 };
  return ARGUMENT_IS_CODE.has(program) ? { minWords: 2, nameBeforeWildcard: 1 } : { minWords: 1, nameBeforeWildcard: 0 };
}
