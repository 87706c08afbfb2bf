// The provider layer: turns the user's settings and stored keys into the ModelBinding a
// ChatSession runs with. Bundled on its own (out/providers.js) and loaded on the first
// prompt, so the activation bundle carries no provider SDK. No VS Code here: the host
// passes in the settings and a SecretSource over its SecretStorage.
import type { AuthContext, Model, ModelAuth, MutableModels } from "@earendil-works/pi-ai";
import { openAICompletionsApi } from "@earendil-works/pi-ai/api/openai-completions.lazy";
import { createModels, createProvider, getSupportedThinkingLevels } from "@earendil-works/pi-ai/models";
import type { BindingWindow, ServerWindow } from "../../core/context/server-window";
import { RunSetupError } from "../../core/session/run-errors";
import type { ModelBinding } from "../../core/session/types";
import type { FixCommandId } from "../../shared/app-messages";
import {
  apiKeyProblem,
  DEFAULT_MODELS,
  ENV_VARS,
  isProviderId,
  KEYLESS_API_KEY,
  PROVIDER_LABELS,
  SELECT_MODEL_COMMAND,
  SET_API_KEY_COMMAND,
  VSCODE_LM,
  type ProviderId,
} from "./catalog";
import { mayMeanWindowChanged, setKeyFix } from "./errors";
import { requestOptions, withoutAmbientHeaders } from "./ambient-headers";
import type { ProviderOptionId } from "./cloud-providers";
import { CLOUD_FACTORIES } from "./pi-ai-providers";
import { providerEnv } from "./provider-options";
import { fetchServerModelIds } from "./server-models";
import { askServerWindowAgain, compatibleWindow, knownServerWindow, probeServerWindow } from "./server-probe";

export { DEFAULT_MODELS, ENV_VARS, KEYLESS_API_KEY, PROVIDER_IDS, PROVIDER_LABELS, isProviderId, type ProviderId } from "./catalog";
export { describeProviderError, redactSecrets, type ProviderErrorDescription } from "./errors";
export { forgetServerWindows, knownServerWindow } from "./server-probe";
export { SignInCredentialStore, shippedSignInFlow, signedInAuth, signInWithFlow, signOutOfFlow, type SignInFlow } from "./sign-in";

export interface ProviderSettings {
  provider: ProviderId;
  /** Model id; "" = the provider's default (DEFAULT_MODELS; for OpenAI-compatible servers the first model the server lists). */
  model: string;
  /** Required for "openai-compatible" (e.g. http://localhost:11434/v1); an optional endpoint override for the others. */
  baseUrl?: string;
  /**
   * OpenAI-compatible only: the model's context window when the server does not say it (never more
   * than the server says), and the output cap (default 8192).
   */
  contextWindow?: number;
  maxTokens?: number;
  /** OpenAI-compatible only: the server's model accepts images (servers do not say; piChat.imageInput). */
  imageInput?: boolean;
  /** Azure's and Cloudflare's URL parts, from the user's settings (provider-options.ts). */
  options?: Partial<Record<ProviderOptionId, string>>;
}

/** Stored keys (VS Code SecretStorage in the product). */
/** Makes the RunSetupError a failed resolution throws: what went wrong, what to do, and the command that does it. */
type Fail = (message: string, fix: string, command?: FixCommandId, more?: FixCommandId[]) => Error;

export interface SecretSource {
  get(provider: ProviderId): Promise<string | undefined>;
}

export interface ResolveOptions {
  /** Where the environment-variable fallback reads from. Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Timeout of the GET {baseUrl}/models look-up for an OpenAI-compatible server without a model id. Default 5000 ms. */
  discoveryTimeoutMs?: number;
  /** Timeout of each request that asks an OpenAI-compatible server its window (server-probe.ts). */
  probeTimeoutMs?: number;
  /**
   * Asked before a built-in provider's key goes anywhere but the provider's own endpoint (a
   * base URL override): true only when the user allowed this very URL for this provider. Without
   * it an override is refused.
   */
  allowBaseUrl?: (request: BaseUrlOverride) => Promise<boolean>;
  /** Told every real key that is about to be sent (never the keyless placeholder), so it can be redacted everywhere. */
  onKeyUsed?: (key: string) => void;
  /** The request auth of the provider's stored sign-in (sign-in.ts), refreshed when due; undefined: none. */
  signedIn?: (provider: BuiltinProviderId) => Promise<ModelAuth | undefined>;
}

