// OAuth sign-in for Streamable HTTP MCP servers, against a real (small) authorization server and
// protected MCP endpoint on localhost (test/support/oauth-server.ts: RFC 9728 and 8414 metadata,
// RFC 7591 registration, PKCE S256 checked, rotating refresh tokens). The store keeps everything in
// a secret store (a Map here, SecretStorage in VS Code) by server URL, with a refresh lock shared
// by windows; the servers' states say "needs sign-in"; sign-in, restart, refresh, revocation and
// sign-out each end in the state a user can act on.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpRefreshLockBusyError } from "@earendil-works/pi-mcp/oauth";
import type { McpServerDefinition } from "../../../src/core/mcp/config";
import { McpOAuthSecretStore, McpSignInCancelledError, McpSignInTimeoutError, mcpOAuthSecretKey, oauthBinding } from "../../../src/core/mcp/oauth";
import { McpServers, type McpServerState } from "../../../src/core/mcp/servers";
import { type OAuthTestServer, startOAuthTestServer } from "../../support/oauth-server";
import { MapSecrets } from "../../support/map-secrets";
import { waitFor } from "../../support/wait-for";

function http(name: string, url: string, extra: Partial<Extract<McpServerDefinition["transport"], { type: "http" }>> = {}): McpServerDefinition {
  return { name, scope: "user", file: "test", enabled: true, transport: { type: "http", url, headers: {}, ...extra } };
}

