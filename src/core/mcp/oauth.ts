// OAuth sign-in for Streamable HTTP MCP servers, on pi-mcp/oauth: where the tokens and the client
// registration live (an `McpOAuthServerStore` over a secret store: VS Code's SecretStorage in the
// product, per server URL, never a settings file, a log or a transcript), and the sign-in itself
// (dynamic client registration, PKCE, a loopback redirect; the browser is opened by the caller,
// which shows the user where it goes). Part of out/mcp.js: no vscode import.
import type { McpOAuthConfig } from "@earendil-works/pi-mcp";
import {
  completeMcpSignIn,
  discoverOAuthServerInfo,
  listenForLoopbackSignIn,
  type McpOAuthServerStore,
  type McpOAuthSettings,
  type McpOAuthState,
  McpRefreshLockBusyError,
  McpSignInCancelledError,
  type OAuthChallenge,
  startMcpSignIn,
  waitForLoopbackSignIn,
} from "@earendil-works/pi-mcp/oauth";
import { CROSS_WINDOW_LOCK_STALE_MS, withCrossWindowLock } from "../cross-window-lock";

/** The part of VS Code's SecretStorage the store needs (a Map in unit tests). */
export interface SecretStore {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}

/**
 * SecretStorage key of one server's OAuth state: by exact URL and by what the tokens are bound to,
 * the authorization server that issued them and the client they were issued to. Without a
 * configured metadata document the authorization server is the one the MCP server itself names,
 * pinned in the state at sign-in (pi-mcp's cached discovery); with one, it is that document. A
 * definition naming another document or client (a repository's, say) finds no tokens, so a refresh
 * token is never posted to a token endpoint other than the one that issued it.
 */
export const MCP_OAUTH_SECRET_PREFIX = "piChat.mcp.oauth.";
export function mcpOAuthSecretKey(serverUrl: string, binding?: string): string {
  return MCP_OAUTH_SECRET_PREFIX + serverUrl + (binding !== undefined ? ` (${binding})` : "");
}

/** What a server's `oauth` field binds its tokens to beyond the URL (see mcpOAuthSecretKey); undefined: nothing configured. */
export function oauthBinding(config: McpOAuthConfig | undefined): string | undefined {
  const parts = [
    ...(config?.authServerMetadataUrl !== undefined ? [`authorization server ${config.authServerMetadataUrl}`] : []),
    ...(config?.clientId !== undefined ? [`client ${config.clientId}`] : []),
  ];
  return parts.length > 0 ? parts.join(", ") : undefined;
}

/** How long a refresh may wait for another window's refresh of the same server. */
export const MCP_REFRESH_LOCK_WAIT_MS = 10_000;
/** A lock older than this was left by a window that died mid-refresh. */
export const MCP_REFRESH_LOCK_STALE_MS = CROSS_WINDOW_LOCK_STALE_MS;
/** A sign-in the user does not finish in the browser within this long ends with a message. */
export const MCP_SIGN_IN_TIMEOUT_MS = 5 * 60_000;

/**
 * One server's OAuth state (tokens, registered client, PKCE verifier of a pending sign-in) in a
 * secret store, with a refresh lock shared by every VS Code window (a lock directory: windows share
 * SecretStorage, and a refresh token that rotates must be spent once). Reads are cached; the lock
 * drops the cache so a refresh sees what another window saved meanwhile.
 */
export class McpOAuthSecretStore implements McpOAuthServerStore {
  private cached: { value: McpOAuthState | undefined } | undefined;
  private local: Promise<unknown> = Promise.resolve();
  private lockWaits = 0;

  constructor(
    readonly serverUrl: string,
    private readonly secrets: SecretStore,
    /** Folder of the lock directories (the extension's global storage). */
    private readonly lockDir: string,
    private readonly lockWaitMs = MCP_REFRESH_LOCK_WAIT_MS,
    /** What the tokens are bound to beyond the URL (oauthBinding): part of the key. */
    readonly binding?: string,
  ) {}

  get key(): string {
    return mcpOAuthSecretKey(this.serverUrl, this.binding);
  }

  async load(): Promise<McpOAuthState | undefined> {
    if (this.cached) return this.cached.value;
    const text = await this.secrets.get(this.key);
    let value: McpOAuthState | undefined;
    try {
      const parsed: unknown = text === undefined ? undefined : JSON.parse(text);
      value = isRecord(parsed) && parsed.serverUrl === this.serverUrl ? (parsed as unknown as McpOAuthState) : undefined;
    } catch {
      value = undefined;
    }
    this.cached = { value };
    return value;
  }

  async save(state: McpOAuthState): Promise<void> {
    this.cached = { value: state };
    await this.secrets.store(this.key, JSON.stringify(state));
  }

  /** Sign out: tokens and client registration gone. */
  async clear(): Promise<void> {
    this.cached = { value: undefined };
    await this.secrets.delete(this.key);
  }

  /** Another window changed the secret: read it again next time. */
  forget(): void {
    this.cached = undefined;
  }

  /** How many times this store found the refresh lock held by another window and waited: a settled point for tests and logs. */
  get refreshLockWaits(): number {
    return this.lockWaits;
  }

