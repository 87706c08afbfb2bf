// A small but real OAuth-protected MCP server on localhost, for tests of MCP sign-in: one origin
// serves the authorization server (RFC 8414 metadata, RFC 7591 dynamic client registration, the
// authorization code grant with PKCE S256 checked, refresh tokens that rotate, revocation at
// `/revoke` per RFC 7009) and the protected MCP endpoint `/mcp` (RFC 9728 protected-resource
// metadata; a 401 with a `WWW-Authenticate` challenge without a valid access token; a tiny MCP handler with two tools). Nothing is
// simulated on the client's side: the test "browser" (`browse`) follows the authorization URL the
// product hands out, as a browser whose user clicks "Allow" would. Its state can be kept in a file,
// so a second VS Code (the restart phase) finds the same clients and grants on the same port.
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";

interface Grant {
  clientId: string;
  scope: string;
  resource: string | undefined;
}

interface PendingCode extends Grant {
  redirectUri: string;
  challenge: string;
  expiresAt: number;
}

interface AccessToken extends Grant {
  expiresAt: number;
}

interface SavedState {
  port: number;
  clients: Record<string, { redirect_uris: string[]; client_name?: string }>;
  accessTokens: Record<string, AccessToken>;
  refreshTokens: Record<string, Grant>;
}

export interface OAuthTestServerOptions {
  /** Listen here (a restart phase reuses the first phase's port); default: a free one. */
  port?: number;
  /** Load the clients and grants from this file if it exists, and write them there on every change. */
  stateFile?: string;
  /** Lifetime of access tokens. Default 3600. */
  accessTokenSeconds?: number;
}

export interface OAuthTestServer {
  origin: string;
  /** The protected MCP endpoint. */
  mcpUrl: string;
  /** What happened, for assertions (counts and every token-endpoint grant type, in order). */
  readonly seen: {
    registrations: number;
    authorizations: number;
    grants: string[];
    refused: { status: number; path: string; error?: string }[];
    mcpAuthorized: number;
    mcpUnauthorized: number;
    /** Every bearer token /mcp received, valid or not. */
    bearerTokens: string[];
    /** Every request body the attacker's token endpoint received (see `attackerMetadataUrl`). */
    attackerTokenRequests: string[];
    /** Tokens revoked at POST /revoke (RFC 7009), in order. */
    revocations: string[];
  };
  /**
   * The metadata of a second authorization server on this origin, the attacker's: a repository names
   * it in `oauth.authServerMetadataUrl`. Its token endpoint records what it gets and refuses it.
   */
  attackerMetadataUrl: string;
  /** Tokens issued, newest last (the test searches files and logs for them). */
  readonly issued: { accessTokens: string[]; refreshTokens: string[] };
  /** Plays the browser: GET the authorization URL, then follow its redirect to the client's callback. */
  browse(authorizationUrl: string): Promise<{ callbackStatus: number; callbackBody: string }>;
  /** Every access token expires now (the next request is refused until a refresh). */
  expireAccessTokens(): void;
  /** Every refresh token is revoked (a refresh gets `invalid_grant`), and every access token with it. */
  revokeAll(): void;
  close(): Promise<void>;
}

const TOOLS = [
  {
    name: "whoami",
    description: "Says which OAuth client the request was authorized for.",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: "echo",
    description: "Echoes the message back.",
    inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
  },
];

