// Which workspace files an edit may not simply change: pure decisions on a workspace-relative
// POSIX path (as the path guard in tools/paths.ts returns it), no I/O.
//
//   refused    anything inside a `.git` folder (or the `.git` file of a worktree): one line in
//              .git/config or a hook runs a command on the next `git status`. Never asked, never written.
//   protected  files that make tools run commands or hold settings (the configurable list below):
//              always asked, whatever the approval mode, "Allow edits for this chat" or trust.
//   secret     files that hold keys and tokens (SECRET_FILES: `.env*`, private keys, registry and
//              cloud credentials): also protected, their diffs are never shown or saved, and a
//              checkpoint never keeps their content (src/core/checkpoints).
import picomatch from "picomatch";
import { secretDiffSummary as secretChangeSummary } from "../../shared/structured-diff";

/**
 * The default of `piChat.protectedFiles`: globs (picomatch syntax, matched case-insensitively,
 * dot files included) of files whose content makes an editor, a package manager, git or CI run
 * commands, or that hold secrets. `**\/` in front: the same file in a sub-folder (a nested
 * package, a second workspace folder) is just as dangerous.
 */
export const DEFAULT_PROTECTED_FILES: readonly string[] = [
  "**/.vscode/**", // settings.json (terminal profiles, formatters), tasks.json, launch.json run commands
  "**/*.code-workspace", // workspace settings and tasks, like .vscode/
  "**/.github/workflows/**", // CI jobs run with the repository's secrets
  "**/.github/actions/**",
  "**/package.json", // npm scripts run on install, test, build
  "**/.npmrc", // registry, auth tokens, script-shell
  "**/.yarnrc",
  "**/.yarnrc.yml",
  "**/.pnpmfile.cjs",
  "**/.env*", // secrets; also .envrc, which direnv runs
  "**/.gitattributes", // filter and diff drivers run commands
  "**/.gitmodules", // submodule URLs and update commands
  "**/.gitconfig",
  "**/.husky/**", // git hooks
  "**/.pre-commit-config.yaml",
  "**/lefthook.yml",
  "**/.lefthook.yml",
  "**/.devcontainer/**", // commands run when the container is built or opened
];

/**
 * Files that hold secrets, by their name (case-insensitive): their diffs are shown and saved only
 * as "secret file: N lines changed", an edit always asks, and a checkpoint never copies their
 * content (a copy in storage would outlive the key's rotation). `label` is what the user is shown.
 */
export const SECRET_FILES: readonly { readonly label: string; readonly name: RegExp; readonly why: string }[] = [
  { label: ".env*", name: /^\.env/i, why: "environment files hold API keys and passwords (also .envrc, which direnv runs)" },
  { label: "id_rsa", name: /^id_(rsa|dsa|ecdsa|ed25519)(_sk)?$/i, why: "SSH private keys" },
  { label: "*.pem, *.key", name: /\.(pem|key)$/i, why: "TLS and signing private keys" },
  { label: "*.p12, *.pfx, *.jks, *.keystore", name: /\.(p12|pfx|jks|keystore)$/i, why: "key stores" },
  { label: ".npmrc", name: /^\.npmrc$/i, why: "registry auth tokens" },
  { label: ".pypirc, .netrc, .git-credentials", name: /^(\.pypirc|[._]netrc|\.git-credentials)$/i, why: "registry and git passwords" },
  { label: "credentials", name: /^credentials(\.[a-z]+)?$/i, why: "cloud CLI credentials (.aws/credentials, credentials.json)" },
  { label: ".htpasswd", name: /^\.htpasswd$/i, why: "password hashes" },
  { label: "secrets.*", name: /^secrets?\.(json|ya?ml|toml|env)$/i, why: "files named for secrets" },
];

export type PathClass = { kind: "refused"; reason: string } | { kind: "protected"; pattern: string; secret: boolean; reason: string } | { kind: "normal" };

/** A compiled list of protected globs; build once per settings change, match many times. */
export interface ProtectedFiles {
  readonly patterns: readonly string[];
  /** The first pattern that matches `path`, if any. */
  match(path: string): string | undefined;
}

export function compileProtectedFiles(patterns: readonly string[]): ProtectedFiles {
  const usable = patterns.filter((p) => typeof p === "string" && p.trim() !== "").map((p) => p.trim());
  const matchers = usable.map((pattern) => ({ pattern, test: picomatch(pattern, { dot: true, nocase: true }) }));
  return {
    patterns: usable,
    match: (path) => matchers.find((m) => m.test(path))?.pattern,
  };
}

/** True for a path inside a `.git` folder at any depth, or a `.git` file. Case-insensitive (macOS, Windows). */
export function isInsideGitDir(path: string): boolean {
  return path.split("/").some((segment) => segment.toLowerCase() === ".git");
}

/** The SECRET_FILES entry `path`'s name matches, if any. */
export function secretFileKind(path: string): (typeof SECRET_FILES)[number] | undefined {
  const base = path.split("/").pop() ?? "";
  return SECRET_FILES.find((s) => s.name.test(base));
}

export function isSecretFile(path: string): boolean {
  return secretFileKind(path) !== undefined;
}

/**
 * Classifies the file an edit would write. `paths` are every name it goes by (the path the model
 * gave, and where symlinks lead): the strictest class of any of them wins, so a link to
 * `.git/config` is refused like `.git/config` itself.
 */
export function classifyEditPath(paths: readonly string[], protectedFiles: ProtectedFiles): PathClass {
  const gitPath = paths.find(isInsideGitDir);
  if (gitPath !== undefined) {
    return {
      kind: "refused",
      reason: `${gitPath} is inside a .git folder. Pi Chat never edits git's own files (its config and hooks run commands); change the working files instead, or ask the user to make this change themselves.`,
    };
  }
  for (const path of paths) {
    const kind = secretFileKind(path);
    const secret = kind !== undefined;
    const pattern = protectedFiles.match(path) ?? kind?.label;
    if (pattern !== undefined) return { kind: "protected", pattern, secret, reason: protectionReason(path, pattern, secret) };
  }
  return { kind: "normal" };
}

function protectionReason(path: string, pattern: string, secret: boolean): string {
  const what = secret
    ? "it can hold secrets, so its changes are not shown here or saved in the chat"
    : "files like it can make VS Code, git, a package manager or CI run commands";
  return `${path} is a protected file (${pattern}): ${what}. Protected files are always asked about, even with “Allow edits for this chat” or automatic approval.`;
}

/** What the transcript keeps instead of a secret file's diff (the view draws the same words from the count). */
export function secretDiffSummary(additions: number, deletions: number): string {
  return secretChangeSummary(Math.max(additions, deletions));
}
