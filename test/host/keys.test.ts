// Keys go only to their own provider, in the real extension host. A local server stands in for
// "another server" (an OpenAI-compatible server the user once used, a URL a workspace or a
// leftover setting points to): whatever the provider, the key's source (secret storage or the
// environment) and the way the URL got there, it receives no request carrying a built-in key.
// Nothing here reaches the internet: every combination either stops before sending or sends to
// 127.0.0.1 only.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { ModelBinding } from "../../src/core/session/types";
import type { PiChatTestApi } from "../../src/host/extension";
import { PROVIDER_IDS } from "../../src/host/providers/catalog";
import type { BaseUrlOverride } from "../../src/host/providers/provider-bundle";
import { startOpenAIServer, type OpenAIServer } from "../support/openai-server";
import { activateExtension, waitFor, workspaceUri } from "./helpers";

const BUILTIN = ["openai", "anthropic", "google"] as const;
type Builtin = (typeof BUILTIN)[number];
const ENV_NAMES: Record<Builtin, string> = { openai: "OPENAI_API_KEY", anthropic: "ANTHROPIC_API_KEY", google: "GEMINI_API_KEY" };
const OWN_ENDPOINT: Record<Builtin, RegExp> = {
  openai: /^https:\/\/api\.openai\.com\//,
  anthropic: /^https:\/\/api\.anthropic\.com/,
  google: /^https:\/\/generativelanguage\.googleapis\.com\//,
};
const storedKey = (p: string) => `stored-${p}-key-9f8e7d6c5b4a3921`;
const envKey = (p: Builtin) => `env-${p}-key-1a2b3c4d5e6f7081`;
/** The cloud providers beyond the first three (keys stored under their own ids). */
const OTHER_CLOUD = PROVIDER_IDS.filter((p) => p !== "openai-compatible" && !(BUILTIN as readonly string[]).includes(p));
const ALL_KEYS = [...BUILTIN.flatMap((p) => [storedKey(p), envKey(p)]), ...OTHER_CLOUD.map((p) => storedKey(p))];