export async function startOAuthTestServer(options: OAuthTestServerOptions = {}): Promise<OAuthTestServer> {
  let saved: SavedState | undefined;
  if (options.stateFile) {
    try {
      saved = JSON.parse(readFileSync(options.stateFile, "utf8")) as SavedState;
    } catch {
      saved = undefined;
    }
  }
  const clients = new Map(Object.entries(saved?.clients ?? {}));
  const accessTokens = new Map(Object.entries(saved?.accessTokens ?? {}));
  const refreshTokens = new Map(Object.entries(saved?.refreshTokens ?? {}));
  const codes = new Map<string, PendingCode>();
  const ttl = options.accessTokenSeconds ?? 3600;
  const seen: OAuthTestServer["seen"] = {
    registrations: 0,
    authorizations: 0,
    grants: [],
    refused: [],
    mcpAuthorized: 0,
    mcpUnauthorized: 0,
    bearerTokens: [],
    attackerTokenRequests: [],
    revocations: [],
  };
  const issued = { accessTokens: [...accessTokens.keys()], refreshTokens: [...refreshTokens.keys()] };
  let origin = "";
  let port = 0;

  const persist = () => {
    if (!options.stateFile) return;
    const state: SavedState = {
      port,
      clients: Object.fromEntries(clients),
      accessTokens: Object.fromEntries(accessTokens),
      refreshTokens: Object.fromEntries(refreshTokens),
    };
    writeFileSync(options.stateFile, JSON.stringify(state, null, 2));
  };

  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers }).end(JSON.stringify(body));
  };
  const oauthError = (res: http.ServerResponse, path: string, status: number, error: string, description: string) => {
    seen.refused.push({ status, path, error });
    json(res, status, { error, error_description: description });
  };

  const protectedResourceMetadata = () => ({
    resource: `${origin}/mcp`,
    authorization_servers: [origin],
    scopes_supported: ["mcp:tools"],
    bearer_methods_supported: ["header"],
  });
  const authorizationServerMetadata = () => ({
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    revocation_endpoint: `${origin}/revoke`,
    registration_endpoint: `${origin}/register`,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    scopes_supported: ["mcp:tools"],
  });

  const issueTokens = (grant: Grant) => {
    const access = `at-${randomBytes(18).toString("base64url")}`;
    const refresh = `rt-${randomBytes(18).toString("base64url")}`;
    accessTokens.set(access, { ...grant, expiresAt: Date.now() + ttl * 1000 });
    refreshTokens.set(refresh, grant);
    issued.accessTokens.push(access);
    issued.refreshTokens.push(refresh);
    persist();
    return { access_token: access, token_type: "Bearer", expires_in: ttl, refresh_token: refresh, scope: grant.scope };
  };

  const register = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    let metadata: { redirect_uris?: unknown; client_name?: unknown; token_endpoint_auth_method?: unknown };
    try {
      metadata = JSON.parse(await body(req)) as typeof metadata;
    } catch {
      return oauthError(res, "/register", 400, "invalid_client_metadata", "not JSON");
    }
    const uris = metadata.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => typeof u === "string" && isLoopbackHttp(u)))
      return oauthError(res, "/register", 400, "invalid_redirect_uri", "redirect_uris must be loopback http URIs");
    if (metadata.token_endpoint_auth_method !== undefined && metadata.token_endpoint_auth_method !== "none")
      return oauthError(res, "/register", 400, "invalid_client_metadata", "only public clients (none) are registered here");
    const clientId = `client-${randomBytes(8).toString("hex")}`;
    const client = { redirect_uris: uris as string[], ...(typeof metadata.client_name === "string" ? { client_name: metadata.client_name } : {}) };
    clients.set(clientId, client);
    seen.registrations++;
    persist();
    json(res, 201, {
      client_id: clientId,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      ...client,
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    });
  };

  const authorize = (url: URL, res: http.ServerResponse) => {
    const q = url.searchParams;
    const client = clients.get(q.get("client_id") ?? "");
    const redirectUri = q.get("redirect_uri") ?? "";
    // Without a known client and one of its redirect URIs, never redirect (RFC 6749 §4.1.2.1).
    if (!client) return oauthError(res, "/authorize", 400, "invalid_client", "unknown client_id");
    if (!client.redirect_uris.includes(redirectUri)) return oauthError(res, "/authorize", 400, "invalid_request", "redirect_uri is not registered");
    const back = new URL(redirectUri);
    const state = q.get("state");
    if (state !== null) back.searchParams.set("state", state);
    const challenge = q.get("code_challenge");
    if (q.get("response_type") !== "code" || q.get("code_challenge_method") !== "S256" || !challenge) {
      back.searchParams.set("error", "invalid_request");
      back.searchParams.set("error_description", "response_type=code with a PKCE S256 code_challenge is required");
      seen.refused.push({ status: 302, path: "/authorize", error: "invalid_request" });
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    const code = `code-${randomBytes(16).toString("base64url")}`;
    codes.set(code, {
      clientId: q.get("client_id")!,
      redirectUri,
      challenge,
      scope: q.get("scope") ?? "mcp:tools",
      resource: q.get("resource") ?? undefined,
      expiresAt: Date.now() + 60_000,
    });
    seen.authorizations++;
    back.searchParams.set("code", code);
    res.writeHead(302, { location: back.href }).end();
  };

  const token = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const form = new URLSearchParams(await body(req));
    const grantType = form.get("grant_type") ?? "";
    seen.grants.push(grantType);
    const clientId = form.get("client_id") ?? "";
    if (!clients.has(clientId)) return oauthError(res, "/token", 401, "invalid_client", "unknown client_id");
    if (grantType === "authorization_code") {
      const code = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      if (!code || code.expiresAt < Date.now() || code.clientId !== clientId) return oauthError(res, "/token", 400, "invalid_grant", "unknown or used code");
      if (form.get("redirect_uri") !== code.redirectUri)
        return oauthError(res, "/token", 400, "invalid_grant", "redirect_uri differs from the authorization request");
      const verifier = form.get("code_verifier") ?? "";
      if (createHash("sha256").update(verifier).digest("base64url") !== code.challenge)
        return oauthError(res, "/token", 400, "invalid_grant", "PKCE verification failed");
      return json(res, 200, issueTokens({ clientId, scope: code.scope, resource: code.resource }));
    }
    if (grantType === "refresh_token") {
      const refresh = form.get("refresh_token") ?? "";
      const grant = refreshTokens.get(refresh);
      if (!grant || grant.clientId !== clientId) return oauthError(res, "/token", 400, "invalid_grant", "refresh token unknown or revoked");
      // Rotation: the old refresh token is spent.
      refreshTokens.delete(refresh);
      return json(res, 200, issueTokens(grant));
    }
    return oauthError(res, "/token", 400, "unsupported_grant_type", grantType);
  };

  // RFC 7009: a refresh token's revocation ends its grant's access tokens too; unknown tokens answer 200.
  const revoke = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const form = new URLSearchParams(await body(req));
    const revoked = form.get("token") ?? "";
    if (!clients.has(form.get("client_id") ?? "")) return oauthError(res, "/revoke", 401, "invalid_client", "unknown client_id");
    seen.revocations.push(revoked);
    const grant = refreshTokens.get(revoked);
    refreshTokens.delete(revoked);
    accessTokens.delete(revoked);
    if (grant) for (const [t, a] of accessTokens) if (a.clientId === grant.clientId) accessTokens.delete(t);
    persist();
    res.writeHead(200).end();
  };

  const mcp = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (bearer) seen.bearerTokens.push(bearer);
    const grant = bearer ? accessTokens.get(bearer) : undefined;
    if (!grant || grant.expiresAt <= Date.now()) {
      seen.mcpUnauthorized++;
      const challenge = `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"${bearer ? ', error="invalid_token"' : ""}`;
      return json(res, 401, { error: "unauthorized" }, { "www-authenticate": challenge });
    }
    seen.mcpAuthorized++;
    if (req.method === "DELETE") return res.writeHead(200).end();
    if (req.method !== "POST") return res.writeHead(405, { allow: "POST, DELETE" }).end();
    const message = JSON.parse(await body(req)) as { id?: number | string; method: string; params?: { name?: string; arguments?: { message?: string } } };
    if (message.id === undefined) return res.writeHead(202).end();
    const reply = (result: unknown) => json(res, 200, { jsonrpc: "2.0", id: message.id, result }, { "mcp-session-id": "oauth-test-session" });
    switch (message.method) {
      case "initialize":
        return reply({ protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "oauth-test", version: "1.0.0" } });
      case "ping":
        return reply({});
      case "tools/list":
        return reply({ tools: TOOLS });
      case "tools/call":
        if (message.params?.name === "whoami") return reply({ content: [{ type: "text", text: `authorized for ${grant.clientId} (${grant.scope})` }] });
        if (message.params?.name === "echo") return reply({ content: [{ type: "text", text: `Echo: ${message.params.arguments?.message ?? ""}` }] });
        return json(res, 200, { jsonrpc: "2.0", id: message.id, error: { code: -32602, message: "unknown tool" } });
      default:
        return json(res, 200, { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "method not found" } });
    }
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", origin);
    const route = `${req.method} ${url.pathname}`;
    const handle = async () => {
      if (route === "GET /.well-known/oauth-protected-resource/mcp" || route === "GET /.well-known/oauth-protected-resource")
        return json(res, 200, protectedResourceMetadata());
      if (route === "GET /.well-known/oauth-authorization-server") return json(res, 200, authorizationServerMetadata());
      if (route === "GET /.well-known/oauth-authorization-server/attacker")
        return json(res, 200, { ...authorizationServerMetadata(), issuer: `${origin}/attacker`, token_endpoint: `${origin}/attacker/token` });
      if (route === "POST /attacker/token") {
        seen.attackerTokenRequests.push(await body(req));
        return json(res, 400, { error: "invalid_grant", error_description: "the attacker only collects" });
      }
      if (route === "POST /register") return register(req, res);
      if (route === "GET /authorize") return authorize(url, res);
      if (route === "POST /token") return token(req, res);
      if (route === "POST /revoke") return revoke(req, res);
      if (url.pathname === "/mcp") return mcp(req, res);
      res.writeHead(404).end();
    };
    handle().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", resolve);
  });
  port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  persist();

  return {
    origin,
    mcpUrl: `${origin}/mcp`,
    attackerMetadataUrl: `${origin}/.well-known/oauth-authorization-server/attacker`,
    seen,
    issued,
    async browse(authorizationUrl) {
      const url = new URL(authorizationUrl);
      if (url.origin !== origin) throw new Error(`the authorization URL goes to ${url.origin}, not to this authorization server`);
      const answer = await fetch(url, { redirect: "manual" });
      const location = answer.headers.get("location");
      if (answer.status !== 302 || !location) throw new Error(`the authorization server answered ${answer.status}: ${await answer.text()}`);
      const callback = await fetch(location, { redirect: "manual" });
      return { callbackStatus: callback.status, callbackBody: await callback.text() };
    },
    expireAccessTokens() {
      for (const t of accessTokens.values()) t.expiresAt = 0;
      persist();
    },
    revokeAll() {
      refreshTokens.clear();
      accessTokens.clear();
      persist();
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function isLoopbackHttp(uri: string): boolean {
  try {
    const url = new URL(uri);
    return url.protocol === "http:" && (url.hostname === "127.0.0.1" || url.hostname === "localhost" || url.hostname === "[::1]");
  } catch {
    return false;
  }
}

function body(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
