// resolveModelBinding's setup errors and key precedence, listModels, describeProviderError.
// Nothing here reaches the network except the local server of the discovery tests.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { RunSetupError, runSetupFix } from "../../../src/core/session/run-errors";
import { apiKeyProblem } from "../../../src/host/providers/catalog";
import {
  DEFAULT_MODELS,
  describeProviderError,
  listModels,
  listServerModels,
  PROVIDER_IDS,
  resolveModelBinding,
  type ProviderSettings,
  type SecretSource,
} from "../../../src/host/providers/provider-bundle";
import { startOpenAIServer } from "../../support/openai-server";
import { guardNetwork, secretsOf, world, type NetworkGuard } from "./helpers";

const SENTINELS = {
  openai: "sk-openai-SENTINEL-0001",
  google: "AIzaSENTINEL-google-000000001",
  "openai-compatible": "sk-compat-SENTINEL-0002",
} as const;

async function setupError(settings: ProviderSettings, secrets: SecretSource, env: Record<string, string> = {}): Promise<RunSetupError> {
  try {
    await resolveModelBinding(settings, secrets, { env });
  } catch (error) {
    assert.ok(error instanceof RunSetupError, `a RunSetupError, got ${String(error)}`);
    return error;
  }
  assert.fail("resolveModelBinding should have thrown");
}

function assertNoKeyMaterial(error: RunSetupError, keys: readonly string[]): void {
  const shown = `${error.message}\n${error.fix ?? ""}\n${error.stack ?? ""}`;
  for (const key of keys) assert.ok(!shown.includes(key), "no key material in the setup error");
}

