// Sign-in to providers where pi-ai has an OAuth flow (src/host/providers/sign-in.ts), with a flow
// registered for the test only (test/support/test-sign-in-flow.ts: pi-ai's own loopback callback
// server and PKCE) against the local authorization server (test/support/oauth-server.ts): a real
// loopback callback, PKCE verified by the server, refresh when the stored sign-in expired, two
// windows (two stores over one secret storage and one lock folder) refreshing once, revocation on
// sign-out; the list of shipped flows held to pi-ai's; the token reaching only the provider, as a key.
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AuthInteraction, OAuthCredential } from "@earendil-works/pi-ai";
import { RunSetupError } from "../../../src/core/session/run-errors";
import { NOT_OFFERED, SIGN_IN_LEFT_OUT, SIGN_IN_PROVIDERS } from "../../../src/host/providers/cloud-providers";
import { CLOUD_FACTORIES } from "../../../src/host/providers/pi-ai-providers";
import { resolveModelBinding } from "../../../src/host/providers/provider-bundle";
import { SignInCredentialStore, shippedSignInFlow, signedInAuth, signInSecretKey, signInWithFlow, signOutOfFlow } from "../../../src/host/providers/sign-in";
import { openablePage, pageName } from "../../../src/host/models/sign-in-page";
import { type OAuthTestServer, startOAuthTestServer } from "../../support/oauth-server";
import { MapSecrets } from "../../support/map-secrets";
import { type TestSignInFlow, testSignInFlow } from "../../support/test-sign-in-flow";

const PROVIDER = "openai";

/** The browser of a user who clicks "Allow": follows the authorization URL the flow hands out, after `before` ran. */
function browsingInteraction(
  server: OAuthTestServer,
  before: (authorizationUrl: string) => Promise<void> = async () => undefined,
): AuthInteraction & {
  browsed: Promise<{ callbackStatus: number; callbackBody: string }>;
} {
  let resolveBrowsed: (value: { callbackStatus: number; callbackBody: string }) => void = () => undefined;
  let rejectBrowsed: (error: unknown) => void = () => undefined;
  const browsed = new Promise<{ callbackStatus: number; callbackBody: string }>((resolve, reject) => {
    resolveBrowsed = resolve;
    rejectBrowsed = reject;
  });
  return {
    browsed,
    notify: (event) => {
      if (event.type !== "auth_url") return;
      void before(event.url)
        .then(() => server.browse(event.url))
        .then(resolveBrowsed, rejectBrowsed);
    },
    prompt: async () => {
      throw new Error("the test flow asks nothing");
    },
  };
}

async function signedIn(server: OAuthTestServer, secrets: MapSecrets, lockDir: string): Promise<{ store: SignInCredentialStore; flow: TestSignInFlow }> {
  const flow = testSignInFlow(server.origin);
  const store = new SignInCredentialStore(secrets, lockDir);
  const interaction = browsingInteraction(server);
  await signInWithFlow(store, PROVIDER, flow, interaction);
  assert.equal((await interaction.browsed).callbackStatus, 200);
  return { store, flow };
}

function stored(secrets: MapSecrets): OAuthCredential {
  return JSON.parse(secrets.map.get(signInSecretKey(PROVIDER)) ?? "null") as OAuthCredential;
}

