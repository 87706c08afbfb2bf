// Which files an edit may not simply change: every default of the issue, the `.git` folder in
// its disguises, and the look-alikes that must stay ordinary files.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { classifyEditPath, compileProtectedFiles, DEFAULT_PROTECTED_FILES, isSecretFile, secretDiffSummary } from "../../../src/core/permissions";

const defaults = compileProtectedFiles(DEFAULT_PROTECTED_FILES);
const classify = (path: string) => classifyEditPath([path], defaults);

describe("protected paths", () => {
  const refused = [
    ".git/config",
    ".git/hooks/pre-commit",
    ".git",
    "sub/module/.git/config",
    ".GIT/config",
    ".Git/hooks/post-checkout",
    "vendor/lib/.git/info/attributes",
  ];
  for (const path of refused) {
    it(`refuses ${path}`, () => {
      const c = classify(path);
      assert.equal(c.kind, "refused");
      assert.match(c.kind === "refused" ? c.reason : "", /\.git folder/);
    });
  }

  const protectedPaths = [
    ".vscode/settings.json",
    ".vscode/tasks.json",
    ".vscode/launch.json",
    ".VSCode/Settings.json",
    "packages/app/.vscode/settings.json",
    ".github/workflows/ci.yml",
    ".github/actions/setup/action.yml",
    "package.json",
    "packages/web/package.json",
    ".yarnrc.yml",
    ".pnpmfile.cjs",
    "project.code-workspace",
    "ws/team.code-workspace",
    ".gitattributes",
    ".gitmodules",
    ".husky/pre-commit",
    ".devcontainer/devcontainer.json",
    ".pre-commit-config.yaml",
    "lefthook.yml",
  ];
  for (const path of protectedPaths) {
    it(`protects ${path}, and says why`, () => {
      const c = classify(path);
      assert.equal(c.kind, "protected");
      if (c.kind !== "protected") return;
      assert.equal(c.secret, false);
      assert.ok(c.reason.includes(path), "the reason names the file");
      assert.match(c.reason, /run commands/);
      assert.match(c.reason, /always asked/);
    });
  }

  for (const path of [
    ".env",
    ".envrc",
    ".env.local",
    ".ENV.production",
    "services/api/.env.test",
    "tools/.npmrc",
    "deploy/id_rsa",
    "certs/server.pem",
    "certs/server.key",
    ".aws/credentials",
    "gcp/credentials.json",
    ".git-credentials",
  ]) {
    it(`treats ${path} as a secret protected file`, () => {
      const c = classify(path);
      assert.equal(c.kind, "protected");
      assert.equal(c.kind === "protected" && c.secret, true);
      assert.match(c.kind === "protected" ? c.reason : "", /secrets/);
    });
  }

  for (const path of [
    "src/config.ts",
    ".gitignore",
    "docs/.github.md",
    "my.vscode/notes.md",
    ".github/ISSUE_TEMPLATE/bug.md",
    "package.json.bak",
    "deploy/id_rsa.pub",
    "src/keys.ts",
    "src/environment.ts",
    "git/config",
    ".gitkeep",
  ]) {
    it(`leaves ${path} an ordinary file`, () => {
      assert.deepEqual(classify(path), { kind: "normal" });
    });
  }

  it("takes the strictest name: a link to .git/config is refused, a link to .vscode/tasks.json protected", () => {
    assert.equal(classifyEditPath(["notes.txt", ".git/config"], defaults).kind, "refused");
    assert.equal(classifyEditPath(["tasks-link.json", ".vscode/tasks.json"], defaults).kind, "protected");
  });

  it("a user's own list replaces the defaults, but .env files stay protected and .git stays refused", () => {
    const mine = compileProtectedFiles(["deploy/**", "  ", "Makefile"]);
    assert.equal(classifyEditPath(["deploy/run.sh"], mine).kind, "protected");
    assert.equal(classifyEditPath(["makefile"], mine).kind, "protected");
    assert.equal(classifyEditPath(["package.json"], mine).kind, "normal");
    const env = classifyEditPath([".env"], mine);
    assert.equal(env.kind === "protected" && env.secret, true);
    assert.equal(classifyEditPath([".git/config"], compileProtectedFiles([])).kind, "refused");
  });

  it("the defaults declared in package.json are the ones the code uses", () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, "../../../../package.json"), "utf8")) as {
      contributes: { configuration: { properties: Record<string, { default?: unknown; scope?: string }> }[] };
    };
    const setting = manifest.contributes.configuration.find((group) => group.properties["piChat.protectedFiles"])?.properties["piChat.protectedFiles"];
    assert.deepEqual(setting?.default, [...DEFAULT_PROTECTED_FILES]);
  });

  it("summarises a secret diff by its count of changed lines", () => {
    assert.equal(secretDiffSummary(1, 1), "secret file: 1 line changed");
    assert.equal(secretDiffSummary(3, 0), "secret file: 3 lines changed");
    assert.equal(isSecretFile("a/.env.local"), true);
    assert.equal(isSecretFile("a/env.ts"), false);
  });
});
