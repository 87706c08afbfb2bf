// The settings the code reads (src/host/settings-schema.ts) and the settings package.json shows in
// the Settings editor must be the same set, with the same type, default and scope: a default
// changed in one place only would make the editor promise what the code does not do.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PI_CHAT_SETTINGS } from "../../../src/host/settings-schema";

interface ManifestSetting {
  type?: string;
  default?: unknown;
  scope?: string;
}
const manifest = JSON.parse(readFileSync(join(__dirname, "../../../../package.json"), "utf8")) as {
  capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
  contributes: { configuration: { properties: Record<string, ManifestSetting> }[] };
};
const declared = new Map(manifest.contributes.configuration.flatMap((group) => Object.entries(group.properties)));

describe("settings: package.json and settings-schema.ts agree", () => {
  it("declare the same keys", () => {
    const inCode = Object.keys(PI_CHAT_SETTINGS).map((key) => `piChat.${key}`);
    assert.deepEqual([...declared.keys()].sort(), inCode.sort());
  });

  for (const [key, definition] of Object.entries(PI_CHAT_SETTINGS)) {
    it(`piChat.${key}: same type, default and scope`, () => {
      const entry = declared.get(`piChat.${key}`);
      assert.ok(entry, `piChat.${key} is missing from package.json`);
      assert.equal(entry.type, definition.type);
      assert.deepEqual(entry.default, definition.default);
      // VS Code's scope when none is declared is "window".
      assert.equal(entry.scope ?? "window", definition.scope);
    });
  }

  it("every setting restricted in an untrusted workspace is also user-only (application)", () => {
    const restricted = manifest.capabilities.untrustedWorkspaces.restrictedConfigurations;
    const notUserOnly = restricted.filter((key) => PI_CHAT_SETTINGS[key.replace(/^piChat\./, "") as keyof typeof PI_CHAT_SETTINGS]?.scope !== "application");
    assert.deepEqual(notUserOnly, []);
  });
});

// The README's Settings table is what a user reads first: a setting missing there, or a default
// that says something else, is a promise the code does not keep.
describe("settings: the README's Settings table and settings-schema.ts agree", () => {
  const readme = readFileSync(join(__dirname, "../../../../README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Settings"), readme.indexOf("\n## ", readme.indexOf("## Settings") + 1));
  const rows = new Map([...section.matchAll(/^\| `piChat\.([\w.]+)` \| ([^|]+) \|/gm)].map((m) => [m[1] ?? "", (m[2] ?? "").trim()] as const));

  it("list every setting once, and no other", () => {
    assert.deepEqual([...rows.keys()].sort(), Object.keys(PI_CHAT_SETTINGS).sort());
  });

  for (const [key, definition] of Object.entries(PI_CHAT_SETTINGS)) {
    if (typeof definition.default === "object") continue; // a list's default is described in words
    it(`piChat.${key}: the README's default is the code's`, () => {
      const shown = rows.get(key);
      const expected =
        definition.default === "" ? "empty" : typeof definition.default === "boolean" ? (definition.default ? "on" : "off") : `\`${definition.default}\``;
      assert.ok(shown === expected || shown === String(definition.default), `README says ${shown}, the code ${JSON.stringify(definition.default)}`);
    });
  }
});
