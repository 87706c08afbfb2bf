// Writing the provider and model the user chose (Pi Chat: Select Model) to their user settings.
// A base URL belongs to the provider it was set for: when the provider changes it is cleared
// (or replaced by the one chosen with it), so switching from a local server back to OpenAI never
// leaves OpenAI's key pointed at that server.
import { isProviderId, type ProviderId } from "../providers/catalog";
import { setting, updateUserSetting } from "../settings";

export interface ModelChoice {
  provider: ProviderId;
  /** Model id; "" = the provider's default. */
  model: string;
  /** Chosen with the provider (an OpenAI-compatible server's URL); otherwise a provider change clears it. */
  baseUrl?: string;
}

export async function applyModelChoice(choice: ModelChoice): Promise<void> {
  const previous = setting("provider");
  // The base URL first: at no moment may the new provider meet the old provider's URL.
  if (choice.baseUrl !== undefined) await updateUserSetting("baseUrl", choice.baseUrl.trim() || undefined);
  else if (previous !== choice.provider) await updateUserSetting("baseUrl", undefined);
  await updateUserSetting("provider", choice.provider);
  await updateUserSetting("model", choice.model.trim());
}

/**
 * Reads a choice passed as the command's argument (a keybinding's `args`), or undefined. A base
 * URL is never taken from an argument: only typed by the user in the command's own input box.
 */
export function asModelChoice(value: unknown): ModelChoice | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { provider, model } = value as Record<string, unknown>;
  if (!isProviderId(provider) || (model !== undefined && typeof model !== "string")) return undefined;
  return { provider, model: model ?? "" };
}
