// The window probe over real HTTP (src/host/providers/server-probe.ts through resolveModelBinding):
// a scripted server that speaks Ollama's /api/ps and /api/show, one that says nothing, and the
// attacks on the key — a probe endpoint that redirects to another origin, a base URL whose
// server root differs — where the stored key must never reach a foreign origin.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { forgetServerWindows, modelForMeter, resolveModelBinding } from "../../../src/host/providers/provider-bundle";
import { probeHeaders } from "../../../src/host/providers/server-probe";
import { guardNetwork, secretsOf } from "./helpers";

const KEY = "sk-local-probe-key-0001";

interface Seen {
  method: string;
  path: string;
  authorization: string | undefined;
  body: string;
}

/** A local HTTP server answering each path with a scripted handler (404 otherwise), recording every request. */
async function scripted(routes: Record<string, (body: string, res: ServerResponse) => void>): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      seen.push({ method: req.method ?? "", path, authorization: req.headers.authorization, body });
      const route = routes[`${req.method} ${path}`];
      if (route) route(body, res);
      else json(res, 404, { error: "not found" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

describe("providers: the window probe asks the server over HTTP", () => {
  let guard: ReturnType<typeof guardNetwork>;
  const closers: (() => Promise<void>)[] = [];
  beforeEach(() => {
    forgetServerWindows();
    guard = guardNetwork();
  });
  afterEach(async () => {
    guard.restore();
    for (const close of closers.splice(0)) await close();
  });

  it("Ollama: the loaded model's context_length from /api/ps is the binding's window, and the meter's after it", async () => {
    const ollama = await scripted({
      "GET /api/ps": (_body, res) => json(res, 200, { models: [{ name: "qwen2.5-coder:7b", model: "qwen2.5-coder:7b", context_length: 8192, size_vram: 1 }] }),
      "GET /v1/models": (_body, res) => json(res, 200, { object: "list", data: [{ id: "qwen2.5-coder:7b", object: "model", owned_by: "library" }] }),
    });
    closers.push(ollama.close);
    const settings = { provider: "openai-compatible" as const, model: "qwen2.5-coder:7b", baseUrl: `${ollama.url}/v1` };
    assert.equal(modelForMeter(settings)?.contextWindow, 0, "before the server was asked: unknown, not a made-up total");
    const binding = await resolveModelBinding(settings, secretsOf({}));
    assert.equal(binding.model.contextWindow, 8192);
    assert.deepEqual(binding.window, { known: true, server: "ollama" });
    assert.equal(modelForMeter(settings)?.contextWindow, 8192, "the meter gets what the server said");
    await resolveModelBinding(settings, secretsOf({}));
    assert.equal(ollama.seen.filter((r) => r.path === "/api/ps").length, 1, "asked once per base URL and model");
  });

  it("Ollama with the model not loaded: /api/show's length, capped at Ollama's default num_ctx, asked again next time", async () => {
    const ollama = await scripted({
      "GET /api/ps": (_body, res) => json(res, 200, { models: [] }),
      "POST /api/show": (body, res) =>
        JSON.parse(body).model === "llama3.2" ? json(res, 200, { parameters: "", model_info: { "llama.context_length": 131072 } }) : json(res, 404, {}),
    });
    closers.push(ollama.close);
    const settings = { provider: "openai-compatible" as const, model: "llama3.2", baseUrl: `${ollama.url}/v1` };
    const binding = await resolveModelBinding(settings, secretsOf({}));
    assert.equal(binding.model.contextWindow, 4096);
    await resolveModelBinding(settings, secretsOf({}));
    assert.equal(ollama.seen.filter((r) => r.path === "/api/show").length, 2, "an assumption is not kept: once loaded, /api/ps says the truth");
  });

  it("a server that says nothing of its window: the setting, else the window is unknown (the meter shows no total)", async () => {
    const silent = await scripted({ "GET /v1/models": (_body, res) => json(res, 200, { data: [{ id: "m" }] }) });
    closers.push(silent.close);
    const settings = { provider: "openai-compatible" as const, model: "m", baseUrl: `${silent.url}/v1` };
    const binding = await resolveModelBinding(settings, secretsOf({}));
    assert.equal(binding.window?.known, false);
    assert.equal(modelForMeter(settings)?.contextWindow, 0);
    const set = await resolveModelBinding({ ...settings, contextWindow: 12_000 }, secretsOf({}));
    assert.equal(set.model.contextWindow, 12_000);
    assert.equal(set.window?.known, true);
    assert.equal(modelForMeter({ ...settings, contextWindow: 12_000 })?.contextWindow, 12_000);
  });

  it("the setting never raises the window past what the server holds", async () => {
    const llama = await scripted({ "GET /props": (_body, res) => json(res, 200, { default_generation_settings: { n_ctx: 2048 } }) });
    closers.push(llama.close);
    const binding = await resolveModelBinding({ provider: "openai-compatible", model: "m", baseUrl: `${llama.url}/v1`, contextWindow: 128_000 }, secretsOf({}));
    assert.equal(binding.model.contextWindow, 2048);
    assert.ok(binding.model.maxTokens <= 2048);
  });

  it("attack: a probe endpoint redirects to another origin — not followed, and the key never reaches it", async () => {
    const foreign = await scripted({ "GET /props": (_body, res) => json(res, 200, { default_generation_settings: { n_ctx: 999_999 } }) });
    closers.push(foreign.close);
    const redirect = (res: ServerResponse) => {
      res.writeHead(307, { Location: `${foreign.url}/props` });
      res.end();
    };
    const local = await scripted({
      "GET /props": (_body, res) => redirect(res),
      "GET /slots": (_body, res) => redirect(res),
      "GET /api/ps": (_body, res) => redirect(res),
      "GET /api/v0/models": (_body, res) => redirect(res),
    });
    closers.push(local.close);
    const binding = await resolveModelBinding(
      { provider: "openai-compatible", model: "m", baseUrl: `${local.url}/v1` },
      secretsOf({ "openai-compatible": KEY }),
    );
    assert.equal(foreign.seen.length, 0, "the redirect was not followed");
    assert.notEqual(binding.model.contextWindow, 999_999);
    assert.ok(
      local.seen.some((r) => r.authorization === `Bearer ${KEY}`),
      "the key went to its own origin",
    );
  });

  it("the key goes only to the base URL's own origin; no key, no header", () => {
    assert.equal(probeHeaders("http://127.0.0.1:8080/props", "http://127.0.0.1:8080/v1", KEY).Authorization, `Bearer ${KEY}`);
    assert.equal(probeHeaders("http://127.0.0.1:9090/props", "http://127.0.0.1:8080/v1", KEY).Authorization, undefined);
    assert.equal(probeHeaders("https://127.0.0.1:8080/props", "http://127.0.0.1:8080/v1", KEY).Authorization, undefined);
    assert.equal(probeHeaders("http://evil.example/props", "http://127.0.0.1:8080/v1", KEY).Authorization, undefined);
    assert.equal(probeHeaders("http://127.0.0.1:8080/props", "http://127.0.0.1:8080/v1", undefined).Authorization, undefined);
  });
});