/** A base URL that would receive a built-in provider's key instead of the provider's own endpoint. */
export interface BaseUrlOverride {
  provider: BuiltinProviderId;
  /** The provider's name for sentences ("OpenAI"). */
  label: string;
  /** The override, normalized (no trailing slash). */
  url: string;
  /** The provider's own endpoint. */
  ownUrl: string;
}

export type BuiltinProviderId = Exclude<ProviderId, "openai-compatible" | typeof VSCODE_LM>;

/** The providers whose models pi-ai's catalog knows. */
function isBuiltin(provider: ProviderId): provider is BuiltinProviderId {
  return provider !== "openai-compatible" && provider !== VSCODE_LM;
}

/**
 * pi-ai never reads keys from the environment itself: the key comes only from getApiKey,
 * so a stored key always wins and nothing ambient (OAuth tokens, other variables) sneaks in.
 */
const NO_AMBIENT_AUTH: AuthContext = { env: async () => undefined, fileExists: async () => false };

let builtinCollection: MutableModels | undefined;

function builtinModels(): MutableModels {
  if (!builtinCollection) {
    const models = createModels({ authContext: NO_AMBIENT_AUTH });
    for (const create of Object.values(CLOUD_FACTORIES)) models.setProvider(create());
    builtinCollection = models;
  }
  return builtinCollection;
}

/** The model when the setting is empty: the table's default, else the first of pi-ai's catalog. */
function defaultModelId(provider: BuiltinProviderId): string {
  return DEFAULT_MODELS[provider] || (builtinModels().getModels(provider)[0]?.id ?? "");
}

/** The chat models of a provider, for the "select model" quick pick. [] for OpenAI-compatible servers (any id; see listServerModels). */
export function listModels(provider: ProviderId): { id: string; name: string }[] {
  if (!isBuiltin(provider)) return [];
  return builtinModels()
    .getModels(provider)
    .map((m) => ({ id: m.id, name: m.name }));
}

/**
 * The thinking levels the model supports (pi-ai's getSupportedThinkingLevels), for the chat's
 * model picker; [] for a model the catalog does not know (OpenAI-compatible servers included).
 */
export function thinkingLevels(settings: ProviderSettings): string[] {
  if (!isProviderId(settings.provider) || !isBuiltin(settings.provider)) return [];
  const id = settings.model.trim() || defaultModelId(settings.provider);
  const model = builtinModels()
    .getModels(settings.provider)
    .find((m) => m.id === id);
  return model ? getSupportedThinkingLevels(model) : [];
}

/**
 * Whether the configured model accepts images (pi-ai's `model.input`); for OpenAI-compatible
 * servers the setting says. Undefined for a model id the catalog does not know.
 */
export function modelAcceptsImages(settings: ProviderSettings): boolean | undefined {
  if (settings.provider === "openai-compatible") return settings.imageInput === true;
  if (!isProviderId(settings.provider) || !isBuiltin(settings.provider)) return undefined;
  const id = settings.model.trim() || defaultModelId(settings.provider);
  const model = builtinModels()
    .getModels(settings.provider)
    .find((m) => m.id === id);
  return model ? model.input.includes("image") : undefined;
}

/**
 * The configured model's window, output cap and prices, from the catalog (or the settings of an
 * OpenAI-compatible server): what the meter needs before a request. No key, no network.
 */
export function modelForMeter(settings: ProviderSettings): Pick<Model<"openai-completions">, "contextWindow" | "maxTokens" | "cost"> | undefined {
  if (settings.provider === "openai-compatible") {
    // What the server said when it was last asked (never asked here: no network); 0 = unknown.
    const server = settings.baseUrl ? knownServerWindow(settings.baseUrl.trim(), settings.model) : undefined;
    const window = compatibleWindow(positiveInt(settings.contextWindow), server);
    return {
      contextWindow: window.known ? window.tokens : 0,
      maxTokens: compatibleMaxTokens(settings),
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    };
  }
  if (!isProviderId(settings.provider) || !isBuiltin(settings.provider)) return undefined;
  const id = settings.model.trim() || defaultModelId(settings.provider);
  const model = builtinModels()
    .getModels(settings.provider)
    .find((m) => m.id === id);
  return model ? { contextWindow: model.contextWindow, maxTokens: model.maxTokens, cost: model.cost } : undefined;
}

/**
 * Resolves the model, stream function and key lookup for a run. Throws RunSetupError (message +
 * fix, never key material) for a missing key, an unknown model id, or a missing/invalid base URL.
 */
