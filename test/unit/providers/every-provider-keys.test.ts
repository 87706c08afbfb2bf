// The key-to-host table over every provider the picker offers: each one builds its model and a real
// request through pi-ai's own adapter (OpenAI chat and responses, Anthropic, Google, Mistral…) against
// a local server standing in for the base URL the user allowed for that provider, with every other
// provider's key stored and in the environment too. The key that arrives is that provider's own, and
// no other provider's key reaches the server, in any header, the URL or the body. A base URL not
// allowed for that very provider gets nothing at all. Also: every provider pi-ai knows is offered,
// or left out with the reason written down.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { builtinProviders } from "@earendil-works/pi-ai/providers/all";
import { findEnvKeys } from "../../../node_modules/@earendil-works/pi-ai/dist/env-api-keys.js";
import { RunSetupError } from "../../../src/core/session/run-errors";
import { ENV_VARS, NOT_OFFERED, PROVIDER_IDS, type KeyedProviderId } from "../../../src/host/providers/catalog";
import { resolveModelBinding, type BaseUrlOverride } from "../../../src/host/providers/provider-bundle";
import { guardNetwork, secretsOf, withEnv, world } from "./helpers";

interface Captured {
  url: string;
  text: string;
}

/** A server that records every request whole (method, URL, every header, body) and refuses it with a 400. */
async function captureServer(): Promise<{ url: string; requests: Captured[]; close(): Promise<void> }> {
  const requests: Captured[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({ url: req.url ?? "", text: `${req.method} ${req.url}\n${JSON.stringify(req.headers)}\n${Buffer.concat(chunks).toString("utf8")}` });
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "refused by the test server", type: "invalid_request_error" } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const CLOUD = PROVIDER_IDS.filter((p): p is Exclude<KeyedProviderId, "openai-compatible"> => p !== "openai-compatible");
const storedKey = (p: string) => `stored-${p}-KEY-${p.length}f8e7d6c5b4a39`;
const envKey = (name: string) => `env-${name}-VALUE-1a2b3c4d5e6f`;
const ALL_ENV_NAMES = [...new Set(CLOUD.flatMap((p) => ENV_VARS[p]))];
/** Credentials the SDKs under pi-ai read from the process's environment by themselves, whatever they are given. */
const AMBIENT = ["ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "GOOGLE_CLOUD_API_KEY", "AWS_BEARER_TOKEN_BEDROCK"];

/** Azure's and Cloudflare's URL parts, as the picker stores them. */
const GOOD_OPTIONS = {
  "azure.resourceName": "my-resource",
  "azure.deployment": "",
  "cloudflare.accountId": "0123456789abcdef0123456789abcdef",
  "cloudflare.gatewayId": "my-gateway",
} as const;

/** Every secret of the test but `provider`'s own (and OpenAI's organization and project for OpenAI). */
function otherSecrets(provider: string, source: "stored" | "environment"): string[] {
  const own = source === "environment" ? ENV_VARS[provider as KeyedProviderId] : [];
  return [
    ...CLOUD.filter((p) => p !== provider).map(storedKey),
    ...[...ALL_ENV_NAMES, ...AMBIENT]
      .filter((n) => !own.includes(n))
      // OpenAI's own organization and project go to OpenAI (here, the proxy allowed for it).
      .filter((n) => !(provider === "openai" && n.startsWith("OPENAI_")))
      .map(envKey),
  ];
}

/** What went wrong with one provider's requests: consent asked other than once for it, no request, its key missing, another's there. */
function problems(provider: string, asked: readonly BaseUrlOverride[], sent: readonly Captured[], own: string, others: readonly string[]): string[] {
  const out: string[] = [];
  if (asked.length !== 1 || asked[0]?.provider !== provider) out.push(`${provider}: consent asked ${JSON.stringify(asked)}`);
  if (sent.length === 0) out.push(`${provider}: no request reached the server`);
  for (const r of sent) {
    if (!r.text.includes(own)) out.push(`${provider}: its own key missing from ${r.url}`);
    const leaked = others.filter((k) => r.text.includes(k));
    if (leaked.length > 0) out.push(`${provider}: ${r.url} carried ${leaked.join(", ")}`);
  }
  return out;
}

describe("providers: every provider's key reaches only its own host", function () {
  this.timeout(60_000);
  let server: Awaited<ReturnType<typeof captureServer>>;
  let restoreEnv: () => void;
  before(async () => {
    server = await captureServer();
    // The process's own environment too: an SDK that reads a variable itself must not send it.
    restoreEnv = withEnv(Object.fromEntries([...ALL_ENV_NAMES, ...AMBIENT].map((n) => [n, envKey(n)])));
  });
  after(async () => {
    restoreEnv();
    await server.close();
  });

  it("every provider pi-ai knows is in the picker, or left out with its reason", () => {
    const offered = new Set<string>(PROVIDER_IDS);
    const missing = builtinProviders()
      .map((p) => p.id)
      .filter((id) => !offered.has(id) && !(id in NOT_OFFERED));
    assert.deepEqual(missing, [], "pi-ai providers neither offered nor explained");
    assert.ok(CLOUD.length >= 30, `${CLOUD.length} cloud providers offered`);
    for (const [id, reason] of Object.entries(NOT_OFFERED)) assert.ok(reason.length > 20 && !offered.has(id), id);
  });

  it("each provider's key prompt names the variables pi-ai reads for it", () => {
    // A proxy environment in which every variable is set: pi-ai then names all it would read.
    const everything = new Proxy({}, { get: (_t, name) => (typeof name === "string" ? "set" : undefined) });
    for (const provider of CLOUD) {
      const piAi = findEnvKeys(provider, everything) ?? [];
      for (const name of ENV_VARS[provider]) if (provider !== "google" || name !== "GOOGLE_API_KEY") assert.ok(piAi.includes(name), `${provider}: ${name}`);
      assert.ok(ENV_VARS[provider].length > 0, `${provider} names a variable`);
    }
  });

  for (const source of ["stored", "environment"] as const) {
    it(`${source} keys: through pi-ai's own adapter, each provider's request carries its key and no other`, async () => {
      const report: string[] = [];
      const env: Record<string, string> = Object.fromEntries(ALL_ENV_NAMES.map((n) => [n, envKey(n)]));
      for (const provider of CLOUD) {
        const stored = Object.fromEntries(CLOUD.filter((p) => source === "stored" || p !== provider).map((p) => [p, storedKey(p)]));
        const own = source === "stored" ? storedKey(provider) : envKey(ENV_VARS[provider][0] ?? "");
        const baseUrl = `${server.url}/${provider}`;
        const asked: BaseUrlOverride[] = [];
        const before = server.requests.length;
        const w = world(() =>
          resolveModelBinding({ provider, model: "", baseUrl, options: GOOD_OPTIONS }, secretsOf(stored), {
            env,
            allowBaseUrl: async (override) => {
              asked.push(override);
              return override.provider === provider && override.url === baseUrl;
            },
          }),
        );
        try {
          const session = w.service.newChat();
          await session.prompt("hello");
        } finally {
          await w.cleanup();
        }
        report.push(...problems(provider, asked, server.requests.slice(before), own, otherSecrets(provider, source)));
      }
      assert.deepEqual(report, []);
    });
  }

  it("a local server (OpenAI-compatible) gets its own key only: no cloud key, no OpenAI organization or project", async () => {
    const before = server.requests.length;
    const stored = { ...Object.fromEntries(CLOUD.map((p) => [p, storedKey(p)])), "openai-compatible": "local-server-KEY-0a9b8c7d" };
    const w = world(() =>
      resolveModelBinding({ provider: "openai-compatible", model: "local-model", baseUrl: `${server.url}/local/v1` }, secretsOf(stored), {}),
    );
    try {
      await w.service.newChat().prompt("hello");
    } finally {
      await w.cleanup();
    }
    const sent = server.requests.slice(before).filter((r) => r.url.includes("/chat/completions"));
    assert.ok(sent.length > 0, "the chat request reached the local server");
    const secrets = [...CLOUD.map(storedKey), ...[...ALL_ENV_NAMES, ...AMBIENT].map(envKey)];
    for (const r of sent) {
      assert.ok(r.text.includes("local-server-KEY-0a9b8c7d"));
      assert.deepEqual(
        secrets.filter((k) => r.text.includes(k)),
        [],
      );
    }
  });

  it("a base URL allowed for one provider, or for none, gets no request of any other", async () => {
    const env: Record<string, string> = Object.fromEntries(ALL_ENV_NAMES.map((n) => [n, envKey(n)]));
    const stored = Object.fromEntries(CLOUD.map((p) => [p, storedKey(p)]));
    const allowedFor = "openrouter";
    const baseUrl = `${server.url}/shared`;
    const before = server.requests.length;
    const refused: string[] = [];
    for (const provider of CLOUD) {
      if (provider === allowedFor) continue;
      try {
        await resolveModelBinding({ provider, model: "", baseUrl, options: GOOD_OPTIONS }, secretsOf(stored), {
          env,
          allowBaseUrl: async (override) => override.provider === allowedFor && override.url === baseUrl,
        });
      } catch (error) {
        if (error instanceof RunSetupError && /did not send your .* API key to 127\.0\.0\.1/.test(error.message)) refused.push(provider);
      }
    }
    assert.deepEqual(
      refused,
      CLOUD.filter((p) => p !== allowedFor),
    );
    assert.equal(server.requests.length, before, "no request at all");
  });

  it("attack: a URL part from the settings that would move the key to another host is refused before any request", async () => {
    const hostile: [provider: "azure" | "cloudflare-workers-ai" | "cloudflare-ai-gateway", option: keyof typeof GOOD_OPTIONS, value: string][] = [
      ["azure", "azure.resourceName", "evil.example#"],
      ["azure", "azure.resourceName", "evil.example/x?"],
      ["azure", "azure.resourceName", "me@evil.example"],
      ["azure", "azure.deployment", "../../evil"],
      ["cloudflare-workers-ai", "cloudflare.accountId", "evil.example#"],
      ["cloudflare-ai-gateway", "cloudflare.gatewayId", "../../../../evil"],
      ["cloudflare-ai-gateway", "cloudflare.accountId", ""],
    ];
    const guard = guardNetwork();
    const notices: string[] = [];
    try {
      for (const [provider, option, value] of hostile) {
        const w = world(() =>
          resolveModelBinding({ provider, model: "", options: { ...GOOD_OPTIONS, [option]: value } }, secretsOf({ [provider]: storedKey(provider) }), {}),
        );
        try {
          const session = w.service.newChat();
          await session.prompt("hello");
          const last = session.messages.at(-1);
          notices.push(last?.role === "localNotice" ? last.text : `no notice: ${JSON.stringify(last).slice(0, 200)}`);
        } finally {
          await w.cleanup();
        }
      }
    } finally {
      guard.restore();
    }
    assert.deepEqual(guard.urls, [], "no request went anywhere");
    for (const notice of notices) assert.match(notice, /needs .*(must be|is needed)/);
  });
});
