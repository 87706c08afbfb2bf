// A chat's own model (the header's model picker) over the user's settings. The settings stay the
// default for new chats and the only source of a base URL: a base URL belongs to the provider it
// was set for, so a chat on another provider gets none (its own endpoint) — a transcript line can
// never point a key at a server.
import type { ChatModelChoice } from "../core/transcript";
import { isProviderId, type ProviderId } from "./providers/catalog";
import type { ProviderSettings } from "./providers";

/** The settings a run of a chat uses: its own provider and model, else the settings'. */
export function settingsForChat(settings: ProviderSettings, choice: ChatModelChoice | undefined): ProviderSettings {
  if (!choice || !isProviderId(choice.provider)) return settings;
  const provider: ProviderId = choice.provider;
  const { baseUrl, imageInput, contextWindow, maxTokens } = settings;
  const sameProvider = provider === settings.provider;
  return {
    provider,
    model: choice.modelId,
    ...(sameProvider && baseUrl !== undefined ? { baseUrl } : {}),
    ...(sameProvider && imageInput !== undefined ? { imageInput } : {}),
    ...(sameProvider && contextWindow !== undefined ? { contextWindow } : {}),
    ...(sameProvider && maxTokens !== undefined ? { maxTokens } : {}),
  };
}

/** "openai / gpt-5 · high": what the header shows. */
export function modelLabel(settings: ProviderSettings, thinkingLevel?: string): string {
  const thinking = thinkingLevel && thinkingLevel !== "off" ? ` · thinking ${thinkingLevel}` : "";
  return `${settings.provider}${settings.model ? ` / ${settings.model}` : ""}${thinking}`;
}
