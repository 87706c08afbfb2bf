// Settings that decide how commands run are the user's alone: a cloned repository's
// .vscode/settings.json must not lengthen the time-out or move commands out of the visible
// terminal. package.json declares them "application" (VS Code ignores workspace values) and
// restricted; src/host/settings.ts reads only the user value (userSetting).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const manifest = JSON.parse(readFileSync(join(__dirname, "../../../../package.json"), "utf8")) as {
  capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
  contributes: { configuration: { properties: Record<string, { scope?: string }> } };
};

describe("settings a workspace cannot set", () => {
  for (const name of ["piChat.commands.timeoutSeconds", "piChat.commands.useTerminal"]) {
    it(`${name} is user-only: application scope, and restricted`, () => {
      assert.equal(manifest.contributes.configuration.properties[name]?.scope, "application");
      assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(name));
    });
  }
});
