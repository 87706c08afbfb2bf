// "Pi Chat: Choose Model for This Chat" (the header's model button): provider and model as
// Select Model offers them, then the thinking level where the model has one, saved in the chat's
// transcript (a model line), not in the settings. The settings stay the default of new chats.
import * as vscode from "vscode";
import type { ChatModelChoice } from "../core/transcript";
import { settingsForChat } from "./chat-model";
import type { ChatController } from "./controller";
import { PROVIDER_IDS, PROVIDER_LABELS, isProviderId } from "./providers/catalog";
import { loadProviders, readProviderSettings } from "./providers-loader";

/** Levels pi-ai knows, to check an argument (a keybinding's or a test's). */
const THINKING_LEVELS = new Set(["off", "minimal", "low", "medium", "high", "xhigh", "max"]);

/** A choice passed as the command's argument: `{ provider, model, thinkingLevel? }`. */
export function asChatModelChoice(value: unknown): ChatModelChoice | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { provider, model, thinkingLevel } = value as Record<string, unknown>;
  if (!isProviderId(provider) || typeof model !== "string" || model.length > 200) return undefined;
  if (thinkingLevel !== undefined && (typeof thinkingLevel !== "string" || !THINKING_LEVELS.has(thinkingLevel))) return undefined;
  return { provider, modelId: model.trim(), ...(thinkingLevel ? { thinkingLevel } : {}) };
}

export function registerChatModelCommand(controller: ChatController): vscode.Disposable {
  return vscode.commands.registerCommand("piChat.selectChatModel", async (argument?: unknown) => {
    const given = asChatModelChoice(argument);
    const choice = given ?? (await pickChatModel(controller.currentSession.model));
    if (choice) await controller.setChatModel(choice);
  });
}

async function pickChatModel(current: ChatModelChoice | undefined): Promise<ChatModelChoice | undefined> {
  const settings = settingsForChat(readProviderSettings(), current);
  const provider = (
    await vscode.window.showQuickPick(
      PROVIDER_IDS.map((id) => ({ label: PROVIDER_LABELS[id], description: id === settings.provider ? "this chat's" : "", id })),
      { placeHolder: "Model for this chat: which provider?" },
    )
  )?.id;
  if (!provider) return undefined;
  const providers = loadProviders();
  let model: string | undefined;
  if (provider === "openai-compatible") {
    // The server's URL stays a user setting (Select Model sets it): only the model id is the chat's.
    model = await vscode.window.showInputBox({
      title: "Pi Chat: model for this chat (the OpenAI-compatible server in your settings serves it)",
      value: settings.provider === provider ? settings.model : "",
      ignoreFocusOut: true,
    });
  } else {
    const picked = await vscode.window.showQuickPick(
      providers.listModels(provider).map((m) => ({ label: m.name, description: m.id, id: m.id })),
      { placeHolder: `${PROVIDER_LABELS[provider]} model for this chat`, matchOnDescription: true },
    );
    model = picked?.id;
  }
  if (model === undefined) return undefined;
  const levels = providers.thinkingLevels({ provider, model });
  let thinkingLevel: string | undefined;
  if (levels.length > 1) {
    const picked = await vscode.window.showQuickPick(
      levels.map((level) => ({ label: level, description: level === (current?.thinkingLevel ?? "off") ? "current" : "" })),
      { placeHolder: "Thinking level for this chat" },
    );
    if (!picked) return undefined;
    thinkingLevel = picked.label;
  }
  return { provider, modelId: model.trim(), ...(thinkingLevel && thinkingLevel !== "off" ? { thinkingLevel } : {}) };
}
