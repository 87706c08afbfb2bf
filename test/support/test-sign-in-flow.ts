// A sign-in flow for tests only, never in the product's list: the steps of pi-ai's loopback flows
// (ChatGPT's, OpenRouter's), with pi-ai's own pieces — its loopback callback server on 127.0.0.1,
// which checks `state`, and its PKCE — against the local authorization server of
// test/support/oauth-server.ts (a client registered per sign-in, the code grant with PKCE verified
// by the server, refresh tokens that rotate, and revocation, which pi-ai's flows do not have).
import { randomBytes } from "node:crypto";
import { startOAuthCallbackServer } from "../../node_modules/@earendil-works/pi-ai/dist/auth/oauth/callback-server.js";
import { generatePKCE } from "../../node_modules/@earendil-works/pi-ai/dist/auth/oauth/pkce.js";
import type { OAuthCredential, ProviderAuthInteraction } from "@earendil-works/pi-ai";
import type { SignInFlow } from "../../src/host/providers/sign-in";

export interface TestSignInFlow extends SignInFlow {
  /** The loopback redirect of the sign-in now waiting (for tests that play a hostile page), or undefined. */
  readonly pendingRedirectUri: string | undefined;
}

interface TokenAnswer {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

/** The flow for the authorization server at `origin` (its /register, /authorize, /token, /revoke). */
export function testSignInFlow(origin: string): TestSignInFlow {
  let pending: string | undefined;
  const post = async (path: string, form: Record<string, string>, signal?: AbortSignal): Promise<Response> =>
    fetch(`${origin}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
      ...(signal ? { signal } : {}),
    });
  const tokens = async (form: Record<string, string>, clientId: string, signal?: AbortSignal): Promise<OAuthCredential> => {
    const answer = await post("/token", { ...form, client_id: clientId }, signal);
    if (!answer.ok) throw new Error(`the token endpoint answered ${answer.status}: ${await answer.text()}`);
    const json = (await answer.json()) as TokenAnswer;
    return { type: "oauth", access: json.access_token, refresh: json.refresh_token, expires: Date.now() + json.expires_in * 1000, clientId };
  };
  return {
    name: "Local test authorization server",
    loginLabel: "Sign in to the local test server",
    get pendingRedirectUri() {
      return pending;
    },
    async login(interaction: ProviderAuthInteraction): Promise<OAuthCredential> {
      const { verifier, challenge } = await generatePKCE();
      const state = randomBytes(16).toString("hex");
      let clientId = "";
      let redirectUri = "";
      const callback = await startOAuthCallbackServer<OAuthCredential>({
        providerName: "the local test server",
        host: "127.0.0.1",
        port: 0,
        path: "/callback",
        state,
        signal: interaction.signal,
        complete: (code) =>
          tokens({ grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: redirectUri }, clientId, interaction.signal),
      });
      try {
        redirectUri = callback.redirectUri;
        const registered = await fetch(`${origin}/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ redirect_uris: [redirectUri], client_name: "Pi Chat test", token_endpoint_auth_method: "none" }),
        });
        clientId = ((await registered.json()) as { client_id: string }).client_id;
        const url = new URL(`${origin}/authorize`);
        for (const [k, v] of Object.entries({
          response_type: "code",
          client_id: clientId,
          redirect_uri: redirectUri,
          code_challenge: challenge,
          code_challenge_method: "S256",
          state,
          scope: "mcp:tools",
        }))
          url.searchParams.set(k, v);
        pending = redirectUri;
        interaction.notify({ type: "auth_url", url: url.href });
        const credential = await callback.wait();
        if (!credential) throw new Error("the sign-in did not complete");
        return credential;
      } finally {
        pending = undefined;
        callback.close();
      }
    },
    refresh: (credential, signal) => tokens({ grant_type: "refresh_token", refresh_token: credential.refresh }, String(credential.clientId), signal),
    toAuth: async (credential) => ({ apiKey: credential.access }),
    async revoke(credential, signal) {
      const answer = await post("/revoke", { token: credential.refresh, token_type_hint: "refresh_token", client_id: String(credential.clientId) }, signal);
      if (!answer.ok) throw new Error(`the revocation endpoint answered ${answer.status}`);
    },
  };
}
