// Static facts about the providers Pi Chat offers: ids, names, key variables, default models.
/** The providers reached with a key of their own (or none, for a local server). */
export type KeyedProviderId = "anthropic" | "openai" | "google" | "openai-compatible";
/**
 * VS Code's own language models (vscode.lm: Copilot's, or any extension's through the Language
 * Model Chat Provider API): no key, no base URL; the model id is "vendor/id" (src/host/vscode-models).
 */
export const VSCODE_LM = "vscode-lm";
export type ProviderId = KeyedProviderId | typeof VSCODE_LM;

/** The providers with a key: what "Set API Key" offers, what is read from the secret storage. */
export const PROVIDER_IDS: readonly KeyedProviderId[] = ["anthropic", "openai", "google", "openai-compatible"];

/** Display names, as used in messages ("No API key for Anthropic."). */
export const PROVIDER_LABELS: Record<ProviderId, string> = {
  anthropic: "Anthropic",
  openai: "OpenAI",
  google: "Google Gemini",
  "openai-compatible": "the OpenAI-compatible server",
  [VSCODE_LM]: "VS Code's language models",
};

/**
 * Environment variables read when no key is stored, in order. None for OpenAI-compatible
 * servers: an OpenAI key must never be sent to some other server.
 */
export const ENV_VARS: Record<ProviderId, readonly string[]> = {
  anthropic: ["ANTHROPIC_API_KEY"],
  openai: ["OPENAI_API_KEY"],
  google: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
  "openai-compatible": [],
  [VSCODE_LM]: [],
};
/** Every provider key variable: removed from the environment of commands and MCP servers alike. */
export const PROVIDER_KEY_ENV_VARS: readonly string[] = Object.values(ENV_VARS).flat();

/**
 * The model used when the setting is empty. For OpenAI-compatible servers there is no fixed
 * default: "" means the first model the server lists at GET {baseUrl}/models.
 */
export const DEFAULT_MODELS: Record<ProviderId, string> = {
  anthropic: "claude-sonnet-4-5",
  openai: "gpt-4.1",
  google: "gemini-2.5-flash",
  "openai-compatible": "",
  [VSCODE_LM]: "",
};

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
