// Settings that decide how commands run are the user's alone: a cloned repository's
// .vscode/settings.json must not lengthen the time-out or move commands out of the visible
// terminal. package.json declares them "application" (VS Code ignores workspace values) and
// restricted; src/host/settings.ts reads only the user value (setting).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const manifest = JSON.parse(readFileSync(join(__dirname, "../../../../package.json"), "utf8")) as {
  capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
  /** Groups of settings, each with its own properties (the Settings editor's sections). */
  contributes: { configuration: { properties: Record<string, { scope?: string }> }[] };
};
const setting = (name: string) => manifest.contributes.configuration.find((group) => name in group.properties)?.properties[name];

describe("settings a workspace cannot set", () => {
  for (const name of ["piChat.commands.timeoutSeconds", "piChat.commands.useTerminal"]) {
    it(`${name} is user-only: application scope, and restricted`, () => {
      assert.equal(setting(name)?.scope, "application");
      assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(name));
    });
  }
});
