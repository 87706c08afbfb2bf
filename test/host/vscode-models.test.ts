// VS Code's own language models: a model registered by another extension (the scripted provider in
// test/fixtures/lm-provider-extension, loaded beside Pi Chat by scripts/run-host-tests.mjs) reached
// through vscode.lm.selectChatModels and sendRequest.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";

const onLatest = () => !vscode.version.startsWith("1.100.");

describe("VS Code language models", () => {
  it("probe: a model registered by another extension answers through vscode.lm", async function () {
    if (!onLatest()) this.skip();
    const ext = vscode.extensions.getExtension("pi-chat-test.lm-provider");
    assert.ok(ext, "the provider extension is loaded");
    const api = (await ext.activate()) as { registered(): boolean };
    console.log("PROBE registered", api.registered());
    const models = await vscode.lm.selectChatModels({ vendor: "pi-chat-test" });
    console.log("PROBE models", JSON.stringify(models.map((m) => ({ id: m.id, vendor: m.vendor, family: m.family, name: m.name, max: m.maxInputTokens }))));
    assert.ok(models.length > 0);
    const model = models[0];
    try {
      const response = await model.sendRequest([vscode.LanguageModelChatMessage.User("hello")], {}, new vscode.CancellationTokenSource().token);
      let text = "";
      for await (const chunk of response.text) text += chunk;
      console.log("PROBE text", text);
    } catch (e) {
      console.log("PROBE error", e instanceof vscode.LanguageModelError ? `LanguageModelError ${e.code}` : "", String(e));
      throw e;
    }
  });
});
