// The user's own MCP servers in Restricted Mode (scripts/run-host-tests.mjs --restricted-phase runs
// this file in a VS Code over an untrusted folder; in the trusted launch it is skipped). The
// repository ships code where a user server would find it: a Python package for `python3 -m`, a
// script for a relative path, a module for `${workspaceFolder}` in the arguments or the
// environment. None of it runs: a server starts in the user's home, never in the workspace, and one
// whose definition names the workspace waits for trust, its state saying why. A server that needs
// nothing of the workspace starts as usual.
import * as assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type { PiChatTestApi } from "../../src/host/extension";
import type { OpenAIServer } from "../support/openai-server";
import { startChatView, waitFor } from "./helpers";

const untrustedLaunch = process.env.PI_CHAT_TEST_UNTRUSTED === "1";

describe("MCP user servers in restricted mode (untrusted folder)", function () {
  this.timeout(120_000);
  let server: OpenAIServer;
  let api: PiChatTestApi;
  let home: string;
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const repo = path.resolve(__dirname, "../../..");
  const everything = path.join(repo, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
  const marker = (name: string) => path.join(folder(), `mcp-ran-${name}.txt`);
  const writesMarker = (name: string) => `require("fs").writeFileSync(${JSON.stringify(marker(name))}, "ran");\n`;

  before(async function () {
    if (!untrustedLaunch) return this.skip();
    ({ server, api } = await startChatView());
    home = mkdtempSync(path.join(os.tmpdir(), "pi-chat-mcp-home-"));
    api.mcp.home = home;
    // The repository's code, where each user server would look for it.
    mkdirSync(path.join(folder(), "mcp_helper"), { recursive: true });
    writeFileSync(path.join(folder(), "mcp_helper", "__main__.py"), `open(${JSON.stringify(marker("python"))}, "w").write("ran")\n`);
    mkdirSync(path.join(folder(), "tools"), { recursive: true });
    writeFileSync(path.join(folder(), "tools", "serve.js"), writesMarker("relative"));
    writeFileSync(path.join(folder(), "tools", "arg.js"), writesMarker("argument"));
    writeFileSync(path.join(folder(), "tools", "hook.js"), writesMarker("environment"));
    mkdirSync(path.join(home, ".pi", "agent"), { recursive: true });
    writeFileSync(
      path.join(home, ".pi", "agent", "mcp.json"),
      JSON.stringify({
        mcpServers: {
          python: { command: "python3", args: ["-m", "mcp_helper"] },
          relative: { command: process.execPath, args: ["tools/serve.js"] },
          argument: { command: process.execPath, args: [`\${workspaceFolder}/tools/arg.js`] },
          environment: { command: process.execPath, args: [everything, "stdio"], env: { NODE_OPTIONS: `--require \${workspaceFolder}/tools/hook.js` } },
          everything: { command: process.execPath, args: [everything, "stdio"] },
        },
      }),
    );
    await api.mcp.reload();
  });

  after(async () => {
    if (!untrustedLaunch) return;
    rmSync(path.join(folder(), "mcp_helper"), { recursive: true, force: true });
    rmSync(path.join(folder(), "tools"), { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
    await server?.close();
  });

  it("no user server runs the repository's code; one that names the workspace says it waits for trust; the others start", async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    await api.mcp.forRun({ acceptsImages: false });
    const names = ["python", "relative", "argument", "environment", "everything"];
    const states = await waitFor(
      "every server to settle",
      async () => {
        const list = await api.mcp.list();
        const settled = names.map((n) => list.find((s) => s.name === n)?.state).filter((s) => s && s.kind !== "starting" && s.kind !== "stopped");
        return settled.length === names.length ? Object.fromEntries(names.map((n, i) => [n, settled[i]!])) : undefined;
      },
      60_000,
    );
    const ran = names.filter((n) => existsSync(marker(n)));
    assert.deepEqual(ran, [], `the repository's code ran through: ${ran.join(", ")}`);
    for (const name of ["argument", "environment"]) {
      const s = states[name]!;
      assert.equal(s.kind, "blocked", `${name}: ${JSON.stringify(s)}`);
      assert.match(s.kind === "blocked" ? s.reason : "", /Restricted Mode: .*names the workspace folder.*trust this folder/);
    }
    assert.equal(states.everything!.kind, "ready", "a server that needs nothing of the workspace starts");
  });
});
