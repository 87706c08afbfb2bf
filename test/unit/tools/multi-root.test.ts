// Multi-root workspaces: paths are folderName/relative/path, each folder keeps its own
// containment, a folder named like a subfolder of another is told apart, two folders of the same
// name get distinct names, and every tool (search with both engines) works across them.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  createEditFileTool,
  createFindFilesTool,
  createListFilesTool,
  createNodeWorkspaceFs,
  createPortableSearch,
  createReadFileTool,
  createSearchTool,
  proposeEdit,
  applyEdit,
  type SearchBackend,
  type WorkspaceFileSystem,
} from "../../../src/core/tools";
import { createMultiRootFs, createMultiRootSearch, folderNames, multiRootPrompt } from "../../../src/core/tools/multi-root";
import { createRipgrepSearch } from "../../../src/host/adapters/ripgrep-search";
import { tempDir } from "../../support/temp";
import { hostilePaths, makeHostileSandbox, rejection, SECRET, textOf } from "./helpers";

describe("multi-root workspaces", () => {
  let base: ReturnType<typeof tempDir>;
  let folders: { name: string; path: string }[];
  before(() => {
    base = tempDir("multi");
    const put = (rel: string, text: string) => {
      mkdirSync(join(base.path, rel, ".."), { recursive: true });
      writeFileSync(join(base.path, rel), text);
    };
    // "app" has a subfolder "lib"; "lib" is also a folder of its own; a second "app" lives elsewhere.
    put("one/app/lib/x.ts", "export const where = 'app/lib';\n");
    put("one/app/README.md", "# app\n");
    put("one/lib/x.ts", "export const where = 'lib folder';\n");
    put("two/app/src/config.ts", "export const config = {\n  port: 3000,\n};\n");
    symlinkSync(join(base.path, "one/lib"), join(base.path, "one/app/to-lib")); // leads into another folder: outside app
    const names = folderNames(["app", "lib", "app"]);
    folders = [
      { name: names[0]!, path: join(base.path, "one/app") },
      { name: names[1]!, path: join(base.path, "one/lib") },
      { name: names[2]!, path: join(base.path, "two/app") },
    ];
  });
  after(() => base.cleanup());

  const fs = (): WorkspaceFileSystem => createMultiRootFs(folders.map((f) => ({ name: f.name, value: createNodeWorkspaceFs(f.path) })));
  const engines = (): [string, SearchBackend][] => [
    ["portable", createMultiRootSearch(folders.map((f) => ({ name: f.name, value: createPortableSearch(createNodeWorkspaceFs(f.path)) })))],
    ["ripgrep", createMultiRootSearch(folders.map((f) => ({ name: f.name, value: createRipgrepSearch({ rgPath: "/usr/bin/rg", folderPath: f.path }) })))],
  ];

  it("names folders uniquely and safely", () => {
    assert.deepEqual(folderNames(["app", "lib", "app", "App", "a/b", "..", "", "app-2"]), ["app", "lib", "app-2", "App-3", "a_b", "_..", "_", "app-2-2"]);
    assert.equal(
      multiRootPrompt([{ name: "app", location: "/w/app" }]),
      "This workspace has several folders. Every path starts with the folder's name: folderName/relative/path.\n- app: /w/app",
    );
  });

  it("reads by folderName/path: a folder named like another's subfolder is told apart", async () => {
    const read = createReadFileTool(fs());
    assert.equal(textOf(await read.execute("c", { path: "lib/x.ts" })), "export const where = 'lib folder';");
    assert.equal(textOf(await read.execute("c", { path: "app/lib/x.ts" })), "export const where = 'app/lib';");
    assert.match(textOf(await read.execute("c", { path: "app-2/src/config.ts" })), /port: 3000/);
    assert.match((await rejection(() => read.execute("c", { path: "nope/x.ts" }))).message, /not found/i);
    assert.match((await rejection(() => read.execute("c", { path: "app" }))).message, /is a directory/);
  });

  it("keeps containment per folder: a link from one folder into another is refused, climbing out too", async () => {
    const read = createReadFileTool(fs());
    assert.match((await rejection(() => read.execute("c", { path: "app/to-lib/x.ts" }))).message, /outside the workspace through a symbolic link/);
    assert.match((await rejection(() => read.execute("c", { path: "app/../../one/lib/x.ts" }))).message, /climbs out/);
    assert.match((await rejection(() => read.execute("c", { path: join(folders[0]!.path, "README.md") }))).message, /absolute paths are not accepted/);
  });

  it("refuses every hostile path inside a folder of a multi-root workspace", async () => {
    const s = makeHostileSandbox();
    try {
      const multi = createMultiRootFs([
        { name: "ws", value: createNodeWorkspaceFs(s.ws) },
        { name: "other", value: createNodeWorkspaceFs(folders[1]!.path) },
      ]);
      const read = createReadFileTool(multi);
      for (const p of hostilePaths(s)) {
        for (const path of [p, `ws/${p}`]) {
          if (path === "ws/") continue;
          try {
            const text = textOf(await read.execute("c", { path }));
            assert.fail(`read_file accepted ${JSON.stringify(path)}: ${text.slice(0, 80)}`);
          } catch (error) {
            assert.ok(error instanceof Error && !error.message.includes(SECRET), `${JSON.stringify(path)} leaked`);
            if (error instanceof assert.AssertionError) throw error;
          }
        }
      }
    } finally {
      s.cleanup();
    }
  });

  it("lists the folders at the root and finds across them", async () => {
    const list = textOf(await createListFilesTool(fs()).execute("c", { depth: 2 }));
    assert.equal(list, ["app/", "  lib/", "  README.md", "  to-lib@", "app-2/", "  src/", "lib/", "  x.ts"].join("\n"));
    const found = await createFindFilesTool(fs()).execute("c", { pattern: "**/x.ts" });
    assert.deepEqual(found.details.files, ["lib/x.ts", "app/lib/x.ts"]);
    const inOne = await createFindFilesTool(fs()).execute("c", { pattern: "*.ts", path: "app-2" });
    assert.deepEqual(inOne.details.files, ["app-2/src/config.ts"]);
  });

  it("searches every folder, one folder, or with an include naming a folder (both engines alike)", async () => {
    for (const [name, backend] of engines()) {
      const tool = createSearchTool(fs(), { backend });
      assert.equal(
        textOf(await tool.execute("c", { query: "where" })),
        "app/lib/x.ts:1:14: export const where = 'app/lib';\nlib/x.ts:1:14: export const where = 'lib folder';",
        name,
      );
      assert.equal(textOf(await tool.execute("c", { query: "port:", path: "app-2" })), "app-2/src/config.ts:2:3: port: 3000,", name);
      assert.equal(textOf(await tool.execute("c", { query: "where", include: "lib/**" })), "lib/x.ts:1:14: export const where = 'lib folder';", name);
      assert.equal((await tool.execute("c", { query: "port:", path: "app-2/src/config.ts" })).details.total, 1, name);
    }
  });

  it("edits a file of the second folder of the same name", async () => {
    const multi = fs();
    const proposal = await proposeEdit(multi, undefined, { path: "app-2/src/config.ts", oldText: "port: 3000", newText: "port: 8080" });
    assert.equal(proposal.path, "app-2/src/config.ts");
    await applyEdit(multi, proposal);
    assert.equal(readFileSync(join(folders[2]!.path, "src/config.ts"), "utf8"), "export const config = {\n  port: 8080,\n};\n");
    assert.match(readFileSync(join(folders[0]!.path, "README.md"), "utf8"), /# app/);
    const error = await rejection(() => createEditFileTool(multi).execute("c", { path: "app/to-lib/x.ts", oldText: "lib folder", newText: "pwned" }));
    assert.match(error.message, /symbolic link/);
  });
});
