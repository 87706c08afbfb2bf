// The API key prompt, one for "Pi Chat: Set API Key" and for the model picker when the chosen
// model's provider has no key yet (asked then and there, not at the first failed request). The
// provider offered as "this chat's" is the one the chat on screen uses, not the settings' default.
import * as vscode from "vscode";
import { apiKeyProblem, ENV_VARS } from "../providers/catalog";
import { PROVIDER_TITLES } from "./chat-model";
import { PROVIDER_IDS, type ProviderId, type SecretKeys } from "./providers-loader";

/** The providers most users have, and the local server: first in Set API Key's list, after the chat's own. */
const LISTED_FIRST: ReadonlySet<ProviderId> = new Set<ProviderId>(["anthropic", "openai", "google", "openai-compatible"]);

/** "Pi Chat: Set API Key": which provider (the chat's own marked), then the key. */
export async function setApiKey(secrets: SecretKeys, chatProvider: ProviderId): Promise<void> {
  // The chat's own provider first, then Anthropic, OpenAI, Google and the local server, then the others by name.
  const rank = (id: ProviderId) => (id === chatProvider ? 0 : LISTED_FIRST.has(id) ? 1 : 2);
  const ordered = [...PROVIDER_IDS].sort((a, b) => rank(a) - rank(b));
  const picked = await vscode.window.showQuickPick(
    ordered.map((id) => ({
      label: PROVIDER_TITLES[id],
      description: [...(id === chatProvider ? ["this chat's provider"] : []), ...ENV_VARS[id]].join(" · "),
      id,
    })),
    { placeHolder: "Which provider is the API key for?" },
  );
  if (picked) await askForApiKey(secrets, picked.id);
}

/** Whether a run of `provider` would find a key (stored, or in the environment). */
export async function hasApiKey(secrets: SecretKeys, provider: ProviderId): Promise<boolean> {
  if (provider === "openai-compatible") return true; // a local server needs none
  if (ENV_VARS[provider].some((name) => process.env[name]?.trim())) return true;
  try {
    return Boolean((await secrets.get(provider))?.trim());
  } catch {
    return false;
  }
}

/** The key's input box for `provider`; empty removes the stored key. */
export async function askForApiKey(secrets: SecretKeys, provider: ProviderId, why?: string): Promise<void> {
  const value = await vscode.window.showInputBox({
    title: `Pi Chat: API key for ${PROVIDER_TITLES[provider]}`,
    prompt: `${why ? `${why} ` : ""}Stored in VS Code's secret storage for ${PROVIDER_TITLES[provider]} only.${envNote(provider)} Leave empty to remove the stored key.`,
    password: true,
    ignoreFocusOut: true,
    validateInput: (text) => {
      const problem = text.trim() === "" ? undefined : apiKeyProblem(text);
      return problem ? `This is not an API key: ${problem}` : undefined;
    },
  });
  if (value === undefined) return;
  if (value.trim() === "") {
    await secrets.delete(provider);
    void vscode.window.showInformationMessage(`Pi Chat: removed the ${PROVIDER_TITLES[provider]} API key.`);
    return;
  }
  try {
    await secrets.set(provider, value.trim());
  } catch (error) {
    void vscode.window.showErrorMessage(error instanceof Error ? error.message : String(error));
    return;
  }
  void vscode.window.showInformationMessage(`Pi Chat: saved the ${PROVIDER_TITLES[provider]} API key.`);
}

/** Where else the key is read from: " Without one, GROQ_API_KEY is read." (none for a local server). */
function envNote(provider: ProviderId): string {
  const vars = ENV_VARS[provider];
  return vars.length > 0 ? ` Without one, ${vars.join(" or ")} ${vars.length > 1 ? "are" : "is"} read.` : "";
}