describe("MCP OAuth: the secret store", () => {
  const lockDir = () => mkdtempSync(join(tmpdir(), "mcp-oauth-lock-"));

  it("tokens for one URL are bound to their authorization server and client: another metadata document or client finds none", async () => {
    const secrets = new MapSecrets();
    const url = "https://a.example/mcp";
    await new McpOAuthSecretStore(url, secrets, lockDir()).save({
      serverUrl: url,
      tokens: { access_token: "at-a", token_type: "Bearer", refresh_token: "rt-a" },
    });
    for (const config of [{ authServerMetadataUrl: "https://evil.example/.well-known/oauth-authorization-server" }, { clientId: "someone-else" }]) {
      const binding = oauthBinding(config);
      assert.ok(binding);
      assert.equal(await new McpOAuthSecretStore(url, secrets, lockDir(), undefined, binding).load(), undefined, JSON.stringify(config));
    }
    assert.equal(oauthBinding({ scope: "read" }), undefined, "a scope binds nothing: the same grant");
    assert.equal((await new McpOAuthSecretStore(url, secrets, lockDir(), undefined, oauthBinding(undefined)).load())?.tokens?.refresh_token, "rt-a");
  });

  it("keeps one server's state under its own key, and never hands it to another URL", async () => {
    const secrets = new MapSecrets();
    const a = new McpOAuthSecretStore("https://a.example/mcp", secrets, lockDir());
    await a.save({ serverUrl: "https://a.example/mcp", tokens: { access_token: "at-a", token_type: "Bearer" } });
    assert.deepEqual([...secrets.map.keys()], [mcpOAuthSecretKey("https://a.example/mcp")]);
    assert.equal((await new McpOAuthSecretStore("https://a.example/mcp", secrets, lockDir()).load())?.tokens?.access_token, "at-a");
    // A state saved under the wrong key (or for another URL) is not this server's.
    secrets.map.set(mcpOAuthSecretKey("https://b.example/mcp"), secrets.map.get(mcpOAuthSecretKey("https://a.example/mcp"))!);
    assert.equal(await new McpOAuthSecretStore("https://b.example/mcp", secrets, lockDir()).load(), undefined);
    secrets.map.set(mcpOAuthSecretKey("https://c.example/mcp"), "{not json");
    assert.equal(await new McpOAuthSecretStore("https://c.example/mcp", secrets, lockDir()).load(), undefined);
    await a.clear();
    assert.equal(secrets.map.has(mcpOAuthSecretKey("https://a.example/mcp")), false);
    assert.equal(await a.load(), undefined);
  });

  it("reads through its cache until told another window changed it; the refresh lock always reads afresh", async () => {
    const secrets = new MapSecrets();
    const url = "https://a.example/mcp";
    const store = new McpOAuthSecretStore(url, secrets, lockDir());
    await store.save({ serverUrl: url, tokens: { access_token: "one", token_type: "Bearer" } });
    secrets.map.set(mcpOAuthSecretKey(url), JSON.stringify({ serverUrl: url, tokens: { access_token: "two", token_type: "Bearer" } }));
    assert.equal((await store.load())?.tokens?.access_token, "one", "cached");
    const inLock = await store.withRefreshLock(async () => (await store.load())?.tokens?.access_token);
    assert.equal(inLock, "two", "the lock drops the cache");
    secrets.map.set(mcpOAuthSecretKey(url), JSON.stringify({ serverUrl: url, tokens: { access_token: "three", token_type: "Bearer" } }));
    store.forget();
    assert.equal((await store.load())?.tokens?.access_token, "three");
  });

  it("the refresh lock keeps two windows' refreshes apart, and reports one that holds it too long", async () => {
    const secrets = new MapSecrets();
    const dir = lockDir();
    const url = "https://a.example/mcp";
    const one = new McpOAuthSecretStore(url, secrets, dir, 2_000);
    const two = new McpOAuthSecretStore(url, secrets, dir, 2_000);
    const order: string[] = [];
    let release!: () => void;
    const held = one.withRefreshLock(async () => {
      order.push("one in");
      await new Promise<void>((r) => (release = r));
      order.push("one out");
    });
    await waitFor("the first lock", () => order.includes("one in"));
    const second = two.withRefreshLock(async () => order.push("two in"));
    // Released only once the other window found the lock held (an event, not a fixed wait).
    await waitFor("the other window to find the lock held", () => two.refreshLockWaits > 0);
    assert.deepEqual(order, ["one in"], "the other window waits");
    release();
    await Promise.all([held, second]);
    assert.deepEqual(order, ["one in", "one out", "two in"]);

    const busy = new McpOAuthSecretStore(url, secrets, dir, 300);
    let free!: () => void;
    const holding = one.withRefreshLock(() => new Promise<void>((r) => (free = r)));
    await waitFor("the lock to be held", () => free !== undefined);
    await assert.rejects(
      busy.withRefreshLock(async () => "never"),
      (e: unknown) => e instanceof McpRefreshLockBusyError,
    );
    free();
    await holding;
    // A failing refresh releases the lock too.
    await assert.rejects(
      one.withRefreshLock(() => Promise.reject(new Error("refused"))),
      /refused/,
    );
    assert.equal(await two.withRefreshLock(async () => "free again"), "free again");
  });

  it("a lock left by a window that died is taken over once it is stale", async () => {
    const dir = lockDir();
    const url = "https://a.example/mcp";
    const store = new McpOAuthSecretStore(url, new MapSecrets(), dir, 500);
    let lockPath = "";
    await store.withRefreshLock(async () => {
      lockPath = join(dir, (await import("node:fs")).readdirSync(dir)[0]!);
    });
    mkdirSync(lockPath);
    const { utimesSync } = await import("node:fs");
    const old = new Date(Date.now() - 5 * 60_000);
    utimesSync(lockPath, old, old);
    assert.equal(await store.withRefreshLock(async () => "taken over"), "taken over");
    assert.equal(existsSync(lockPath), false);
  });
});