describe("provider sign-in (pi-ai's flows, the MCP lock, SecretStorage)", () => {
  let server: OAuthTestServer;
  let lockDir: string;
  beforeEach(async () => {
    server = await startOAuthTestServer();
    lockDir = mkdtempSync(join(tmpdir(), "pi-chat-sign-in-locks-"));
  });
  afterEach(async () => {
    await server.close();
  });

  it("a callback with a wrong or missing state is refused, and the genuine redirect still signs in", async () => {
    const flow = testSignInFlow(server.origin);
    const secrets = new MapSecrets();
    const store = new SignInCredentialStore(secrets, lockDir);
    const forged: number[] = [];
    // A page in the browser (or another local process) calls the loopback redirect first, with a code of its choosing.
    const interaction = browsingInteraction(server, async () => {
      const redirect = flow.pendingRedirectUri;
      assert.ok(redirect);
      for (const query of ["?code=attackers-code&state=guessed", "?code=attackers-code", "?error=access_denied&state=guessed"])
        forged.push((await fetch(redirect + query)).status);
    });
    await signInWithFlow(store, PROVIDER, flow, interaction);
    assert.deepEqual(forged, [400, 400, 400], "every forged callback is refused");
    assert.equal((await interaction.browsed).callbackStatus, 200);
    // The stored tokens are the ones the server issued to the genuine grant, with PKCE verified.
    assert.deepEqual(server.seen.grants, ["authorization_code"]);
    assert.deepEqual(
      server.seen.refused.filter((r) => r.path === "/token"),
      [],
    );
    assert.equal(stored(secrets).access, server.issued.accessTokens.at(-1));
    assert.deepEqual([...secrets.map.keys()], ["piChat.signIn.openai"], "one secret, under the provider's id");
  });

  it("a request's auth is the stored token; an expired one is refreshed by pi-ai first, and kept", async () => {
    const secrets = new MapSecrets();
    const { store, flow } = await signedIn(server, secrets, lockDir);
    const first = stored(secrets);
    assert.equal((await signedInAuth(store, PROVIDER, flow))?.apiKey, first.access);
    assert.deepEqual(server.seen.grants, ["authorization_code"], "a valid token is used as it is");
    // The stored sign-in says it expired (time went by).
    secrets.map.set(signInSecretKey(PROVIDER), JSON.stringify({ ...first, expires: 0 }));
    const renewed = await signedInAuth(store, PROVIDER, flow);
    assert.deepEqual(server.seen.grants, ["authorization_code", "refresh_token"]);
    assert.equal(renewed?.apiKey, server.issued.accessTokens.at(-1));
    assert.notEqual(renewed?.apiKey, first.access);
    assert.equal(stored(secrets).refresh, server.issued.refreshTokens.at(-1), "the rotated refresh token is kept");
  });

  it("two windows refresh an expired sign-in once (one lock across windows, as the MCP tokens')", async () => {
    const secrets = new MapSecrets();
    const { flow } = await signedIn(server, secrets, lockDir);
    secrets.map.set(signInSecretKey(PROVIDER), JSON.stringify({ ...stored(secrets), expires: 0 }));
    // Two windows: each its own store and flow, one secret storage and one lock folder.
    const windowA = new SignInCredentialStore(secrets, lockDir);
    const windowB = new SignInCredentialStore(secrets, lockDir);
    const [a, b] = await Promise.all([signedInAuth(windowA, PROVIDER, flow), signedInAuth(windowB, PROVIDER, testSignInFlow(server.origin))]);
    assert.equal(server.seen.grants.filter((g) => g === "refresh_token").length, 1, "one refresh");
    assert.deepEqual(server.seen.refused, [], "no spent refresh token was posted");
    assert.equal(a?.apiKey, b?.apiKey);
    assert.equal(a?.apiKey, server.issued.accessTokens.at(-1));
  });

  it("Sign Out revokes the tokens where the flow can and deletes the stored sign-in", async () => {
    const secrets = new MapSecrets();
    const { store, flow } = await signedIn(server, secrets, lockDir);
    const credential = stored(secrets);
    const { refresh } = credential;
    const result = await signOutOfFlow(store, PROVIDER, flow, AbortSignal.timeout(10_000));
    assert.deepEqual(result, { revoked: true });
    assert.deepEqual(server.seen.revocations, [refresh]);
    assert.equal(secrets.map.size, 0);
    assert.equal(await signedInAuth(store, PROVIDER, flow), undefined);
    // The revoked refresh token is dead at the server too.
    await assert.rejects(flow.refresh(credential, AbortSignal.timeout(5000)), /invalid_grant/);
  });

  it("a flow without revocation still signs out (the secret is deleted)", async () => {
    const secrets = new MapSecrets();
    const { store, flow } = await signedIn(server, secrets, lockDir);
    const { revoke: _revoke, ...withoutRevoke } = flow;
    assert.deepEqual(await signOutOfFlow(store, PROVIDER, withoutRevoke, AbortSignal.timeout(10_000)), { revoked: false });
    assert.equal(secrets.map.size, 0);
    assert.deepEqual(server.seen.revocations, []);
  });

  it("the sign-in's token goes to the provider's own endpoint only: another URL needs consent, as a key", async () => {
    const secrets = new MapSecrets();
    const { store, flow } = await signedIn(server, secrets, lockDir);
    const used: string[] = [];
    const noKeys = { get: async () => undefined };
    const options = { env: {}, onKeyUsed: (key: string) => used.push(key), signedIn: (p: string) => signedInAuth(store, p, flow) };
    const binding = await resolveModelBinding({ provider: "openai", model: "gpt-4.1" }, noKeys, options);
    assert.equal(await binding.getApiKey?.("openai"), stored(secrets).access);
    assert.ok(used.includes(stored(secrets).access), "the token is told to the redactor");
    // A base URL elsewhere without the user's consent: refused before anything is sent.
    await assert.rejects(
      resolveModelBinding({ provider: "openai", model: "gpt-4.1", baseUrl: "http://127.0.0.1:9/v1" }, noKeys, { ...options, allowBaseUrl: async () => false }),
      (error: unknown) => error instanceof RunSetupError && /did not send your OpenAI API key to 127\.0\.0\.1:9/.test(error.message),
    );
  });

  it("a refresh the server refuses says to sign in again", async () => {
    const secrets = new MapSecrets();
    const { store, flow } = await signedIn(server, secrets, lockDir);
    secrets.map.set(signInSecretKey(PROVIDER), JSON.stringify({ ...stored(secrets), expires: 0 }));
    server.revokeAll();
    await assert.rejects(
      resolveModelBinding({ provider: "openai", model: "gpt-4.1" }, { get: async () => undefined }, { env: {}, signedIn: (p) => signedInAuth(store, p, flow) }),
      (error: unknown) =>
        error instanceof RunSetupError && /sign-in could not be renewed/.test(error.message) && /Sign in to OpenAI again/.test(error.fix ?? ""),
    );
  });
});

