// The model picker's groups, in the extension host: a provider with a key lists its models under its
// name, every other cloud provider is one row that asks for its key and names the variable pi-ai
// reads, and the recently used list keeps only providers of the catalog (a stored entry naming
// anything else is skipped). The key of a provider is stored under that provider's id.
import * as assert from "node:assert/strict";
import type * as vscode from "vscode";
import { cloudItems, recentModels, rememberModel } from "../../src/host/models/picker-groups";
import { CLOUD_PROVIDERS, type CloudProviderId } from "../../src/host/providers/catalog";
import { listModels } from "../../src/host/providers/provider-bundle";
import { useChatView } from "./helpers";

/** A Memento over a plain map, as the extension's global state is. */
function memento(initial: Record<string, unknown> = {}): vscode.Memento {
  const values = new Map(Object.entries(initial));
  return {
    keys: () => [...values.keys()],
    get: <T>(key: string, fallback?: T) => (values.has(key) ? (values.get(key) as T) : fallback),
    update: async (key: string, value: unknown) => void values.set(key, value),
  } as vscode.Memento;
}

describe("the model picker's provider groups", function () {
  this.timeout(60_000);
  const chat = useChatView();

  it("a provider with a key lists its models; every other cloud provider is a row asking for its key, naming its variable", async () => {
    const { api } = chat();
    await api.secrets.set("groq", "gsk-test-groq-KEY-5e4d3c2b1a");
    try {
      const configured = new Set<CloudProviderId>(["groq"]);
      const groups = cloudItems(
        configured,
        (p) => listModels(p),
        () => false,
      );
      const groqHeader = groups.configured.findIndex((i) => i.label === "Groq (key set)");
      assert.ok(groqHeader >= 0, JSON.stringify(groups.configured.slice(0, 3)));
      const groqModels = groups.configured.filter((i) => i.provider === "groq" && i.action === "model");
      assert.ok(groqModels.length > 0, "Groq's catalog is listed");
      const rows = groups.cloud.filter((i) => i.action === "setupProvider");
      // Anthropic, OpenAI and Google list their models without a key; every other provider is one row.
      assert.equal(rows.length, CLOUD_PROVIDERS.length - 1 - 3, "every other cloud provider has its row");
      for (const featured of ["anthropic", "openai", "google"] as const) {
        if (await api.secrets.get(featured)) continue;
        assert.ok(
          groups.cloud.some((i) => i.provider === featured && i.action === "model"),
          `${featured}'s models are listed`,
        );
      }
      assert.ok(!rows.some((r) => r.provider === "groq"));
      const openrouter = rows.find((r) => r.provider === "openrouter");
      assert.match(openrouter?.description ?? "", /OPENROUTER_API_KEY/);
      assert.equal(await api.secrets.get("groq"), "gsk-test-groq-KEY-5e4d3c2b1a", "stored under the provider's id");
      assert.equal(await api.secrets.get("openrouter"), undefined, "and no other provider's");
    } finally {
      await api.secrets.delete("groq");
    }
  });

  it("recently used: newest first, at most five, and a stored entry that names no provider of the catalog is skipped", async () => {
    const state = memento({
      "piChat.recentModels": [{ provider: "__proto__", id: "x" }, { provider: "evil.example", id: "m" }, "junk", { provider: "groq", id: 7 }],
    });
    assert.deepEqual(recentModels(state), []);
    for (const id of ["a", "b", "c", "d", "e", "f"]) await rememberModel(state, { provider: "openrouter", id });
    await rememberModel(state, { provider: "openrouter", id: "c" });
    assert.deepEqual(
      recentModels(state).map((m) => m.id),
      ["c", "f", "e", "d", "b"],
    );
  });
});