describe("MCP OAuth: sign-in and the servers' states", function () {
  this.timeout(60_000);
  let as: OAuthTestServer;
  let lockDir: string;
  const running: McpServers[] = [];

  beforeEach(async () => {
    as = await startOAuthTestServer();
    lockDir = mkdtempSync(join(tmpdir(), "mcp-oauth-lock-"));
  });
  afterEach(async () => {
    for (const s of running.splice(0)) await s.dispose();
    await as.close();
  });

  function servers(secrets: MapSecrets, defs: McpServerDefinition[]): { servers: McpServers; log: string[] } {
    const log: string[] = [];
    const stores = new Map<string, McpOAuthSecretStore>();
    const s = new McpServers({
      clientInfo: { name: "pi-chat-test", version: "0" },
      prepare: async (def) => ({ transport: def.transport }),
      isServerDisabled: () => false,
      isToolDisabled: () => false,
      acceptsImages: () => false,
      log: (line) => log.push(line),
      onChange: () => {},
      oauth: {
        clientName: "Pi Chat test",
        store: (url) => {
          let store = stores.get(url);
          if (!store) stores.set(url, (store = new McpOAuthSecretStore(url, secrets, lockDir)));
          return store;
        },
      },
    });
    s.setDefinitions(defs);
    running.push(s);
    return { servers: s, log };
  }
  const stateOf = (s: McpServers, name: string): McpServerState => s.list().find((x) => x.name === name)!.state;
  const settled = (s: McpServers, name: string) =>
    waitFor(`${name} to settle`, () => (["starting", "stopped"].includes(stateOf(s, name).kind) ? undefined : stateOf(s, name)));
  const browser = (opened: string[]) => async (url: string) => {
    opened.push(url);
    const { callbackStatus } = await as.browse(url);
    assert.equal(callbackStatus, 200, "the loopback callback took the code");
    return true;
  };

  /** The tracker server, signed in and ready: where the revoke and sign-out tests start. */
  const signedInTracker = async (secrets: MapSecrets): Promise<McpServers> => {
    const { servers: s } = servers(secrets, [http("tracker", as.mcpUrl)]);
    await s.ensureStarted(10_000);
    await settled(s, "tracker");
    await s.signIn("tracker", { openBrowser: browser([]) });
    await waitFor("ready", () => stateOf(s, "tracker").kind === "ready");
    return s;
  };

  it("a server that answers 401 with OAuth metadata needs sign-in; signing in registers a client, uses PKCE, and its tools come", async () => {
    const secrets = new MapSecrets();
    const { servers: s, log } = servers(secrets, [http("tracker", as.mcpUrl)]);
    await s.ensureStarted(10_000);
    const state = await settled(s, "tracker");
    assert.deepEqual(state, { kind: "needsSignIn", authorizationServer: as.origin, reason: "it asks you to sign in" });
    assert.deepEqual(s.needingSignIn, ["tracker"]);
    assert.equal(s.tools(100).tools.length, 0);
    assert.equal(s.list()[0]!.signedIn, false);

    const opened: string[] = [];
    assert.equal(await s.signIn("tracker", { openBrowser: browser(opened) }), "signedIn");
    assert.equal(opened.length, 1);
    const authorization = new URL(opened[0]!);
    assert.equal(authorization.origin, as.origin);
    assert.equal(authorization.searchParams.get("code_challenge_method"), "S256");
    assert.match(authorization.searchParams.get("redirect_uri")!, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    assert.equal(authorization.searchParams.get("resource"), as.mcpUrl);
    assert.equal(as.seen.registrations, 1);
    assert.deepEqual(as.seen.grants, ["authorization_code"]);

    await waitFor("tracker ready", () => stateOf(s, "tracker").kind === "ready");
    assert.deepEqual(
      s.tools(100).tools.map((t) => t.name),
      ["mcp__tracker__whoami", "mcp__tracker__echo"],
    );
    assert.equal(s.list()[0]!.signedIn, true);
    const result = await s
      .tools(100)
      .tools.find((t) => t.name === "mcp__tracker__whoami")!
      .execute("call-1", {});
    assert.match(JSON.stringify(result.content), /authorized for client-/);
    // The tokens are in the secret store only: not in the log.
    const saved = secrets.map.get(mcpOAuthSecretKey(as.mcpUrl))!;
    assert.ok(saved.includes(as.issued.accessTokens[0]!) && saved.includes(as.issued.refreshTokens[0]!));
    for (const token of [...as.issued.accessTokens, ...as.issued.refreshTokens]) assert.ok(!log.some((l) => l.includes(token)), "a token in the log");
  });

  it("a new window (a restart) uses the kept tokens; an expired access token is refreshed; a revoked grant asks to sign in again", async () => {
    const secrets = new MapSecrets();
    const first = servers(secrets, [http("tracker", as.mcpUrl)]).servers;
    await first.ensureStarted(10_000);
    await settled(first, "tracker");
    await first.signIn("tracker", { openBrowser: browser([]) });
    await waitFor("ready", () => stateOf(first, "tracker").kind === "ready");
    await first.dispose();

    const second = servers(secrets, [http("tracker", as.mcpUrl)]).servers;
    await second.ensureStarted(10_000);
    assert.equal((await settled(second, "tracker")).kind, "ready", "no new sign-in after a restart");
    assert.equal(as.seen.authorizations, 1);
    assert.deepEqual(as.seen.grants, ["authorization_code"]);

    // The server says the access token expired: one refresh, and the call goes through.
    as.expireAccessTokens();
    const whoami = second.tools(100).tools.find((t) => t.name === "mcp__tracker__whoami")!;
    const result = await whoami.execute("call-2", {});
    assert.match(JSON.stringify(result.content), /authorized for/);
    assert.deepEqual(as.seen.grants, ["authorization_code", "refresh_token"]);
    assert.equal(as.seen.authorizations, 1, "refreshed, not signed in again");
    const saved = secrets.map.get(mcpOAuthSecretKey(as.mcpUrl))!;
    assert.ok(saved.includes(as.issued.refreshTokens.at(-1)!), "the rotated refresh token was kept");

    // Revoked: the refresh is refused, and the server waits for a sign-in.
    as.revokeAll();
    await second.restart("tracker");
    assert.equal((await settled(second, "tracker")).kind, "needsSignIn");
    assert.deepEqual(as.seen.grants, ["authorization_code", "refresh_token", "refresh_token"]);
    await second.signIn("tracker", { openBrowser: browser([]) });
    await waitFor("ready again", () => stateOf(second, "tracker").kind === "ready");
    assert.equal(as.seen.authorizations, 2);
    assert.equal(as.seen.registrations, 1, "the registered client is used again");
  });

  it("a grant revoked while the server runs: the call says to sign in again, and the server waits for it", async () => {
    const secrets = new MapSecrets();
    const s = await signedInTracker(secrets);
    const echo = s.tools(100).tools.find((t) => t.name === "mcp__tracker__echo")!;
    as.revokeAll();
    await assert.rejects(echo.execute("call-3", { message: "hi" }), /"tracker" needs the user to sign in again/);
    await waitFor("needs sign-in", () => stateOf(s, "tracker").kind === "needsSignIn");
    assert.equal(s.tools(100).tools.length, 0);
  });

  it("sign-out forgets the tokens and the client; the server needs sign-in again", async () => {
    const secrets = new MapSecrets();
    const s = await signedInTracker(secrets);
    await s.signOut("tracker");
    assert.equal(secrets.map.size, 0, "nothing kept");
    assert.equal((await settled(s, "tracker")).kind, "needsSignIn");
    assert.equal(s.list()[0]!.signedIn, false);
  });

  it("a declined page, a Cancel and a timeout each end the sign-in with their own error, and it can be tried again", async () => {
    const secrets = new MapSecrets();
    const { servers: s } = servers(secrets, [http("tracker", as.mcpUrl)]);
    await s.ensureStarted(10_000);
    await settled(s, "tracker");
    await assert.rejects(s.signIn("tracker", { openBrowser: async () => false }), (e: unknown) => e instanceof McpSignInCancelledError);
    const cancel = new AbortController();
    await assert.rejects(
      s.signIn("tracker", {
        signal: cancel.signal,
        openBrowser: async () => {
          setTimeout(() => cancel.abort(), 50);
          return true;
        },
      }),
      (e: unknown) => e instanceof McpSignInCancelledError,
    );
    await assert.rejects(
      s.signIn("tracker", { timeoutMs: 300, openBrowser: async () => true }),
      (e: unknown) => e instanceof McpSignInTimeoutError && /not finished in the browser/.test(e.message),
    );
    assert.equal(stateOf(s, "tracker").kind, "needsSignIn");
    assert.equal(as.seen.authorizations, 0);
    await s.signIn("tracker", { openBrowser: browser([]) });
    await waitFor("ready", () => stateOf(s, "tracker").kind === "ready");
  });

  it("a plain 401 (no OAuth metadata) fails with the reason; a configured Authorization header is left alone", async () => {
    const secrets = new MapSecrets();
    // The same server under a path its metadata does not cover and a URL whose origin serves none.
    const plain = await import("node:http").then(
      (h) =>
        new Promise<{ url: string; close: () => void }>((resolve) => {
          const srv = h.createServer((_req, res) => res.writeHead(401, { "content-type": "application/json" }).end("{}"));
          srv.listen(0, "127.0.0.1", () => {
            const port = (srv.address() as { port: number }).port;
            resolve({ url: `http://127.0.0.1:${port}/mcp`, close: () => srv.close() });
          });
        }),
    );
    try {
      const { servers: s } = servers(secrets, [http("plain", plain.url), http("static", as.mcpUrl, { headers: { Authorization: "Bearer wrong" } })]);
      await s.ensureStarted(10_000);
      const plainState = await settled(s, "plain");
      assert.equal(plainState.kind, "failed");
      assert.match((plainState as { reason: string }).reason, /names no OAuth authorization server/);
      const staticState = await settled(s, "static");
      assert.equal(staticState.kind, "failed", "a static token the server refuses is not a sign-in");
      assert.equal(s.list().find((x) => x.name === "static")!.signedIn, undefined);
      assert.ok(as.seen.bearerTokens.includes("wrong"), "the configured header was sent");
    } finally {
      plain.close();
    }
  });

  it("pi's oauth field: a pre-registered client id is used as configured, without registration", async () => {
    const secrets = new MapSecrets();
    // Register a client the way an administrator would, then configure only its id and fixed callback port.
    const port = 40_000 + Math.floor(Math.random() * 20_000);
    const registered = (await (
      await fetch(`${as.origin}/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: [`http://127.0.0.1:${port}/callback`], token_endpoint_auth_method: "none" }),
      })
    ).json()) as { client_id: string };
    const { servers: s } = servers(secrets, [http("tracker", as.mcpUrl, { oauth: { clientId: registered.client_id, callbackPort: port } })]);
    await s.ensureStarted(10_000);
    await settled(s, "tracker");
    const opened: string[] = [];
    await s.signIn("tracker", { openBrowser: browser(opened) });
    await waitFor("ready", () => stateOf(s, "tracker").kind === "ready");
    const url = new URL(opened[0]!);
    assert.equal(url.searchParams.get("client_id"), registered.client_id);
    assert.equal(url.searchParams.get("redirect_uri"), `http://127.0.0.1:${port}/callback`);
    assert.equal(as.seen.registrations, 1, "only the administrator's registration");
  });

  it("the test authorization server checks PKCE: a wrong verifier gets invalid_grant", async () => {
    const reg = (await (
      await fetch(`${as.origin}/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:9/callback"] }),
      })
    ).json()) as { client_id: string };
    const authorize = new URL(`${as.origin}/authorize`);
    for (const [k, v] of Object.entries({
      response_type: "code",
      client_id: reg.client_id,
      redirect_uri: "http://127.0.0.1:9/callback",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      state: "s",
    }))
      authorize.searchParams.set(k, v);
    const redirect = await fetch(authorize, { redirect: "manual" });
    const code = new URL(redirect.headers.get("location")!).searchParams.get("code")!;
    const token = (verifier: string) =>
      fetch(`${as.origin}/token`, {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          client_id: reg.client_id,
          redirect_uri: "http://127.0.0.1:9/callback",
          code_verifier: verifier,
        }),
      });
    const wrong = await token("not-the-verifier-not-the-verifier-not-the-verifier");
    assert.equal(wrong.status, 400);
    assert.equal(((await wrong.json()) as { error: string }).error, "invalid_grant");
  });
});