describe("providers: resolveModelBinding", () => {
  let guard: NetworkGuard;
  beforeEach(() => {
    guard = guardNetwork();
  });
  afterEach(() => guard.restore());

  it("a missing Anthropic key is a RunSetupError with the fix, and without any key material", async () => {
    const error = await setupError({ provider: "anthropic", model: "" }, secretsOf(SENTINELS), { OPENAI_API_KEY: "sk-env-SENTINEL-0003" });
    // What was tried: the secret storage and the variable.
    assert.equal(error.message, "No API key for Anthropic: none is stored in VS Code, and ANTHROPIC_API_KEY is not set.");
    assert.equal(error.fix, "Run “Pi Chat: Set API Key” or set ANTHROPIC_API_KEY. Or choose another provider, or use a local model (no key needed).");
    // Set the key, or get out another way: another provider and model, or a local model.
    assert.deepEqual(runSetupFix(error), {
      fix: error.fix,
      fixCommand: "setApiKey",
      moreFixCommands: ["retry", "selectChatModel", "useLocalModel"],
    });
    assertNoKeyMaterial(error, [...Object.values(SENTINELS), "sk-env-SENTINEL-0003"]);
    assert.deepEqual(guard.urls, [], "no request was made");
  });

  it("through a ChatSession, the setup error becomes a notice with its fix and the prompt is kept", async () => {
    const w = world(() => resolveModelBinding({ provider: "anthropic", model: "" }, secretsOf({}), { env: {} }));
    try {
      const session = w.service.newChat();
      await session.prompt("hello?");
      const roles = session.messages.map((m) => m.role);
      // The chat's system message is saved first, even when no model call could be made.
      assert.deepEqual(roles, ["system", "user", "localNotice"]);
      const notice = session.messages[2]!;
      assert.ok(notice.role === "localNotice");
      assert.equal(notice.level, "error");
      assert.match(notice.text, /^No API key for Anthropic: none is stored in VS Code, and ANTHROPIC_API_KEY is not set\.$/);
      assert.match(notice.fix ?? "", /Pi Chat: Set API Key/);
      assert.equal(notice.fixCommand, "setApiKey");
      assert.deepEqual(notice.moreFixCommands, ["retry", "selectChatModel", "useLocalModel"]);
      assert.deepEqual(guard.urls, []);
      // The error is on screen with its buttons: no "Interrupted … Continue" banner besides it,
      // though the notice's Retry can still pick the turn up.
      assert.equal(session.interrupted, false);
      assert.equal(session.canContinue, true);
    } finally {
      await w.cleanup();
    }
  });

  it("names the right variables for OpenAI and Google", async () => {
    const openai = await setupError({ provider: "openai", model: "" }, secretsOf({}));
    assert.equal(openai.message, "No API key for OpenAI: none is stored in VS Code, and OPENAI_API_KEY is not set.");
    assert.match(openai.fix ?? "", /OPENAI_API_KEY/);
    const google = await setupError({ provider: "google", model: "" }, secretsOf({}));
    assert.equal(google.message, "No API key for Google Gemini: none is stored in VS Code, and neither GEMINI_API_KEY nor GOOGLE_API_KEY is set.");
    assert.match(google.fix ?? "", /GEMINI_API_KEY or GOOGLE_API_KEY/);
  });

  it("a stored key wins over the environment; the environment is the fallback; keys are trimmed", async () => {
    const stored = await resolveModelBinding({ provider: "anthropic", model: "" }, secretsOf({ anthropic: "  sk-ant-stored-key  " }), {
      env: { ANTHROPIC_API_KEY: "sk-ant-env-key" },
    });
    assert.equal(await stored.getApiKey("anthropic"), "sk-ant-stored-key");
    assert.equal(stored.model.id, DEFAULT_MODELS.anthropic);
    assert.equal(stored.model.api, "anthropic-messages");
    assert.equal(stored.model.baseUrl, "https://api.anthropic.com");

    const fromEnv = await resolveModelBinding({ provider: "anthropic", model: "" }, secretsOf({}), { env: { ANTHROPIC_API_KEY: "sk-ant-env-key" } });
    assert.equal(await fromEnv.getApiKey("anthropic"), "sk-ant-env-key");

    const gemini = await resolveModelBinding({ provider: "google", model: "" }, secretsOf({}), {
      env: { GOOGLE_API_KEY: "google-env", GEMINI_API_KEY: "gemini-env" },
    });
    assert.equal(await gemini.getApiKey("google"), "gemini-env", "GEMINI_API_KEY before GOOGLE_API_KEY");
    const google = await resolveModelBinding({ provider: "google", model: "" }, secretsOf({}), { env: { GOOGLE_API_KEY: "google-env" } });
    assert.equal(await google.getApiKey("google"), "google-env");
    assert.equal(google.model.api, "google-generative-ai");

    const openai = await resolveModelBinding({ provider: "openai", model: "" }, secretsOf({ openai: "sk-openai-stored" }), {
      env: { OPENAI_API_KEY: "sk-env" },
    });
    assert.equal(await openai.getApiKey("openai"), "sk-openai-stored");
    assert.equal(openai.model.id, DEFAULT_MODELS.openai);
    assert.deepEqual(guard.urls, []);
  });

  it("reads the key again per request, so a key set during a run is used next", async () => {
    const values: { anthropic?: string } = { anthropic: "sk-ant-first" };
    const binding = await resolveModelBinding({ provider: "anthropic", model: "" }, { get: async () => values.anthropic }, { env: {} });
    assert.equal(await binding.getApiKey("anthropic"), "sk-ant-first");
    values.anthropic = "sk-ant-second";
    assert.equal(await binding.getApiKey("anthropic"), "sk-ant-second");
  });

  it("a failing secret store is a setup error that does not echo the store's error", async () => {
    const secrets: SecretSource = { get: async () => Promise.reject(new Error("keychain locked: sk-SECRET-IN-ERROR")) };
    const error = await setupError({ provider: "openai", model: "" }, secrets);
    assert.match(error.message, /Could not read the stored API key for OpenAI/);
    assertNoKeyMaterial(error, ["sk-SECRET-IN-ERROR", "keychain locked"]);
  });

  it("an unknown model id is a setup error listing valid ids; ids match case-insensitively", async () => {
    const error = await setupError({ provider: "openai", model: "gpt-nonexistent" }, secretsOf({ openai: "sk-x" }));
    assert.equal(error.message, "Unknown OpenAI model “gpt-nonexistent”.");
    assert.match(error.fix ?? "", /Pi Chat: Choose Model…/);
    const suggested = /for example (.*)\.$/.exec(error.fix ?? "")?.[1]?.split(", ") ?? [];
    assert.ok(suggested.length >= 3, "a few ids are suggested");
    assert.equal(suggested[0], DEFAULT_MODELS.openai);
    const valid = new Set(listModels("openai").map((m) => m.id));
    for (const id of suggested) assert.ok(valid.has(id), `${id} is a valid id`);
    assertNoKeyMaterial(error, ["sk-x"]);

    const binding = await resolveModelBinding({ provider: "anthropic", model: DEFAULT_MODELS.anthropic.toUpperCase() }, secretsOf({ anthropic: "k" }), {
      env: {},
    });
    assert.equal(binding.model.id, DEFAULT_MODELS.anthropic);
  });

  it("a base URL overrides the endpoint of a built-in provider only with the user's consent for that URL", async () => {
    const asked: unknown[] = [];
    const binding = await resolveModelBinding(
      { provider: "openai", model: "gpt-4o-mini", baseUrl: "https://proxy.example.invalid/v1/" },
      secretsOf({ openai: "k" }),
      {
        env: {},
        allowBaseUrl: async (override) => {
          asked.push(override);
          return true;
        },
      },
    );
    assert.equal(binding.model.id, "gpt-4o-mini");
    assert.equal(binding.model.baseUrl, "https://proxy.example.invalid/v1");
    assert.deepEqual(asked, [{ provider: "openai", label: "OpenAI", url: "https://proxy.example.invalid/v1", ownUrl: "https://api.openai.com/v1" }]);
  });

  for (const provider of ["openai", "anthropic", "google"] as const) {
    for (const source of ["stored", "environment"] as const) {
      it(`${provider}, ${source} key: a base URL override the user did not allow is refused, and nothing is sent`, async () => {
        const key = `${provider}-${source}-KEY-7c1d2e3f4a5b`;
        const secrets = secretsOf(source === "stored" ? { [provider]: key } : {});
        const env = source === "environment" ? { OPENAI_API_KEY: key, ANTHROPIC_API_KEY: key, GEMINI_API_KEY: key } : {};
        for (const allowBaseUrl of [undefined, async () => false]) {
          let error: unknown;
          try {
            await resolveModelBinding({ provider, model: "", baseUrl: "http://127.0.0.1:9/v1" }, secrets, { env, ...(allowBaseUrl ? { allowBaseUrl } : {}) });
          } catch (e) {
            error = e;
          }
          assert.ok(error instanceof RunSetupError, "a setup error");
          assert.match(error.message, /did not send your .* API key to 127\.0\.0\.1:9/);
          assert.match(error.fix ?? "", /Choose Model/);
          assertNoKeyMaterial(error, [key]);
        }
        assert.deepEqual(guard.urls, []);
      });
    }
  }

  it("the provider's own endpoint written as a base URL needs no consent", async () => {
    const binding = await resolveModelBinding({ provider: "anthropic", model: "", baseUrl: "https://api.anthropic.com/" }, secretsOf({ anthropic: "k" }), {
      env: {},
      allowBaseUrl: async () => assert.fail("not asked"),
    });
    assert.equal(binding.model.baseUrl, "https://api.anthropic.com");
  });

  it("a key with a space or line break inside is refused with a clear message that does not quote it", async () => {
    for (const key of ["sk-abc\ndef-0123456789", "sk-abc def-0123456789", "sk-abc\tdef", "sk-abc\u00a0def", "sk-ab\u0000cd"]) {
      const fromEnv = await setupError({ provider: "openai", model: "" }, secretsOf({}), { OPENAI_API_KEY: key });
      assert.match(fromEnv.message, /The OpenAI API key cannot be used: it has/);
      const stored = await setupError({ provider: "openai-compatible", model: "m", baseUrl: "http://127.0.0.1:9/v1" }, secretsOf({ "openai-compatible": key }));
      assert.match(stored.message, /cannot be used/);
      for (const part of key.split(/\s|\u0000/)) assertNoKeyMaterial(fromEnv, [part]);
    }
    assert.equal(apiKeyProblem("sk-proj-AbC_09.-~+/="), undefined);
    assert.equal(apiKeyProblem("  sk-trimmed  "), undefined);
    assert.deepEqual(guard.urls, []);
  });

  it("OpenAI-compatible: a missing or bad base URL is a setup error", async () => {
    const missing = await setupError({ provider: "openai-compatible", model: "m" }, secretsOf({}));
    assert.equal(missing.message, "No base URL is set for the OpenAI-compatible server.");
    assert.match(missing.fix ?? "", /http:\/\/localhost:11434\/v1/);
    const blank = await setupError({ provider: "openai-compatible", model: "m", baseUrl: "   " }, secretsOf({}));
    assert.equal(blank.message, missing.message);

    const noScheme = await setupError({ provider: "openai-compatible", model: "m", baseUrl: "localhost:11434/v1" }, secretsOf({}));
    assert.match(noScheme.message, /not an http:\/\/ or https:\/\/ URL/);
    const garbage = await setupError({ provider: "openai-compatible", model: "m", baseUrl: "not a url" }, secretsOf({}));
    assert.match(garbage.message, /not a valid URL/);
    const withPassword = await setupError({ provider: "openai-compatible", model: "m", baseUrl: "http://user:hunter2-SECRET@127.0.0.1:1/v1" }, secretsOf({}));
    assert.match(withPassword.message, /user name or password/);
    assertNoKeyMaterial(withPassword, ["hunter2-SECRET"]);
    assert.deepEqual(guard.urls, []);
  });

  it("OpenAI-compatible: the binding never falls back to an environment key", async () => {
    const binding = await resolveModelBinding({ provider: "openai-compatible", model: "m", baseUrl: "http://127.0.0.1:1/v1" }, secretsOf({}), {
      env: { OPENAI_API_KEY: "sk-env-openai" },
    });
    assert.equal(await binding.getApiKey("openai-compatible"), "not-needed");
    assert.equal(binding.model.api, "openai-completions");
    assert.equal(binding.model.baseUrl, "http://127.0.0.1:1/v1");
    assert.equal(binding.model.contextWindow, 32768);
    const keyed = await resolveModelBinding(
      { provider: "openai-compatible", model: "m", baseUrl: "http://127.0.0.1:1/v1", contextWindow: 8192, maxTokens: 2048 },
      secretsOf({ "openai-compatible": "sk-compat" }),
    );
    assert.equal(await keyed.getApiKey("openai-compatible"), "sk-compat");
    assert.equal(keyed.model.contextWindow, 8192);
    assert.equal(keyed.model.maxTokens, 2048);
  });

  it("OpenAI-compatible without a model id: asks the server, and says so when it cannot", async () => {
    const server = await startOpenAIServer({ models: ["first-model", "second-model"] });
    try {
      const settings: ProviderSettings = { provider: "openai-compatible", model: "", baseUrl: `${server.url}/v1` };
      const binding = await resolveModelBinding(settings, secretsOf({ "openai-compatible": "sk-compat-key" }));
      assert.equal(binding.model.id, "first-model");
      assert.equal(server.requests[0]?.authorization, "Bearer sk-compat-key");
      assert.deepEqual(await listServerModels(settings, secretsOf({})), [
        { id: "first-model", name: "first-model" },
        { id: "second-model", name: "second-model" },
      ]);
      server.models = [];
      const empty = await setupError(settings, secretsOf({}));
      assert.match(empty.message, /lists no models/);
    } finally {
      await server.close();
    }
    const unreachable = await setupError({ provider: "openai-compatible", model: "", baseUrl: "http://127.0.0.1:1/v1" }, secretsOf({}));
    assert.match(unreachable.message, /Could not reach the server at http:\/\/127\.0\.0\.1:1\/v1/);
    assert.match(unreachable.fix ?? "", /Pi Chat: Choose Model…/);
  });

  it("an unknown provider id (a bad setting) is a setup error", async () => {
    for (const bogus of ["bogus", "constructor", ""]) {
      const error = await setupError({ provider: bogus as ProviderSettings["provider"], model: "" }, secretsOf({}));
      assert.match(error.message, /Unknown provider/);
    }
  });

  it("throws setup errors the session recognises by their code, whatever bundle's class made them, with the command that fixes them", async () => {
    const error = await resolveModelBinding({ provider: "anthropic", model: "" }, secretsOf({}), { env: {} }).then(
      () => assert.fail("resolved without a key"),
      (e: unknown) => e,
    );
    // A copy of the error as another bundle would see it: same fields, another class.
    const copied = Object.assign(new Error((error as Error).message), {
      code: (error as { code?: unknown }).code,
      fix: (error as { fix?: unknown }).fix,
      fixCommand: (error as { fixCommand?: unknown }).fixCommand,
      moreFixCommands: [...((error as { moreFixCommands?: unknown[] }).moreFixCommands ?? []), "formatDisk"],
    });
    assert.deepEqual(runSetupFix(copied), {
      fix: "Run “Pi Chat: Set API Key” or set ANTHROPIC_API_KEY. Or choose another provider, or use a local model (no key needed).",
      fixCommand: "setApiKey",
      // A command no notice offers is dropped.
      moreFixCommands: ["retry", "selectChatModel", "useLocalModel"],
    });
    assert.equal(runSetupFix(new Error("No API key")), undefined, "a plain error is not a setup error");
    const unknownModel = await resolveModelBinding({ provider: "anthropic", model: "claude-nope" }, secretsOf({ anthropic: "sk-ant-test" }), { env: {} }).then(
      () => assert.fail("resolved an unknown model"),
      (e: unknown) => e,
    );
    assert.equal(runSetupFix(unknownModel)?.fixCommand, "selectModel");
  });
});

