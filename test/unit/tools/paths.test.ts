import assert from "node:assert/strict";
import { join } from "node:path";
import { checkRealPath, createNodeWorkspaceFs, resolveWorkspacePath } from "../../../src/core/tools";
import { makeSandbox, rejection, SECRET, type Sandbox } from "./helpers";

function ok(root: string | undefined, input: string): string {
  const result = resolveWorkspacePath(root, input);
  assert.ok(result.ok, `${JSON.stringify(input)} refused: ${result.ok ? "" : result.error}`);
  return result.path;
}

function refused(root: string | undefined, input: string): string {
  const result = resolveWorkspacePath(root, input);
  assert.ok(!result.ok, `${JSON.stringify(input)} accepted as ${result.ok ? result.path : ""}`);
  return result.error;
}

describe("resolveWorkspacePath (POSIX root)", () => {
  const root = "/home/me/project";

  it("normalizes relative paths to workspace-relative POSIX", () => {
    assert.equal(ok(root, "src/index.ts"), "src/index.ts");
    assert.equal(ok(root, "./src//index.ts/"), "src/index.ts");
    assert.equal(ok(root, "src/../lib/./a.ts"), "lib/a.ts");
    assert.equal(ok(root, "."), ".");
    assert.equal(ok(root, "./"), ".");
    assert.equal(ok(root, "a/.."), ".");
    assert.equal(ok(root, "./~name"), "~name");
    assert.equal(ok(root, "%2e%2e/x"), "%2e%2e/x"); // never decoded
    assert.equal(ok(root, "..."), "...");
    assert.equal(ok(root, "with space.txt"), "with space.txt");
    assert.equal(ok(root, "ünïcode/文件.ts"), "ünïcode/文件.ts");
  });

  it("makes absolute paths inside the root relative", () => {
    assert.equal(ok(root, "/home/me/project/src/a.ts"), "src/a.ts");
    assert.equal(ok(root, "/home/me/project"), ".");
    assert.equal(ok(root, "/home/me/project/"), ".");
    assert.equal(ok("/home/me/project/", "/home/me/project/a"), "a");
    assert.equal(ok(root, "/home/me/other/../project/a"), "a");
  });

  it("refuses absolute paths outside the root, and all absolute paths without a root", () => {
    assert.match(refused(root, "/home/me/project-evil/a"), /outside the workspace/);
    assert.match(refused(root, "/home/me/project/../x"), /outside the workspace/);
    assert.match(refused(root, "/home/me"), /outside the workspace/);
    assert.match(refused(root, "/Home/me/project/a"), /outside the workspace/); // POSIX is case-sensitive
    assert.match(refused(undefined, "/home/me/project/a"), /absolute paths are not accepted/);
  });

  it("refuses climbing, home, URLs, colons, backslashes and odd characters", () => {
    for (const input of [
      "..",
      "../x",
      "a/../../x",
      "~",
      "~/x",
      "~user/x",
      "file:x",
      "file:///x",
      "http://h/x",
      "C:/x",
      "c:x",
      "a:b",
      "x\\y",
      "\\\\srv\\share",
      "a\0b",
      "a\nb",
      "a\u0085b",
      "a\u200bb",
      "a\u202eb",
      "",
    ]) {
      refused(root, input);
    }
    refused(root, "a".repeat(5000));
  });

  it("refuses format and other invisible characters (U+2028, U+00AD, U+2060 and the like)", () => {
    const invisible = [
      "\u00ad", // soft hyphen
      "\u2028", // line separator
      "\u2029", // paragraph separator
      "\u2060", // word joiner
      "\u2061", // function application
      "\u2064", // invisible plus
      "\u180e", // Mongolian vowel separator
      "\u061c", // Arabic letter mark
      "\u200d", // zero-width joiner
      "\u206a", // inhibit symmetric swapping
      "\ufff9", // interlinear annotation anchor
      "\u034f", // combining grapheme joiner
      "\u115f", // Hangul choseong filler
      "\u3164", // Hangul filler
      "\ufe0f", // variation selector 16
      "\u{e0041}", // tag letter A
      "\u{e0001}", // language tag
      "\u{1d173}", // musical symbol begin beam
    ];
    for (const char of invisible) {
      const code = char.codePointAt(0)!.toString(16);
      assert.match(refused(root, `src/con${char}fig.ts`), /invisible/, `U+${code} inside a name`);
      refused(root, `${char}/config.ts`);
      refused(root, `src/config.ts${char}`);
    }
    // Visible non-ASCII letters and spaces stay allowed (macOS names screenshots with U+202F).
    assert.equal(ok(root, "Screenshot 2024-01-01 at 10.00.00\u202fAM.png"), "Screenshot 2024-01-01 at 10.00.00\u202fAM.png");
    assert.equal(ok(root, "café/naïve.ts"), "café/naïve.ts");
    assert.equal(ok(root, "日本語/ファイル.ts"), "日本語/ファイル.ts");
  });

  it("quotes the input in the error so control characters stay visible", () => {
    assert.equal(refused(root, "a\nb"), 'Invalid path "a\\nb": the path contains control characters (such as a newline or tab).');
  });
});