describe("the sign-in flows Pi Chat offers", () => {
  it("are pi-ai's own flows, and every other flow of pi-ai is left out with its reason", () => {
    for (const { id } of SIGN_IN_PROVIDERS) assert.ok(CLOUD_FACTORIES[id]().auth.oauth, `${id} has a pi-ai flow`);
    const offered = new Set<string>(SIGN_IN_PROVIDERS.map((p) => p.id));
    const withFlow = Object.entries(CLOUD_FACTORIES)
      .filter(([, create]) => create().auth.oauth !== undefined)
      .map(([id]) => id);
    for (const id of withFlow) assert.ok(offered.has(id) || id in SIGN_IN_LEFT_OUT, `${id}: offered or left out with a reason`);
    for (const [id, reason] of Object.entries(SIGN_IN_LEFT_OUT)) {
      assert.ok(!offered.has(id) && reason.length > 20, id);
      assert.ok(id in CLOUD_FACTORIES || id in NOT_OFFERED, `${id} is a provider pi-ai knows`);
    }
  });

  it("each shipped flow loads from inside the bundle (pi-ai's literal imports) and gives its token as the request's key (Kimi's header too)", async () => {
    const secrets = new MapSecrets();
    const store = new SignInCredentialStore(secrets, mkdtempSync(join(tmpdir(), "pi-chat-sign-in-locks-")));
    for (const { id } of SIGN_IN_PROVIDERS) {
      const flow = shippedSignInFlow(id);
      assert.ok(flow, id);
      // A stored sign-in valid for an hour: no refresh, no network; the request's auth as a run gets it.
      secrets.map.set(signInSecretKey(id), JSON.stringify({ type: "oauth", access: `access-of-${id}`, refresh: "r", expires: Date.now() + 3_600_000 }));
      const auth = await signedInAuth(store, id, flow);
      assert.ok(auth, id);
      assert.equal(auth.apiKey, `access-of-${id}`, id);
      assert.equal(auth.baseUrl, undefined, `${id}: no per-credential endpoint (Pi Chat keeps the provider's)`);
    }
    assert.equal(shippedSignInFlow("anthropic"), undefined, "left out");
  });

  it("open only https pages, or http on this computer, and name the page's origin", () => {
    const refused = [
      "command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%22%7D",
      "file:///etc/passwd",
      "vscode://settings/piChat.baseUrl",
      "javascript:alert(1)",
      "http://auth.example.com/authorize",
      "https://user:pass@auth.example.com/",
      "not a url",
    ];
    for (const url of refused) assert.equal(openablePage(url), undefined, url);
    const page = openablePage("https://auth.openai.com/api/accounts/authorize?client_id=x&state=y");
    assert.ok(page);
    assert.equal(pageName(page), "https://auth.openai.com/…");
    assert.ok(openablePage("http://127.0.0.1:1455/authorize"));
  });
});