describe("providers: listModels and DEFAULT_MODELS", () => {
  it("lists each built-in provider's chat models, including its default; none for OpenAI-compatible", () => {
    for (const provider of ["anthropic", "openai", "google"] as const) {
      const models = listModels(provider);
      assert.ok(models.length > 3, `${provider} has models`);
      assert.ok(
        models.some((m) => m.id === DEFAULT_MODELS[provider]),
        `the ${provider} default is listed`,
      );
      for (const m of models) assert.ok(m.id && m.name);
    }
    assert.deepEqual(listModels("openai-compatible"), []);
    // VS Code's own models are listed by the host (vscode.lm), never by the provider bundle; they need no key.
    assert.deepEqual(listModels("vscode-lm"), []);
    assert.deepEqual([...PROVIDER_IDS, "vscode-lm"].sort(), Object.keys(DEFAULT_MODELS).sort());
  });
});

describe("providers: describeProviderError", () => {
  const cases: { name: string; message: string; text: RegExp; fix?: RegExp; provider?: "anthropic" }[] = [
    {
      name: "OpenAI 401 (pi-ai's status: body format)",
      message:
        '401: {"message":"Incorrect API key provided: sk-proj-abcdefghijklmnop1234. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}',
      text: /rejected the API key/,
      fix: /Set API Key/,
    },
    {
      name: "Anthropic invalid x-api-key",
      message: '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
      text: /rejected the API key/,
      fix: /Pi Chat: Set API Key” or set ANTHROPIC_API_KEY/,
      provider: "anthropic",
    },
    { name: "Google key not valid", message: "API key not valid. Please pass a valid API key.", text: /rejected the API key/, fix: /Set API Key/ },
    { name: "pi-ai without a key", message: "No API key for provider: openai", text: /rejected the API key/, fix: /Set API Key/ },
    { name: "429", message: "429 Rate limit reached for gpt-4.1 in organization org-x on tokens per min.", text: /rate-limiting/, fix: /Wait/ },
    {
      name: "Gemini RESOURCE_EXHAUSTED",
      message: '{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED"}}',
      text: /rate-limiting/,
      fix: /quota/,
    },
    {
      name: "OpenAI insufficient_quota",
      message:
        '429: {"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}',
      text: /no quota or credit/,
      fix: /billing/,
    },
    {
      name: "connection refused",
      message: "Connection error.: connect ECONNREFUSED 127.0.0.1:11434 (ECONNREFUSED)",
      text: /^Could not reach the provider: connection refused, is the server running\?; check your network or proxy\.$/,
      fix: /base URL/,
    },
    {
      name: "DNS, in words with the host",
      message: "getaddrinfo ENOTFOUND api.openai.com",
      text: /^Could not reach api\.openai\.com: the name does not resolve; check your network or proxy\.$/,
      fix: /network/,
    },
    {
      name: "a connection error that names no host: the provider's",
      message: "Connection error.",
      provider: "anthropic",
      text: /^Could not reach api\.anthropic\.com: no answer; check your network or proxy\.$/,
    },
    { name: "fetch failed", message: "fetch failed", text: /Could not reach/, fix: /network/ },
    {
      name: "OpenAI context length",
      message:
        '400: {"message":"This model\'s maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}',
      text: /too long for this model's context window/,
      fix: /Start a new chat/,
    },
    { name: "Anthropic prompt too long", message: "prompt is too long: 213462 tokens > 200000 maximum", text: /context window/, fix: /new chat/ },
    { name: "llama.cpp context", message: "400 the request exceeds the available context size, try increasing it", text: /context window/, fix: /new chat/ },
    {
      name: "Anthropic overloaded",
      message: '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      text: /overloaded/,
      fix: /Wait/,
    },
    {
      name: "unknown model",
      message: '404: {"message":"The model `gpt-9` does not exist or you do not have access to it.","code":"model_not_found"}',
      text: /does not know this model/,
      fix: /Choose Model/,
    },
    { name: "wrong path", message: "404 status code (no body)", text: /404 Not Found/, fix: /base URL/ },
    { name: "server error", message: "500 Internal server error", text: /internal error \(500\)/, fix: /Wait/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const described = describeProviderError(c.message, c.provider);
      assert.match(described.text, c.text);
      if (c.fix) assert.match(described.fix ?? "", c.fix);
      assert.doesNotMatch(`${described.text} ${described.fix ?? ""}`, /sk-proj-abc/);
    });
  }

  it("passes other messages through, with key-like strings redacted", () => {
    assert.deepEqual(describeProviderError("Provider finish_reason: weird"), { text: "Provider finish_reason: weird" });
    const redacted = describeProviderError("proxy said: bad header Authorization: Bearer sk-live-abcdef123456 and key=AIzaSyDUMMYDUMMYDUMMY");
    assert.doesNotMatch(redacted.text, /abcdef123456|DUMMYDUMMY/);
    assert.equal(describeProviderError("").text, "The request failed without an error message.");
  });

  it("VS Code's models: consent refused, quota or rate limit, a model gone, each with the way out", () => {
    const refused = describeProviderError("VS Code language model error (NoPermissions): Access denied", "vscode-lm");
    assert.match(refused.text, /VS Code did not let Pi Chat use this model: the permission was refused/);
    assert.match(refused.fix ?? "", /allow it when VS Code asks/);
    assert.deepEqual([refused.fixCommand, ...(refused.moreFixCommands ?? [])], ["retry", "selectChatModel"]);
    const blocked = describeProviderError("VS Code language model error (Blocked): monthly quota used up", "vscode-lm");
    assert.match(blocked.text, /quota or rate limit \(monthly quota used up\)/);
    assert.equal(blocked.fixCommand, "retry");
    const gone = describeProviderError("VS Code language model error (NotFound): no model", "vscode-lm");
    assert.match(gone.text, /VS Code no longer has this model/);
    assert.equal(gone.fixCommand, "selectChatModel");
    const other = describeProviderError("VS Code language model error (Weird): it broke, key sk-live-abcdef123456", "vscode-lm");
    assert.match(other.text, /^The model's extension failed: it broke/);
    assert.doesNotMatch(other.text, /abcdef123456/);
    // The same words from another provider are not read as VS Code's.
    assert.doesNotMatch(describeProviderError("VS Code language model error (Blocked): x", "openai").text, /quota or rate limit/);
  });
});

describe("providers: the folder stays free of VS Code", () => {
  it("no file in src/host/providers imports vscode", () => {
    const dir = join(process.cwd(), "src/host/providers");
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      assert.doesNotMatch(readFileSync(join(dir, file), "utf8"), /from\s+["']vscode["']|require\(["']vscode["']\)/, file);
    }
  });
});
