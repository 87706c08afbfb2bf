// Sign-in to providers where pi-ai has an OAuth flow (ChatGPT, OpenRouter, xAI, Kimi, Meta): the
// credentials in a pi-ai CredentialStore over VS Code's SecretStorage (one secret per provider id,
// never a setting, a log or a transcript), written under the cross-window lock the MCP tokens use,
// so two windows never spend one rotating refresh token twice; the sign-in, the request's auth and
// its refresh all run through pi-ai's own `Models` (login, getAuth), not a copy of them. Part of the
// providers bundle: no vscode import (src/host/models/provider-sign-in.ts is the VS Code side).
import type { AuthInteraction, Credential, CredentialInfo, CredentialStore, ModelAuth, OAuthAuth, OAuthCredential } from "@earendil-works/pi-ai";
import { openAICompletionsApi } from "@earendil-works/pi-ai/api/openai-completions.lazy";
import { registerLazyOAuthFlows } from "@earendil-works/pi-ai/lazy-oauth";
import { createModels, createProvider } from "@earendil-works/pi-ai/models";
import { withCrossWindowLock } from "../../core/cross-window-lock";
import type { SecretStore } from "../../core/mcp/oauth";
import { isSignInProvider, SIGN_IN_SECRET_PREFIX } from "./cloud-providers";
import { CLOUD_FACTORIES } from "./pi-ai-providers";

/** How long a refresh or sign-in waits for another window's refresh of the same provider. */
export const SIGN_IN_LOCK_WAIT_MS = 30_000;

/** pi-ai's flow, and revocation where the provider offers it (none of pi-ai's flows does today). */
export interface SignInFlow extends OAuthAuth {
  revoke?(credential: OAuthCredential, signal: AbortSignal): Promise<void>;
}

export class SignInLockBusyError extends Error {
  constructor(provider: string) {
    super(`another VS Code window is refreshing the ${provider} sign-in; try again in a moment`);
  }
}

/** The SecretStorage key of a provider's sign-in (never the API key's: signing out leaves a key alone). */
export function signInSecretKey(provider: string): string {
  return SIGN_IN_SECRET_PREFIX + provider;
}

/**
 * One OAuth credential per provider id in a secret store. Every write (sign-in, refresh, sign-out)
 * holds the provider's cross-window lock and reads the secret afresh under it, so a refresh sees
 * what another window stored meanwhile (pi-ai re-checks the expiry inside `modify`). Nothing is
 * cached: SecretStorage is shared by the windows.
 */
export class SignInCredentialStore implements CredentialStore {
  private local: Promise<unknown> = Promise.resolve();
  private lockWaits = 0;

  constructor(
    private readonly secrets: SecretStore,
    /** Folder of the lock directories (the extension's global storage). */
    private readonly lockDir: string,
    /** Told every credential read or written, so its tokens are redacted everywhere. */
    private readonly onCredential: (credential: OAuthCredential) => void = () => undefined,
    private readonly lockWaitMs = SIGN_IN_LOCK_WAIT_MS,
  ) {}

  /** How many times this store found another window holding the lock (a settled point for tests). */
  get refreshLockWaits(): number {
    return this.lockWaits;
  }

  async read(providerId: string): Promise<Credential | undefined> {
    const credential = parseCredential(await this.secrets.get(signInSecretKey(providerId)));
    if (credential) this.onCredential(credential);
    return credential;
  }

  async list(): Promise<readonly CredentialInfo[]> {
    return [];
  }

  modify(providerId: string, fn: (current: Credential | undefined) => Promise<Credential | undefined>): Promise<Credential | undefined> {
    return this.locked(providerId, async () => {
      const current = await this.read(providerId);
      const next = await fn(current);
      if (next === undefined) return current;
      if (next.type !== "oauth") throw new Error("only a sign-in is kept here; API keys have their own secret");
      this.onCredential(next);
      await this.secrets.store(signInSecretKey(providerId), JSON.stringify(next));
      return next;
    });
  }

  delete(providerId: string): Promise<void> {
    return this.locked(providerId, async () => {
      await this.secrets.delete(signInSecretKey(providerId));
    });
  }