export async function resolveModelBinding(settings: ProviderSettings, secrets: SecretSource, options: ResolveOptions = {}): Promise<ModelBinding> {
  const fail: Fail = (message, fix, command, more) => new RunSetupError(message, fix, command, more);
  const env = options.env ?? process.env;
  const provider = settings.provider;
  if (!isProviderId(provider)) {
    throw fail(`Unknown provider “${String(provider)}”.`, `Choose a provider and model with “${SELECT_MODEL_COMMAND}”.`, "selectChatModel");
  }
  if (provider === "openai-compatible") return resolveOpenAICompatible(settings, secrets, options, fail);
  // VS Code's models need the vscode API: the host binds them (src/host/vscode-models), never this bundle.
  if (provider === VSCODE_LM) throw fail("VS Code's language models are not reachable from here.", "Choose another model.", "selectChatModel");

  const label = PROVIDER_LABELS[provider];
  const baseUrl = settings.baseUrl?.trim() ? parseBaseUrl(settings.baseUrl, fail) : undefined;
  // A sign-in wins over a key (signing out falls back to it); pi-ai refreshes its token before expiry.
  const signedInKey = async () => (await options.signedIn?.(provider))?.apiKey;
  const readKey = async () => {
    const found = (await signedInKey()) ?? (await readStoredOrEnvKey(provider, secrets, env));
    if (found) options.onKeyUsed?.(found);
    return found;
  };
  let key: string | undefined;
  try {
    key = await signedInKey();
  } catch (error) {
    throw fail(`Your ${label} sign-in could not be renewed (${error instanceof Error ? error.message : String(error)}).`, signInAgainFix(label), "signIn", [
      "setApiKey",
      "selectChatModel",
    ]);
  }
  try {
    key ??= await readKey();
  } catch {
    throw fail(`Could not read the stored API key for ${label}.`, `Run “${SET_API_KEY_COMMAND}” to store it again.`, "setApiKey");
  }
  if (!key)
    // Retry after the key is saved: the failed message goes again, nothing to retype.
    throw fail(noKeyText(provider), `${setKeyFix(provider)} Or choose another provider, or use a local model (no key needed).`, "setApiKey", [
      "retry",
      "selectChatModel",
      "useLocalModel",
    ]);
  const problem = apiKeyProblem(key);
  if (problem) throw fail(`The ${label} API key cannot be used: ${problem}`, setKeyFix(provider), "setApiKey");

  const models = builtinModels();
  const wanted = settings.model.trim() || defaultModelId(provider);
  const found = models.getModel(provider, wanted) ?? models.getModels(provider).find((m) => m.id.toLowerCase() === wanted.toLowerCase());
  if (!found) {
    throw fail(
      `Unknown ${label} model “${wanted}”.`,
      `Choose one with “${SELECT_MODEL_COMMAND}”, for example ${suggestedModelIds(provider).join(", ")}.`,
      "selectModel",
    );
  }
  // A key goes only to its own provider: another endpoint needs the user's consent for that URL.
  const override = baseUrl !== undefined && !sameEndpoint(baseUrl, found.baseUrl) ? baseUrl : undefined;
  if (override !== undefined) {
    const allowed = (await options.allowBaseUrl?.({ provider, label, url: override, ownUrl: found.baseUrl })) ?? false;
    if (!allowed) {
      throw fail(
        `Pi Chat did not send your ${label} API key to ${hostOf(override)}: piChat.baseUrl points ${label} requests there, and you have not allowed that URL.`,
        `Allow it when asked, if you trust that server; or remove piChat.baseUrl from your user settings, or choose ${label} again with “${SELECT_MODEL_COMMAND}” (which clears it).`,
        "selectModel",
      );
    }
  }
  const model = override !== undefined ? { ...found, baseUrl: override } : found;
  let urlEnv: Record<string, string> | undefined;
  try {
    urlEnv = providerEnv(provider, settings.options ?? {}, model.id, override);
  } catch (error) {
    const what = error instanceof Error ? error.message : String(error);
    throw fail(
      `${label} needs ${what}.`,
      `Choose a ${label} model again with “${SELECT_MODEL_COMMAND}”: it asks (kept in your user settings).`,
      "selectChatModel",
    );
  }
  const initialKey = key;
  return {
    model,
    streamFn: (m, context, streamOptions) => models.streamSimple(m, context, requestOptions(m.provider, streamOptions, urlEnv)),
    // Read per request, so a key set during a run is used by its next request.
    getApiKey: async () => {
      try {
        return (await readKey()) ?? initialKey;
      } catch {
        return initialKey;
      }
    },
  };
}