describe("keys go only to their own provider", function () {
  this.timeout(120_000);
  let other: OpenAIServer;
  let trusted: OpenAIServer;
  let api: PiChatTestApi;
  const asked: BaseUrlOverride[] = [];
  let answer = false;
  const config = () => vscode.workspace.getConfiguration("piChat");
  const global = vscode.ConfigurationTarget.Global;

  before(async () => {
    other = await startOpenAIServer();
    trusted = await startOpenAIServer();
    api = await activateExtension(`${other.url}/v1`);
    api.consent.ask = async (override) => {
      asked.push(override);
      return answer;
    };
    await api.consent.forgetAll();
  });

  after(async () => {
    for (const p of BUILTIN) {
      await api.secrets.delete(p);
      delete process.env[ENV_NAMES[p]];
    }
    await api.consent.forgetAll();
    await vscode.workspace.fs.delete(workspaceUri(".vscode"), { recursive: true }).then(undefined, () => undefined);
    await activateExtension(`${other.url}/v1`); // the other host tests' settings
    await other?.close();
    await trusted?.close();
  });

  beforeEach(async () => {
    asked.length = 0;
    answer = false;
    await vscode.commands.executeCommand("piChat.newChat");
  });

  afterEach(() => {
    // The standing assertion of this file: "another server" never saw a built-in key.
    const leaked = other.requests.filter((r) => ALL_KEYS.some((k) => JSON.stringify(r).includes(k)));
    assert.deepEqual(
      leaked.map((r) => `${r.method} ${r.url}`),
      [],
      "requests to the other server carrying a built-in key",
    );
  });

  async function useKey(provider: Builtin, source: "stored" | "env"): Promise<string> {
    for (const p of BUILTIN) {
      await api.secrets.delete(p);
      delete process.env[ENV_NAMES[p]];
    }
    if (source === "stored") await api.secrets.set(provider, storedKey(provider));
    else process.env[ENV_NAMES[provider]] = envKey(provider);
    return source === "stored" ? storedKey(provider) : envKey(provider);
  }

  function resolveModel(): Promise<ModelBinding> {
    return api.host.models.resolve(undefined);
  }

  async function lastNotice(): Promise<string> {
    const last = api.screen.currentSession.messages.at(-1);
    assert.equal(last?.role, "localNotice");
    return last?.role === "localNotice" ? `${last.text} ${last.fix ?? ""}` : "";
  }

  for (const provider of BUILTIN) {
    for (const source of ["stored", "env"] as const) {
      it(`${provider}, ${source} key, piChat.baseUrl at another server: asked first; declined, nothing is sent`, async () => {
        await useKey(provider, source);
        await config().update("provider", provider, global);
        await config().update("model", "", global);
        await config().update("baseUrl", `${other.url}/v1`, global);
        const before = other.requests.length;
        await api.view.receive({ type: "chat/send", v: 1, text: "hello" });
        assert.equal(asked.length, 1, "the user was asked");
        assert.equal(asked[0]?.provider, provider);
        assert.equal(asked[0]?.url, `${other.url}/v1`);
        assert.match(await lastNotice(), /did not send your .* API key to 127\.0\.0\.1:\d+/);
        assert.equal(other.requests.length, before, "no request at all");
      });

      it(`${provider}, ${source} key: Select Model from an OpenAI-compatible server back to ${provider} clears the base URL`, async () => {
        await useKey(provider, source);
        await config().update("provider", "openai-compatible", global);
        await config().update("baseUrl", `${other.url}/v1`, global);
        await vscode.commands.executeCommand("piChat.selectModel", { provider, model: "" });
        assert.equal(config().inspect("baseUrl")?.globalValue, undefined, "the base URL was cleared");
        assert.equal(config().inspect("provider")?.globalValue, provider);
        const binding = await resolveModel();
        assert.match(binding.model.baseUrl, OWN_ENDPOINT[provider], "requests would go to the provider's own endpoint");
        assert.equal(asked.length, 0);
      });
    }
  }

  it("a workspace's .vscode/settings.json cannot choose the provider, the base URL or the approval mode", async () => {
    await useKey("openai", "stored");
    await config().update("provider", "openai", global);
    await config().update("model", "", global);
    await config().update("baseUrl", undefined, global);
    await config().update("approvalMode", "ask", global);
    const settings = {
      "piChat.provider": "openai",
      "piChat.baseUrl": `${other.url}/v1`,
      "piChat.approvalMode": "auto",
      "piChat.protectedFiles": [],
      "piChat.model": "gpt-4o-mini",
    };
    await vscode.workspace.fs.writeFile(workspaceUri(".vscode", "settings.json"), new TextEncoder().encode(JSON.stringify(settings, null, 2)));
    // The model (an ordinary setting) shows VS Code has read the file.
    await waitFor("VS Code to read the workspace settings", () => config().get("model") === "gpt-4o-mini");
    const binding = await resolveModel();
    assert.equal(binding.model.id, "gpt-4o-mini");
    assert.match(binding.model.baseUrl, OWN_ENDPOINT.openai);
    assert.equal(asked.length, 0);
    assert.equal(config().get("approvalMode"), "ask", "VS Code ignores the workspace's approvalMode");
    assert.equal(config().get("baseUrl"), "", "VS Code ignores the workspace's baseUrl");
    assert.ok((config().get<string[]>("protectedFiles") ?? []).length > 0, "VS Code ignores the workspace's protectedFiles");
    // And VS Code refuses to write them there.
    for (const key of ["provider", "baseUrl", "approvalMode", "protectedFiles"]) {
      await assert.rejects(
        Promise.resolve(config().update(key, key === "protectedFiles" ? [] : "x", vscode.ConfigurationTarget.Workspace)),
        `${key} is user-only`,
      );
    }
    await vscode.workspace.fs.delete(workspaceUri(".vscode"), { recursive: true });
    await waitFor("VS Code to drop the workspace settings", () => config().get("model") === "");
  });

  it("consent is per provider and URL, remembered, and never stretches to another provider", async () => {
    await useKey("openai", "stored");
    await api.secrets.set("anthropic", storedKey("anthropic"));
    await config().update("provider", "openai", global);
    await config().update("model", "gpt-4o-mini", global);
    await config().update("baseUrl", `${trusted.url}/v1`, global);
    answer = true;
    await api.view.receive({ type: "chat/send", v: 1, text: "hello" });
    await api.view.receive({ type: "chat/send", v: 1, text: "again" });
    assert.equal(asked.length, 1, "asked once, then remembered");
    const sent = trusted.requests.filter((r) => r.method === "POST");
    assert.equal(sent.length, 2);
    assert.equal(sent[0]?.authorization, `Bearer ${storedKey("openai")}`, "the allowed server gets the key it was allowed");

    // The same URL for Anthropic is a new question; declined, nothing goes there with Anthropic's key.
    answer = false;
    await config().update("provider", "anthropic", global);
    await config().update("model", "", global);
    await config().update("baseUrl", `${trusted.url}/v1`, global);
    await api.view.receive({ type: "chat/send", v: 1, text: "hello" });
    assert.equal(asked.length, 2);
    assert.equal(asked[1]?.provider, "anthropic");
    assert.ok(!JSON.stringify(trusted.requests).includes(storedKey("anthropic")));
    await api.consent.forgetAll();
  });

  it("an OpenAI-compatible server at the other URL gets its own key, never a built-in one (stored or env)", async () => {
    for (const p of BUILTIN) {
      await api.secrets.set(p, storedKey(p));
      process.env[ENV_NAMES[p]] = envKey(p);
    }
    await api.secrets.set("openai-compatible", "compat-key-0011223344");
    await config().update("provider", "openai-compatible", global);
    await config().update("baseUrl", `${other.url}/v1`, global);
    await config().update("model", "", global); // the model list is fetched from the server first
    other.push(() => ({ text: "Local answer." }));
    const before = other.requests.length;
    await api.view.receive({ type: "chat/send", v: 1, text: "hello" });
    const mine = other.requests.slice(before);
    assert.ok(mine.some((r) => r.path === "/v1/models") && mine.some((r) => r.path === "/v1/chat/completions"), "both requests reached it");
    for (const r of mine) assert.equal(r.authorization, "Bearer compat-key-0011223344");
    await api.secrets.delete("openai-compatible");
  });

  it("every other cloud provider, stored key, piChat.baseUrl at another server: asked first for that provider; declined, nothing is sent", async () => {
    const user = { "azure.resourceName": "my-resource", "cloudflare.accountId": "0123456789abcdef0123456789abcdef", "cloudflare.gatewayId": "gw" };
    for (const [key, value] of Object.entries(user)) await config().update(key, value, global);
    const before = other.requests.length;
    const notices: string[] = [];
    try {
      for (const provider of OTHER_CLOUD) {
        await api.secrets.set(provider, storedKey(provider));
        await config().update("provider", provider, global);
        await config().update("model", "", global);
        await config().update("baseUrl", `${other.url}/v1`, global);
        await vscode.commands.executeCommand("piChat.newChat");
        await api.view.receive({ type: "chat/send", v: 1, text: "hello" });
        assert.equal(asked.at(-1)?.provider, provider, `${provider} was asked about`);
        notices.push(`${provider}: ${await lastNotice()}`);
        await api.secrets.delete(provider);
      }
    } finally {
      for (const key of Object.keys(user)) await config().update(key, undefined, global);
    }
    assert.equal(asked.length, OTHER_CLOUD.length);
    for (const notice of notices) assert.match(notice, /did not send your .* API key to 127\.0\.0\.1:\d+/);
    assert.equal(other.requests.length, before, "no request at all");
  });

  it("Azure's and Cloudflare's URL parts are user-only: VS Code refuses them in a workspace", async () => {
    for (const key of ["azure.resourceName", "azure.deployment", "cloudflare.accountId", "cloudflare.gatewayId"]) {
      assert.equal(config().inspect(key)?.defaultValue, "", key);
      await assert.rejects(Promise.resolve(config().update(key, "evil.example#", vscode.ConfigurationTarget.Workspace)), `${key} is user-only`);
    }
  });

  it("Set API Key refuses a key with a line break inside, with a clear message", async () => {
    await api.secrets.delete("openai");
    await assert.rejects(api.secrets.set("openai", "sk-first-half\nsecond-half-0000"), /did not store this API key: it has a space, tab or line break inside/);
    assert.equal(await api.secrets.get("openai"), undefined);
  });
});