  async withRefreshLock<T>(fn: () => Promise<T>): Promise<T> {
    // One at a time in this window, then one at a time across windows.
    const run = this.local.then(() =>
      withCrossWindowLock(
        {
          lockDir: this.lockDir,
          name: this.serverUrl,
          waitMs: this.lockWaitMs,
          onHeld: () => this.lockWaits++,
          busyError: () => new McpRefreshLockBusyError(),
        },
        async () => {
          this.forget();
          return await fn();
        },
      ),
    );
    this.local = run.catch(() => undefined);
    return run;
  }
}

/** pi's `oauth` field of a server entry as pi-mcp's client settings (already resolved). */
export function oauthSettings(config: McpOAuthConfig | undefined): McpOAuthSettings {
  if (!config) return {};
  return {
    ...(config.clientId !== undefined ? { clientId: config.clientId } : {}),
    ...(config.clientSecret !== undefined ? { clientSecret: config.clientSecret } : {}),
    ...(config.callbackPort !== undefined ? { callbackPort: config.callbackPort } : {}),
    ...(config.callbackUrl !== undefined ? { callbackUrl: config.callbackUrl } : {}),
    ...(config.scope !== undefined ? { scope: config.scope } : {}),
    ...(config.clientName !== undefined ? { clientName: config.clientName } : {}),
    // Pi Chat publishes no Client ID Metadata Documents: "auto" means dynamic client registration.
    ...(config.clientRegistration !== undefined ? { clientRegistration: config.clientRegistration } : {}),
    ...(config.authServerMetadataUrl !== undefined ? { authServerMetadataUrl: new URL(config.authServerMetadataUrl) } : {}),
  };
}

/**
 * A server refused the connection for want of a sign-in: does it say where to sign in? The
 * authorization server's origin when its protected-resource metadata (or the configured metadata
 * URL) leads to authorization-server metadata; undefined for a plain 401.
 */
export async function signInLocation(
  serverUrl: string,
  settings: McpOAuthSettings,
  challenge: OAuthChallenge | undefined,
  signal?: AbortSignal,
): Promise<string | undefined> {
  try {
    const info = await discoverOAuthServerInfo(serverUrl, {
      ...(challenge?.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}),
      ...(settings.authServerMetadataUrl ? { authorizationServerMetadataUrl: settings.authServerMetadataUrl } : {}),
      ...(signal ? { signal } : {}),
    });
    return info.authorizationServerMetadata ? new URL(info.authorizationServerUrl).origin : undefined;
  } catch {
    return undefined;
  }
}

export interface McpSignInRequest {
  serverUrl: string;
  store: McpOAuthServerStore;
  settings: McpOAuthSettings;
  /** `client_name` of the registration. */
  clientName: string;
  challenge?: OAuthChallenge;
  /**
   * Shows the user where the browser goes and opens it there; false when the user declined.
   * Called with the authorization URL, once the loopback callback listens.
   */
  openBrowser: (authorizationUrl: string) => Promise<boolean>;
  /** The user's Cancel. */
  signal?: AbortSignal;
  timeoutMs?: number;
}

export class McpSignInTimeoutError extends Error {
  constructor(ms: number) {
    super(`the sign-in was not finished in the browser within ${Math.round(ms / 60_000)} min`);
  }
}

/**
 * The whole sign-in: refresh the stored tokens if that still works; otherwise register a client if
 * none is stored, open the authorization page, and take the code on a loopback redirect. Resolves
 * "refreshed" or "signedIn"; rejects with `McpSignInCancelledError` (the user cancelled or declined),
 * `McpSignInTimeoutError`, or the authorization server's error.
 */
export async function signInToMcpServer(request: McpSignInRequest): Promise<"refreshed" | "signedIn"> {
  const timeoutMs = request.timeoutMs ?? MCP_SIGN_IN_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  const { serverUrl, store, settings, clientName } = request;
  const loopback = await listenForLoopbackSignIn({ serverUrl, store, settings, renderPage: callbackPage });
  try {
    const options = {
      serverUrl,
      store,
      settings,
      clientName,
      redirectUrl: loopback.redirectUrl,
      signal,
      ...(request.challenge ? { challenge: request.challenge } : {}),
    };
    const started = await startMcpSignIn(options);
    if (started.kind === "authorized") return "refreshed";
    const response = waitForLoopbackSignIn({ callback: loopback.callback, authorization: started, signal });
    // Observed now: a failure while the user still looks at the confirmation is reported, not unhandled.
    response.catch(() => undefined);
    if (!(await request.openBrowser(started.authorizationUrl))) throw new McpSignInCancelledError();
    await completeMcpSignIn({ ...options, authorization: started, response: await response });
    return "signedIn";
  } catch (error) {
    if (timeout.aborted && !request.signal?.aborted) throw new McpSignInTimeoutError(timeoutMs);
    throw error;
  } finally {
    await loopback.callback.close().catch(() => undefined);
  }
}

/** The browser tab after the redirect: plain words, the error escaped (it comes from the authorization server). */
function callbackPage(page: { ok: true } | { ok: false; message: string; details?: string }): string {
  const body = page.ok
    ? "<h1>Signed in</h1><p>Pi Chat is signed in to the MCP server. You can close this tab and go back to VS Code.</p>"
    : `<h1>Sign-in failed</h1><p>${escapeHtml(page.message)}</p>${page.details ? `<p>${escapeHtml(page.details)}</p>` : ""}`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>Pi Chat MCP sign-in</title></head><body>${body}</body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export { McpSignInCancelledError };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