/**
 * Asks the settings' OpenAI-compatible server for its window and served model now, off any request
 * (the header and the meter before the first prompt); undefined when it does not say. Never throws.
 */
export async function probeCompatibleServer(
  settings: ProviderSettings,
  secrets: SecretSource,
  options: ResolveOptions = {},
): Promise<ServerWindow | undefined> {
  if (settings.provider !== "openai-compatible" || !settings.baseUrl?.trim()) return undefined;
  try {
    const baseUrl = parseBaseUrl(settings.baseUrl, (message) => new Error(message));
    const key = await readCompatibleKey(secrets);
    if (key) options.onKeyUsed?.(key);
    return await probeServerWindow(baseUrl, settings.model.trim(), { ...(key ? { apiKey: key } : {}) });
  } catch {
    return undefined;
  }
}

/** The models an OpenAI-compatible server lists at GET {baseUrl}/models (for the quick pick). Throws RunSetupError when it cannot. */
export async function listServerModels(
  settings: ProviderSettings,
  secrets: SecretSource,
  options: ResolveOptions = {},
): Promise<{ id: string; name: string }[]> {
  const fail: Fail = (message, fix, command, more) => new RunSetupError(message, fix, command, more);
  const baseUrl = requireBaseUrl(settings, fail);
  const key = await readCompatibleKey(secrets);
  if (key) options.onKeyUsed?.(key);
  const ids = await fetchServerModelIds(baseUrl, key ?? KEYLESS_API_KEY, options.discoveryTimeoutMs ?? 5000, fail);
  return ids.map((id) => ({ id, name: id }));
}

async function resolveOpenAICompatible(settings: ProviderSettings, secrets: SecretSource, options: ResolveOptions, fail: Fail): Promise<ModelBinding> {
  const baseUrl = requireBaseUrl(settings, fail);
  let initialKey: string | undefined;
  try {
    initialKey = await readCompatibleKey(secrets);
    if (initialKey) options.onKeyUsed?.(initialKey);
  } catch {
    throw fail(
      `Could not read the stored API key for ${PROVIDER_LABELS["openai-compatible"]}.`,
      `Run “${SET_API_KEY_COMMAND}” to store it again.`,
      "setApiKey",
    );
  }
  const problem = initialKey !== undefined ? apiKeyProblem(initialKey) : undefined;
  if (problem)
    throw fail(
      `The stored API key for ${PROVIDER_LABELS["openai-compatible"]} cannot be used: ${problem}`,
      `Run “${SET_API_KEY_COMMAND}” to store it again.`,
      "setApiKey",
    );
  // The server's own window and served model (asked once per base URL and model, a short timeout).
  const server = await probeServerWindow(baseUrl, settings.model.trim(), {
    ...(initialKey ? { apiKey: initialKey } : {}),
    ...(options.probeTimeoutMs ? { timeoutMs: options.probeTimeoutMs } : {}),
  });
  let id = settings.model.trim() || server?.modelId || "";
  if (!id) {
    const listed = await fetchServerModelIds(baseUrl, initialKey ?? KEYLESS_API_KEY, options.discoveryTimeoutMs ?? 5000, fail);
    id = listed[0] ?? "";
    if (!id) {
      throw fail(
        `No model id is set, and the server at ${baseUrl} lists no models.`,
        `Load a model on the server, or enter the id of the model it serves with “${SELECT_MODEL_COMMAND}”.`,
        "selectModel",
      );
    }
  }
  const window = compatibleWindow(positiveInt(settings.contextWindow), server);
  const model: Model<"openai-completions"> = {
    id,
    name: id,
    api: "openai-completions",
    provider: "openai-compatible",
    baseUrl,
    reasoning: false,
    input: settings.imageInput ? ["text", "image"] : ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: window.tokens,
    maxTokens: Math.min(compatibleMaxTokens(settings), window.tokens),
    // What local servers (Ollama, llama.cpp, LM Studio, vLLM) accept: plain system role,
    // no reasoning_effort, no store, max_tokens, no strict tool schemas.
    compat: {
      supportsDeveloperRole: false,
      supportsReasoningEffort: false,
      supportsStore: false,
      supportsStrictMode: false,
      maxTokensField: "max_tokens",
    },
  };
  const provider = createProvider({
    id: "openai-compatible",
    name: "OpenAI-compatible server",
    baseUrl,
    // The key arrives as the request's apiKey (getApiKey below); a keyless server is configured too.
    auth: {
      apiKey: { name: "OpenAI-compatible server key", resolve: async ({ credential }) => ({ auth: credential?.key ? { apiKey: credential.key } : {} }) },
    },
    models: [model],
    api: openAICompletionsApi(),
  });
  const models = createModels({ authContext: NO_AMBIENT_AUTH });
  models.setProvider(provider);
  const bindingWindow: BindingWindow = {
    known: window.known,
    ...(server ? { server: server.server } : {}),
    ...(server?.tokenScale ? { tokenScale: server.tokenScale } : {}),
  };
  const askAgain = () => askServerWindowAgain(baseUrl, settings.model.trim());
  return {
    model,
    window: bindingWindow,
    askWindowAgain: askAgain,
    streamFn: (m, context, streamOptions) => {
      const stream = models.streamSimple(m, context, withoutAmbientHeaders(m.provider, streamOptions));
      // The server's own "too long", or a server gone (restarted with another window?): ask it again next run.
      void stream.result().then((answer) => mayMeanWindowChanged(answer) && askAgain(), askAgain);
      return stream;
    },
    // pi-ai's adapter refuses to send without a key, so keyless servers get a placeholder.
    getApiKey: async () => {
      try {
        const key = await readCompatibleKey(secrets);
        if (key) options.onKeyUsed?.(key);
        return key ?? initialKey ?? KEYLESS_API_KEY;
      } catch {
        return initialKey ?? KEYLESS_API_KEY;
      }
    },
  };
}

