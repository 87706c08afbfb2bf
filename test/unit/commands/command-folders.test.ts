// Where a command runs, with one folder or several: the folder is named like every tool path
// (`folderName/…` with several), contained in its workspace folder (symlinks resolved), and with
// several folders there is no default — the model is told to name one.
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveCommandFolder, severalFolders, singleFolder } from "../../../src/core/shell/command-folders";
import { createNodeWorkspaceFs } from "../../../src/core/tools";
import { createMultiRootFs } from "../../../src/core/tools/multi-root";
import { tempDir } from "../../support/temp";

describe("command folders", () => {
  const dirs: { cleanup(): void }[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) d.cleanup();
  });

  function twoFolders() {
    const app = tempDir("cmd-app");
    const server = tempDir("cmd-server");
    const outside = tempDir("cmd-outside");
    dirs.push(app, server, outside);
    mkdirSync(join(app.path, "packages", "web"), { recursive: true });
    writeFileSync(join(server.path, "config.ts"), "export {};\n");
    symlinkSync(outside.path, join(server.path, "escape"));
    const fs = createMultiRootFs([
      { name: "app", value: createNodeWorkspaceFs(app.path) },
      { name: "server", value: createNodeWorkspaceFs(server.path) },
    ]);
    const folders = severalFolders([
      { name: "app", path: app.path },
      { name: "server", path: server.path },
    ]);
    return { fs, folders, app: app.path, server: server.path };
  }

  it("with several folders: the folder by its name, a subfolder, and no default", async () => {
    const { fs, folders, app, server } = twoFolders();
    assert.deepEqual(await resolveCommandFolder(fs, folders, "server"), { relative: "server", absolute: server });
    assert.deepEqual(await resolveCommandFolder(fs, folders, "app/packages/web"), { relative: "app/packages/web", absolute: join(app, "packages", "web") });
    await assert.rejects(resolveCommandFolder(fs, folders, undefined), /several folders \(app, server\): give cwd, starting with the folder's name/);
    await assert.rejects(resolveCommandFolder(fs, folders, "  "), /several folders/);
    // "." is the list of folders, not a folder to run in.
    await assert.rejects(resolveCommandFolder(fs, folders, "."), /Commands run in one folder of the workspace/);
  });

  it("with several folders: nothing outside them, no file, no unknown folder, no symlink out", async () => {
    const { fs, folders } = twoFolders();
    await assert.rejects(resolveCommandFolder(fs, folders, "server/../.."));
    await assert.rejects(resolveCommandFolder(fs, folders, "/etc"));
    await assert.rejects(resolveCommandFolder(fs, folders, "elsewhere"), /not found/i);
    await assert.rejects(resolveCommandFolder(fs, folders, "server/config.ts"), /is not a folder/);
    await assert.rejects(resolveCommandFolder(fs, folders, "server/escape"));
  });

  it("with one folder: the root by default, relative and absolute paths inside it", async () => {
    const root = tempDir("cmd-one");
    dirs.push(root);
    mkdirSync(join(root.path, "pkg"));
    const fs = createNodeWorkspaceFs(root.path);
    const folders = singleFolder(root.path);
    assert.deepEqual(await resolveCommandFolder(fs, folders, undefined), { relative: ".", absolute: root.path });
    assert.deepEqual(await resolveCommandFolder(fs, folders, "pkg"), { relative: "pkg", absolute: join(root.path, "pkg") });
    assert.deepEqual(await resolveCommandFolder(fs, folders, join(root.path, "pkg")), { relative: "pkg", absolute: join(root.path, "pkg") });
    await assert.rejects(resolveCommandFolder(fs, folders, ".."));
  });
});