  private locked<T>(providerId: string, fn: () => Promise<T>): Promise<T> {
    // One at a time in this window, then one at a time across windows.
    const run = this.local.then(() =>
      withCrossWindowLock(
        {
          lockDir: this.lockDir,
          name: `sign-in ${providerId}`,
          waitMs: this.lockWaitMs,
          onHeld: () => this.lockWaits++,
          busyError: () => new SignInLockBusyError(providerId),
        },
        fn,
      ),
    );
    this.local = run.catch(() => undefined);
    return run;
  }
}

/** A stored sign-in, or undefined for anything else (a damaged or foreign secret is not used). */
function parseCredential(text: string | undefined): OAuthCredential | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null) return undefined;
    const c = parsed as Record<string, unknown>;
    return c.type === "oauth" && typeof c.access === "string" && typeof c.refresh === "string" && typeof c.expires === "number"
      ? (parsed as OAuthCredential)
      : undefined;
  } catch {
    return undefined;
  }
}

let flowsRegistered = false;
/** One flow per provider: a provider's factory builds its whole catalog, not something to do per request. */
const shippedFlows = new Map<string, SignInFlow | undefined>();

/** pi-ai's own flow of a provider Pi Chat offers sign-in for (cloud-providers.ts lists them), or undefined. */
export function shippedSignInFlow(provider: string): SignInFlow | undefined {
  if (!isSignInProvider(provider)) return undefined;
  if (!flowsRegistered) {
    // The flows' modules through literal imports, so they are inside this bundle.
    registerLazyOAuthFlows();
    flowsRegistered = true;
  }
  if (!shippedFlows.has(provider)) shippedFlows.set(provider, CLOUD_FACTORIES[provider]().auth.oauth);
  return shippedFlows.get(provider);
}

/** A pi-ai Models over the store with one provider whose only auth is the flow: pi-ai's login, refresh and toAuth, nothing else. */
function flowModels(store: CredentialStore, provider: string, flow: SignInFlow) {
  const models = createModels({ credentials: store, authContext: { env: async () => undefined, fileExists: async () => false } });
  models.setProvider(createProvider({ id: provider, auth: { oauth: flow }, models: [], api: openAICompletionsApi() }));
  return models;
}

/** Runs the flow (the interaction opens the browser, shows a device code, asks) and stores what it gives. */
export async function signInWithFlow(store: CredentialStore, provider: string, flow: SignInFlow, interaction: AuthInteraction): Promise<void> {
  await flowModels(store, provider, flow).login(provider, "oauth", interaction, { agentName: "Pi Chat" });
}

/**
 * The request auth of a stored sign-in (refreshed first by pi-ai when it expires within five
 * minutes, under the store's lock); undefined when there is no sign-in. Rejects when the refresh fails.
 */
export async function signedInAuth(store: CredentialStore, provider: string, flow: SignInFlow, signal?: AbortSignal): Promise<ModelAuth | undefined> {
  const stored = await store.read(provider);
  if (stored?.type !== "oauth") return undefined;
  const result = await flowModels(store, provider, flow).getAuth(provider, signal ? { signal } : {});
  const auth = result?.auth;
  if (!auth || auth.apiKey !== undefined) return auth;
  // Kimi's flow gives its token as an Authorization header: the same bearer the key would make.
  const header = Object.entries(auth.headers ?? {}).find(([name]) => name.toLowerCase() === "authorization")?.[1];
  const bearer = typeof header === "string" ? /^Bearer\s+(\S+)$/i.exec(header)?.[1] : undefined;
  return bearer !== undefined ? { ...auth, apiKey: bearer } : auth;
}

/** Sign out: revoked where the flow can (a failure is reported, the secret goes anyway), then deleted. */
export async function signOutOfFlow(
  store: CredentialStore,
  provider: string,
  flow: SignInFlow | undefined,
  signal: AbortSignal,
): Promise<{ revoked: boolean; revokeError?: string }> {
  const stored = await store.read(provider);
  let revoked = false;
  let revokeError: string | undefined;
  if (stored?.type === "oauth" && flow?.revoke) {
    try {
      await flow.revoke(stored, signal);
      revoked = true;
    } catch (error) {
      revokeError = error instanceof Error ? error.message : String(error);
    }
  }
  await store.delete(provider);
  return { revoked, ...(revokeError !== undefined ? { revokeError } : {}) };
}
