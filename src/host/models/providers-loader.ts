// Settings, secrets and the provider bundle. The provider SDKs live in out/providers.js,
// which is required on the first prompt, never at activation.
import type * as vscode from "vscode";
import type * as Providers from "../providers/provider-bundle";
import { apiKeyProblem, isProviderId, PROVIDER_IDS, type ProviderId } from "../providers/catalog";
import { keyRedactor } from "./key-redaction";
import { setting } from "../settings";
import { lazyBundle } from "../lazy-bundle";

export type ProvidersModule = typeof Providers;
export type ProviderSettings = Providers.ProviderSettings;
export { PROVIDER_IDS, type ProviderId };

const bundle = lazyBundle<ProvidersModule>("providers.js");

export function loadProviders(): ProvidersModule {
  return bundle.load();
}

export function readProviderSettings(): ProviderSettings {
  // Where requests go is the user's choice alone: never from a workspace's settings (settings.ts).
  const provider = setting("provider");
  const baseUrl = setting("baseUrl").trim();
  return {
    provider: isProviderId(provider) ? provider : "anthropic",
    model: setting("model").trim(),
    ...(baseUrl ? { baseUrl } : {}),
    // Only says what the local server's model can do; it cannot send anything anywhere.
    ...(setting("imageInput") ? { imageInput: true } : {}),
    // The window when the server does not say it (0: unset); never more than the server says.
    ...(setting("contextWindow") > 0 ? { contextWindow: setting("contextWindow") } : {}),
    // Azure's and Cloudflare's URL parts: user settings only, like the base URL (provider-options.ts checks their shape).
    options: {
      "azure.resourceName": setting("azure.resourceName").trim(),
      "azure.deployment": setting("azure.deployment").trim(),
      "cloudflare.accountId": setting("cloudflare.accountId").trim(),
      "cloudflare.gatewayId": setting("cloudflare.gatewayId").trim(),
    },
  };
}

/** The provider bundle if a prompt already loaded it (the view's status must not load it). */
export function providersIfLoaded(): ProvidersModule | undefined {
  return bundle.ifLoaded();
}

let idleLoad: Promise<ProvidersModule | undefined> | undefined;

/**
 * Loads the provider bundle off the view's first paint, once: the header names the model from
 * its catalog ("Claude Sonnet 4.5", not "claude-sonnet-4-5"). A bundle that fails to load is
 * left to the first prompt, which says why.
 */
export function loadProvidersWhenIdle(delayMs: number): Promise<ProvidersModule | undefined> {
  idleLoad ??= new Promise((resolve) => {
    setTimeout(() => {
      try {
        resolve(loadProviders());
      } catch {
        resolve(undefined);
      }
    }, delayMs).unref();
  });
  return idleLoad;
}

/** API keys in VS Code's SecretStorage, one per provider. Never in settings, logs or transcripts. */
export class SecretKeys implements Providers.SecretSource {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  async get(provider: ProviderId): Promise<string | undefined> {
    const key = await this.secrets.get(this.key(provider));
    keyRedactor.add(key);
    return key;
  }

  /** Stores a key; refuses one that could never work (a space or line break inside), saying why. */
  async set(provider: ProviderId, value: string): Promise<void> {
    const problem = apiKeyProblem(value);
    if (problem) throw new Error(`Pi Chat did not store this API key: ${problem}`);
    keyRedactor.add(value);
    await this.secrets.store(this.key(provider), value.trim());
  }

  async delete(provider: ProviderId): Promise<void> {
    await this.secrets.delete(this.key(provider));
  }

  private key(provider: ProviderId): string {
    return `piChat.apiKey.${provider}`;
  }
}
