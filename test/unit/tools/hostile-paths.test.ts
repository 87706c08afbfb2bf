// Paths a model (or a prompt injection) might use to reach outside the workspace. Both tools must
// refuse every one, without reading (the secret never shows) or writing (the tree is unchanged).
import assert from "node:assert/strict";
import { existsSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { createEditFileTool, createNodeWorkspaceFs, createReadFileTool } from "../../../src/core/tools";
import { makeSandbox, rejection, SECRET, snapshotTree, textOf, type Sandbox } from "./helpers";

function hostilePaths(s: Sandbox): string[] {
  return [
    "../outside/secret.txt",
    "../../etc/passwd",
    "/etc/passwd",
    join(s.outside, "secret.txt"),
    join(s.evil, "secret.txt"), // shares the workspace's name as a string prefix
    `${s.ws}-evil/secret.txt`,
    `${s.ws}/../outside/secret.txt`, // starts inside, climbs out
    join(s.base, "secret.txt"),
    s.base,
    "/",
    "~/x",
    "~",
    "~root/.ssh/id_rsa",
    "secret.txt\0",
    "inside.txt\0../../outside/secret.txt",
    "C:\\x",
    "C:/Windows/win.ini",
    "c:secret.txt",
    "\\\\server\\share\\x",
    "//server/share/x",
    "\\\\?\\C:\\x",
    "..\\outside\\secret.txt",
    "sub\\..\\..\\outside\\secret.txt",
    "a/../../outside/secret.txt",
    "./../outside/secret.txt",
    "sub/./../../outside/secret.txt",
    "..",
    "../",
    "file:///etc/passwd",
    `file://${join(s.outside, "secret.txt")}`,
    "file:../outside/secret.txt",
    "https://example.com/secret.txt",
    "vscode-remote://ssh-remote+host/etc/passwd",
    "link-file", // symlink to the outside file
    "rel-link", // relative symlink ../outside/secret.txt
    "link-dir/secret.txt", // symlinked directory
    "link-dir",
    "sub/deep/secret.txt", // symlinked directory component deeper down
    "link-root/etc/passwd",
    "link-up/outside/secret.txt",
    "chain1", // link -> link -> outside
    "sub/via-link", // link whose target goes through another link
    "dangling", // dangling link to a file outside (a write would create it)
    "dangling-dir/new.txt",
    "loop1", // symlink loop
    "../".repeat(60) + "etc/passwd",
    "a/" + "../".repeat(300) + "outside/secret.txt",
    "x/".repeat(3000) + "secret.txt", // over the length limit
    "%2e%2e/outside/secret.txt", // percent-encoding is literal: a missing "%2e%2e" directory
    "%2e%2e%2foutside%2fsecret.txt",
    "..%2foutside%2fsecret.txt",
    "inside.txt\n../outside/secret.txt",
    "\t../outside/secret.txt",
    "\u202e../outside/secret.txt",
    "inside.txt:stream",
    "",
  ];
}

describe("hostile paths", () => {
  let s: Sandbox;
  let snapshot: Map<string, string>;

  before(() => {
    s = makeSandbox();
    s.write("inside.txt", "inside\n");
    s.write("sub/ok.txt", "ok\n");
    s.link("link-file", join(s.outside, "secret.txt"));
    s.link("rel-link", "../outside/secret.txt");
    s.link("link-dir", s.outside);
    s.link("sub/deep", "../../outside");
    s.link("link-root", "/");
    s.link("link-up", "..");
    s.link("chain2", join(s.outside, "secret.txt"));
    s.link("chain1", "chain2");
    s.link("sub/via-link", "../link-dir/secret.txt");
    s.link("dangling", join(s.outside, "created-by-attack.txt"));
    s.link("dangling-dir", join(s.outside, "new-dir"));
    s.link("loop1", "loop2");
    s.link("loop2", "loop1");
    snapshot = snapshotTree(s.base);
  });
  after(() => s.cleanup());

  it("lists at least 30 hostile paths", () => {
    assert.ok(hostilePaths(s).length >= 30);
  });

  it("read_file refuses every one and never returns the secret", async () => {
    for (const root of [s.ws, undefined]) {
      const tool = createReadFileTool(createNodeWorkspaceFs(s.ws), { root });
      for (const path of hostilePaths(s)) {
        let text: string;
        try {
          text = textOf(await tool.execute("call", { path }));
        } catch (error) {
          assert.ok(error instanceof Error);
          assert.ok(!error.message.includes(SECRET), `error for ${JSON.stringify(path)} leaks the secret`);
          continue;
        }
        assert.fail(`read_file accepted ${JSON.stringify(path)} (root ${String(root)}): ${text.slice(0, 80)}`);
      }
    }
    assert.deepEqual(snapshotTree(s.base), snapshot);
  });

  it("edit_file refuses every one and writes nothing anywhere", async () => {
    const proposals = new Map();
    const tool = createEditFileTool(createNodeWorkspaceFs(s.ws), { root: s.ws, proposals });
    for (const path of hostilePaths(s)) {
      const error = await rejection(() => tool.execute("call", { path, oldText: SECRET, newText: "PWNED" }));
      assert.ok(!error.message.includes(SECRET), `error for ${JSON.stringify(path)} leaks the secret`);
    }
    assert.deepEqual(snapshotTree(s.base), snapshot);
    assert.equal(existsSync(join(s.outside, "created-by-attack.txt")), false);
    assert.equal(existsSync(join(s.outside, "new-dir")), false);
  });

  it("refuses with a readable reason rather than a crash", async () => {
    const tool = createReadFileTool(createNodeWorkspaceFs(s.ws), { root: s.ws });
    const cases: [string, RegExp][] = [
      ["../outside/secret.txt", /climbs out of the workspace/],
      ["/etc/passwd", /outside the workspace/],
      ["link-file", /symbolic link/],
      ["link-dir/secret.txt", /symbolic link/],
      ["dangling", /symbolic link/],
      ["~/x", /home directory/],
      ["C:\\x", /backslash/],
      ["c:secret.txt", /":"/],
      ["file:///etc/passwd", /URL/],
      ["a\0b", /NUL/],
      ["", /empty/],
      ["%2e%2e/outside/secret.txt", /^File not found: %2e%2e\/outside\/secret.txt$/],
      ["loop1", /could not be resolved/],
    ];
    for (const [path, pattern] of cases) {
      const error = await rejection(() => tool.execute("call", { path }));
      assert.match(error.message, pattern, `for ${JSON.stringify(path)}`);
    }
  });

  it("still allows what is inside, including links that stay inside", async () => {
    s.link("inner-link", "inside.txt");
    s.link("sub/up-link", "../inside.txt");
    try {
      const tool = createReadFileTool(createNodeWorkspaceFs(s.ws), { root: s.ws });
      for (const path of ["inside.txt", "./inside.txt", "sub/../inside.txt", join(s.ws, "inside.txt"), "inner-link", "sub/up-link", "link-up/ws/inside.txt"]) {
        assert.equal(textOf(await tool.execute("call", { path })), "inside", path);
      }
    } finally {
      unlinkSync(join(s.ws, "inner-link"));
      unlinkSync(join(s.ws, "sub/up-link"));
    }
  });
});