/** "No API key for Anthropic: none is stored in VS Code, and ANTHROPIC_API_KEY is not set." Says where Pi Chat looked. */
export function noKeyText(provider: BuiltinProviderId): string {
  const vars = ENV_VARS[provider];
  const env = vars.length === 1 ? `${vars[0]} is not set` : `neither ${vars.join(" nor ")} is set`;
  return `No API key for ${PROVIDER_LABELS[provider]}: none is stored in VS Code, and ${env}.`;
}

function signInAgainFix(label: string): string {
  return `Sign in to ${label} again with “Pi Chat: Sign In to Provider…”, or set an API key with “${SET_API_KEY_COMMAND}”.`;
}

function sameEndpoint(a: string, b: string): boolean {
  return a.replace(/\/+$/, "").toLowerCase() === b.replace(/\/+$/, "").toLowerCase();
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

async function readStoredOrEnvKey(
  provider: BuiltinProviderId,
  secrets: SecretSource,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | undefined> {
  const stored = (await secrets.get(provider))?.trim();
  if (stored) return stored;
  for (const name of ENV_VARS[provider]) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

/** Only the stored key: environment keys of the big providers are never sent to some other server. */
async function readCompatibleKey(secrets: SecretSource): Promise<string | undefined> {
  return (await secrets.get("openai-compatible"))?.trim() || undefined;
}

function requireBaseUrl(settings: ProviderSettings, fail: Fail): string {
  if (!settings.baseUrl?.trim()) {
    throw fail(
      "No base URL is set for the OpenAI-compatible server.",
      "Set the server's base URL in the Pi Chat settings, for example http://localhost:11434/v1 (Ollama), http://localhost:1234/v1 (LM Studio) or http://localhost:8080/v1 (llama.cpp).",
    );
  }
  return parseBaseUrl(settings.baseUrl, fail);
}

function parseBaseUrl(raw: string, fail: Fail): string {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw fail(
      `The base URL “${text}” is not a valid URL.`,
      "Enter a full http:// or https:// URL in the Pi Chat settings, for example http://localhost:11434/v1.",
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw fail(
      `The base URL “${text}” is not an http:// or https:// URL.`,
      "Enter a full http:// or https:// URL in the Pi Chat settings, for example http://localhost:11434/v1.",
    );
  }
  if (url.username || url.password) {
    // Credentials in the URL would end up in logs and error messages.
    throw fail("The base URL contains a user name or password.", `Remove them from the URL and store the key with “${SET_API_KEY_COMMAND}”.`, "setApiKey");
  }
  return text.replace(/\/+$/, "");
}

function suggestedModelIds(provider: BuiltinProviderId): string[] {
  const ids = listModels(provider)
    .map((m) => m.id)
    .filter((id) => !/-\d{8}$/.test(id));
  return [...new Set([defaultModelId(provider), ...ids])].slice(0, 5);
}

const positiveInt = (value: number | undefined): number | undefined => (value !== undefined && Number.isInteger(value) && value > 0 ? value : undefined);

const compatibleMaxTokens = (settings: ProviderSettings): number => positiveInt(settings.maxTokens) ?? 8192;
