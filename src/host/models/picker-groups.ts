// The model picker's groups besides VS Code's models and the local server: the models used
// recently, every provider with a key (stored or in its environment variable) with its models, and
// every other cloud provider as one row that asks for its key (naming the variable pi-ai reads) and
// then lists its models. Recently used models are kept in the extension's global state, never in
// settings: a list of provider ids from the catalog and model ids, nothing else.
import * as vscode from "vscode";
import { CLOUD_PROVIDERS, DEFAULT_MODELS, ENV_VARS, isProviderId, type CloudProviderId, type ProviderId } from "../providers/catalog";
import { PROVIDER_TITLES } from "./chat-model";
import type { ModelItem } from "./model-item";
import { orderModels, type ListedModel } from "./model-order";
import { optionProblem, PROVIDER_OPTION_RULES, providerOptions } from "../providers/provider-options";
import { SIGN_IN_PROVIDERS } from "../providers/cloud-providers";
import { setting, updateUserSetting } from "../settings";

/** How many recently used models the picker lists first. */
const RECENT_COUNT = 5;
const RECENT_KEY = "piChat.recentModels";

export interface RecentModel {
  provider: ProviderId;
  id: string;
}

/** The recently used models, newest first; anything malformed in the stored list is skipped. */
export function recentModels(memento: vscode.Memento): RecentModel[] {
  const stored: unknown = memento.get(RECENT_KEY);
  if (!Array.isArray(stored)) return [];
  return stored
    .flatMap((entry: unknown): RecentModel[] => {
      if (typeof entry !== "object" || entry === null) return [];
      const { provider, id } = entry as Record<string, unknown>;
      return isProviderId(provider) && typeof id === "string" && id.length <= 200 ? [{ provider, id }] : [];
    })
    .slice(0, RECENT_COUNT);
}

/** Puts a chosen model first in the recently used list. */
export async function rememberModel(memento: vscode.Memento, model: RecentModel): Promise<void> {
  const rest = recentModels(memento).filter((m) => m.provider !== model.provider || m.id !== model.id);
  await memento.update(RECENT_KEY, [model, ...rest].slice(0, RECENT_COUNT));
}

/** "GROQ_API_KEY", "GEMINI_API_KEY or GOOGLE_API_KEY": the variables read for a provider's key. */
export function envVarsText(provider: ProviderId): string {
  return ENV_VARS[provider].join(" or ");
}

/** The separator above the cloud providers without a key, one row each. */
const OTHER_CLOUD_LABEL = "More cloud providers (set a key to list their models)";

/** Anthropic, OpenAI and Google: their models are listed even before a key is set. */
const FEATURED: ReadonlySet<string> = new Set(["anthropic", "openai", "google"]);

type IsCurrent = (provider: ProviderId, id: string) => boolean;

/** One model's row. */
export function modelRow(provider: ProviderId, m: ListedModel, isCurrent: IsCurrent, note?: string): ModelItem {
  const notes = [
    m.id,
    ...(note ? [note] : []),
    ...(m.id === DEFAULT_MODELS[provider] ? ["recommended"] : []),
    ...(isCurrent(provider, m.id) ? ["this chat's"] : []),
  ];
  return { label: `${isCurrent(provider, m.id) ? "$(check) " : ""}${m.name}`, description: notes.join(" · "), action: "model", provider, id: m.id };
}

/** "Recently used": the last models chosen, by name where the catalog knows them. */
export function recentItems(
  recent: readonly RecentModel[],
  nameOf: (provider: ProviderId, id: string) => string | undefined,
  isCurrent: IsCurrent,
): ModelItem[] {
  if (recent.length === 0) return [];
  return [
    { label: "Recently used", kind: vscode.QuickPickItemKind.Separator, action: "model" },
    ...recent.map((r) => modelRow(r.provider, { id: r.id, name: nameOf(r.provider, r.id) ?? r.id }, isCurrent, PROVIDER_TITLES[r.provider])),
  ];
}

