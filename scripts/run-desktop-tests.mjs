// The same extension-host suite (out/test/host) in desktop VS Code, through @vscode/test-electron.
// It downloads a VS Code build, so it is for machines with internet access; CI here uses
// scripts/run-host-tests.mjs (code-server from npm) instead. One phase only: the restart
// test's second phase needs the runner to restart VS Code over the same state.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runTests } from "@vscode/test-electron";
import { repoRoot } from "./mocha-suite.mjs";

const workspace = mkdtempSync(join(tmpdir(), "pi-chat-desktop-ws-"));
cpSync(join(repoRoot, "test/fixtures/workspace"), workspace, { recursive: true });
let code = 1;
try {
  await runTests({
    version: process.env.PI_CHAT_VSCODE_VERSION ?? "1.100.3",
    extensionDevelopmentPath: repoRoot,
    extensionTestsPath: join(repoRoot, "out/test/host/index.js"),
    launchArgs: [workspace, "--disable-extensions", "--skip-welcome", "--disable-workspace-trust"],
  });
  code = 0;
} catch (error) {
  console.error(`desktop tests failed: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  rmSync(workspace, { recursive: true, force: true });
}
process.exit(code);
