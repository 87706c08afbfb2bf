// A chat's own model (the header's model picker) over the user's settings. The settings stay the
// default for new chats and the only source of a base URL: a base URL belongs to the provider it
// was set for, so a chat on another provider gets none (its own endpoint) — a transcript line can
// never point a key at a server.
import type { ChatModelChoice } from "../../core/transcript";
import { DEFAULT_MODELS, isProviderId, PROVIDER_LABELS, type ProviderId } from "../providers/catalog";
import type { ProviderSettings } from "../providers/provider-bundle";

/** The settings a run of a chat uses: its own provider and model, else the settings'. */
export function settingsForChat(settings: ProviderSettings, choice: ChatModelChoice | undefined): ProviderSettings {
  if (!choice || !isProviderId(choice.provider)) return settings;
  const provider: ProviderId = choice.provider;
  const { baseUrl, imageInput, contextWindow, maxTokens, options } = settings;
  const sameProvider = provider === settings.provider;
  return {
    provider,
    model: choice.modelId,
    // Named per provider (azure.*, cloudflare.*): only that provider ever reads them.
    ...(options ? { options } : {}),
    ...(sameProvider && baseUrl !== undefined ? { baseUrl } : {}),
    ...(sameProvider && imageInput !== undefined ? { imageInput } : {}),
    ...(sameProvider && contextWindow !== undefined ? { contextWindow } : {}),
    ...(sameProvider && maxTokens !== undefined ? { maxTokens } : {}),
  };
}

/** A served model's id can be a file path (llama-server's model_path): the header shows its file name. */
function shortModelName(id: string): string {
  return /[\\/]/.test(id) && /\.gguf$/i.test(id) ? (id.split(/[\\/]/).pop() ?? id) : id;
}

/** What the header shows of a chat's model: its name, and where it runs for the tooltip. */
export interface ModelLabel {
  /** "Claude Sonnet 4.5": the model's name (its id when the catalog is not loaded), never a provider id. */
  label: string;
  /** "Anthropic · claude-sonnet-4-5 · thinking high". */
  detail: string;
  /** "Anthropic", "Local server (OpenAI-compatible) at http://…": where the model runs. */
  where: string;
}

/** Provider names for the header's tooltip and the picker (the catalog's are worded for sentences). */
export const PROVIDER_TITLES: Record<ProviderId, string> = {
  ...PROVIDER_LABELS,
  "openai-compatible": "Local server (OpenAI-compatible)",
  "vscode-lm": "VS Code language models",
};

/**
 * The header's words for a chat's model. `nameOf` gives a catalog name for an id when the
 * provider bundle is loaded; an empty model means the provider's default (for a local server, the
 * first model it lists).
 */
export function modelLabel(
  settings: ProviderSettings,
  thinkingLevel?: string,
  nameOf?: (provider: ProviderId, id: string) => string | undefined,
  servedModel?: string,
): ModelLabel {
  const thinking = thinkingLevel && thinkingLevel !== "off" ? ` · thinking ${thinkingLevel}` : "";
  const id = settings.model || DEFAULT_MODELS[settings.provider] || servedModel || "";
  const label = id
    ? (nameOf?.(settings.provider, id) ?? shortModelName(id))
    : settings.provider === "vscode-lm"
      ? "VS Code's first model"
      : "Server's first model";
  const where =
    settings.provider === "openai-compatible" && settings.baseUrl
      ? `${PROVIDER_TITLES[settings.provider]} at ${settings.baseUrl}`
      : PROVIDER_TITLES[settings.provider];
  const first = settings.provider === "vscode-lm" ? "the first model VS Code offers" : "the first model the server lists";
  return { label, detail: `${where} · ${id || first}${thinking}`, where };
}
