// Static facts about the providers Pi Chat offers: ids, names, key variables, default models.
// The cloud providers come from one table (cloud-providers.ts); then a local server and VS Code's models.
import { CLOUD_PROVIDERS, type CloudProviderId } from "./cloud-providers";

export { CLOUD_PROVIDERS, NOT_OFFERED, type CloudProviderId } from "./cloud-providers";

/** The providers reached with a key of their own (or none, for a local server). */
export type KeyedProviderId = CloudProviderId | "openai-compatible";
/**
 * VS Code's own language models (vscode.lm: Copilot's, or any extension's through the Language
 * Model Chat Provider API): no key, no base URL; the model id is "vendor/id" (src/host/vscode-models).
 */
export const VSCODE_LM = "vscode-lm";
export type ProviderId = KeyedProviderId | typeof VSCODE_LM;

/**
 * The providers with a key: what "Set API Key" offers, what is read from the secret storage. Each
 * key is stored under its provider's id (piChat.apiKey.<id>), an id from this table only.
 */
export const PROVIDER_IDS: readonly KeyedProviderId[] = [...CLOUD_PROVIDERS.map((p) => p.id), "openai-compatible"];

function byProvider<T>(cloud: (p: (typeof CLOUD_PROVIDERS)[number]) => T, compatible: T, vscodeLm: T): Record<ProviderId, T> {
  const entries: [ProviderId, T][] = [
    ...CLOUD_PROVIDERS.map((p): [ProviderId, T] => [p.id, cloud(p)]),
    ["openai-compatible", compatible],
    [VSCODE_LM, vscodeLm],
  ];
  return Object.fromEntries(entries) as Record<ProviderId, T>;
}

/** Display names, as used in messages ("No API key for Anthropic."). */
export const PROVIDER_LABELS: Record<ProviderId, string> = byProvider<string>((p) => p.label, "the OpenAI-compatible server", "VS Code's language models");

/**
 * Environment variables read when no key is stored, in order. None for OpenAI-compatible
 * servers: an OpenAI key must never be sent to some other server.
 */
export const ENV_VARS: Record<ProviderId, readonly string[]> = byProvider<readonly string[]>((p) => p.env, [], []);
/** Every provider key variable: removed from the environment of commands and MCP servers alike. */
export const PROVIDER_KEY_ENV_VARS: readonly string[] = [...new Set(Object.values(ENV_VARS).flat())];

/**
 * The model used when the setting is empty ("" = the first of the provider's catalog). For
 * OpenAI-compatible servers "" means the first model the server lists at GET {baseUrl}/models.
 */
export const DEFAULT_MODELS: Record<ProviderId, string> = byProvider<string>((p) => p.defaultModel, "", "");

/** What an OpenAI-compatible server gets as the API key when none is stored (keyless local servers). */
export const KEYLESS_API_KEY = "not-needed";

// The palette titles of the commands (package.json); a notice offers a button for each one its fix names.
export const SET_API_KEY_COMMAND = "Pi Chat: Set API Key";
export const SELECT_MODEL_COMMAND = "Pi Chat: Choose Model…";

export function isProviderId(value: unknown): value is ProviderId {
  return value === VSCODE_LM || (typeof value === "string" && (PROVIDER_IDS as readonly string[]).includes(value));
}

/**
 * Why a key cannot be used, or undefined. Keys are printable ASCII without spaces: a line break
 * or a space inside (a bad paste) would make the request fail with an error that quotes the key.
 */
export function apiKeyProblem(key: string): string | undefined {
  if (/[\s]/.test(key.trim())) return "it has a space, tab or line break inside. Paste the key alone, on one line.";
  if (/[^\x21-\x7e]/.test(key.trim()))
    return "it has characters an API key never has (only printable ASCII letters, digits and symbols). Paste the key alone, on one line.";
  return undefined;
}
