// A new user's first minutes, in the real extension host: what the manifest gives VS Code (the
// view's title, the menu entries, the keybinding, the walkthrough and the settings' order) as
// VS Code reads it, checked against VS Code's own default keybindings.
import * as assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { ViewStatus } from "../../src/shared/protocol";
import { EXTENSION_ID, startChatView } from "./helpers";

interface Manifest {
  contributes: {
    viewsContainers: { activitybar: { id: string; title: string }[] };
    views: Record<string, { id: string; name: string }[]>;
    commands: { command: string; title: string; category?: string }[];
    menus: Record<string, { command: string }[]>;
    keybindings?: { command: string; key: string; mac?: string }[];
    walkthroughs?: { id: string; steps: { id: string; description: string; media: { markdown?: string } }[] }[];
    configuration: { title: string; properties: Record<string, { order?: number }> }[];
  };
}

function extension(): vscode.Extension<unknown> {
  const found = vscode.extensions.getExtension(EXTENSION_ID);
  if (!found) throw new Error(`${EXTENSION_ID} is not installed`);
  return found;
}

const manifest = () => extension().packageJSON as Manifest;

/** VS Code's shipped keybindings on this platform (the Default Keyboard Shortcuts document). */
async function defaultKeybindings(): Promise<{ key: string; command: string }[]> {
  const document = await vscode.workspace.openTextDocument(vscode.Uri.parse("vscode://defaultsettings/keybindings.json"));
  // The document is JSON with comments: only the entries' key and command are read.
  const text = document.getText();
  return [...text.matchAll(/"key":\s*"([^"]+)",\s*"command":\s*"([^"]+)"/g)].map((m) => ({ key: m[1]!, command: m[2]! }));
}

describe("First run: the manifest as VS Code reads it", () => {
  it("names the view so the sidebar's title says Pi Chat once (not PI CHAT: CHAT)", () => {
    const container = manifest().contributes.viewsContainers.activitybar.find((c) => c.id === "piChat");
    const views = manifest().contributes.views.piChat ?? [];
    assert.equal(views.length, 1, "one view: VS Code merges its title with the container's");
    // A single view whose name equals the container's title is shown as that title alone.
    assert.equal(views[0]?.name, container?.title);
  });

  it("menu entries of Ask About This File say which extension they belong to", () => {
    const command = manifest().contributes.commands.find((c) => c.command === "piChat.askAboutFile");
    // Menus show the title without the category: the title itself must name the extension.
    assert.equal(command?.title, "Pi Chat: Ask About This File");
    assert.equal(command?.category, undefined, "no category, or the palette would read Pi Chat: Pi Chat: …");
    for (const menu of ["editor/context", "explorer/context", "editor/title"]) {
      assert.ok(
        manifest().contributes.menus[menu]?.some((m) => m.command === "piChat.askAboutFile"),
        `${menu} offers it`,
      );
    }
  });

  it("focusing the chat has a default keybinding that no shipped VS Code keybinding uses", async () => {
    const binding = manifest().contributes.keybindings?.find((k) => k.command === "piChat.focusChat");
    assert.ok(binding, "a keybinding for the chat's focus command (the view, then its message box)");
    const shipped = await defaultKeybindings();
    assert.ok(shipped.length > 500, `read VS Code's default keybindings (${shipped.length})`);
    const ours = binding.key.toLowerCase();
    const clashes = shipped.filter((k) => k.key.toLowerCase() === ours && !k.command.startsWith("piChat."));
    assert.deepEqual(clashes, [], `${ours} is free in VS Code's defaults`);
    // The command it runs exists.
    assert.ok((await vscode.commands.getCommands(true)).includes("piChat.focusChat"));
  });

  it("contributes a walkthrough whose steps have their pages and commands", async () => {
    const walkthrough = manifest().contributes.walkthroughs?.find((w) => w.id === "gettingStarted");
    assert.ok(walkthrough, "a getting-started walkthrough");
    const ids = walkthrough.steps.map((s) => s.id);
    assert.deepEqual(ids, ["vscodeModels", "chooseModel", "localModel", "firstQuestion", "approvals", "commandsSteerQueue"]);
    await extension().activate(); // the buttons' commands are registered on activation
    const all = await vscode.commands.getCommands(true);
    for (const step of walkthrough.steps) {
      const page = step.media.markdown;
      assert.ok(page && existsSync(join(extension().extensionPath, page)), `${step.id}: its page ${page} is in the extension`);
      for (const [, command] of step.description.matchAll(/\(command:([\w.]+)\)/g)) {
        assert.ok(all.includes(command!), `${step.id}: its button runs ${command}, a registered command`);
      }
    }
    // Opening it works (the view's title menu and the empty chat offer this).
    await vscode.commands.executeCommand("piChat.openWalkthrough");
  });

  it("orders the settings by what a user sets first and groups the advanced ones", () => {
    const sections = manifest().contributes.configuration;
    assert.ok(Array.isArray(sections) && sections.length >= 2, "the settings come in groups");
    const first = sections[0]!;
    const order = Object.entries(first.properties)
      .sort((a, b) => (a[1].order ?? 99) - (b[1].order ?? 99))
      .map(([key]) => key);
    assert.deepEqual(order.slice(0, 3), ["piChat.provider", "piChat.model", "piChat.baseUrl"]);
    const advanced = sections.slice(1).flatMap((s) => Object.keys(s.properties));
    for (const key of ["piChat.compaction.reserveTokens", "piChat.compaction.keepRecentTokens", "piChat.problemsWaitMs"]) {
      assert.ok(advanced.includes(key), `${key} is in an advanced group`);
    }
  });
});

describe("First run: the chat's model and setup state in the host", function () {
  this.timeout(120_000);

  it("the header names the model, never the provider's id; a local server with a URL needs no setup", async () => {
    const { server, api } = await startChatView();
    try {
      await vscode.commands.executeCommand("piChat.newChat");
      const status = (api.host.snapshot() as { status: ViewStatus }).status;
      assert.equal(status.modelLabel, "local-model");
      assert.match(status.modelDetail ?? "", /^Local server \(OpenAI-compatible\) at http:\/\/127\.0\.0\.1:\d+\/v1 · local-model$/);
      assert.equal(status.setup, undefined);
      // A model chosen for this chat is confirmed in the view.
      await vscode.commands.executeCommand("piChat.selectChatModel", { provider: "openai-compatible", model: "another-model" });
      const after = (api.host.snapshot() as { status: ViewStatus }).status;
      assert.equal(after.modelLabel, "another-model");
      assert.equal(after.modelNote, "This chat now uses another-model.");
    } finally {
      await server.close();
    }
  });
});