/**
 * The cloud providers: those with a key, each under its name with its models ("configured"), then
 * one row per provider without a key, which asks for it ("cloud").
 */
export function cloudItems(
  configured: ReadonlySet<CloudProviderId>,
  listModels: (provider: CloudProviderId) => ListedModel[],
  isCurrent: IsCurrent,
  signIn: SignInState = { offers: () => false, signedIn: new Set() },
): { configured: ModelItem[]; cloud: ModelItem[] } {
  const withKey: ModelItem[] = [];
  const without: ModelItem[] = [];
  for (const { id: provider } of CLOUD_PROVIDERS) {
    if (!configured.has(provider) && FEATURED.has(provider)) {
      // The three most users have keep their models listed; choosing one asks for the key then.
      without.push({ label: `${PROVIDER_TITLES[provider]} (no key yet)`, kind: vscode.QuickPickItemKind.Separator, action: "model" });
      if (signIn.offers(provider)) without.push(signInRow(provider));
      for (const m of orderModels(listModels(provider), DEFAULT_MODELS[provider] || undefined)) without.push(modelRow(provider, m, isCurrent));
      continue;
    }
    if (!configured.has(provider)) {
      if (!without.some((i) => i.label === OTHER_CLOUD_LABEL))
        without.push({ label: OTHER_CLOUD_LABEL, kind: vscode.QuickPickItemKind.Separator, action: "model" });
      without.push({
        label: `$(key) ${PROVIDER_TITLES[provider]}`,
        description: `set a key (or ${envVarsText(provider)})`,
        action: "setupProvider",
        provider,
      });
      if (signIn.offers(provider)) without.push(signInRow(provider));
      continue;
    }
    withKey.push({
      label: `${PROVIDER_TITLES[provider]} (${signIn.signedIn.has(provider) ? "signed in" : "key set"})`,
      kind: vscode.QuickPickItemKind.Separator,
      action: "model",
    });
    for (const m of orderModels(listModels(provider), DEFAULT_MODELS[provider] || undefined)) withKey.push(modelRow(provider, m, isCurrent));
  }
  return { configured: withKey, cloud: without };
}

/** Which providers have a sign-in flow, and which are signed in (a sign-in counts as configured). */
export interface SignInState {
  offers: (provider: string) => boolean;
  signedIn: ReadonlySet<string>;
}

/** "Sign in to OpenAI…" beside the provider's key row: its flow opens the provider's page in the browser. */
function signInRow(provider: CloudProviderId): ModelItem {
  const flow = SIGN_IN_PROVIDERS.find((p) => p.id === provider);
  return { label: `$(sign-in) Sign in to ${PROVIDER_TITLES[provider]}…`, description: flow?.label ?? "sign in in your browser", action: "signIn", provider };
}

/**
 * Asks for what the provider needs beyond its key (Azure's resource, Cloudflare's account…), each
 * checked against its shape, into the user's settings; `onlyMissing` skips those already set. False
 * when the user dismissed a box that a run needs.
 */
export async function askProviderOptions(provider: ProviderId, onlyMissing: boolean): Promise<boolean> {
  for (const option of providerOptions(provider)) {
    const rule = PROVIDER_OPTION_RULES[option];
    const current = setting(option).trim();
    if (onlyMissing && optionProblem(option, current) === undefined) continue;
    const value = await vscode.window.showInputBox({
      title: `Pi Chat: ${PROVIDER_TITLES[provider]} needs ${rule.title}`,
      prompt: `Kept in your user settings (piChat.${option}), never a workspace's. For example ${rule.example}.`,
      value: current,
      ignoreFocusOut: true,
      validateInput: (text) => {
        const problem = optionProblem(option, text.trim());
        return problem ? `Not usable: ${problem}.` : undefined;
      },
    });
    if (value === undefined) return !rule.required;
    await updateUserSetting(option, value.trim() || undefined);
  }
  return true;
}