describe("resolveWorkspacePath (Windows root)", () => {
  const root = "C:\\Users\\me\\project";

  it("accepts backslashes and absolute paths inside the root, case-insensitively", () => {
    assert.equal(ok(root, "src\\index.ts"), "src/index.ts");
    assert.equal(ok(root, "C:\\Users\\me\\project\\src\\a.ts"), "src/a.ts");
    assert.equal(ok(root, "c:/users/ME/Project/src/a.ts"), "src/a.ts");
    assert.equal(ok("C:\\Users\\me\\project\\", "C:\\Users\\me\\project"), ".");
  });

  it("refuses other drives, UNC, device paths, drive-relative paths, streams and reserved names", () => {
    for (const input of [
      "D:\\Users\\me\\project\\a",
      "C:\\Users\\me\\project-evil\\a",
      "C:\\Users\\me\\project\\..\\x",
      "..\\x",
      "src\\..\\..\\x",
      "\\\\server\\share\\x",
      "//server/share/x",
      "\\\\?\\C:\\x",
      "\\\\.\\PhysicalDrive0",
      "\\x",
      "/x",
      "C:x",
      "a.txt:secret",
      "CON",
      "src/nul.txt",
      "COM1",
      "secret.txt.",
      "secret.txt ",
      ".. ",
    ]) {
      refused(root, input);
    }
  });
});

describe("createNodeWorkspaceFs", () => {
  let s: Sandbox;
  beforeEach(() => {
    s = makeSandbox();
    s.write("a.txt", "a\n");
  });
  afterEach(() => s.cleanup());

  it("reports real paths inside and outside", async () => {
    const fs = createNodeWorkspaceFs(s.ws);
    s.link("in", "a.txt");
    s.link("out", join(s.outside, "secret.txt"));
    assert.deepEqual(await fs.realPath("a.txt"), { inside: true, path: "a.txt" });
    assert.deepEqual(await fs.realPath("in"), { inside: true, path: "a.txt" });
    assert.deepEqual(await fs.realPath("."), { inside: true, path: "." });
    assert.deepEqual(await fs.realPath("missing/dir/file"), { inside: true, path: "missing/dir/file" });
    assert.deepEqual(await fs.realPath("out"), { inside: false });
    assert.deepEqual(await checkRealPath(fs, "in"), { ok: true, path: "a.txt" });
    assert.equal((await checkRealPath(fs, "out")).ok, false);
  });

  it("works when the root itself is reached through a symlink", async () => {
    const alias = join(s.base, "alias");
    const { symlinkSync } = await import("node:fs");
    symlinkSync(s.ws, alias);
    const fs = createNodeWorkspaceFs(alias);
    assert.deepEqual(await fs.realPath("a.txt"), { inside: true, path: "a.txt" });
    assert.equal(new TextDecoder().decode(await fs.readFile("a.txt")), "a\n");
  });

  it("refuses on its own (without the tools' checks) to leave the root", async () => {
    const fs = createNodeWorkspaceFs(s.ws);
    s.link("out", join(s.outside, "secret.txt"));
    s.link("outdir", s.outside);
    for (const path of ["out", "outdir/secret.txt", "../outside/secret.txt", "/etc/passwd", "a/../../x", "", "a\0"]) {
      const error = await rejection(() => fs.readFile(path));
      assert.ok(!error.message.includes(SECRET));
      await rejection(() => fs.writeFile(path, new Uint8Array([1])));
      await rejection(() => fs.stat(path));
    }
  });

  it("stats files, directories and missing paths", async () => {
    const fs = createNodeWorkspaceFs(s.ws);
    assert.deepEqual(await fs.stat("a.txt"), { type: "file", size: 2, hardLinks: 1 });
    assert.equal((await fs.stat("."))?.type, "directory");
    assert.equal(await fs.stat("nope"), undefined);
    assert.equal(await fs.stat("a.txt/below"), undefined);
  });
});
