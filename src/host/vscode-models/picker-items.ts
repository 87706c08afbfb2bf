// The model picker's group of VS Code's own language models: each with its vendor and family, the
// consent VS Code asks for on first use said beforehand, and the way out when there are none.
import * as vscode from "vscode";
import type { ModelItem } from "../models/model-item";
import { applyModelChoice } from "../models/model-choice";
import { VSCODE_LM, type ProviderId } from "../providers/catalog";
import type { ChatStatus } from "../views/view-status";
import { listVscodeModels, lmAvailable, providerApiAvailable, type VscodeModelInfo } from "./lm-api";

/** The group's title in the picker. */
export const VSCODE_GROUP_TITLE = "VS Code language models (no key: VS Code asks whether Pi Chat may use them)";

/**
 * The group's items: a separator and one item per model; where VS Code could serve models from
 * an extension but has none, one item saying how to get some. [] on a VS Code without the API, or
 * with neither models nor a provider API (1.100 without Copilot): the provider is simply absent.
 */
export async function vscodeModelItems(isCurrent: (provider: ProviderId, id: string) => boolean, log: (line: string) => void): Promise<ModelItem[]> {
  if (!lmAvailable()) return [];
  let models: Awaited<ReturnType<typeof listVscodeModels>>;
  try {
    models = await listVscodeModels();
  } catch (error) {
    log(`listing VS Code's language models: ${error instanceof Error ? error.message : String(error)}`);
    return [];
  }
  const separator: ModelItem = { label: VSCODE_GROUP_TITLE, kind: vscode.QuickPickItemKind.Separator, action: "model" };
  if (models.length === 0) {
    if (!providerApiAvailable()) return [];
    return [
      separator,
      {
        label: "$(info) VS Code has no language models yet",
        detail: "Install or sign in to an extension that provides them (GitHub Copilot, or another model provider), then choose again.",
        action: "none",
        alwaysShow: true,
      },
    ];
  }
  return [
    separator,
    ...models.map((m): ModelItem => {
      const current = isCurrent(VSCODE_LM, m.key);
      const notes = [m.vendor, m.family, ...(m.toolCalling === false ? ["takes no tools"] : []), ...(current ? ["this chat's"] : [])];
      return { label: `${current ? "$(check) " : ""}${m.name}`, description: notes.join(" · "), action: "model", provider: VSCODE_LM, id: m.key };
    }),
  ];
}

/** What a user without VS Code models reads, with the way out. */
const NO_MODELS =
  "Pi Chat: VS Code has no language models yet. Install or sign in to an extension that provides them (GitHub Copilot, or another model provider), then try again; or choose a provider with a key, or a local model.";

/**
 * "Use the models VS Code already has" (the empty chat's first offer, the walkthrough): one of
 * VS Code's models (asked when there are several; those that can call tools first) becomes this
 * chat's model and the default for new chats. No key: VS Code asks on the first request.
 */
export async function useVscodeModels(status: ChatStatus, log: (line: string) => void): Promise<void> {
  let models: readonly VscodeModelInfo[] = [];
  try {
    models = await listVscodeModels();
  } catch (error) {
    log(`listing VS Code's language models: ${error instanceof Error ? error.message : String(error)}`);
  }
  const usable = [...models].sort((a, b) => Number(a.toolCalling === false) - Number(b.toolCalling === false));
  if (usable.length === 0) {
    void vscode.window.showInformationMessage(NO_MODELS);
    return;
  }
  let chosen = usable[0];
  if (usable.length > 1) {
    const picked = await vscode.window.showQuickPick(
      usable.map((m) => ({ label: m.name, description: [m.vendor, m.family, ...(m.toolCalling === false ? ["takes no tools"] : [])].join(" · "), model: m })),
      {
        title: "Pi Chat: use a model VS Code already has",
        placeHolder: "No key needed. VS Code asks whether Pi Chat may use these models the first time you send.",
        ignoreFocusOut: true,
      },
    );
    if (!picked) return;
    chosen = picked.model;
  }
  if (!chosen) return;
  await applyModelChoice({ provider: VSCODE_LM, model: chosen.key });
  await status.setChatModel({ provider: VSCODE_LM, modelId: chosen.key }, { madeDefault: true });
}
