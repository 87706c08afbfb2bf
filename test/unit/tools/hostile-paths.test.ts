// Paths a model (or a prompt injection) might use to reach outside the workspace. Both tools must
// refuse every one, without reading (the secret never shows) or writing (the tree is unchanged).
import assert from "node:assert/strict";
import { existsSync, linkSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { createEditFileTool, createNodeWorkspaceFs, createReadFileTool } from "../../../src/core/tools";
import { hostilePaths, makeHostileSandbox, rejection, SECRET, snapshotTree, textOf, type Sandbox } from "./helpers";

describe("hostile paths", () => {
  let s: Sandbox;
  let snapshot: Map<string, string>;

  before(() => {
    s = makeHostileSandbox();
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

  it("read_file refuses a hard link to a file outside the workspace, as edit_file does", async () => {
    const link = join(s.ws, "hard-link.txt");
    linkSync(join(s.outside, "secret.txt"), link);
    try {
      const tool = createReadFileTool(createNodeWorkspaceFs(s.ws), { root: s.ws });
      const error = await rejection(() => tool.execute("call", { path: "hard-link.txt" }));
      assert.match(error.message, /hard-link\.txt has 2 hard links: .* possibly outside the workspace, so read_file does not read it/);
      assert.ok(!error.message.includes(SECRET));
    } finally {
      unlinkSync(link);
    }
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
